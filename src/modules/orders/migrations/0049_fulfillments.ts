import { type Kysely, sql } from 'kysely';

/**
 * Fulfilments and returns (release v2.6).
 *
 * - `order_items.fulfilled_quantity`: units of the line shipped by fulfilments;
 *   `order_items.released_quantity`: units of the line refunded before they shipped (their
 *   commitment given back, or written off); `order_items.returned_quantity`: units of the line in
 *   returns not cancelled. What is left to fulfil is `quantity - fulfilled - released`.
 * - `orders.fulfillment_count`: the order's fulfilments (an order without any, and never shipped,
 *   reads none);
 * - `fulfillments`: a parcel of an order, from a location, with its tracking;
 * - `returns`: units of an order coming back: requested, received (restocked at a location or not,
 *   refunded or not) or cancelled.
 *
 * An order shipped before (shipped or delivered, or refunded after it was shipped) had all its
 * lines shipped at once: its lines count as fulfilled, without a fulfilment record (the order
 * keeps its `carrier` and `tracking_number`). The units refunded of an order not shipped were
 * refunded before they shipped: released.
 *
 * Frozen: plain SQL, no module code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('order_items')
    .addColumn('fulfilled_quantity', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('order_items')
    .addColumn('returned_quantity', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('orders')
    .addColumn('fulfillment_count', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('order_items')
    .addColumn('released_quantity', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE order_items SET fulfilled_quantity = quantity
            WHERE order_id IN (SELECT id FROM orders WHERE shipped_at IS NOT NULL)`.execute(db);
  await sql`UPDATE order_items SET released_quantity = refunded_quantity
            WHERE order_id IN (SELECT id FROM orders WHERE shipped_at IS NULL)`.execute(db);

  await db.schema
    .createTable('fulfillments')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addColumn('order_id', 'text', (col) => col.notNull())
    .addColumn('location_id', 'text', (col) => col.notNull())
    .addColumn('items', 'text', (col) => col.notNull())
    .addColumn('carrier', 'text')
    .addColumn('tracking_number', 'text')
    .addColumn('tracking_url', 'text')
    .addColumn('created', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('fulfillments_order_idx')
    .on('fulfillments')
    .columns(['order_id', 'created'])
    .execute();

  await db.schema
    .createTable('returns')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addColumn('order_id', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('items', 'text', (col) => col.notNull())
    .addColumn('location_id', 'text')
    .addColumn('restocked', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('refund_id', 'text')
    .addColumn('created', 'bigint', (col) => col.notNull())
    .addColumn('received_at', 'bigint')
    .addColumn('cancelled_at', 'bigint')
    .execute();
  await db.schema.createIndex('returns_order_idx').on('returns').columns(['order_id', 'created']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('returns').execute();
  await db.schema.dropTable('fulfillments').execute();
  await db.schema.alterTable('orders').dropColumn('fulfillment_count').execute();
  await db.schema.alterTable('order_items').dropColumn('released_quantity').execute();
  await db.schema.alterTable('order_items').dropColumn('returned_quantity').execute();
  await db.schema.alterTable('order_items').dropColumn('fulfilled_quantity').execute();
}
