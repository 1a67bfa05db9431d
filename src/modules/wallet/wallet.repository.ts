import { sql } from 'kysely';
import type {
  LedgerAccountsTable,
  LedgerEntriesTable,
  LedgerPostingsTable,
  WalletSettingsTable,
  WalletTransactionType,
  WalletTransfersTable,
} from '../../db/schema.js';
import { newestFirst } from '../../db/pagination.js';
import type { Db } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';

export type AccountRow = LedgerAccountsTable;
export type PostingRow = LedgerPostingsTable;
export type TransferRow = WalletTransfersTable;

/** A wallet: an account whose balance and posting count are kept. */
export type WalletRow = AccountRow & { type: 'wallet'; tenant_id: string; balance: number; postings: number };

export function isWallet(account: AccountRow): account is WalletRow {
  return account.type === 'wallet';
}

// ---- accounts -------------------------------------------------------------------------------

/** Inserts a wallet unless the tenant already has one in that currency. */
export async function insertWalletIfMissing(db: Db, row: WalletRow): Promise<void> {
  await db
    .insertInto('ledger_accounts')
    .values(row)
    .onConflict((oc) => oc.columns(['tenant_id', 'currency']).doNothing())
    .execute();
}

/** Inserts a platform account (deterministic id per type and currency) unless it exists. */
export async function insertAccountIfMissing(db: Db, row: AccountRow): Promise<void> {
  await db
    .insertInto('ledger_accounts')
    .values(row)
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

export async function findWallet(db: Db, tenantId: string, currency: string): Promise<WalletRow | undefined> {
  const row = await db
    .selectFrom('ledger_accounts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('currency', '=', currency)
    .where('type', '=', 'wallet')
    .executeTakeFirst();
  return row && isWallet(row) ? row : undefined;
}

export async function listWallets(db: Db, tenantId: string): Promise<WalletRow[]> {
  const rows = await db
    .selectFrom('ledger_accounts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('type', '=', 'wallet')
    .orderBy('currency')
    .execute();
  return rows.filter(isWallet);
}

/** What `findTransferAccounts` reads in its one statement. */
export interface TransferAccounts {
  /** The sender's wallet in the currency and the destination account, those that exist, by id. */
  accounts: AccountRow[];
  /** The sender's daily transfer limit per wallet (wallet_settings), null when none is set. */
  dailyLimit: number | null;
}

/**
 * The sender's wallet in `currency`, the account `destinationId` and the sender's daily transfer
 * limit, in one statement. With `lock` (PostgreSQL) both accounts are locked in id order, so A-to-B
 * and B-to-A transfers at once queue up instead of deadlocking (ORDER BY is applied before FOR
 * UPDATE takes the locks); the settings row is read, not locked.
 */
export async function findTransferAccounts(
  db: Db,
  tenantId: string,
  currency: string,
  destinationId: string,
  lock: boolean,
): Promise<TransferAccounts> {
  let query = db
    .selectFrom('ledger_accounts')
    .selectAll('ledger_accounts')
    .select((eb) =>
      eb
        .selectFrom('wallet_settings')
        .select('wallet_settings.daily_transfer_limit')
        .where('wallet_settings.tenant_id', '=', tenantId)
        .as('daily_transfer_limit'),
    )
    .where((eb) =>
      eb.or([
        eb('ledger_accounts.id', '=', destinationId),
        eb.and([
          eb('ledger_accounts.tenant_id', '=', tenantId),
          eb('ledger_accounts.currency', '=', currency),
          eb('ledger_accounts.type', '=', 'wallet'),
        ]),
      ]),
    )
    .orderBy('ledger_accounts.id');
  if (lock) query = query.forUpdate('ledger_accounts');
  const rows = await query.execute();
  const limit = rows[0]?.daily_transfer_limit ?? null;
  return {
    accounts: rows.map(({ daily_transfer_limit: _limit, ...account }) => account),
    dailyLimit: limit === null ? null : Number(limit),
  };
}

/**
 * Adds `amount` (signed) to a wallet's cached balance and counts the posting, only if the balance
 * stays at or above zero and, with a `ceiling`, at or below it: the conditional update is the
 * last word on insufficient funds, whatever was read before. Returns the new balance and the
 * posting's sequence number, or undefined.
 */
export async function applyToWallet(
  db: Db,
  walletId: string,
  amount: number,
  now: number,
  ceiling?: number,
): Promise<{ balance: number; postings: number } | undefined> {
  let query = db
    .updateTable('ledger_accounts')
    .set((eb) => ({
      balance: eb('balance', '+', amount),
      postings: eb('postings', '+', 1),
      updated: now,
    }))
    .where('id', '=', walletId)
    .where('type', '=', 'wallet');
  if (amount < 0) query = query.where('balance', '>=', -amount);
  if (amount > 0 && ceiling !== undefined) query = query.where('balance', '<=', ceiling - amount);
  const row = await query.returning(['balance', 'postings']).executeTakeFirst();
  if (!row || row.balance === null || row.postings === null) return undefined;
  return { balance: Number(row.balance), postings: Number(row.postings) };
}

export async function tenantExists(db: Db, tenantId: string): Promise<boolean> {
  const row = await db.selectFrom('tenants').select('id').where('id', '=', tenantId).executeTakeFirst();
  return row !== undefined;
}

// ---- entries and postings ---------------------------------------------------------------------

export async function insertEntry(db: Db, row: LedgerEntriesTable): Promise<void> {
  await db.insertInto('ledger_entries').values(row).execute();
}

export async function insertPostings(db: Db, rows: PostingRow[]): Promise<void> {
  await db.insertInto('ledger_postings').values(rows).execute();
}

/** A wallet's latest postings up to `throughSeq` (its count when the wallet row was read). */
export async function latestPostings(
  db: Db,
  walletId: string,
  throughSeq: number,
  limit: number,
): Promise<PostingRow[]> {
  return db
    .selectFrom('ledger_postings')
    .selectAll()
    .where('account_id', '=', walletId)
    .where('seq', '<=', throughSeq)
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
}

export interface PostingFilter {
  type?: WalletTransactionType | undefined;
  currency?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
}

function filteredPostings(db: Db, tenantId: string, filter: PostingFilter) {
  let query = db.selectFrom('ledger_postings').where('tenant_id', '=', tenantId);
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  if (filter.currency !== undefined) query = query.where('currency', '=', filter.currency);
  if (filter.from !== undefined) query = query.where('created', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('created', '<=', filter.to);
  return query;
}

/** Newest first, ties broken by id; a cursor seeks past (created, id). Fetches `limit + 1`. */
export async function listPostings(
  db: Db,
  tenantId: string,
  filter: PostingFilter,
  window: PageWindow,
): Promise<PostingRow[]> {
  return filteredPostings(db, tenantId, filter).selectAll().$call(newestFirst(window)).execute();
}

export async function countPostings(db: Db, tenantId: string, filter: PostingFilter): Promise<number> {
  const row = await filteredPostings(db, tenantId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The tenant's wallet postings, from the kept per-wallet counts (no scan). */
export async function countAllPostings(db: Db, tenantId: string, currency?: string): Promise<number> {
  let query = db
    .selectFrom('ledger_accounts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('postings'), eb.lit(0)).as('n'))
    .where('tenant_id', '=', tenantId)
    .where('type', '=', 'wallet');
  if (currency !== undefined) query = query.where('currency', '=', currency);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}

// ---- transfers --------------------------------------------------------------------------------

export async function insertTransfer(db: Db, row: TransferRow): Promise<void> {
  await db.insertInto('wallet_transfers').values(row).execute();
}

/** A transfer the tenant sent, or received into one of its wallets. */
export async function findTransfer(db: Db, tenantId: string, id: string): Promise<TransferRow | undefined> {
  return db
    .selectFrom('wallet_transfers')
    .selectAll()
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('tenant_id', '=', tenantId),
        eb.exists(
          eb
            .selectFrom('ledger_accounts')
            .select('ledger_accounts.id')
            .whereRef('ledger_accounts.id', '=', 'wallet_transfers.destination_wallet_id')
            .where('ledger_accounts.tenant_id', '=', tenantId),
        ),
      ]),
    )
    .executeTakeFirst();
}

export type TransferDirection = 'sent' | 'received';

/** Whose transfers a listing holds: those the tenant sent, and those into its wallets. */
export interface TransferParty {
  tenantId: string;
  /** The tenant's wallets (one per currency, so a handful). */
  walletIds: readonly string[];
  direction?: TransferDirection | undefined;
}

/**
 * The party's transfers as disjoint sources, each served by one index on (key, created, id): sent
 * by `tenant_id`, received by `destination_wallet_id` per wallet. Disjoint because a tenant's
 * only wallet in a currency is the source of its transfers in it, and a wallet cannot pay itself.
 */
function transferSources(db: Db, party: TransferParty) {
  const sent = db.selectFrom('wallet_transfers').where('tenant_id', '=', party.tenantId);
  const received = party.walletIds.map((walletId) =>
    db.selectFrom('wallet_transfers').where('destination_wallet_id', '=', walletId),
  );
  if (party.direction === 'sent') return [sent];
  if (party.direction === 'received') return received;
  return [sent, ...received];
}

/**
 * Newest first, ties broken by id; a cursor seeks past (created, id). Fetches `limit + 1`. With
 * several sources, each reads its own index only as deep as the page reaches (offset + limit + 1
 * rows, or limit + 1 past a cursor) and the union of those few rows is sorted and cut.
 */
export async function listTransfers(
  db: Db,
  party: TransferParty,
  window: PageWindow,
): Promise<TransferRow[]> {
  const [first, ...rest] = transferSources(db, party);
  if (first === undefined) return [];
  if (rest.length === 0) return first.selectAll().$call(newestFirst(window)).execute();
  const reach: PageWindow = window.cursor
    ? window
    : { limit: window.offset + window.limit, offset: 0, cursor: undefined };
  const branch = (source: typeof first) =>
    db.selectFrom(source.selectAll().$call(newestFirst(reach)).as('branch')).selectAll();
  const merged = rest.reduce((union, source) => union.unionAll(branch(source)), branch(first));
  let query = db
    .selectFrom(merged.as('transfers'))
    .selectAll()
    .orderBy('created', 'desc')
    .orderBy('id', 'desc')
    .limit(window.limit + 1);
  if (!window.cursor && window.offset > 0) query = query.offset(window.offset);
  return query.execute();
}

/** Counted per source, each on its own index, and summed (the sources are disjoint). */
export async function countTransfers(db: Db, party: TransferParty): Promise<number> {
  const counts = await Promise.all(
    transferSources(db, party).map((source) =>
      source.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ),
  );
  return counts.reduce((total, row) => total + Number(row.n), 0);
}

/** What a wallet has sent since `since` (epoch ms). */
export async function sentSince(db: Db, walletId: string, since: number): Promise<number> {
  const row = await db
    .selectFrom('wallet_transfers')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount'), eb.lit(0)).as('sent'))
    .where('source_wallet_id', '=', walletId)
    .where('created', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.sent);
}

// ---- settings ---------------------------------------------------------------------------------

export async function findSettings(db: Db, tenantId: string): Promise<WalletSettingsTable | undefined> {
  return db.selectFrom('wallet_settings').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
}

export async function upsertSettings(db: Db, row: WalletSettingsTable): Promise<void> {
  await db
    .insertInto('wallet_settings')
    .values(row)
    .onConflict((oc) =>
      oc.column('tenant_id').doUpdateSet({
        daily_transfer_limit: row.daily_transfer_limit,
        updated: row.updated,
      }),
    )
    .execute();
}

// ---- invariant checks (ledger:verify) ---------------------------------------------------------
// Each check is one statement, so it reads one consistent snapshot even while writers run.

export interface Offender {
  id: string;
  [column: string]: unknown;
}

/** Entries with fewer than two postings, or whose postings do not sum to zero. */
export async function unbalancedEntries(db: Db, limit: number): Promise<Offender[]> {
  const { rows } = await sql<Offender>`
    SELECT e.id, COUNT(p.id) AS postings, COALESCE(SUM(p.amount), 0) AS total
    FROM ledger_entries e LEFT JOIN ledger_postings p ON p.entry_id = e.id
    GROUP BY e.id
    HAVING COUNT(p.id) < 2 OR COALESCE(SUM(p.amount), 0) <> 0
    LIMIT ${limit}`.execute(db);
  return rows;
}

/** Postings whose currency or tenant disagrees with their entry's or account's. */
export async function inconsistentPostings(db: Db, limit: number): Promise<Offender[]> {
  const { rows } = await sql<Offender>`
    SELECT p.id, p.currency, e.currency AS entry_currency, a.currency AS account_currency
    FROM ledger_postings p
    JOIN ledger_entries e ON e.id = p.entry_id
    JOIN ledger_accounts a ON a.id = p.account_id
    WHERE p.currency <> e.currency OR p.currency <> a.currency
       OR COALESCE(p.tenant_id, '') <> COALESCE(a.tenant_id, '')
       OR (a.type = 'wallet' AND (p.seq IS NULL OR p.balance_after IS NULL))
       OR (a.type <> 'wallet' AND (p.seq IS NOT NULL OR p.balance_after IS NOT NULL))
    LIMIT ${limit}`.execute(db);
  return rows;
}

/** The sum of every posting per currency (zero in a sound ledger) and the number of postings. */
export async function currencyTotals(
  db: Db,
): Promise<{ currency: string; total: number; postings: number }[]> {
  const { rows } = await sql<{ currency: string; total: number; postings: number }>`
    SELECT currency, SUM(amount) AS total, COUNT(*) AS postings
    FROM ledger_postings GROUP BY currency ORDER BY currency`.execute(db);
  return rows.map((row) => ({
    currency: row.currency,
    total: Number(row.total),
    postings: Number(row.postings),
  }));
}

/** Wallets whose cached balance or posting count differs from their postings, or is negative. */
export async function walletMismatches(db: Db, limit: number): Promise<Offender[]> {
  const { rows } = await sql<Offender>`
    SELECT a.id, a.balance, a.postings, COALESCE(SUM(p.amount), 0) AS sum_of_postings, COUNT(p.id) AS count_of_postings
    FROM ledger_accounts a LEFT JOIN ledger_postings p ON p.account_id = a.id
    WHERE a.type = 'wallet'
    GROUP BY a.id, a.balance, a.postings
    HAVING a.balance IS NULL OR a.postings IS NULL OR a.balance < 0
        OR a.balance <> COALESCE(SUM(p.amount), 0) OR a.postings <> COUNT(p.id)
    LIMIT ${limit}`.execute(db);
  return rows;
}

/**
 * Wallet postings out of sequence (seq is not 1, 2, ...) or whose `balance_after` is not the
 * running sum of the wallet's postings up to it, or negative (the wallet went below zero).
 */
export async function runningBalanceBreaks(db: Db, limit: number): Promise<Offender[]> {
  const { rows } = await sql<Offender>`
    SELECT id, account_id, seq, balance_after, running FROM (
      SELECT p.id, p.account_id, p.seq, p.balance_after,
        SUM(p.amount) OVER (PARTITION BY p.account_id ORDER BY p.seq ROWS UNBOUNDED PRECEDING) AS running,
        ROW_NUMBER() OVER (PARTITION BY p.account_id ORDER BY p.seq) AS position
      FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id
      WHERE a.type = 'wallet'
    ) t
    WHERE t.seq IS NULL OR t.balance_after IS NULL OR t.seq <> t.position
       OR t.balance_after <> t.running OR t.balance_after < 0
    LIMIT ${limit}`.execute(db);
  return rows;
}

/** Platform accounts must cache nothing and belong to no tenant. */
export async function malformedPlatformAccounts(db: Db, limit: number): Promise<Offender[]> {
  return db
    .selectFrom('ledger_accounts')
    .select(['id', 'type', 'tenant_id', 'balance', 'postings'])
    .where('type', '<>', 'wallet')
    .where((eb) =>
      eb.or([
        eb('tenant_id', 'is not', null),
        eb('balance', 'is not', null),
        eb('postings', 'is not', null),
        eb('type', 'not in', ['funding', 'clearing']),
      ]),
    )
    .limit(limit)
    .execute();
}

/**
 * Entries whose postings are on accounts of both modes (test money on a live account or the
 * reverse), and wallets whose mode is not their store's.
 */
export async function mixedModes(db: Db, limit: number): Promise<Offender[]> {
  const { rows } = await sql<Offender>`
    SELECT e.entry_id AS id, 'entry' AS kind FROM (
      SELECT p.entry_id FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id
      GROUP BY p.entry_id HAVING COUNT(DISTINCT a.mode) > 1) e
    UNION ALL
    SELECT a.id, 'wallet' AS kind FROM ledger_accounts a JOIN tenants t ON t.id = a.tenant_id
    WHERE a.type = 'wallet' AND a.mode <> t.mode
    LIMIT ${limit}`.execute(db);
  return rows;
}

/** Tenants without a wallet in their own currency. */
export async function tenantsWithoutWallet(db: Db, limit: number): Promise<Offender[]> {
  const { rows } = await sql<Offender>`
    SELECT t.id, t.currency FROM tenants t
    WHERE NOT EXISTS (
      SELECT 1 FROM ledger_accounts a
      WHERE a.tenant_id = t.id AND a.currency = t.currency AND a.type = 'wallet')
    LIMIT ${limit}`.execute(db);
  return rows;
}

/** Transfers whose entry is not exactly: -amount out of the source, +amount into the destination. */
export async function unmatchedTransfers(db: Db, limit: number): Promise<Offender[]> {
  const { rows } = await sql<Offender>`
    SELECT t.id, t.entry_id FROM wallet_transfers t
    WHERE NOT EXISTS (
        SELECT 1 FROM ledger_postings p
        WHERE p.entry_id = t.entry_id AND p.account_id = t.source_wallet_id AND p.amount = -t.amount
          AND p.type = 'transfer_out' AND p.source_id = t.id AND p.currency = t.currency)
       OR NOT EXISTS (
        SELECT 1 FROM ledger_postings p
        WHERE p.entry_id = t.entry_id AND p.account_id = t.destination_wallet_id AND p.amount = t.amount
          AND p.type = 'transfer_in' AND p.source_id = t.id AND p.currency = t.currency)
       OR (SELECT COUNT(*) FROM ledger_postings p WHERE p.entry_id = t.entry_id) <> 2
    LIMIT ${limit}`.execute(db);
  return rows;
}

export async function ledgerSize(db: Db): Promise<{
  accounts: number;
  wallets: number;
  entries: number;
  postings: number;
  transfers: number;
}> {
  const { rows } = await sql<Record<string, number>>`
    SELECT
      (SELECT COUNT(*) FROM ledger_accounts) AS accounts,
      (SELECT COUNT(*) FROM ledger_accounts WHERE type = 'wallet') AS wallets,
      (SELECT COUNT(*) FROM ledger_entries) AS entries,
      (SELECT COUNT(*) FROM ledger_postings) AS postings,
      (SELECT COUNT(*) FROM wallet_transfers) AS transfers`.execute(db);
  const row = rows[0] ?? {};
  return {
    accounts: Number(row.accounts ?? 0),
    wallets: Number(row.wallets ?? 0),
    entries: Number(row.entries ?? 0),
    postings: Number(row.postings ?? 0),
    transfers: Number(row.transfers ?? 0),
  };
}
