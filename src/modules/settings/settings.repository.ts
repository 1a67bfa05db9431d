import type { TenantsTable } from '../../db/schema.js';
import type { Db } from '../../db/store.js';

/** The tenant's columns that are its settings (migration 0041 and the tenant's own name and currency). */
export type SettingsRow = Pick<
  TenantsTable,
  | 'name'
  | 'currency'
  | 'unpaid_order_expiry_minutes'
  | 'storefront_hold_minutes'
  | 'storefront_abandoned_after_minutes'
  | 'storefront_recovery_url_template'
  | 'storefront_requests_per_minute'
>;

const COLUMNS = [
  'name',
  'currency',
  'unpaid_order_expiry_minutes',
  'storefront_hold_minutes',
  'storefront_abandoned_after_minutes',
  'storefront_recovery_url_template',
  'storefront_requests_per_minute',
] as const satisfies readonly (keyof SettingsRow)[];

/** `lock` takes the tenant's row lock on PostgreSQL (SQLite's write transaction already excludes writers). */
export async function findSettings(db: Db, tenantId: string, lock = false): Promise<SettingsRow | undefined> {
  let query = db.selectFrom('tenants').select(COLUMNS).where('id', '=', tenantId);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function updateSettings(
  db: Db,
  tenantId: string,
  changes: Partial<SettingsRow>,
  now: number,
): Promise<void> {
  await db
    .updateTable('tenants')
    .set({ ...changes, updated: now })
    .where('id', '=', tenantId)
    .execute();
}

/** Whether the tenant has any order, whatever became of it. */
export async function hasOrders(db: Db, tenantId: string): Promise<boolean> {
  const row = await db
    .selectFrom('orders')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
