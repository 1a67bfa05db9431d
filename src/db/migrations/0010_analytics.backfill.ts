import { type Kysely, sql } from 'kysely';

/**
 * The backfill of migration 0010, frozen as it was written: rolls up the orders a store already
 * holds when the analytics tables are created. It reads the orders and order lines as migration
 * 0003 made them and writes the tables as 0010 makes them, and imports no module code, so later
 * changes to the analytics module (or to the live rebuild, analytics.rebuild.ts
 * `rebuildRollups`) cannot break the upgrade of an old store. Do not change what it computes.
 */

/** One day in milliseconds; days are epoch milliseconds of 00:00 UTC. */
const DAY_MS = 24 * 3600 * 1000;
/** The longest analytics period in days, as the reach table clamps it. */
const MAX_PERIOD_DAYS = 366;

/** Fills the (empty) analytics tables from every tenant's orders and their lines. */
export async function backfillRollups(db: Kysely<unknown>): Promise<void> {
  // Literals, not parameters: PostgreSQL matches a GROUP BY expression to the select list by its text.
  const D = sql.lit(DAY_MS);
  const refundAt = sql`COALESCE(o.refunded_at, o.cancelled_at)`;
  // Orders whose payment was captured; `refund_at` when the money went back (refund, or cancel
  // after payment).
  const captured = sql`(
    SELECT o.id, o.tenant_id, o.currency, o.customer_email, o.total, o.paid_at,
      CASE WHEN o.status IN ('refunded', 'cancelled') THEN ${refundAt} END AS refund_at
    FROM orders o WHERE o.paid_at IS NOT NULL)`;
  const units = sql`(SELECT SUM(i.quantity) FROM order_items i WHERE i.order_id = c.id)`;

  await sql`
    INSERT INTO analytics_currencies (tenant_id, currency, orders)
    SELECT o.tenant_id, o.currency, COUNT(*) FROM orders o
    GROUP BY o.tenant_id, o.currency`.execute(db);

  await sql`
    INSERT INTO analytics_orders (order_id, tenant_id, currency, day, status, customer_email)
    SELECT o.id, o.tenant_id, o.currency, o.created - o.created % ${D}, o.status, o.customer_email
    FROM orders o`.execute(db);

  const statusSum = (status: string) => sql`SUM(CASE WHEN o.status = ${status} THEN 1 ELSE 0 END)`;
  await sql`
    INSERT INTO analytics_daily (tenant_id, currency, day, orders, paid_orders, paid_value,
      status_pending, status_paid, status_shipped, status_delivered, status_cancelled, status_refunded,
      captured_amount, refunded_amount, units_sold)
    SELECT tenant_id, currency, day, SUM(orders), SUM(paid_orders), SUM(paid_value),
      SUM(s_pending), SUM(s_paid), SUM(s_shipped), SUM(s_delivered), SUM(s_cancelled), SUM(s_refunded),
      SUM(captured_amount), SUM(refunded_amount), SUM(units_sold)
    FROM (
      SELECT o.tenant_id, o.currency, o.created - o.created % ${D} AS day, COUNT(*) AS orders,
        SUM(CASE WHEN o.paid_at IS NOT NULL THEN 1 ELSE 0 END) AS paid_orders,
        SUM(CASE WHEN o.paid_at IS NOT NULL THEN o.total ELSE 0 END) AS paid_value,
        ${statusSum('pending')} AS s_pending, ${statusSum('paid')} AS s_paid,
        ${statusSum('shipped')} AS s_shipped, ${statusSum('delivered')} AS s_delivered,
        ${statusSum('cancelled')} AS s_cancelled, ${statusSum('refunded')} AS s_refunded,
        0 AS captured_amount, 0 AS refunded_amount, 0 AS units_sold
      FROM orders o
      GROUP BY o.tenant_id, o.currency, o.created - o.created % ${D}
      UNION ALL
      SELECT c.tenant_id, c.currency, c.paid_at - c.paid_at % ${D}, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        c.total, 0, ${units}
      FROM ${captured} c
      UNION ALL
      SELECT c.tenant_id, c.currency, c.refund_at - c.refund_at % ${D}, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, c.total, -${units}
      FROM ${captured} c WHERE c.refund_at IS NOT NULL
    ) x
    GROUP BY tenant_id, currency, day`.execute(db);

  // Lines of captured orders: +, and again - on the day of their refund.
  const lines = sql`(
    SELECT c.tenant_id, c.currency, i.product_id, COALESCE(i.category, '') AS category, i.name,
      c.paid_at, c.paid_at - c.paid_at % ${D} AS day, i.quantity AS units, i.total AS revenue
    FROM ${captured} c JOIN order_items i ON i.order_id = c.id
    UNION ALL
    SELECT c.tenant_id, c.currency, i.product_id, COALESCE(i.category, ''), i.name,
      NULL, c.refund_at - c.refund_at % ${D}, -i.quantity, -i.total
    FROM ${captured} c JOIN order_items i ON i.order_id = c.id WHERE c.refund_at IS NOT NULL)`;
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
      db,
    );
  }
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
      FROM analytics_running r
      GROUP BY r.tenant_id, r.currency, r.dimension, r.member
    ) g`.execute(db);

  await sql`
    INSERT INTO analytics_customer_days (tenant_id, currency, customer_email, day, orders, revenue,
      first_order_at, last_order_at)
    SELECT tenant_id, currency, customer_email, day, SUM(orders), SUM(revenue), MIN(first_at), MAX(last_at)
    FROM (
      SELECT o.tenant_id, o.currency, o.customer_email, o.created - o.created % ${D} AS day, 1 AS orders,
        0 AS revenue, o.created AS first_at, o.created AS last_at
      FROM orders o
      UNION ALL
      SELECT c.tenant_id, c.currency, c.customer_email, c.paid_at - c.paid_at % ${D}, 0, c.total, NULL, NULL
      FROM ${captured} c
      UNION ALL
      SELECT c.tenant_id, c.currency, c.customer_email, c.refund_at - c.refund_at % ${D}, 0, -c.total, NULL, NULL
      FROM ${captured} c WHERE c.refund_at IS NOT NULL
    ) x
    GROUP BY tenant_id, currency, customer_email, day`.execute(db);

  // Customers are named as on their latest order that gave a name (on a tie, the greater name).
  const latestName = (column: 'o.customer_name' | 'o.created') => sql`(
    SELECT ${sql.raw(column)} FROM orders o
    WHERE o.tenant_id = g.tenant_id AND o.customer_email = g.customer_email AND o.currency = g.currency
      AND o.customer_name IS NOT NULL
    ORDER BY o.created DESC, o.customer_name DESC LIMIT 1)`;
  await sql`
    INSERT INTO analytics_members (tenant_id, currency, dimension, member, name, name_at, first_day, last_day)
    SELECT g.tenant_id, g.currency, 'customer', g.customer_email,
      ${latestName('o.customer_name')}, ${latestName('o.created')}, g.first_day, g.last_day
    FROM (
      SELECT d.tenant_id, d.currency, d.customer_email, MIN(d.day) AS first_day, MAX(d.day) AS last_day
      FROM analytics_customer_days d
      GROUP BY d.tenant_id, d.currency, d.customer_email
    ) g`.execute(db);

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
            PARTITION BY d.tenant_id, d.currency, d.customer_email ORDER BY d.day) AS previous
          FROM analytics_customer_days d WHERE d.orders > 0
        ) p
      ) s
      GROUP BY tenant_id, currency, day, since
    ) g`.execute(db);
}
