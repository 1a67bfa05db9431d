import { type Kysely, sql } from 'kysely';

/**
 * Stock holds and abandoned carts (the storefront, release v2.6):
 *
 * - `carts.hold_lines` (JSON of the units a hold took out of stock, per variant),
 *   `carts.hold_expires` (when the hold ends) and `carts.hold_ip` (the buyer address that holds
 *   it, an IPv6 address by its /64): all null while the cart holds nothing;
 * - `carts.abandoned_at`: when `cart.abandoned` was emitted for the cart; a change to the cart
 *   clears it (the cart may be abandoned again).
 *
 * No cart held stock before, so every cart starts without a hold. An open cart that was already
 * past its store's `storefront_abandoned_after_minutes` when the store upgraded is taken as
 * announced: its shopper left before the store could send anything, possibly weeks ago, and a
 * first sweep mailing every one of them at once would be spam, not recovery. A cart still within
 * the time is announced as any other once it runs out.
 *
 * Frozen: plain SQL, no module code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('carts').addColumn('hold_lines', 'text').execute();
  await db.schema.alterTable('carts').addColumn('hold_expires', 'bigint').execute();
  await db.schema.alterTable('carts').addColumn('hold_ip', 'text').execute();
  await db.schema.alterTable('carts').addColumn('abandoned_at', 'bigint').execute();

  // The sweep of holds that ran out: the few carts that hold stock.
  await db.schema
    .createIndex('carts_hold_expires_idx')
    .on('carts')
    .column('hold_expires')
    .where(sql.ref('hold_expires'), 'is not', null)
    .execute();
  // The holds of one buyer address at a store (at most 3 at once).
  await db.schema
    .createIndex('carts_tenant_hold_ip_idx')
    .on('carts')
    .columns(['tenant_id', 'hold_ip'])
    .where(sql.ref('hold_ip'), 'is not', null)
    .execute();
  // The sweeps of every store's open carts by how long they sat unchanged (abandoned, expired).
  await db.schema
    .createIndex('carts_status_updated_idx')
    .on('carts')
    .columns(['status', 'updated'])
    .execute();

  const now = Date.now();
  await sql`UPDATE carts SET abandoned_at = ${now}
            WHERE status = 'open'
              AND updated <= ${now} - CAST((SELECT t.storefront_abandoned_after_minutes FROM tenants t
                                           WHERE t.id = carts.tenant_id) AS BIGINT) * 60000`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('carts_status_updated_idx').execute();
  await db.schema.dropIndex('carts_tenant_hold_ip_idx').execute();
  await db.schema.dropIndex('carts_hold_expires_idx').execute();
  for (const column of ['abandoned_at', 'hold_ip', 'hold_expires', 'hold_lines']) {
    await db.schema.alterTable('carts').dropColumn(column).execute();
  }
}
