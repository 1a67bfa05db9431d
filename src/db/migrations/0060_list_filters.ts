import { type Kysely, sql, SqliteAdapter } from 'kysely';

/**
 * Lists filtered by what their rows hold, and the name of an import's file (release v2.6):
 *
 * - `orders.fulfillment_status`: `unfulfilled`, `partial` or `fulfilled`, as the order's lines say
 *   (a unit fulfilled; a unit neither fulfilled nor released). The lines change it, so a trigger
 *   on their `fulfilled_quantity` and `released_quantity` keeps it, whatever writes them; the
 *   existing orders get theirs from their lines here. With `orders_tenant_fulfillment_idx`
 *   (tenant_id, fulfillment_status, created, id), `GET /orders?fulfillment_status=` seeks its page
 *   newest first instead of walking the store's orders and reading each one's lines.
 * - `GET /orders?payment_status=`: the orders never paid (`paid_at` null) and the orders refunded
 *   in part or whole (`refunded_amount` above 0) have partial indexes of (tenant_id, created, id),
 *   so those pages and counts read only such orders. `paid` (nothing refunded) is most orders,
 *   found by walking the store's newest-first index.
 * - `imports.filename`: the name the upload's `Content-Disposition` gave its file, or null (every
 *   import before).
 *
 * Frozen: plain SQL, no module code.
 */

/** An order's fulfilment status from its lines, for the order `id` names. */
const statusOf = (id: string) => `CASE
    WHEN NOT EXISTS (SELECT 1 FROM order_items i WHERE i.order_id = ${id} AND i.fulfilled_quantity > 0)
      THEN 'unfulfilled'
    WHEN EXISTS (SELECT 1 FROM order_items i WHERE i.order_id = ${id}
        AND i.quantity - i.fulfilled_quantity - i.released_quantity > 0)
      THEN 'partial'
    ELSE 'fulfilled' END`;

export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema.alterTable('imports').addColumn('filename', 'text').execute();

  await db.schema
    .alterTable('orders')
    .addColumn('fulfillment_status', 'text', (c) => c.notNull().defaultTo('unfulfilled'))
    .execute();
  await sql
    .raw(
      `UPDATE orders SET fulfillment_status = ${statusOf('orders.id')}
       WHERE EXISTS (SELECT 1 FROM order_items i WHERE i.order_id = orders.id AND i.fulfilled_quantity > 0)`,
    )
    .execute(db);
  const keep = `UPDATE orders SET fulfillment_status = ${statusOf('NEW.order_id')}
    WHERE id = NEW.order_id AND fulfillment_status <> ${statusOf('NEW.order_id')}`;
  if (sqlite) {
    await sql
      .raw(
        `CREATE TRIGGER order_items_fulfillment AFTER UPDATE OF fulfilled_quantity, released_quantity
          ON order_items BEGIN ${keep}; END`,
      )
      .execute(db);
  } else {
    await sql
      .raw(
        `CREATE FUNCTION order_items_fulfillment() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN ${keep}; RETURN NULL; END $$`,
      )
      .execute(db);
    await sql`CREATE TRIGGER order_items_fulfillment AFTER UPDATE OF fulfilled_quantity, released_quantity
      ON order_items FOR EACH ROW EXECUTE FUNCTION order_items_fulfillment()`.execute(db);
  }

  await db.schema
    .createIndex('orders_tenant_fulfillment_idx')
    .on('orders')
    .columns(['tenant_id', 'fulfillment_status', 'created', 'id'])
    .execute();
  await db.schema
    .createIndex('orders_tenant_unpaid_idx')
    .on('orders')
    .columns(['tenant_id', 'created', 'id'])
    .where(sql.ref('paid_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('orders_tenant_refunded_idx')
    .on('orders')
    .columns(['tenant_id', 'created', 'id'])
    .where(sql.ref('refunded_amount'), '>', sql.lit(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  for (const index of [
    'orders_tenant_refunded_idx',
    'orders_tenant_unpaid_idx',
    'orders_tenant_fulfillment_idx',
  ]) {
    await db.schema.dropIndex(index).ifExists().execute();
  }
  if (sqlite) {
    await sql`DROP TRIGGER IF EXISTS order_items_fulfillment`.execute(db);
  } else {
    await sql`DROP TRIGGER IF EXISTS order_items_fulfillment ON order_items`.execute(db);
    await sql`DROP FUNCTION IF EXISTS order_items_fulfillment()`.execute(db);
  }
  await db.schema.alterTable('orders').dropColumn('fulfillment_status').execute();
  await db.schema.alterTable('imports').dropColumn('filename').execute();
}
