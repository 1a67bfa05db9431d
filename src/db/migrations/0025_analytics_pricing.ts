import { type Kysely, sql } from 'kysely';

/** One day in milliseconds; rollup days are epoch milliseconds of 00:00 UTC. */
const DAY_MS = 86_400_000;
const COLUMNS = ['discount_total', 'shipping_total', 'tax_total'] as const;

/**
 * Analytics summaries gain the discounts, shipping and tax of the orders captured in a period:
 * `analytics_daily` gains `discount_total`, `shipping_total` and `tax_total`, filled from the
 * orders whose payment was captured, on the day of the capture (`paid_at`), as the rollup
 * listener adds them. Self-contained SQL, frozen as it was written.
 *
 * Nothing else needs computing again. Revenue now goes down by each refund's amount on the day of
 * the refund, and products and categories count what the buyer paid for a line; the only refunds
 * before this release were whole ones, which migration 0022 carried into `refunds` by their order's
 * total and lines, dated when the money went back, and their lines' `paid` is their `total`:
 * exactly what and when the rollups had already counted.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of COLUMNS) {
    await db.schema
      .alterTable('analytics_daily')
      .addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  }
  // Literals, not parameters: PostgreSQL matches a GROUP BY expression to the select list by its text.
  const D = sql.lit(DAY_MS);
  // Only days with such orders: a release without pricing leaves every day at 0.
  await sql`
    UPDATE analytics_daily
    SET discount_total = p.discount_total, shipping_total = p.shipping_total, tax_total = p.tax_total
    FROM (
      SELECT o.tenant_id, o.currency, o.paid_at - o.paid_at % ${D} AS day,
        SUM(o.discount_total) AS discount_total, SUM(o.shipping_total) AS shipping_total,
        SUM(o.tax_total) AS tax_total
      FROM orders o
      WHERE o.paid_at IS NOT NULL AND (o.discount_total <> 0 OR o.shipping_total <> 0 OR o.tax_total <> 0)
      GROUP BY o.tenant_id, o.currency, o.paid_at - o.paid_at % ${D}
    ) p
    WHERE analytics_daily.tenant_id = p.tenant_id AND analytics_daily.currency = p.currency
      AND analytics_daily.day = p.day`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of COLUMNS) {
    await db.schema.alterTable('analytics_daily').dropColumn(column).execute();
  }
}
