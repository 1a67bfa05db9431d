import { type SqlBool, sql } from 'kysely';
import type {
  AnalyticsCustomerDaysTable,
  AnalyticsMembersTable,
  AnalyticsOrdersTable,
  OrderStatus,
} from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import { DAY_MS, MAX_PERIOD_DAYS } from './analytics.periods.js';
import type { RefundedLine } from './analytics.refunds.js';
import { DAILY_COLUMNS, type DailyCounts, type Dimension, EMPTY_DAILY } from './analytics.tables.js';

/**
 * Writes to the rollup tables of the analytics module (migration 0010), made by a batch of queued
 * events (analytics.rollups.ts) in the transaction that takes them off the queue, and the reads of
 * the orders they need there. Plain functions on `trx`; a batch's rows written a statement at a time.
 */

/** Where a distinct-customer point's previous day is clamped: older days answer the same. */
export function clampSince(previous: number | undefined, day: number): number {
  const floor = day - MAX_PERIOD_DAYS * DAY_MS;
  return previous === undefined || previous < floor ? floor : previous;
}

/** The store's figures in a currency: the row every writer of the rollups locks first; `orders` rolled up. */
export interface CurrencyCount {
  tenant_id: string;
  currency: string;
  orders: number;
}

/**
 * Adds each row's `orders` to the count of its tenant's orders rolled up in its currency, locking
 * those rows for the rest of the transaction (PostgreSQL: the upsert's row lock), in key order.
 */
export async function addCurrencies(trx: Db, rows: readonly CurrencyCount[]): Promise<void> {
  if (rows.length === 0) return;
  await trx
    .insertInto('analytics_currencies')
    .values([...rows].sort((a, b) => byKey([a.tenant_id, a.currency], [b.tenant_id, b.currency])))
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'currency'])
        .doUpdateSet((eb) => ({ orders: eb('analytics_currencies.orders', '+', eb.ref('excluded.orders')) })),
    )
    .execute();
}

/** Code-unit order of keys, part by part (the same on every machine). */
function byKey(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as string | number;
    const y = b[i] as string | number;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Rows a multi-row statement writes at most (well under either store's limit of parameters). */
const ROWS_PER_STATEMENT = 500;

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) out.push(rows.slice(i, i + ROWS_PER_STATEMENT));
  return out;
}

/** The rolled-up orders among `orderIds`. */
export async function findOrders(trx: Db, orderIds: readonly string[]): Promise<AnalyticsOrdersTable[]> {
  const found: AnalyticsOrdersTable[] = [];
  for (const ids of chunks(orderIds)) {
    const rows = await trx.selectFrom('analytics_orders').selectAll().where('order_id', 'in', ids).execute();
    found.push(...rows.map((row) => ({ ...row, day: Number(row.day) })));
  }
  return found;
}

export async function insertOrders(trx: Db, rows: readonly AnalyticsOrdersTable[]): Promise<void> {
  for (const chunk of chunks(rows)) await trx.insertInto('analytics_orders').values(chunk).execute();
}

export async function setOrderStatus(trx: Db, orderId: string, status: OrderStatus): Promise<void> {
  await trx.updateTable('analytics_orders').set({ status }).where('order_id', '=', orderId).execute();
}

/** Counts to add to one day's row. */
export interface DailyDelta {
  tenantId: string;
  currency: string;
  day: number;
  counts: Partial<DailyCounts>;
}

/** Adds each delta to its day's row (one statement per 500 days). */
export async function addDailyRows(trx: Db, deltas: readonly DailyDelta[]): Promise<void> {
  const rows = deltas
    .filter((delta) => DAILY_COLUMNS.some((column) => (delta.counts[column] ?? 0) !== 0))
    .map((delta) => ({
      tenant_id: delta.tenantId,
      currency: delta.currency,
      day: delta.day,
      ...EMPTY_DAILY,
      ...delta.counts,
    }))
    .sort((a, b) => byKey([a.tenant_id, a.currency, a.day], [b.tenant_id, b.currency, b.day]));
  for (const chunk of chunks(rows)) {
    await trx
      .insertInto('analytics_daily')
      .values(chunk)
      .onConflict((oc) =>
        oc
          .columns(['tenant_id', 'currency', 'day'])
          .doUpdateSet((eb) =>
            Object.fromEntries(
              DAILY_COLUMNS.map((column) => [
                column,
                eb(`analytics_daily.${column}`, '+', eb.ref(`excluded.${column}`)),
              ]),
            ),
          ),
      )
      .execute();
  }
}

export interface MemberKey {
  tenantId: string;
  currency: string;
  dimension: AnalyticsMembersTable['dimension'];
  member: string;
}

/** A member's activity gathered from a batch: its first and last day, and its newest name seen. */
export interface MemberTouch extends MemberKey {
  firstDay: number;
  lastDay: number;
  name: { name: string; at: number } | undefined;
}

/**
 * Records members' activity: each row's days widen the member's first and last day, and its name
 * (as seen at `at`) replaces the stored one when newer: the latest sighting wins (on a tie, the
 * greater name, so the order of arrival never matters). One row per member.
 */
export async function touchMembers(trx: Db, touches: readonly MemberTouch[]): Promise<void> {
  const newer = sql<SqlBool>`excluded.name_at IS NOT NULL AND (analytics_members.name_at IS NULL
    OR excluded.name_at > analytics_members.name_at
    OR (excluded.name_at = analytics_members.name_at AND excluded.name > analytics_members.name))`;
  const rows = touches
    .map((touch) => ({
      tenant_id: touch.tenantId,
      currency: touch.currency,
      dimension: touch.dimension,
      member: touch.member,
      name: touch.name?.name ?? null,
      name_at: touch.name?.at ?? null,
      first_day: touch.firstDay,
      last_day: touch.lastDay,
    }))
    .sort((a, b) =>
      byKey(
        [a.tenant_id, a.currency, a.dimension, a.member],
        [b.tenant_id, b.currency, b.dimension, b.member],
      ),
    );
  for (const chunk of chunks(rows)) {
    await trx
      .insertInto('analytics_members')
      .values(chunk)
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
}

export interface RunningDelta {
  units: number;
  revenue: number;
  lines: number;
}

/** A delta to a member's running totals from `day` on. */
export interface RunningMove {
  key: MemberKey & { dimension: Dimension };
  day: number;
  delta: RunningDelta;
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

export type CustomerDayRow = AnalyticsCustomerDaysTable;

/**
 * Adds each row to its customer's day: orders and revenue summed, the first and last order instants
 * widened. One row per customer and day.
 */
export async function addCustomerDays(trx: Db, days: readonly CustomerDayRow[]): Promise<void> {
  const rows = [...days].sort((a, b) =>
    byKey([a.tenant_id, a.currency, a.customer_id, a.day], [b.tenant_id, b.currency, b.customer_id, b.day]),
  );
  for (const chunk of chunks(rows)) {
    await trx
      .insertInto('analytics_customer_days')
      .values(chunk)
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

/** One customer added to (+1) or removed from (-1) the reach of `day` with previous order day `since`. */
export interface ReachMove {
  tenantId: string;
  currency: string;
  day: number;
  since: number;
  delta: 1 | -1;
}

/**
 * Adds (+1) or removes (-1) one customer whose order day is `day` and whose previous order day
 * (clamped) is `since`. Rows exist exactly for the `since` values some customer has.
 */
export async function moveReach(trx: Db, move: ReachMove): Promise<void> {
  const { tenantId, currency, day, since, delta } = move;
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

/** The lines of each of `orderIds`, in position order. */
export async function orderLines(trx: Db, orderIds: readonly string[]): Promise<Map<string, RollupLine[]>> {
  const lines = new Map<string, RollupLine[]>();
  for (const ids of chunks(orderIds)) {
    const rows = await trx
      .selectFrom('order_items')
      .select(['order_id', 'position', 'product_id', 'variant_id', 'category', 'name', 'quantity', 'paid'])
      .where('order_id', 'in', ids)
      .orderBy('order_id')
      .orderBy('position')
      .execute();
    for (const { order_id, ...row } of rows) {
      const list = lines.get(order_id) ?? [];
      list.push({
        ...row,
        position: Number(row.position),
        quantity: Number(row.quantity),
        paid: Number(row.paid),
      });
      lines.set(order_id, list);
    }
  }
  return lines;
}

export interface OrderMoney {
  paid_at: number | null;
  discount_total: number;
  shipping_total: number;
  tax_total: number;
  shipping_paid: number;
}

/** The money columns of each of `orderIds`, which their events do not all carry. */
export async function orderMoney(trx: Db, orderIds: readonly string[]): Promise<Map<string, OrderMoney>> {
  const money = new Map<string, OrderMoney>();
  for (const ids of chunks(orderIds)) {
    const rows = await trx
      .selectFrom('orders')
      .select(['id', 'paid_at', 'discount_total', 'shipping_total', 'tax_total', 'shipping_paid'])
      .where('id', 'in', ids)
      .execute();
    for (const row of rows) {
      money.set(row.id, {
        paid_at: row.paid_at === null ? null : Number(row.paid_at),
        discount_total: Number(row.discount_total),
        shipping_total: Number(row.shipping_total),
        tax_total: Number(row.tax_total),
        shipping_paid: Number(row.shipping_paid),
      });
    }
  }
  return money;
}
