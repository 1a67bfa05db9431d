import { type SqlBool, sql } from 'kysely';
import type { AnalyticsMembersTable, AnalyticsOrdersTable, OrderStatus } from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import { DAY_MS, MAX_PERIOD_DAYS } from './analytics.periods.js';
import type { RefundedLine } from './analytics.refunds.js';
import { DAILY_COLUMNS, type DailyCounts, type Dimension, EMPTY_DAILY } from './analytics.tables.js';

/**
 * Writes to the rollup tables of the analytics module (migration 0010), made by the event listener
 * (analytics.rollups.ts) inside the transaction of the order change, and the reads of the order
 * they need there. Plain functions on `trx`.
 */

/** Where a distinct-customer point's previous day is clamped: older days answer the same. */
export function clampSince(previous: number | undefined, day: number): number {
  const floor = day - MAX_PERIOD_DAYS * DAY_MS;
  return previous === undefined || previous < floor ? floor : previous;
}

/**
 * Locks the tenant's rollups in `currency` for the rest of the transaction (PostgreSQL: the row
 * lock of the upsert), so every later statement of the transaction reads what the transactions
 * before it committed. Adds `orders` to the count of orders rolled up.
 */
export async function lockCurrency(
  trx: Db,
  tenantId: string,
  currency: string,
  orders: number,
): Promise<void> {
  await trx
    .insertInto('analytics_currencies')
    .values({ tenant_id: tenantId, currency, orders })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'currency'])
        .doUpdateSet((eb) => ({ orders: eb('analytics_currencies.orders', '+', eb.ref('excluded.orders')) })),
    )
    .execute();
}

export async function findOrder(trx: Db, orderId: string): Promise<AnalyticsOrdersTable | undefined> {
  const row = await trx
    .selectFrom('analytics_orders')
    .selectAll()
    .where('order_id', '=', orderId)
    .executeTakeFirst();
  return row && { ...row, day: Number(row.day) };
}

export async function insertOrder(trx: Db, row: AnalyticsOrdersTable): Promise<void> {
  await trx.insertInto('analytics_orders').values(row).execute();
}

export async function setOrderStatus(trx: Db, orderId: string, status: OrderStatus): Promise<void> {
  await trx.updateTable('analytics_orders').set({ status }).where('order_id', '=', orderId).execute();
}

/** Adds `counts` to the day's row. */
export async function addDaily(
  trx: Db,
  tenantId: string,
  currency: string,
  day: number,
  counts: Partial<DailyCounts>,
): Promise<void> {
  const columns = DAILY_COLUMNS.filter((column) => (counts[column] ?? 0) !== 0);
  if (columns.length === 0) return;
  await trx
    .insertInto('analytics_daily')
    .values({ tenant_id: tenantId, currency, day, ...EMPTY_DAILY, ...counts })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'currency', 'day'])
        .doUpdateSet((eb) =>
          Object.fromEntries(
            columns.map((column) => [
              column,
              eb(`analytics_daily.${column}`, '+', eb.ref(`excluded.${column}`)),
            ]),
          ),
        ),
    )
    .execute();
}

export interface MemberKey {
  tenantId: string;
  currency: string;
  dimension: AnalyticsMembersTable['dimension'];
  member: string;
}

/**
 * Records activity of a member on `day`, and its name as seen at `nameAt`: the latest sighting
 * wins (on a tie, the greater name, so the order of arrival never matters).
 */
export async function touchMember(
  trx: Db,
  key: MemberKey,
  day: number,
  name?: { name: string; at: number },
): Promise<void> {
  const newer = sql<SqlBool>`excluded.name_at IS NOT NULL AND (analytics_members.name_at IS NULL
    OR excluded.name_at > analytics_members.name_at
    OR (excluded.name_at = analytics_members.name_at AND excluded.name > analytics_members.name))`;
  await trx
    .insertInto('analytics_members')
    .values({
      tenant_id: key.tenantId,
      currency: key.currency,
      dimension: key.dimension,
      member: key.member,
      name: name?.name ?? null,
      name_at: name?.at ?? null,
      first_day: day,
      last_day: day,
    })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'currency', 'dimension', 'member']).doUpdateSet({
        name: sql`CASE WHEN ${newer} THEN excluded.name ELSE analytics_members.name END`,
        name_at: sql`CASE WHEN ${newer} THEN excluded.name_at ELSE analytics_members.name_at END`,
        first_day: sql`CASE WHEN excluded.first_day < analytics_members.first_day THEN excluded.first_day ELSE analytics_members.first_day END`,
        last_day: sql`CASE WHEN excluded.last_day > analytics_members.last_day THEN excluded.last_day ELSE analytics_members.last_day END`,
      }),
    )
    .execute();
}

export interface RunningDelta {
  units: number;
  revenue: number;
  lines: number;
}

/** Adds `delta` to a member's running totals from `day` on (a row on `day`, and every later one). */
export async function addRunning(
  trx: Db,
  key: MemberKey & { dimension: Dimension },
  day: number,
  delta: RunningDelta,
): Promise<void> {
  const { dimension } = key;
  const scope = trx
    .selectFrom('analytics_running')
    .where('tenant_id', '=', key.tenantId)
    .where('currency', '=', key.currency)
    .where('dimension', '=', dimension)
    .where('member', '=', key.member);
  const base = await scope
    .select(['day', 'units', 'revenue', 'lines'])
    .where('day', '<=', day)
    .orderBy('day', 'desc')
    .limit(1)
    .executeTakeFirst();
  const exists = base !== undefined && Number(base.day) === day;
  if (!exists) {
    await trx
      .insertInto('analytics_running')
      .values({
        tenant_id: key.tenantId,
        currency: key.currency,
        dimension,
        member: key.member,
        day,
        units: Number(base?.units ?? 0) + delta.units,
        revenue: Number(base?.revenue ?? 0) + delta.revenue,
        lines: Number(base?.lines ?? 0) + delta.lines,
      })
      .execute();
  }
  await trx
    .updateTable('analytics_running')
    .set((eb) => ({
      units: eb('units', '+', delta.units),
      revenue: eb('revenue', '+', delta.revenue),
      lines: eb('lines', '+', delta.lines),
    }))
    .where('tenant_id', '=', key.tenantId)
    .where('currency', '=', key.currency)
    .where('dimension', '=', dimension)
    .where('member', '=', key.member)
    .where('day', exists ? '>=' : '>', day)
    .execute();
}

export interface CustomerDayDelta {
  orders: number;
  revenue: number;
  /** The creation instant of an order created that day. */
  orderAt?: number;
}

export async function addCustomerDay(
  trx: Db,
  tenantId: string,
  currency: string,
  customerId: string,
  day: number,
  delta: CustomerDayDelta,
): Promise<void> {
  await trx
    .insertInto('analytics_customer_days')
    .values({
      tenant_id: tenantId,
      currency,
      customer_id: customerId,
      day,
      orders: delta.orders,
      revenue: delta.revenue,
      first_order_at: delta.orderAt ?? null,
      last_order_at: delta.orderAt ?? null,
    })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'currency', 'customer_id', 'day']).doUpdateSet((eb) => ({
        orders: eb('analytics_customer_days.orders', '+', eb.ref('excluded.orders')),
        revenue: eb('analytics_customer_days.revenue', '+', eb.ref('excluded.revenue')),
        first_order_at: sql`CASE WHEN analytics_customer_days.first_order_at IS NULL
          OR excluded.first_order_at < analytics_customer_days.first_order_at
          THEN COALESCE(excluded.first_order_at, analytics_customer_days.first_order_at)
          ELSE analytics_customer_days.first_order_at END`,
        last_order_at: sql`CASE WHEN analytics_customer_days.last_order_at IS NULL
          OR excluded.last_order_at > analytics_customer_days.last_order_at
          THEN COALESCE(excluded.last_order_at, analytics_customer_days.last_order_at)
          ELSE analytics_customer_days.last_order_at END`,
      })),
    )
    .execute();
}

export interface OrderDays {
  /** Whether the customer already has an order created on the day. */
  already: boolean;
  /** The customer's closest days with orders before and after it. */
  previous: number | undefined;
  next: number | undefined;
}

export async function customerOrderDays(
  trx: Db,
  tenantId: string,
  currency: string,
  customerId: string,
  day: number,
): Promise<OrderDays> {
  const scope = trx
    .selectFrom('analytics_customer_days')
    .select('day')
    .where('tenant_id', '=', tenantId)
    .where('currency', '=', currency)
    .where('customer_id', '=', customerId)
    .where('orders', '>', 0);
  const upTo = await scope.where('day', '<=', day).orderBy('day', 'desc').limit(2).execute();
  const after = await scope.where('day', '>', day).orderBy('day', 'asc').limit(1).executeTakeFirst();
  const days = upTo.map((row) => Number(row.day));
  const already = days[0] === day;
  return {
    already,
    previous: already ? days[1] : days[0],
    next: after === undefined ? undefined : Number(after.day),
  };
}

/**
 * Adds (+1) or removes (-1) one customer whose order day is `day` and whose previous order day
 * (clamped) is `since`. Rows exist exactly for the `since` values some customer has.
 */
export async function moveReach(
  trx: Db,
  tenantId: string,
  currency: string,
  day: number,
  since: number,
  delta: 1 | -1,
): Promise<void> {
  const scope = trx
    .selectFrom('analytics_reach')
    .where('tenant_id', '=', tenantId)
    .where('currency', '=', currency)
    .where('day', '=', day);
  const below = await scope
    .select(['since', 'n'])
    .where('since', '<', since)
    .orderBy('since', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (delta === 1) {
    await trx
      .insertInto('analytics_reach')
      .values({ tenant_id: tenantId, currency, day, since, n: Number(below?.n ?? 0) })
      .onConflict((oc) => oc.columns(['tenant_id', 'currency', 'day', 'since']).doNothing())
      .execute();
  }
  await trx
    .updateTable('analytics_reach')
    .set((eb) => ({ n: eb('n', '+', delta) }))
    .where('tenant_id', '=', tenantId)
    .where('currency', '=', currency)
    .where('day', '=', day)
    .where('since', '>=', since)
    .execute();
  if (delta === -1) {
    // No customer has this `since` any more: its row would only repeat the one below it.
    await trx
      .deleteFrom('analytics_reach')
      .where('tenant_id', '=', tenantId)
      .where('currency', '=', currency)
      .where('day', '=', day)
      .where('since', '=', since)
      .where('n', '=', Number(below?.n ?? 0))
      .execute();
  }
}

/** A line of an order as the rollups read it: the snapshot taken at order time. */
export interface RollupLine extends RefundedLine {
  name: string;
  quantity: number;
}

/** The order's lines, in position order. */
export async function orderLines(trx: Db, orderId: string): Promise<RollupLine[]> {
  const rows = await trx
    .selectFrom('order_items')
    .select(['position', 'product_id', 'variant_id', 'category', 'name', 'quantity', 'paid'])
    .where('order_id', '=', orderId)
    .orderBy('position')
    .execute();
  return rows.map((row) => ({
    ...row,
    position: Number(row.position),
    quantity: Number(row.quantity),
    paid: Number(row.paid),
  }));
}

export interface OrderMoney {
  paid_at: number | null;
  discount_total: number;
  shipping_total: number;
  tax_total: number;
  shipping_paid: number;
}

/** The money columns of an order, which its events do not all carry. */
export async function orderMoney(trx: Db, orderId: string): Promise<OrderMoney | undefined> {
  const row = await trx
    .selectFrom('orders')
    .select(['paid_at', 'discount_total', 'shipping_total', 'tax_total', 'shipping_paid'])
    .where('id', '=', orderId)
    .executeTakeFirst();
  return (
    row && {
      paid_at: row.paid_at === null ? null : Number(row.paid_at),
      discount_total: Number(row.discount_total),
      shipping_total: Number(row.shipping_total),
      tax_total: Number(row.tax_total),
      shipping_paid: Number(row.shipping_paid),
    }
  );
}
