import type { UsageAppsDailyTable, UsageDailyTable } from '../../db/schema.js';
import type { Db } from '../../db/store.js';

export type UsageRow = UsageDailyTable;
export type AppUsageRow = UsageAppsDailyTable;

/**
 * The endpoints of the storefront's routes (`GET /store/products`), as a LIKE pattern: every
 * `/v1/store/*` route is a storefront route and every storefront route lives there (the route
 * hooks refuse anything else), so a row's endpoint says whether its calls were storefront calls,
 * which count against neither the quota nor the hourly limit, and `/usage` reports apart.
 */
export const STOREFRONT_ENDPOINTS = '% /store/%';

export function isStorefrontEndpoint(endpoint: string): boolean {
  return endpoint.includes(' /store/');
}

/** Adds the rows' counts to the stored ones: one upsert, the same SQL on SQLite and PostgreSQL. */
export async function addUsage(db: Db, rows: readonly UsageRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('usage_daily')
    .values([...rows])
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'day', 'endpoint']).doUpdateSet((eb) => ({
        calls: eb('usage_daily.calls', '+', eb.ref('excluded.calls')),
        errors: eb('usage_daily.errors', '+', eb.ref('excluded.errors')),
        rejected: eb('usage_daily.rejected', '+', eb.ref('excluded.rejected')),
        duration_us: eb('usage_daily.duration_us', '+', eb.ref('excluded.duration_us')),
      })),
    )
    .execute();
}

/**
 * Calls that counted against the quota (all but the refused ones, and no storefront call) on days
 * in [from, to).
 */
export async function countedCalls(db: Db, tenantId: string, from: number, to: number): Promise<number> {
  const row = await db
    .selectFrom('usage_daily')
    .select((eb) => [
      eb.fn.sum<number | null>('calls').as('calls'),
      eb.fn.sum<number | null>('rejected').as('rejected'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('day', '>=', from)
    .where('day', '<', to)
    .where('endpoint', 'not like', STOREFRONT_ENDPOINTS)
    .executeTakeFirstOrThrow();
  return Number(row.calls ?? 0) - Number(row.rejected ?? 0);
}

export interface EndpointUsage {
  endpoint: string;
  calls: number;
  errors: number;
  duration_us: number;
}

export interface EndpointCalls extends EndpointUsage {
  /** Refused by a limit (429), or answered before a limit decided. */
  rejected: number;
}

/** Totals per endpoint over the days from `from` on. */
export async function usageByEndpoint(db: Db, tenantId: string, from: number): Promise<EndpointCalls[]> {
  const rows = await db
    .selectFrom('usage_daily')
    .select((eb) => [
      'endpoint',
      eb.fn.sum<number>('calls').as('calls'),
      eb.fn.sum<number>('errors').as('errors'),
      eb.fn.sum<number>('rejected').as('rejected'),
      eb.fn.sum<number>('duration_us').as('duration_us'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('day', '>=', from)
    .groupBy('endpoint')
    .execute();
  return rows.map((row) => ({
    endpoint: row.endpoint,
    calls: Number(row.calls),
    errors: Number(row.errors),
    rejected: Number(row.rejected),
    duration_us: Number(row.duration_us),
  }));
}

export interface DayUsage {
  day: number;
  calls: number;
  errors: number;
}

/** Totals per UTC day from `from` on: of the storefront's calls, or of all the others. */
export async function usageByDay(
  db: Db,
  tenantId: string,
  from: number,
  storefront: boolean,
): Promise<DayUsage[]> {
  const rows = await db
    .selectFrom('usage_daily')
    .select((eb) => ['day', eb.fn.sum<number>('calls').as('calls'), eb.fn.sum<number>('errors').as('errors')])
    .where('tenant_id', '=', tenantId)
    .where('day', '>=', from)
    .where('endpoint', storefront ? 'like' : 'not like', STOREFRONT_ENDPOINTS)
    .groupBy('day')
    .execute();
  return rows.map((row) => ({ day: Number(row.day), calls: Number(row.calls), errors: Number(row.errors) }));
}

/** Adds calls made with plugin installation tokens to the stored per-plugin counts. */
export async function addAppUsage(db: Db, rows: readonly AppUsageRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('usage_apps_daily')
    .values([...rows])
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'day', 'plugin_id', 'endpoint']).doUpdateSet((eb) => ({
        calls: eb('usage_apps_daily.calls', '+', eb.ref('excluded.calls')),
        errors: eb('usage_apps_daily.errors', '+', eb.ref('excluded.errors')),
        duration_us: eb('usage_apps_daily.duration_us', '+', eb.ref('excluded.duration_us')),
      })),
    )
    .execute();
}

export interface AppEndpointUsage extends EndpointUsage {
  plugin_id: string;
  name: string;
}

/** Calls made by plugins over the days from `from` on, per plugin (with its name) and endpoint. */
export async function usageByApp(db: Db, tenantId: string, from: number): Promise<AppEndpointUsage[]> {
  const rows = await db
    .selectFrom('usage_apps_daily as u')
    .innerJoin('plugins as p', 'p.id', 'u.plugin_id')
    .select((eb) => [
      'u.plugin_id',
      'p.name',
      'u.endpoint',
      eb.fn.sum<number>('u.calls').as('calls'),
      eb.fn.sum<number>('u.errors').as('errors'),
      eb.fn.sum<number>('u.duration_us').as('duration_us'),
    ])
    .where('u.tenant_id', '=', tenantId)
    .where('u.day', '>=', from)
    .groupBy(['u.plugin_id', 'p.name', 'u.endpoint'])
    .execute();
  return rows.map((row) => ({
    plugin_id: row.plugin_id,
    name: row.name,
    endpoint: row.endpoint,
    calls: Number(row.calls),
    errors: Number(row.errors),
    duration_us: Number(row.duration_us),
  }));
}
