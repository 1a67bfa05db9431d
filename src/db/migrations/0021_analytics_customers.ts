import { type Kysely, sql } from 'kysely';

const DAY_MS = 86_400_000;
/** The longest period analytics answers, in days (as `MAX_PERIOD_DAYS` was when this was written). */
const MAX_PERIOD_DAYS = 366;

/**
 * Analytics count customers (migration 0020), not the emails their orders gave: a customer who
 * changes its email stays one customer, and the rollups hold no email at all (a redacted customer
 * leaves nothing behind in them). The customer columns of `analytics_orders` and
 * `analytics_customer_days` become `customer_id`, and the customer-keyed rows (customer days,
 * customer members, reach) are computed again from the orders, as the live rebuild does; the
 * daily, product and category rollups do not depend on who bought and stay as they are.
 * Self-contained SQL, frozen as it was written.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('analytics_orders').renameColumn('customer_email', 'customer_id').execute();
  await db.schema
    .alterTable('analytics_customer_days')
    .renameColumn('customer_email', 'customer_id')
    .execute();
  await recompute(db, 'customer_id');
}

/** Back to emails: the columns are renamed back and the same rows computed from the orders' emails. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('analytics_orders').renameColumn('customer_id', 'customer_email').execute();
  await db.schema
    .alterTable('analytics_customer_days')
    .renameColumn('customer_id', 'customer_email')
    .execute();
  await recompute(db, 'customer_email');
}

/** The customer-keyed rollups computed from the orders, keyed by `key` (an orders column of that name). */
async function recompute(db: Kysely<unknown>, key: 'customer_id' | 'customer_email'): Promise<void> {
  const k = sql.raw(key);
  await sql`UPDATE analytics_orders SET ${k} = (
    SELECT o.${k} FROM orders o WHERE o.id = analytics_orders.order_id)`.execute(db);
  await sql`DELETE FROM analytics_customer_days`.execute(db);
  await sql`DELETE FROM analytics_members WHERE dimension = 'customer'`.execute(db);
  await sql`DELETE FROM analytics_reach`.execute(db);

  const D = sql.lit(DAY_MS);
  const refundAt = sql`COALESCE(o.refunded_at, o.cancelled_at)`;
  const captured = sql`(
    SELECT o.id, o.tenant_id, o.currency, o.${k}, o.total, o.paid_at,
      CASE WHEN o.status IN ('refunded', 'cancelled') THEN ${refundAt} END AS refund_at
    FROM orders o WHERE o.paid_at IS NOT NULL)`;
  await sql`
    INSERT INTO analytics_customer_days (tenant_id, currency, ${k}, day, orders, revenue,
      first_order_at, last_order_at)
    SELECT tenant_id, currency, ${k}, day, SUM(orders), SUM(revenue), MIN(first_at), MAX(last_at)
    FROM (
      SELECT o.tenant_id, o.currency, o.${k}, o.created - o.created % ${D} AS day, 1 AS orders,
        0 AS revenue, o.created AS first_at, o.created AS last_at
      FROM orders o
      UNION ALL
      SELECT c.tenant_id, c.currency, c.${k}, c.paid_at - c.paid_at % ${D}, 0, c.total, NULL, NULL
      FROM ${captured} c
      UNION ALL
      SELECT c.tenant_id, c.currency, c.${k}, c.refund_at - c.refund_at % ${D}, 0, -c.total, NULL, NULL
      FROM ${captured} c WHERE c.refund_at IS NOT NULL
    ) x
    GROUP BY tenant_id, currency, ${k}, day`.execute(db);

  const latestName = (column: 'o.customer_name' | 'o.created') => sql`(
    SELECT ${sql.raw(column)} FROM orders o
    WHERE o.tenant_id = g.tenant_id AND o.${k} = g.${k} AND o.currency = g.currency
      AND o.customer_name IS NOT NULL
    ORDER BY o.created DESC, o.customer_name DESC LIMIT 1)`;
  await sql`
    INSERT INTO analytics_members (tenant_id, currency, dimension, member, name, name_at, first_day, last_day)
    SELECT g.tenant_id, g.currency, 'customer', g.${k},
      ${latestName('o.customer_name')}, ${latestName('o.created')}, g.first_day, g.last_day
    FROM (
      SELECT d.tenant_id, d.currency, d.${k}, MIN(d.day) AS first_day, MAX(d.day) AS last_day
      FROM analytics_customer_days d
      GROUP BY d.tenant_id, d.currency, d.${k}
    ) g`.execute(db);

  const floor = sql.lit(MAX_PERIOD_DAYS * DAY_MS);
  await sql`
    INSERT INTO analytics_reach (tenant_id, currency, day, since, n)
    SELECT tenant_id, currency, day, since, SUM(customers) OVER (
      PARTITION BY tenant_id, currency, day ORDER BY since ROWS UNBOUNDED PRECEDING)
    FROM (
      SELECT tenant_id, currency, day, since, COUNT(*) AS customers
      FROM (
        SELECT tenant_id, currency, day,
          CASE WHEN previous IS NULL OR previous < day - ${floor} THEN day - ${floor} ELSE previous END AS since
        FROM (
          SELECT d.tenant_id, d.currency, d.day, LAG(d.day) OVER (
            PARTITION BY d.tenant_id, d.currency, d.${k} ORDER BY d.day) AS previous
          FROM analytics_customer_days d WHERE d.orders > 0
        ) p
      ) s
      GROUP BY tenant_id, currency, day, since
    ) g`.execute(db);
}
