import type { Kysely } from 'kysely';

/**
 * The receiving tenant sees a transfer too (`GET /wallet/transfers[/{id}]`): its received
 * transfers are found by its wallets, newest first per wallet, keyset on (created, id), as the
 * sender's are by `wallet_transfers_tenant_created_idx`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('wallet_transfers_destination_created_idx')
    .on('wallet_transfers')
    .columns(['destination_wallet_id', 'created', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('wallet_transfers_destination_created_idx').execute();
}
