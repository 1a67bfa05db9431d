import { type Kysely, sql } from 'kysely';

/**
 * Carts and where orders come from (release v2.6, the storefront):
 *
 * - `carts`: a shopper's cart, its codes, address and chosen rate (priced at every read, never
 *   stored), its status (`open`, `completed`, `expired`), the order its completion made, and the
 *   completion in flight (`checkout`, JSON, with its lease `checkout_started`);
 * - `cart_lines`: one per variant of a cart, with the name, title and SKU last seen;
 * - `orders.source` (`api`, `storefront`, `import`, `console`) and `orders.cart_id`. Every order
 *   made before was made through `POST /orders` (the console called it too, and imports make no
 *   orders): `api`, without a cart.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('orders')
    .addColumn('source', 'text', (c) => c.notNull().defaultTo('api'))
    .execute();
  await db.schema.alterTable('orders').addColumn('cart_id', 'text').execute();

  await db.schema
    .createTable('carts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('customer_id', 'text')
    .addColumn('discount_codes', 'text', (c) => c.notNull())
    .addColumn('shipping_address', 'text')
    .addColumn('shipping_rate_id', 'text')
    .addColumn('order_id', 'text')
    .addColumn('checkout', 'text')
    .addColumn('checkout_started', 'bigint')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .addColumn('completed_at', 'bigint')
    .execute();
  // The admin's list, newest first, whole or by status (open carts by how long they sat unchanged).
  await db.schema
    .createIndex('carts_tenant_created_idx')
    .on('carts')
    .columns(['tenant_id', 'created', 'id'])
    .execute();
  await db.schema
    .createIndex('carts_tenant_status_updated_idx')
    .on('carts')
    .columns(['tenant_id', 'status', 'updated'])
    .execute();
  // The completions a sweep finishes: the few in flight.
  await db.schema
    .createIndex('carts_checkout_idx')
    .on('carts')
    .column('checkout_started')
    .where(sql.ref('checkout_started'), 'is not', null)
    .execute();

  await db.schema
    .createTable('cart_lines')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('cart_id', 'text', (c) => c.notNull().references('carts.id'))
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('variant_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('variant_title', 'text', (c) => c.notNull())
    .addColumn('sku', 'text')
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .execute();
  // One line per variant: a second add of it adds to the line.
  await db.schema
    .createIndex('cart_lines_cart_variant_idx')
    .on('cart_lines')
    .columns(['cart_id', 'variant_id'])
    .unique()
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('cart_lines').execute();
  await db.schema.dropTable('carts').execute();
  await db.schema.alterTable('orders').dropColumn('cart_id').execute();
  await db.schema.alterTable('orders').dropColumn('source').execute();
}
