import { type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * Orders priced like a checkout, and refunds of parts of them.
 *
 * Orders gain `discount_total`, `shipping_total`, `tax_total`, `shipping_paid` (what the buyer
 * paid for shipping: its price less a waiver, plus its tax when exclusive), `pricing` (JSON: the
 * discounts, shipping and taxes as applied; null for orders made before this release) and
 * `refunded_amount` (the sum of the order's refunds). Lines gain `discount`, `tax`, `paid` (what the
 * buyer paid for the line, tax included) and `refunded_quantity`.
 *
 * `refunds` holds each return of money: its amount, the lines and shipping it covers, and
 * `due_at` while the payment provider has not confirmed it (a sweep sends it again from then on).
 *
 * Orders made before: no discount, shipping or tax, each line paid its total. Release v2.4 only
 * returned whole payments (a refund, or a cancel after payment): each such order gets one refund
 * of its total and of all its lines, dated when the money went back, owed to the provider as its
 * payment was.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of [
    'discount_total',
    'shipping_total',
    'tax_total',
    'shipping_paid',
    'refunded_amount',
  ]) {
    await db.schema
      .alterTable('orders')
      .addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  }
  await db.schema.alterTable('orders').addColumn('pricing', 'text').execute();
  for (const column of ['discount', 'tax', 'paid', 'refunded_quantity']) {
    await db.schema
      .alterTable('order_items')
      .addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  }
  await sql`UPDATE order_items SET paid = total`.execute(db);

  await db.schema
    .createTable('refunds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('order_id', 'text', (c) => c.notNull())
    .addColumn('payment_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    // JSON array of {variant_id, quantity, amount}: the lines this refund covers.
    .addColumn('items', 'text', (c) => c.notNull())
    .addColumn('shipping', 'bigint', (c) => c.notNull())
    .addColumn('restocked', 'integer', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('due_at', 'bigint')
    .addColumn('provider_reference', 'text')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('refunds_order_idx')
    .on('refunds')
    .columns(['order_id', 'created', 'id'])
    .execute();
  await db.schema
    .createIndex('refunds_tenant_created_idx')
    .on('refunds')
    .columns(['tenant_id', 'created', 'id'])
    .execute();
  await sql`CREATE INDEX refunds_due_idx ON refunds (due_at) WHERE due_at IS NOT NULL`.execute(db);

  // Whole refunds of release v2.4: the order's payment went back (refunded, or cancelled once paid).
  await sql`
    INSERT INTO refunds (id, tenant_id, order_id, payment_id, amount, currency, items, shipping,
      restocked, reason, status, due_at, provider_reference, created)
    SELECT 're_' || substr(o.id, 5), o.tenant_id, o.id, p.id, o.total, o.currency,
      COALESCE((SELECT '[' || ${itemsJson(db)} || ']'
        FROM (SELECT * FROM order_items WHERE order_id = o.id ORDER BY position) i), '[]'),
      0, o.restocked, NULL, 'succeeded', p.refund_due_at, NULL,
      COALESCE(o.refunded_at, o.cancelled_at, o.updated)
    FROM orders o JOIN payments p ON p.id = o.payment_id
    WHERE p.status = 'refunded' AND o.paid_at IS NOT NULL`.execute(db);
  await sql`UPDATE orders SET refunded_amount = total
    WHERE id IN (SELECT order_id FROM refunds)`.execute(db);
  await sql`UPDATE order_items SET refunded_quantity = quantity
    WHERE order_id IN (SELECT order_id FROM refunds)`.execute(db);
}

/** The JSON objects of an order's lines, comma-separated, in position order, on either store. */
function itemsJson(db: Kysely<unknown>) {
  return db.getExecutor().adapter instanceof SqliteAdapter
    ? sql`group_concat(json_object('variant_id', i.variant_id, 'quantity', i.quantity, 'amount', i.total), ',')`
    : sql`string_agg(json_build_object('variant_id', i.variant_id, 'quantity', i.quantity, 'amount', i.total)::text, ',' ORDER BY i.position)`;
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('refunds').execute();
  for (const column of ['discount', 'tax', 'paid', 'refunded_quantity']) {
    await db.schema.alterTable('order_items').dropColumn(column).execute();
  }
  for (const column of [
    'discount_total',
    'shipping_total',
    'tax_total',
    'shipping_paid',
    'refunded_amount',
    'pricing',
  ]) {
    await db.schema.alterTable('orders').dropColumn(column).execute();
  }
}
