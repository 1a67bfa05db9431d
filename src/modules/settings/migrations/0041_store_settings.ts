import { type Kysely, sql } from 'kysely';

/**
 * A store's settings (`GET`/`PATCH /settings`) and unpaid orders that expire.
 *
 * `tenants` gains the settings besides its `name` and `currency`, each with the default every
 * existing store takes:
 *
 * - `unpaid_order_expiry_minutes` (1440): a pending order older than this is cancelled by the
 *   system; 0 means never;
 * - `storefront_hold_minutes` (null: stock holds are off), `storefront_abandoned_after_minutes`
 *   (60), `storefront_recovery_url_template` (null) and `storefront_requests_per_minute` (120).
 *
 * `orders` gains `cancel_reason`: `requested` (a cancel through the API) or `expired` (the system
 * cancelled it unpaid), null while the order is not cancelled. Every order cancelled before this
 * was cancelled through the API: it becomes `requested`.
 *
 * Frozen: plain SQL, no module code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('tenants')
    .addColumn('unpaid_order_expiry_minutes', 'integer', (c) => c.notNull().defaultTo(1440))
    .execute();
  await db.schema.alterTable('tenants').addColumn('storefront_hold_minutes', 'integer').execute();
  await db.schema
    .alterTable('tenants')
    .addColumn('storefront_abandoned_after_minutes', 'integer', (c) => c.notNull().defaultTo(60))
    .execute();
  await db.schema.alterTable('tenants').addColumn('storefront_recovery_url_template', 'text').execute();
  await db.schema
    .alterTable('tenants')
    .addColumn('storefront_requests_per_minute', 'integer', (c) => c.notNull().defaultTo(120))
    .execute();

  await db.schema.alterTable('orders').addColumn('cancel_reason', 'text').execute();
  await sql`UPDATE orders SET cancel_reason = 'requested' WHERE status = 'cancelled'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('orders').dropColumn('cancel_reason').execute();
  for (const column of [
    'storefront_requests_per_minute',
    'storefront_recovery_url_template',
    'storefront_abandoned_after_minutes',
    'storefront_hold_minutes',
    'unpaid_order_expiry_minutes',
  ]) {
    await db.schema.alterTable('tenants').dropColumn(column).execute();
  }
}
