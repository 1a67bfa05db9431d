import { type RawBuilder, sql } from 'kysely';
import type { Db, Store } from '../../db/store.js';
import { DAY_MS } from '../analytics/analytics.periods.js';

/**
 * Erasure in the analytics rollups (migration 0010), which know customers by the email on their
 * orders: `analytics_orders.customer_email`, the `analytics_customer_days` rows and the
 * `customer` members (with their name). The customer's addresses are replaced by its redacted one
 * and every figure is kept, so every report total reads as before:
 *
 * - an address only this customer's orders carry: its rows move to the redacted address, rows
 *   that meet on a key merging (orders and revenue summed, first and last instants and days the
 *   earliest and latest), and its members lose their name;
 * - an address other customers' orders carry too (the customer changed its email and someone took
 *   the old one): its rows sum both, so only this customer's orders' share moves, computed from
 *   the orders as the rebuild does (src/modules/analytics/analytics.repository.ts
 *   `rebuildRollups`), and the address's rows are recomputed from the other orders;
 * - `analytics_reach` holds counts only and stays as it is.
 *
 * Runs in the redaction's transaction after the orders carry the redacted address. On PostgreSQL
 * it first locks the tenant's currency rows, which every rollup write locks first, so no order
 * change writes these rows meanwhile.
 */

export interface AnalyticsErasure {
  tenantId: string;
  customerId: string;
  /** What the customer's orders carry now (lower-cased). */
  orderAddress: string;
  /** The addresses the customer's orders carried (lower-cased), each with its orders. */
  ordersByEmail: ReadonlyMap<string, readonly string[]>;
  /** Those of them other customers' orders carry too. */
  shared: ReadonlySet<string>;
}

const D = sql.lit(DAY_MS);
const BATCH = 500;

/** Merges into existing customer-day rows as `addCustomerDay` does. */
const MERGE_DAYS = sql`ON CONFLICT (tenant_id, currency, customer_email, day) DO UPDATE SET
  orders = analytics_customer_days.orders + excluded.orders,
  revenue = analytics_customer_days.revenue + excluded.revenue,
  first_order_at = CASE WHEN analytics_customer_days.first_order_at IS NULL
    OR excluded.first_order_at < analytics_customer_days.first_order_at
    THEN COALESCE(excluded.first_order_at, analytics_customer_days.first_order_at)
    ELSE analytics_customer_days.first_order_at END,
  last_order_at = CASE WHEN analytics_customer_days.last_order_at IS NULL
    OR excluded.last_order_at > analytics_customer_days.last_order_at
    THEN COALESCE(excluded.last_order_at, analytics_customer_days.last_order_at)
    ELSE analytics_customer_days.last_order_at END`;

/** Merges into an existing member: its days widen and it has no name. */
const MERGE_MEMBER = sql`ON CONFLICT (tenant_id, currency, dimension, member) DO UPDATE SET
  name = NULL, name_at = NULL,
  first_day = CASE WHEN excluded.first_day < analytics_members.first_day
    THEN excluded.first_day ELSE analytics_members.first_day END,
  last_day = CASE WHEN excluded.last_day > analytics_members.last_day
    THEN excluded.last_day ELSE analytics_members.last_day END`;

/**
 * What orders matching `where` (on `orders o`) add to customer days, by the rebuild's definitions:
 * one order on its created day, its total on the day it was captured and taken off again on the
 * day it was refunded or cancelled after capture.
 */
function contributions(where: RawBuilder<unknown>) {
  const refundAt = sql`COALESCE(o.refunded_at, o.cancelled_at)`;
  const captured = sql`(
    SELECT o.tenant_id, o.currency, o.customer_email, o.total, o.paid_at,
      CASE WHEN o.status IN ('refunded', 'cancelled') THEN ${refundAt} END AS refund_at
    FROM orders o WHERE o.paid_at IS NOT NULL AND ${where})`;
  return sql`(
    SELECT o.tenant_id, o.currency, o.customer_email, o.created - o.created % ${D} AS day, 1 AS orders,
      0 AS revenue, o.created AS first_at, o.created AS last_at
    FROM orders o WHERE ${where}
    UNION ALL
    SELECT c.tenant_id, c.currency, c.customer_email, c.paid_at - c.paid_at % ${D}, 0, c.total, NULL, NULL
    FROM ${captured} c
    UNION ALL
    SELECT c.tenant_id, c.currency, c.customer_email, c.refund_at - c.refund_at % ${D}, 0, -c.total, NULL, NULL
    FROM ${captured} c WHERE c.refund_at IS NOT NULL)`;
}

export async function eraseAnalytics(
  trx: Db,
  store: Pick<Store, 'supportsRowLocks'>,
  erasure: AnalyticsErasure,
): Promise<void> {
  const { tenantId, customerId, orderAddress } = erasure;
  // A customer without orders is in no rollup.
  if (erasure.ordersByEmail.size === 0) return;
  const emails = [...erasure.ordersByEmail.keys()].filter((email) => email !== orderAddress);
  if (store.supportsRowLocks) {
    await trx
      .selectFrom('analytics_currencies')
      .select('currency')
      .where('tenant_id', '=', tenantId)
      .orderBy('currency')
      .forUpdate()
      .execute();
  }
  const moved = emails.filter((email) => !erasure.shared.has(email));
  const shared = emails.filter((email) => erasure.shared.has(email));

  if (moved.length > 0) {
    const list = sql.join(moved);
    await sql`INSERT INTO analytics_customer_days (tenant_id, currency, customer_email, day, orders, revenue,
        first_order_at, last_order_at)
      SELECT tenant_id, currency, ${orderAddress}, day, SUM(orders), SUM(revenue), MIN(first_order_at),
        MAX(last_order_at)
      FROM analytics_customer_days WHERE tenant_id = ${tenantId} AND customer_email IN (${list})
      GROUP BY tenant_id, currency, day
      ${MERGE_DAYS}`.execute(trx);
    await trx
      .deleteFrom('analytics_customer_days')
      .where('tenant_id', '=', tenantId)
      .where('customer_email', 'in', moved)
      .execute();
    await sql`INSERT INTO analytics_members (tenant_id, currency, dimension, member, name, name_at, first_day,
        last_day)
      SELECT tenant_id, currency, 'customer', ${orderAddress}, CAST(NULL AS text), CAST(NULL AS bigint),
        MIN(first_day), MAX(last_day)
      FROM analytics_members
      WHERE tenant_id = ${tenantId} AND dimension = 'customer' AND member IN (${list})
      GROUP BY tenant_id, currency
      ${MERGE_MEMBER}`.execute(trx);
    await trx
      .deleteFrom('analytics_members')
      .where('tenant_id', '=', tenantId)
      .where('dimension', '=', 'customer')
      .where('member', 'in', moved)
      .execute();
  }

  if (shared.length > 0) {
    // This customer's share, from its orders (which carry the redacted address by now).
    const mine = shared.flatMap((email) => erasure.ordersByEmail.get(email) ?? []);
    for (let i = 0; i < mine.length; i += BATCH) {
      const ids = sql.join(mine.slice(i, i + BATCH));
      await sql`INSERT INTO analytics_customer_days (tenant_id, currency, customer_email, day, orders, revenue,
          first_order_at, last_order_at)
        SELECT tenant_id, currency, ${orderAddress}, day, SUM(orders), SUM(revenue), MIN(first_at), MAX(last_at)
        FROM ${contributions(sql`o.tenant_id = ${tenantId} AND o.id IN (${ids})`)} x
        GROUP BY tenant_id, currency, day
        ${MERGE_DAYS}`.execute(trx);
    }
    await sql`INSERT INTO analytics_members (tenant_id, currency, dimension, member, name, name_at, first_day,
        last_day)
      SELECT tenant_id, currency, 'customer', customer_email, CAST(NULL AS text), CAST(NULL AS bigint),
        MIN(day), MAX(day)
      FROM analytics_customer_days WHERE tenant_id = ${tenantId} AND customer_email = ${orderAddress}
      GROUP BY tenant_id, currency, customer_email
      ${MERGE_MEMBER}`.execute(trx);

    // The shared addresses' rows, recomputed from the other customers' orders that carry them.
    const list = sql.join(shared);
    const others = sql`o.tenant_id = ${tenantId} AND o.customer_email IN (${list}) AND o.customer_id <> ${customerId}`;
    await trx
      .deleteFrom('analytics_customer_days')
      .where('tenant_id', '=', tenantId)
      .where('customer_email', 'in', shared)
      .execute();
    await sql`INSERT INTO analytics_customer_days (tenant_id, currency, customer_email, day, orders, revenue,
        first_order_at, last_order_at)
      SELECT tenant_id, currency, customer_email, day, SUM(orders), SUM(revenue), MIN(first_at), MAX(last_at)
      FROM ${contributions(others)} x
      GROUP BY tenant_id, currency, customer_email, day`.execute(trx);
    await trx
      .deleteFrom('analytics_members')
      .where('tenant_id', '=', tenantId)
      .where('dimension', '=', 'customer')
      .where('member', 'in', shared)
      .execute();
    // Named as on their latest order that gave a name (on a tie, the greater name), as the rebuild does.
    const latestName = (column: 'o.customer_name' | 'o.created') => sql`(
      SELECT ${sql.raw(column)} FROM orders o
      WHERE o.tenant_id = g.tenant_id AND o.customer_email = g.customer_email AND o.currency = g.currency
        AND o.customer_name IS NOT NULL AND o.customer_id <> ${customerId}
      ORDER BY o.created DESC, o.customer_name DESC LIMIT 1)`;
    await sql`INSERT INTO analytics_members (tenant_id, currency, dimension, member, name, name_at, first_day,
        last_day)
      SELECT g.tenant_id, g.currency, 'customer', g.customer_email,
        ${latestName('o.customer_name')}, ${latestName('o.created')}, g.first_day, g.last_day
      FROM (
        SELECT d.tenant_id, d.currency, d.customer_email, MIN(d.day) AS first_day, MAX(d.day) AS last_day
        FROM analytics_customer_days d WHERE d.tenant_id = ${tenantId} AND d.customer_email IN (${list})
        GROUP BY d.tenant_id, d.currency, d.customer_email
      ) g`.execute(trx);
  }

  await trx
    .updateTable('analytics_orders')
    .set({ customer_email: orderAddress })
    .where('tenant_id', '=', tenantId)
    .where('order_id', 'in', (eb) =>
      eb
        .selectFrom('orders')
        .select('orders.id')
        .where('orders.tenant_id', '=', tenantId)
        .where('orders.customer_id', '=', customerId),
    )
    .execute();
}
