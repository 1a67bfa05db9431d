import { type Expression, type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Database, OrderStatus } from '../../db/schema.js';
import { DAY_MS, MAX_PERIOD_DAYS } from './analytics.periods.js';
import { type RefundedLine, refundShares } from './analytics.refunds.js';

/**
 * The rebuild of the analytics rollup tables (migration 0010) from the orders, their lines and
 * their refunds: set-based SQL giving the rows the event listener (analytics.rollups.ts) writes
 * one change at a time. Runs in the caller's transaction.
 */

/** The rebuild's scratch table: one row per refund and line it takes from (signed, negative). */
const SHARES = sql.table('analytics_refund_shares');
/** Refunds read at a time by the rebuild; their shares are written 1,000 rows per statement. */
const REFUNDS_PAGE = 2_000;
const SHARES_PER_INSERT = 1_000;

/**
 * Every refund of a captured order of the tenant (or of all), split over its order's lines by
 * `refundShares`, into the scratch table; a page of refunds and their orders' lines at a time.
 */
async function writeRefundShares(trx: Kysely<Database>, tenantId: string | undefined): Promise<void> {
  let after: { order: string; id: string } | undefined;
  for (;;) {
    let query = trx
      .selectFrom('refunds as r')
      .innerJoin('orders as o', 'o.id', 'r.order_id')
      .select([
        'r.id',
        'r.order_id',
        'r.amount',
        'r.shipping',
        'r.items',
        'r.created',
        'o.tenant_id',
        'o.currency',
        'o.shipping_paid',
      ])
      .where('o.paid_at', 'is not', null);
    if (tenantId !== undefined) query = query.where('r.tenant_id', '=', tenantId);
    if (after !== undefined) {
      const { order, id } = after;
      query = query.where((eb) =>
        eb.or([eb('r.order_id', '>', order), eb.and([eb('r.order_id', '=', order), eb('r.id', '>', id)])]),
      );
    }
    const refunds = await query.orderBy('r.order_id').orderBy('r.id').limit(REFUNDS_PAGE).execute();
    const last = refunds[refunds.length - 1];
    if (last === undefined) return;
    after = { order: last.order_id, id: last.id };

    const lineRows = await trx
      .selectFrom('order_items')
      .select(['order_id', 'position', 'product_id', 'variant_id', 'category', 'paid'])
      .where('order_id', 'in', [...new Set(refunds.map((r) => r.order_id))])
      .execute();
    const linesOf = new Map<string, RefundedLine[]>();
    for (const row of lineRows) {
      const list = linesOf.get(row.order_id) ?? [];
      list.push({ ...row, position: Number(row.position), paid: Number(row.paid) });
      linesOf.set(row.order_id, list);
    }
    const rows: RawBuilder<unknown>[] = [];
    for (const refund of refunds) {
      const items = (
        JSON.parse(refund.items) as { variant_id: string; quantity: unknown; amount: unknown }[]
      ).map((item) => ({
        variant_id: item.variant_id,
        quantity: Number(item.quantity),
        amount: Number(item.amount),
      }));
      const day = Number(refund.created) - (Number(refund.created) % DAY_MS);
      const shares = refundShares(linesOf.get(refund.order_id) ?? [], Number(refund.shipping_paid), {
        amount: Number(refund.amount),
        shipping: Number(refund.shipping),
        items,
      });
      for (const { line, units, revenue } of shares) {
        rows.push(
          sql`(${refund.tenant_id}, ${refund.currency}, ${line.product_id}, ${line.category ?? ''},
            ${day}, ${-units}, ${-revenue})`,
        );
      }
    }
    for (let i = 0; i < rows.length; i += SHARES_PER_INSERT) {
      await sql`INSERT INTO ${SHARES} (tenant_id, currency, product_id, category, day, units, revenue)
        VALUES ${sql.join(rows.slice(i, i + SHARES_PER_INSERT))}`.execute(trx);
    }
    if (refunds.length < REFUNDS_PAGE) return;
  }
}

/**
 * Recomputes every rollup of one tenant (or of all tenants) from the orders, their lines and their
 * refunds, with the same definitions the event listener applies one change at a time. Runs in `trx`.
 */
export async function rebuildRollups(trx: Kysely<Database>, tenantId?: string): Promise<void> {
  const tables = [
    'analytics_reach',
    'analytics_customer_days',
    'analytics_members',
    'analytics_running',
    'analytics_daily',
    'analytics_orders',
    'analytics_currencies',
  ] as const;
  for (const table of tables) {
    let query = trx.deleteFrom(table);
    if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
    await query.execute();
  }
  // Literals, not parameters: PostgreSQL matches a GROUP BY expression to the select list by its text.
  const D = sql.lit(DAY_MS);
  const tenant = (column: string): Expression<SqlBool> =>
    tenantId === undefined ? sql<SqlBool>`1 = 1` : sql<SqlBool>`${sql.ref(column)} = ${tenantId}`;
  // Orders whose payment was captured, and the refunds of those orders (each on its own day).
  const captured = sql`(
    SELECT o.id, o.tenant_id, o.currency, o.customer_id, o.total, o.paid_at,
      o.discount_total, o.shipping_total, o.tax_total
    FROM orders o WHERE o.paid_at IS NOT NULL AND ${tenant('o.tenant_id')})`;
  const refunded = sql`(
    SELECT o.tenant_id, o.currency, o.customer_id, r.amount, r.created - r.created % ${D} AS day
    FROM refunds r JOIN orders o ON o.id = r.order_id
    WHERE o.paid_at IS NOT NULL AND ${tenant('o.tenant_id')})`;
  const units = sql`(SELECT SUM(i.quantity) FROM order_items i WHERE i.order_id = c.id)`;
  // What each refund takes from each line (analytics.refunds.ts): computed here, not in SQL.
  await sql`CREATE TEMPORARY TABLE IF NOT EXISTS ${SHARES} (tenant_id text NOT NULL,
    currency text NOT NULL, product_id text NOT NULL, category text NOT NULL, day bigint NOT NULL,
    units bigint NOT NULL, revenue bigint NOT NULL)`.execute(trx);
  await sql`DELETE FROM ${SHARES}`.execute(trx);
  await writeRefundShares(trx, tenantId);

  await sql`
    INSERT INTO analytics_currencies (tenant_id, currency, orders)
    SELECT o.tenant_id, o.currency, COUNT(*) FROM orders o WHERE ${tenant('o.tenant_id')}
    GROUP BY o.tenant_id, o.currency`.execute(trx);

  await sql`
    INSERT INTO analytics_orders (order_id, tenant_id, currency, day, status, customer_id)
    SELECT o.id, o.tenant_id, o.currency, o.created - o.created % ${D}, o.status, o.customer_id
    FROM orders o WHERE ${tenant('o.tenant_id')}`.execute(trx);

  const statusSum = (status: OrderStatus) => sql`SUM(CASE WHEN o.status = ${status} THEN 1 ELSE 0 END)`;
  // Rows that move nothing are left out, as the listener writes nothing for them.
  await sql`
    INSERT INTO analytics_daily (tenant_id, currency, day, orders, paid_orders, paid_value,
      status_pending, status_paid, status_shipped, status_delivered, status_cancelled, status_refunded,
      captured_amount, refunded_amount, units_sold, discount_total, shipping_total, tax_total)
    SELECT tenant_id, currency, day, SUM(orders), SUM(paid_orders), SUM(paid_value),
      SUM(s_pending), SUM(s_paid), SUM(s_shipped), SUM(s_delivered), SUM(s_cancelled), SUM(s_refunded),
      SUM(captured_amount), SUM(refunded_amount), SUM(units_sold),
      SUM(discount_total), SUM(shipping_total), SUM(tax_total)
    FROM (
      SELECT o.tenant_id, o.currency, o.created - o.created % ${D} AS day, COUNT(*) AS orders,
        SUM(CASE WHEN o.paid_at IS NOT NULL THEN 1 ELSE 0 END) AS paid_orders,
        SUM(CASE WHEN o.paid_at IS NOT NULL THEN o.total ELSE 0 END) AS paid_value,
        ${statusSum('pending')} AS s_pending, ${statusSum('paid')} AS s_paid,
        ${statusSum('shipped')} AS s_shipped, ${statusSum('delivered')} AS s_delivered,
        ${statusSum('cancelled')} AS s_cancelled, ${statusSum('refunded')} AS s_refunded,
        0 AS captured_amount, 0 AS refunded_amount, 0 AS units_sold,
        0 AS discount_total, 0 AS shipping_total, 0 AS tax_total
      FROM orders o WHERE ${tenant('o.tenant_id')}
      GROUP BY o.tenant_id, o.currency, o.created - o.created % ${D}
      UNION ALL
      SELECT c.tenant_id, c.currency, c.paid_at - c.paid_at % ${D}, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        c.total, 0, ${units}, c.discount_total, c.shipping_total, c.tax_total
      FROM ${captured} c
      UNION ALL
      SELECT r.tenant_id, r.currency, r.day, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, r.amount, 0, 0, 0, 0
      FROM ${refunded} r WHERE r.amount <> 0
      UNION ALL
      SELECT s.tenant_id, s.currency, s.day, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, s.units, 0, 0, 0
      FROM ${SHARES} s WHERE s.units <> 0
    ) x
    GROUP BY tenant_id, currency, day`.execute(trx);

  // Lines of captured orders (what the buyer paid for each), and what refunds took back from them.
  const lines = sql`(
    SELECT c.tenant_id, c.currency, i.product_id, COALESCE(i.category, '') AS category,
      c.paid_at - c.paid_at % ${D} AS day, i.quantity AS units, i.paid AS revenue
    FROM ${captured} c JOIN order_items i ON i.order_id = c.id
    UNION ALL
    SELECT s.tenant_id, s.currency, s.product_id, s.category, s.day, s.units, s.revenue
    FROM ${SHARES} s)`;
  for (const [dimension, column] of [
    ['product', 'product_id'],
    ['category', 'category'],
  ] as const) {
    await sql`
      INSERT INTO analytics_running (tenant_id, currency, dimension, member, day, units, revenue, lines)
      SELECT tenant_id, currency, ${dimension}, member, day,
        SUM(units) OVER w, SUM(revenue) OVER w, SUM(lines) OVER w
      FROM (
        SELECT l.tenant_id, l.currency, l.${sql.ref(column)} AS member, l.day,
          SUM(l.units) AS units, SUM(l.revenue) AS revenue, COUNT(*) AS lines
        FROM ${lines} l
        GROUP BY l.tenant_id, l.currency, l.${sql.ref(column)}, l.day
      ) g
      WINDOW w AS (PARTITION BY tenant_id, currency, member ORDER BY day ROWS UNBOUNDED PRECEDING)`.execute(
      trx,
    );
  }
  await sql`DROP TABLE ${SHARES}`.execute(trx);
  // Products are named as on their latest captured line (on a tie, the greater name).
  const latestLine = (column: 'i.name' | 'o.paid_at') => sql`(
    SELECT ${sql.raw(column)} FROM order_items i JOIN orders o ON o.id = i.order_id
    WHERE i.tenant_id = g.tenant_id AND i.product_id = g.member AND o.currency = g.currency
      AND o.paid_at IS NOT NULL
    ORDER BY o.paid_at DESC, i.name DESC LIMIT 1)`;
  await sql`
    INSERT INTO analytics_members (tenant_id, currency, dimension, member, name, name_at, first_day, last_day)
    SELECT g.tenant_id, g.currency, g.dimension, g.member,
      CASE WHEN g.dimension = 'product' THEN ${latestLine('i.name')} END,
      CASE WHEN g.dimension = 'product' THEN ${latestLine('o.paid_at')} END,
      g.first_day, g.last_day
    FROM (
      SELECT r.tenant_id, r.currency, r.dimension, r.member, MIN(r.day) AS first_day, MAX(r.day) AS last_day
      FROM analytics_running r WHERE ${tenant('r.tenant_id')}
      GROUP BY r.tenant_id, r.currency, r.dimension, r.member
    ) g`.execute(trx);

  await sql`
    INSERT INTO analytics_customer_days (tenant_id, currency, customer_id, day, orders, revenue,
      first_order_at, last_order_at)
    SELECT tenant_id, currency, customer_id, day, SUM(orders), SUM(revenue), MIN(first_at), MAX(last_at)
    FROM (
      SELECT o.tenant_id, o.currency, o.customer_id, o.created - o.created % ${D} AS day, 1 AS orders,
        0 AS revenue, o.created AS first_at, o.created AS last_at
      FROM orders o WHERE ${tenant('o.tenant_id')}
      UNION ALL
      SELECT c.tenant_id, c.currency, c.customer_id, c.paid_at - c.paid_at % ${D}, 0, c.total, NULL, NULL
      FROM ${captured} c
      UNION ALL
      SELECT r.tenant_id, r.currency, r.customer_id, r.day, 0, -r.amount, NULL, NULL
      FROM ${refunded} r
    ) x
    GROUP BY tenant_id, currency, customer_id, day`.execute(trx);

  // Customers are named as on their latest order that gave a name (on a tie, the greater name).
  const latestName = (column: 'o.customer_name' | 'o.created') => sql`(
    SELECT ${sql.raw(column)} FROM orders o
    WHERE o.tenant_id = g.tenant_id AND o.customer_id = g.customer_id AND o.currency = g.currency
      AND o.customer_name IS NOT NULL
    ORDER BY o.created DESC, o.customer_name DESC LIMIT 1)`;
  await sql`
    INSERT INTO analytics_members (tenant_id, currency, dimension, member, name, name_at, first_day, last_day)
    SELECT g.tenant_id, g.currency, 'customer', g.customer_id,
      ${latestName('o.customer_name')}, ${latestName('o.created')}, g.first_day, g.last_day
    FROM (
      SELECT d.tenant_id, d.currency, d.customer_id, MIN(d.day) AS first_day, MAX(d.day) AS last_day
      FROM analytics_customer_days d WHERE ${tenant('d.tenant_id')}
      GROUP BY d.tenant_id, d.currency, d.customer_id
    ) g`.execute(trx);

  // Each customer's order days with the previous one (clamped), then per day the running count by it.
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
            PARTITION BY d.tenant_id, d.currency, d.customer_id ORDER BY d.day) AS previous
          FROM analytics_customer_days d WHERE d.orders > 0 AND ${tenant('d.tenant_id')}
        ) p
      ) s
      GROUP BY tenant_id, currency, day, since
    ) g`.execute(trx);
}
