import type { Selectable } from 'kysely';
import { newestFirst } from '../../db/pagination.js';
import type { ShippingRatesTable, TaxRatesTable } from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';

/** Shipping and tax rates as stored. */
export type ShippingRateRow = Selectable<ShippingRatesTable>;
export type TaxRateRow = Selectable<TaxRatesTable>;

/**
 * Takes the tenant's row lock (PostgreSQL only: SQLite's write transaction already runs writers
 * one at a time), so the tenant's shipping-rate changes run one at a time: a rate is checked
 * against the others before it is written, and two concurrent writes must not each miss the other.
 */
export async function lockTenant(db: Db, tenantId: string): Promise<void> {
  await db.selectFrom('tenants').select('id').where('id', '=', tenantId).forUpdate().execute();
}

export async function insertShippingRate(db: Db, row: ShippingRateRow): Promise<void> {
  await db.insertInto('shipping_rates').values(row).execute();
}

export async function findShippingRate(
  db: Db,
  tenantId: string,
  id: string,
): Promise<ShippingRateRow | undefined> {
  return db
    .selectFrom('shipping_rates')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The tenant's shipping rates in `currency` (a tenant has a handful), oldest first. */
export async function shippingRatesIn(
  db: Db,
  tenantId: string,
  currency: string,
): Promise<ShippingRateRow[]> {
  return db
    .selectFrom('shipping_rates')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('currency', '=', currency)
    .orderBy('created')
    .orderBy('id')
    .execute();
}

export async function updateShippingRate(
  db: Db,
  tenantId: string,
  id: string,
  changes: Partial<Omit<ShippingRateRow, 'id' | 'tenant_id' | 'created'>>,
): Promise<void> {
  await db
    .updateTable('shipping_rates')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

export async function deleteShippingRate(db: Db, tenantId: string, id: string): Promise<void> {
  await db.deleteFrom('shipping_rates').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
}

function shippingFiltered(db: Db, tenantId: string, filter: { currency?: string | undefined }) {
  let query = db.selectFrom('shipping_rates').where('tenant_id', '=', tenantId);
  if (filter.currency !== undefined) query = query.where('currency', '=', filter.currency);
  return query;
}

export async function listShippingRates(
  db: Db,
  tenantId: string,
  filter: { currency?: string | undefined },
  window: PageWindow,
): Promise<ShippingRateRow[]> {
  return shippingFiltered(db, tenantId, filter).selectAll().$call(newestFirst(window)).execute();
}

export async function countShippingRates(
  db: Db,
  tenantId: string,
  filter: { currency?: string | undefined },
): Promise<number> {
  const { n } = await shippingFiltered(db, tenantId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}

export async function insertTaxRate(db: Db, row: TaxRateRow): Promise<void> {
  await db.insertInto('tax_rates').values(row).execute();
}

export async function findTaxRate(db: Db, tenantId: string, id: string): Promise<TaxRateRow | undefined> {
  return db
    .selectFrom('tax_rates')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The tenant's rate for (country, state key), if any. */
export async function findTaxRateFor(
  db: Db,
  tenantId: string,
  country: string,
  key: string,
): Promise<TaxRateRow | undefined> {
  return db
    .selectFrom('tax_rates')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('country', '=', country)
    .where('state_key', '=', key)
    .executeTakeFirst();
}

/** The tenant's rates for `country`: the country's own and its states'. */
export async function taxRatesFor(db: Db, tenantId: string, country: string): Promise<TaxRateRow[]> {
  return db
    .selectFrom('tax_rates')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('country', '=', country)
    .execute();
}

export async function updateTaxRate(
  db: Db,
  tenantId: string,
  id: string,
  changes: Partial<Omit<TaxRateRow, 'id' | 'tenant_id' | 'created'>>,
): Promise<void> {
  await db
    .updateTable('tax_rates')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

export async function deleteTaxRate(db: Db, tenantId: string, id: string): Promise<void> {
  await db.deleteFrom('tax_rates').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
}

function taxFiltered(db: Db, tenantId: string, filter: { country?: string | undefined }) {
  let query = db.selectFrom('tax_rates').where('tenant_id', '=', tenantId);
  if (filter.country !== undefined) query = query.where('country', '=', filter.country);
  return query;
}

export async function listTaxRates(
  db: Db,
  tenantId: string,
  filter: { country?: string | undefined },
  window: PageWindow,
): Promise<TaxRateRow[]> {
  return taxFiltered(db, tenantId, filter).selectAll().$call(newestFirst(window)).execute();
}

export async function countTaxRates(
  db: Db,
  tenantId: string,
  filter: { country?: string | undefined },
): Promise<number> {
  const { n } = await taxFiltered(db, tenantId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}
