import type { LedgerEntryType, WalletTransactionType } from '../../db/schema.js';
import type { DialectName, Db, Store } from '../../db/store.js';
import { AppError } from '../../lib/errors.js';
import { newId, randomBase62 } from '../../lib/ids.js';
import { MAX_BALANCE } from '../../lib/money.js';
import { livemodeOf } from '../tenants/index.js';
import * as entries from './wallet.entry-statement.js';
import * as repo from './wallet.repository.js';

/**
 * The double-entry core. Money only moves through `postEntry`: an immutable journal entry whose
 * postings sum to zero, each wallet posting applied to the wallet's cached balance by a conditional
 * update (never below zero) in the caller's transaction. Corrections are new entries; nothing here
 * updates or deletes a posting.
 */

export type PlatformAccountType = 'funding' | 'clearing';

/**
 * Platform accounts have one fixed id per mode, type and currency (`platform_funding_USD`, test
 * mode's `platform_test_funding_USD`); they appear with their first posting. Test money never
 * touches live's accounts: an entry's accounts are all of its store's mode.
 */
export function platformAccountId(type: PlatformAccountType, currency: string, livemode: boolean): string {
  return livemode ? `platform_${type}_${currency}` : `platform_test_${type}_${currency}`;
}

export async function ensurePlatformAccount(
  trx: Db,
  type: PlatformAccountType,
  currency: string,
  livemode: boolean,
  now: number,
): Promise<string> {
  const id = platformAccountId(type, currency, livemode);
  await repo.insertAccountIfMissing(trx, {
    id,
    type,
    tenant_id: null,
    currency,
    balance: null,
    postings: null,
    mode: livemode ? 'live' : 'test',
    created: now,
    updated: now,
  });
  return id;
}

/** The tenant's wallet in `currency`, created (balance 0) if it has none yet. */
export async function openWallet(
  trx: Db,
  tenantId: string,
  currency: string,
  now: number,
): Promise<repo.WalletRow> {
  // Almost always there (every tenant's own currency's is made with the tenant): one read.
  const existing = await repo.findWallet(trx, tenantId, currency);
  if (existing) return existing;
  await repo.insertWalletIfMissing(trx, {
    id: newId('wal'),
    type: 'wallet',
    tenant_id: tenantId,
    currency,
    balance: 0,
    postings: 0,
    mode: (await livemodeOf(trx, tenantId)) ? 'live' : 'test',
    created: now,
    updated: now,
  });
  const wallet = await repo.findWallet(trx, tenantId, currency);
  if (!wallet) throw new Error(`wallet of ${tenantId} in ${currency} vanished inside its transaction`);
  return wallet;
}

export interface PostingLine {
  /** A wallet (its balance is kept and may not go below zero) or a platform account. */
  account: { id: string; wallet: boolean; tenantId: string | null };
  type: WalletTransactionType;
  /** Signed minor units, never zero. */
  amount: number;
  description: string;
  sourceId: string | null;
}

export interface EntryInput {
  type: LedgerEntryType;
  currency: string;
  created: number;
  lines: PostingLine[];
  /** Credits may take a wallet past MAX_BALANCE: for a payment already captured, which must land. */
  uncapped?: boolean;
  /** The transfer this entry moves the money of, written with it (`entry_id` is the entry's). */
  transfer?: Omit<repo.TransferRow, 'entry_id'>;
}

/**
 * Writes one balanced entry. A wallet that would go below zero is 422 `insufficient_funds`, one
 * that would pass MAX_BALANCE 422 `limit_exceeded` (the first such wallet in account-id order; the
 * caller's transaction then rolls back as a whole). Returns the entry's id and its postings in the
 * order of `lines`.
 *
 * On PostgreSQL an entry whose wallets are distinct (every entry this module posts) is one
 * statement (`writeEntry`): one round trip for the balances, the entry, its postings and its
 * transfer. Several wallets in one entry are then updated in no set order: their caller locks them
 * first, in id order (transfers do). Otherwise (SQLite, whose statements cost no round trip) wallets
 * are updated one by one in account-id order, so two entries touching the same wallets lock them in
 * the same order.
 */
export async function postEntry(
  trx: Db,
  input: EntryInput,
  dialect: DialectName,
): Promise<{ entryId: string; postings: repo.PostingRow[]; transfer: repo.TransferRow | undefined }> {
  const { entryId, ceiling, drafts, entry, transfer } = draftEntry(input);
  const walletIds = drafts.filter((d) => d.wallet).map((d) => d.account_id);
  const applied = new Map<string, entries.AppliedWallet>();
  const byAccount = [...drafts].sort((a, b) =>
    a.account_id < b.account_id ? -1 : a.account_id > b.account_id ? 1 : 0,
  );
  const refuse = (draft: entries.PostingDraft): never => refusal(draft, input.currency);

  const atOnce = dialect === 'postgres' && new Set(walletIds).size === walletIds.length;
  if (atOnce) {
    for (const wallet of await entries.writeEntry(trx, entry, drafts, ceiling, transfer)) {
      applied.set(wallet.id, wallet);
    }
    for (const draft of byAccount) if (draft.wallet && !applied.has(draft.account_id)) refuse(draft);
  } else {
    await repo.insertEntry(trx, entry);
  }
  const rows = new Map<entries.PostingDraft, repo.PostingRow>();
  for (const draft of byAccount) {
    const { wallet, ...posting } = draft;
    let after: { balance: number; postings: number } | undefined;
    if (wallet) {
      after = atOnce
        ? applied.get(draft.account_id)
        : await repo.applyToWallet(trx, draft.account_id, draft.amount, input.created, ceiling);
      if (!after) refuse(draft);
    }
    rows.set(draft, { ...posting, seq: after?.postings ?? null, balance_after: after?.balance ?? null });
  }
  const postings = drafts.map((draft) => rows.get(draft) as repo.PostingRow); // every draft is in `rows`
  if (!atOnce) {
    await repo.insertPostings(trx, postings);
    if (transfer) await repo.insertTransfer(trx, transfer);
  }
  return { entryId, postings, transfer };
}

export interface Violation {
  check: string;
  detail: string;
  rows: repo.Offender[];
}

export interface LedgerReport {
  ok: boolean;
  checked: Awaited<ReturnType<typeof repo.ledgerSize>>;
  currencies: { currency: string; total: number; postings: number }[];
  violations: Violation[];
}

const SAMPLE = 20;

/**
 * Every invariant of the ledger, each checked by one statement over the whole store: entries
 * balance, postings agree with their entry and account, each currency sums to zero, every wallet's
 * cached balance and count equal its postings, its history runs 1, 2, ... with `balance_after`
 * the running sum and never negative, platform accounts cache nothing, no entry mixes live and
 * test accounts, every tenant has its wallet, every transfer is exactly its two postings.
 */
export async function verifyLedger(db: Db): Promise<LedgerReport> {
  const violations: Violation[] = [];
  const add = (check: string, detail: string, rows: repo.Offender[]) => {
    if (rows.length > 0) violations.push({ check, detail, rows });
  };
  add(
    'unbalanced_entries',
    'journal entries with fewer than two postings or postings not summing to zero',
    await repo.unbalancedEntries(db, SAMPLE),
  );
  add(
    'inconsistent_postings',
    'postings whose currency, tenant or balance fields disagree with their entry or account',
    await repo.inconsistentPostings(db, SAMPLE),
  );
  const currencies = await repo.currencyTotals(db);
  add(
    'currency_totals',
    'currencies whose postings (platform accounts included) do not sum to zero',
    currencies
      .filter((c) => c.total !== 0)
      .map((c) => ({ id: c.currency, total: c.total, postings: c.postings })),
  );
  add(
    'wallet_balances',
    'wallets whose cached balance or posting count differs from their postings, or is negative',
    await repo.walletMismatches(db, SAMPLE),
  );
  add(
    'running_balances',
    'wallet postings out of sequence, or whose balance_after is not the running sum or is negative',
    await repo.runningBalanceBreaks(db, SAMPLE),
  );
  add(
    'platform_accounts',
    'platform accounts with a tenant or a cached balance',
    await repo.malformedPlatformAccounts(db, SAMPLE),
  );
  add(
    'modes',
    'entries that move money between live and test accounts, or wallets of another mode than their store',
    await repo.mixedModes(db, SAMPLE),
  );
  add(
    'tenant_wallets',
    'tenants without a wallet in their own currency',
    await repo.tenantsWithoutWallet(db, SAMPLE),
  );
  add(
    'transfers',
    'transfers whose entry is not exactly their two postings',
    await repo.unmatchedTransfers(db, SAMPLE),
  );
  return { ok: violations.length === 0, checked: await repo.ledgerSize(db), currencies, violations };
}

/** An entry's postings drafted: checked to balance, each with its id, the entry's own row. */
function draftEntry(input: EntryInput) {
  if (input.lines.length < 2) throw new Error('a journal entry needs at least two postings');
  let total = 0;
  for (const line of input.lines) {
    if (!Number.isSafeInteger(line.amount) || line.amount === 0) {
      throw new Error(`posting amount must be a non-zero integer, got ${line.amount}`);
    }
    total += line.amount;
  }
  if (total !== 0) throw new Error(`journal entry does not balance: postings sum to ${total}`);

  // Journal entries are internal (never in the API), hence an id outside the public prefixes.
  const entryId = `je_${randomBase62(24)}`;
  const ceiling = input.uncapped === true ? undefined : MAX_BALANCE;
  const drafts = input.lines.map((line): entries.PostingDraft => ({
    id: newId('txn'),
    entry_id: entryId,
    account_id: line.account.id,
    tenant_id: line.account.tenantId,
    type: line.type,
    currency: input.currency,
    amount: line.amount,
    description: line.description,
    source_id: line.sourceId,
    created: input.created,
    wallet: line.account.wallet,
  }));
  const entry = { id: entryId, type: input.type, currency: input.currency, created: input.created };
  const transfer = input.transfer && { ...input.transfer, entry_id: entryId };
  return { entryId, ceiling, drafts, entry, transfer };
}

/** A wallet posting that did not apply: past the ceiling (a credit) or short of funds (a debit). */
function refusal(draft: entries.PostingDraft, currency: string): never {
  if (draft.amount > 0) {
    throw new AppError(
      'limit_exceeded',
      `The wallet ${draft.account_id} may hold at most ${MAX_BALANCE} ${currency}; it cannot take ${draft.amount} more.`,
      { extra: { wallet_id: draft.account_id } },
    );
  }
  throw new AppError(
    'insufficient_funds',
    `The wallet ${draft.account_id} does not have ${-draft.amount} ${currency} available.`,
    { extra: { wallet_id: draft.account_id } },
  );
}

/** SQLSTATE of `ledger_entry_applied` refusing an entry whose wallet did not take it (migration 0070). */
const NOT_APPLIED = 'CPL01';

/**
 * `postEntry` as the last statement of the caller's transaction, for an entry of one wallet whose
 * postings the caller does not need back (an order's payment credited to the store's wallet, the
 * row every payment of the store takes). PostgreSQL: the entry's one statement and the COMMIT go
 * as one message (`store.commitWith`), so the wallet is held for no round trip to the process; a
 * wallet that does not take it refuses as `postEntry` does, and the transaction rolls back. The
 * transaction is over when it returns. SQLite: `postEntry`, and the transaction commits as usual.
 */
export async function postEntryAndCommit(trx: Db, input: EntryInput, store: Store): Promise<void> {
  if (store.dialect !== 'postgres') {
    await store.flushBeforeCommit(trx);
    await postEntry(trx, input, store.dialect);
    return;
  }
  const { ceiling, drafts, entry, transfer } = draftEntry(input);
  const wallets = drafts.filter((d) => d.wallet);
  const [wallet] = wallets;
  if (wallets.length !== 1 || !wallet) throw new Error('postEntryAndCommit: an entry of one wallet');
  try {
    await store.commitWith(trx, entries.entryStatementToCommit(entry, drafts, ceiling, transfer));
  } catch (error) {
    if ((error as { code?: unknown }).code === NOT_APPLIED) refusal(wallet, input.currency);
    throw error;
  }
}
