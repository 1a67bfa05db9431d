import { type SqlBool, sql } from 'kysely';
import type { Db } from '../../db/store.js';
import { DAILY_COLUMNS, type DailyCounts, type Dimension } from './analytics.tables.js';

/**
 * Reads of the analytics rollup tables (migration 0010) behind the analytics endpoints and the
 * CSV exports. Plain functions on `db`.
 */

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
