import { type Kysely, sql } from 'kysely';

/**
 * Locations (release v2.6): the places a store keeps stock, and the adjustments of their stock.
 *
 * - `locations`: a store's warehouses and shops; `is_default` marks the one every store has (it
 *   holds the stock a variant's `stock` PATCH sets, and cannot stop fulfilling online orders);
 *   `position` is the store's order, the order in which orders take units from locations.
 * - `inventory_adjustments`: each change of a location's stock made through the API, recorded.
 *
 * Every existing store gets its default location, "Default location", at position 1; its id is
 * the store's own suffix after `loc_`, unique as the store's id is. Migration 0048 puts all the
 * stock there.
 *
 * Frozen: plain SQL, no module code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('locations')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('address', 'text')
    .addColumn('fulfills_online_orders', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('is_default', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('position', 'integer', (col) => col.notNull())
    .addColumn('created', 'bigint', (col) => col.notNull())
    .addColumn('updated', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('locations_tenant_position_idx')
    .on('locations')
    .columns(['tenant_id', 'position'])
    .unique()
    .execute();

  await db.schema
    .createTable('inventory_adjustments')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addColumn('variant_id', 'text', (col) => col.notNull())
    .addColumn('product_id', 'text', (col) => col.notNull())
    .addColumn('location_id', 'text', (col) => col.notNull())
    .addColumn('delta', 'bigint', (col) => col.notNull())
    .addColumn('on_hand', 'bigint', (col) => col.notNull())
    .addColumn('reason', 'text')
    .addColumn('created', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('inventory_adjustments_tenant_created_idx')
    .on('inventory_adjustments')
    .columns(['tenant_id', 'created', 'id'])
    .execute();

  const now = Date.now();
  await sql`INSERT INTO locations (id, tenant_id, name, address, fulfills_online_orders, is_default, position, created, updated)
            SELECT 'loc_' || substr(id, 5), id, 'Default location', NULL, 1, 1, 1, ${now}, ${now} FROM tenants`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('inventory_adjustments').execute();
  await db.schema.dropTable('locations').execute();
}
