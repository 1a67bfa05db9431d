import { type Kysely, sql } from 'kysely';

/**
 * A transfer retried after a lost answer is found through its `idempotency_keys` row
 * (`resource_id`, as orders are), which lapses with the key after 24 hours, instead of through a
 * column of its own that outlived the key: a key used again after it lapsed answered with the old
 * transfer. Transfers whose key is still kept carry over into that row.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    UPDATE idempotency_keys SET resource_id = (
      SELECT t.id FROM wallet_transfers t
      WHERE t.tenant_id = idempotency_keys.tenant_id AND t.idempotency_key = idempotency_keys.key
    )
    WHERE resource_id IS NULL AND EXISTS (
      SELECT 1 FROM wallet_transfers t
      WHERE t.tenant_id = idempotency_keys.tenant_id AND t.idempotency_key = idempotency_keys.key
    )`.execute(db);
  await db.schema.dropIndex('wallet_transfers_idempotency_idx').execute();
  await db.schema.alterTable('wallet_transfers').dropColumn('idempotency_key').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('wallet_transfers').addColumn('idempotency_key', 'text').execute();
  await db.schema
    .createIndex('wallet_transfers_idempotency_idx')
    .on('wallet_transfers')
    .columns(['tenant_id', 'idempotency_key'])
    .unique()
    .execute();
}
