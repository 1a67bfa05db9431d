import { type Expression, type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type {
  AnalyticsDailyTable,
  AnalyticsMembersTable,
  AnalyticsOrdersTable,
  AnalyticsRunningTable,
  Database,
  OrderStatus,
} from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import { DAY_MS, MAX_PERIOD_DAYS } from './analytics.periods.js';
import { type RefundedLine, refundShares } from './analytics.refunds.js';

/**
 * Rollup tables of the analytics module (migration 0010): writes used by the event listener and
 * the rebuild, and the reads of the analytics endpoints. Plain functions on `db` or `trx`.
 */

export type DailyCounts = Omit<AnalyticsDailyTable, 'tenant_id' | 'currency' | 'day'>;
export type Dimension = AnalyticsRunningTable['dimension'];

export const EMPTY_DAILY: DailyCounts = {
  orders: 0,
  paid_orders: 0,
  paid_value: 0,
  status_pending: 0,
  status_paid: 0,
  status_shipped: 0,
  status_delivered: 0,
  status_cancelled: 0,
  status_refunded: 0,
  captured_amount: 0,
  refunded_amount: 0,
  units_sold: 0,
  discount_total: 0,
  shipping_total: 0,
  tax_total: 0,
};
const DAILY_COLUMNS = Object.keys(EMPTY_DAILY) as (keyof DailyCounts)[];

export function statusColumn(status: OrderStatus): keyof DailyCounts {
  return `status_${status}`;
}

/** Where a distinct-customer point's previous day is clamped: older days answer the same. */
export function clampSince(previous: number | undefined, day: number): number {
  const floor = day - MAX_PERIOD_DAYS * DAY_MS;
  return previous === undefined || previous < floor ? floor : previous;
}

// ---------------------------------------------------------------------------------------------
// Writes (inside the transaction of the order change)

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

// ---------------------------------------------------------------------------------------------
// Reads

export interface DailyRow extends DailyCounts {
  day: number;
}

export async function dailyRows(
  db: Db,
  tenantId: string,
  currency: string,
  from: number,
  to: number,
): Promise<DailyRow[]> {
  const rows = await db
    .selectFrom('analytics_daily')
    .select(['day', ...DAILY_COLUMNS])
    .where('tenant_id', '=', tenantId)
    .where('currency', '=', currency)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .orderBy('day')
    .execute();
  return rows.map((row) => {
    const out = { day: Number(row.day) } as DailyRow;
    for (const column of DAILY_COLUMNS) out[column] = Number(row[column]);
    return out;
  });
}

/**
 * Distinct customers with orders created in each range: the sum, over the range's days with
 * orders, of the customers whose previous order day is before the range; one index seek per day.
 */
export async function reachCounts(
  db: Db,
  tenantId: string,
  currency: string,
  ranges: readonly { from: number; to: number }[],
): Promise<number[]> {
  if (ranges.length === 0) return [];
  const values = sql.join(ranges.map((r) => sql`(CAST(${r.from} AS bigint), CAST(${r.to} AS bigint))`));
  // VALUES columns are column1, column2 on SQLite and PostgreSQL alike.
  const result = await sql<{ range_from: number; range_to: number; customers: number | null }>`
    SELECT b.column1 AS range_from, b.column2 AS range_to, SUM(
      (SELECT r.n FROM analytics_reach r
        WHERE r.tenant_id = d.tenant_id AND r.currency = d.currency AND r.day = d.day AND r.since < b.column1
        ORDER BY r.since DESC LIMIT 1)) AS customers
    FROM (VALUES ${values}) AS b
    JOIN analytics_daily d ON d.tenant_id = ${tenantId} AND d.currency = ${currency}
      AND d.day >= b.column1 AND d.day <= b.column2 AND d.orders > 0
    GROUP BY b.column1, b.column2`.execute(db);
  const found = new Map(
    result.rows.map((row) => [
      `${Number(row.range_from)}:${Number(row.range_to)}`,
      Number(row.customers ?? 0),
    ]),
  );
  return ranges.map((r) => found.get(`${r.from}:${r.to}`) ?? 0);
}

export interface MemberTotals {
  member: string;
  name: string | null;
  units: number;
  revenue: number;
  lines: number;
}

/**
 * Every member of `dimension` with sales in from..to and its totals there: the running totals at
 * the end of `to` minus those at the end of the day before `from`, two index seeks per member.
 */
export async function runningTotals(
  db: Db,
  tenantId: string,
  currency: string,
  dimension: Dimension,
  from: number,
  to: number,
): Promise<MemberTotals[]> {
  // The member's running row of the last day with sales up to a bound (on or before `to`, before `from`).
  const latest = (edge: 'hi' | 'lo', op: '<=' | '<', bound: number) =>
    sql<SqlBool>`${sql.ref(`${edge}.day`)} = (SELECT r.day FROM analytics_running r
      WHERE r.tenant_id = m.tenant_id AND r.currency = m.currency AND r.dimension = m.dimension
        AND r.member = m.member AND r.day ${sql.raw(op)} ${bound}
      ORDER BY r.day DESC LIMIT 1)`;
  const rows = await db
    .selectFrom('analytics_members as m')
    .innerJoin('analytics_running as hi', (join) =>
      join
        .onRef('hi.tenant_id', '=', 'm.tenant_id')
        .onRef('hi.currency', '=', 'm.currency')
        .onRef('hi.dimension', '=', 'm.dimension')
        .onRef('hi.member', '=', 'm.member')
        .on(latest('hi', '<=', to)),
    )
    .leftJoin('analytics_running as lo', (join) =>
      join
        .onRef('lo.tenant_id', '=', 'm.tenant_id')
        .onRef('lo.currency', '=', 'm.currency')
        .onRef('lo.dimension', '=', 'm.dimension')
        .onRef('lo.member', '=', 'm.member')
        .on(latest('lo', '<', from)),
    )
    .select([
      'm.member',
      'm.name',
      'hi.units as hi_units',
      'hi.revenue as hi_revenue',
      'hi.lines as hi_lines',
      'lo.units as lo_units',
      'lo.revenue as lo_revenue',
      'lo.lines as lo_lines',
    ])
    .where('m.tenant_id', '=', tenantId)
    .where('m.currency', '=', currency)
    .where('m.dimension', '=', dimension)
    .where('m.first_day', '<=', to)
    .where('m.last_day', '>=', from)
    .execute();
  const out: MemberTotals[] = [];
  for (const row of rows) {
    const lines = Number(row.hi_lines) - Number(row.lo_lines ?? 0);
    if (lines === 0) continue;
    out.push({
      member: row.member,
      name: row.name,
      units: Number(row.hi_units) - Number(row.lo_units ?? 0),
      revenue: Number(row.hi_revenue) - Number(row.lo_revenue ?? 0),
      lines,
    });
  }
  return out;
}

export interface CustomerTotals {
  email: string;
  name: string | null;
  orders: number;
  revenue: number;
  first_order_at: number | null;
  last_order_at: number | null;
}

function customerDays(db: Db, tenantId: string, currency: string, from: number, to: number) {
  return db
    .selectFrom('analytics_customer_days as d')
    .where('d.tenant_id', '=', tenantId)
    .where('d.currency', '=', currency)
    .where('d.day', '>=', from)
    .where('d.day', '<=', to);
}

/** Customers with orders or money moved in from..to: how many. */
export async function countCustomers(
  db: Db,
  tenantId: string,
  currency: string,
  from: number,
  to: number,
): Promise<number> {
  const { n } = await customerDays(db, tenantId, currency, from, to)
    .select((eb) => eb.fn.count<number>('d.customer_id').distinct().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}

/**
 * One page of customers with orders or money moved in from..to, by revenue (highest first) then
 * email; `after` continues past a (revenue, email) key.
 */
export async function customerTotals(
  db: Db,
  tenantId: string,
  currency: string,
  from: number,
  to: number,
  page: { limit: number; offset: number; after?: [number, string] | undefined },
): Promise<CustomerTotals[]> {
  const revenue = sql<number>`SUM(d.revenue)`;
  // Rows are the customer's (by id); its email is read from the customer as it is now (a redacted
  // customer shows its redacted address), one primary-key lookup per customer listed.
  let query = customerDays(db, tenantId, currency, from, to)
    .innerJoin('customers as c', (join) =>
      join.onRef('c.tenant_id', '=', 'd.tenant_id').onRef('c.id', '=', 'd.customer_id'),
    )
    .leftJoin('analytics_members as m', (join) =>
      join
        .onRef('m.tenant_id', '=', 'd.tenant_id')
        .onRef('m.currency', '=', 'd.currency')
        .on('m.dimension', '=', 'customer')
        .onRef('m.member', '=', 'd.customer_id'),
    )
    .select((eb) => [
      'c.email',
      'c.email_key',
      'm.name',
      eb.fn.sum<number>('d.orders').as('orders'),
      revenue.as('revenue'),
      eb.fn.min<number | null>('d.first_order_at').as('first_order_at'),
      eb.fn.max<number | null>('d.last_order_at').as('last_order_at'),
    ])
    .groupBy(['d.customer_id', 'c.email', 'c.email_key', 'm.name']);
  if (page.after) {
    const [value, email] = page.after;
    query = query.having((eb) =>
      eb.or([
        eb(revenue, '<', value),
        eb.and([eb(revenue, '=', value), eb('c.email_key', '>', email.toLowerCase())]),
      ]),
    );
  } else if (page.offset > 0) {
    query = query.offset(page.offset);
  }
  const rows = await query.orderBy(revenue, 'desc').orderBy('c.email_key').limit(page.limit).execute();
  return rows.map((row) => ({
    email: row.email,
    name: row.name,
    orders: Number(row.orders),
    revenue: Number(row.revenue),
    first_order_at: row.first_order_at === null ? null : Number(row.first_order_at),
    last_order_at: row.last_order_at === null ? null : Number(row.last_order_at),
  }));
}

// ---------------------------------------------------------------------------------------------
// Rebuild

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
