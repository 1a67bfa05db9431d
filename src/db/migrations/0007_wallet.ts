import { type Kysely, sql } from 'kysely';
import { newId } from '../../lib/ids.js';

/**
 * The wallet's double-entry ledger.
 *
 * - `ledger_accounts`: one wallet per tenant and currency (`wal_` ids), plus the platform's funding
 *   and clearing accounts per currency. A wallet caches its balance and its number of postings;
 *   platform accounts cache nothing (every payment of every tenant touches the clearing account,
 *   so a cached balance there would be one hot row) and their balance is the sum of their postings.
 * - `ledger_entries`: immutable journal entries; `ledger_postings`: their lines (`txn_` ids, the
 *   wallet transactions of the API), signed amounts summing to zero per entry. A wallet posting
 *   carries its place in the wallet's history (`seq`) and the balance after it.
 * - `wallet_transfers`: transfers between wallets, with the entry that moved the money.
 * - `wallet_settings`: per-tenant wallet settings (the optional daily transfer limit).
 *
 * Tenants created before this migration get their wallet in their own currency here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ledger_accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.references('tenants.id'))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('balance', 'bigint')
    .addColumn('postings', 'bigint')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .addCheckConstraint(
      'ledger_accounts_wallet_check',
      sql`type <> 'wallet' OR (tenant_id IS NOT NULL AND balance IS NOT NULL AND balance >= 0 AND postings IS NOT NULL)`,
    )
    .execute();
  // One wallet per tenant and currency; platform accounts (no tenant) never collide here.
  await db.schema
    .createIndex('ledger_accounts_tenant_currency_idx')
    .on('ledger_accounts')
    .columns(['tenant_id', 'currency'])
    .unique()
    .execute();

  await db.schema
    .createTable('ledger_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('ledger_postings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('entry_id', 'text', (c) => c.notNull().references('ledger_entries.id'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('ledger_accounts.id'))
    .addColumn('tenant_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('seq', 'bigint')
    .addColumn('balance_after', 'bigint')
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addCheckConstraint('ledger_postings_amount_check', sql`amount <> 0`)
    .execute();
  // A wallet's history in order (latest 10 for the balance, the running-balance check).
  await db.schema
    .createIndex('ledger_postings_account_seq_idx')
    .on('ledger_postings')
    .columns(['account_id', 'seq'])
    .unique()
    .execute();
  await db.schema.createIndex('ledger_postings_entry_idx').on('ledger_postings').column('entry_id').execute();
  // GET /wallet/transactions: newest first, optionally by type; keyset on (created, id).
  await db.schema
    .createIndex('ledger_postings_tenant_created_idx')
    .on('ledger_postings')
    .columns(['tenant_id', 'created', 'id'])
    .execute();
  await db.schema
    .createIndex('ledger_postings_tenant_type_created_idx')
    .on('ledger_postings')
    .columns(['tenant_id', 'type', 'created', 'id'])
    .execute();

  await db.schema
    .createTable('wallet_transfers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('source_wallet_id', 'text', (c) => c.notNull().references('ledger_accounts.id'))
    .addColumn('destination_wallet_id', 'text', (c) => c.notNull().references('ledger_accounts.id'))
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('entry_id', 'text', (c) => c.notNull().references('ledger_entries.id'))
    .addColumn('idempotency_key', 'text')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addCheckConstraint('wallet_transfers_amount_check', sql`amount > 0`)
    .execute();
  await db.schema
    .createIndex('wallet_transfers_tenant_created_idx')
    .on('wallet_transfers')
    .columns(['tenant_id', 'created', 'id'])
    .execute();
  // The daily limit sums a wallet's transfers since 00:00 UTC.
  await db.schema
    .createIndex('wallet_transfers_source_created_idx')
    .on('wallet_transfers')
    .columns(['source_wallet_id', 'created'])
    .execute();
  // A transfer retried with its Idempotency-Key after a crash finds itself instead of repeating.
  await db.schema
    .createIndex('wallet_transfers_idempotency_idx')
    .on('wallet_transfers')
    .columns(['tenant_id', 'idempotency_key'])
    .unique()
    .execute();

  await db.schema
    .createTable('wallet_settings')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id'))
    .addColumn('daily_transfer_limit', 'bigint')
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute();

  const typed = db as Kysely<{
    tenants: { id: string; currency: string; created: number };
    ledger_accounts: {
      id: string;
      type: string;
      tenant_id: string;
      currency: string;
      balance: number;
      postings: number;
      created: number;
      updated: number;
    };
  }>;
  const tenants = await typed.selectFrom('tenants').select(['id', 'currency', 'created']).execute();
  for (const tenant of tenants) {
    await typed
      .insertInto('ledger_accounts')
      .values({
        id: newId('wal'),
        type: 'wallet',
        tenant_id: tenant.id,
        currency: tenant.currency,
        balance: 0,
        postings: 0,
        created: tenant.created,
        updated: tenant.created,
      })
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'wallet_settings',
    'wallet_transfers',
    'ledger_postings',
    'ledger_entries',
    'ledger_accounts',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
