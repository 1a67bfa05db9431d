import { type Kysely, sql } from 'kysely';

/**
 * Stock levels per location (release v2.6).
 *
 * - `product_variants.committed`: the units of the variant that open orders and cart holds took and
 *   no fulfilment has shipped yet, over every location; `stock` stays what can be sold online (the
 *   available units of the locations that fulfil online orders).
 * - `product_variants.spread`: how many locations other than the store's default hold a level of
 *   the variant (rows of `stock_levels`); 0: all of it is at the default location, whose level is
 *   the variant's own (on hand = stock + committed), and no other row is read.
 * - `stock_levels`: a variant's level at a location other than the default one, with the
 *   location's position and whether it fulfils online orders copied in (kept by the location's
 *   changes), so an order reads the rows of its variants alone.
 *
 * Existing stock stays where it is: at the default location. The units of orders placed and not
 * shipped (pending or paid, less what refunds took back) are its committed units.
 *
 * Frozen: plain SQL, no module code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('product_variants')
    .addColumn('committed', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('product_variants')
    .addColumn('spread', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('stock_levels')
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addColumn('variant_id', 'text', (col) => col.notNull())
    .addColumn('product_id', 'text', (col) => col.notNull())
    .addColumn('location_id', 'text', (col) => col.notNull())
    .addColumn('position', 'integer', (col) => col.notNull())
    .addColumn('fulfills', 'integer', (col) => col.notNull())
    .addColumn('on_hand', 'bigint', (col) => col.notNull())
    .addColumn('committed', 'bigint', (col) => col.notNull())
    .addColumn('updated', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('stock_levels_pk', ['variant_id', 'location_id'])
    .execute();
  await db.schema
    .createIndex('stock_levels_tenant_location_idx')
    .on('stock_levels')
    .columns(['tenant_id', 'location_id'])
    .execute();

  await sql`UPDATE product_variants SET committed = COALESCE((
              SELECT SUM(oi.quantity - oi.refunded_quantity) FROM order_items oi
              JOIN orders o ON o.id = oi.order_id
              WHERE oi.variant_id = product_variants.id AND o.status IN ('pending', 'paid')), 0)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('stock_levels').execute();
  await db.schema.alterTable('product_variants').dropColumn('spread').execute();
  await db.schema.alterTable('product_variants').dropColumn('committed').execute();
}
