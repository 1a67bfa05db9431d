import type { Selectable } from 'kysely';
import { newestFirst } from '../../db/pagination.js';
import type { Db } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';
import type { InventoryAdjustmentsTable, LocationsTable } from './inventory.tables.js';

export type LocationRow = Selectable<LocationsTable>;
export type AdjustmentRow = Selectable<InventoryAdjustmentsTable>;

export async function insertLocation(db: Db, row: LocationRow): Promise<void> {
  await db.insertInto('locations').values(row).execute();
}

/** The store's locations in its order (the default one first). */
export async function listLocations(db: Db, tenantId: string): Promise<LocationRow[]> {
  return db
    .selectFrom('locations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('position')
    .execute();
}

/** `lock`: the row's lock on PostgreSQL (SQLite's write transaction already excludes writers). */
export async function findLocation(
  db: Db,
  tenantId: string,
  id: string,
  lock = false,
): Promise<LocationRow | undefined> {
  let query = db.selectFrom('locations').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function findDefaultLocation(db: Db, tenantId: string): Promise<LocationRow | undefined> {
  return db
    .selectFrom('locations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('is_default', '=', 1)
    .executeTakeFirst();
}

/**
 * The next position of the store's order. The store's default location is locked first, so that
 * two locations made at once take one position each (the unique index would refuse the second).
 */
export async function nextPosition(db: Db, tenantId: string): Promise<number> {
  await db
    .selectFrom('locations')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('is_default', '=', 1)
    .forUpdate()
    .executeTakeFirst();
  const row = await db
    .selectFrom('locations')
    .select((eb) => eb.fn.max('position').as('last'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return Number(row?.last ?? 0) + 1;
}

export async function updateLocation(
  db: Db,
  tenantId: string,
  id: string,
  changes: Partial<Pick<LocationRow, 'name' | 'address' | 'fulfills_online_orders' | 'updated'>>,
): Promise<LocationRow | undefined> {
  return db
    .updateTable('locations')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteLocation(db: Db, tenantId: string, id: string): Promise<void> {
  await db.deleteFrom('locations').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
}

export async function insertAdjustment(db: Db, row: AdjustmentRow): Promise<void> {
  await db.insertInto('inventory_adjustments').values(row).execute();
}

export async function findAdjustment(
  db: Db,
  tenantId: string,
  id: string,
): Promise<AdjustmentRow | undefined> {
  return db
    .selectFrom('inventory_adjustments')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export interface AdjustmentFilter {
  variantId?: string | undefined;
  locationId?: string | undefined;
}

export async function listAdjustments(
  db: Db,
  tenantId: string,
  filter: AdjustmentFilter,
  window: PageWindow,
): Promise<AdjustmentRow[]> {
  let query = db.selectFrom('inventory_adjustments').selectAll().where('tenant_id', '=', tenantId);
  if (filter.variantId !== undefined) query = query.where('variant_id', '=', filter.variantId);
  if (filter.locationId !== undefined) query = query.where('location_id', '=', filter.locationId);
  return query.$call(newestFirst(window)).execute();
}

export async function countAdjustments(db: Db, tenantId: string, filter: AdjustmentFilter): Promise<number> {
  let query = db
    .selectFrom('inventory_adjustments')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId);
  if (filter.variantId !== undefined) query = query.where('variant_id', '=', filter.variantId);
  if (filter.locationId !== undefined) query = query.where('location_id', '=', filter.locationId);
  return Number((await query.executeTakeFirst())?.n ?? 0);
}
