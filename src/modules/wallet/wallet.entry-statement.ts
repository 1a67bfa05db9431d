import { type RawBuilder, sql } from 'kysely';
import type { LedgerEntriesTable } from '../../db/schema.js';
import { inline as inlineValue } from '../../db/pg-transaction.js';
import type { Db } from '../../db/store.js';
import type { PostingRow, TransferRow } from './wallet.repository.js';

/**
 * PostgreSQL: a ledger entry written in one statement (a data-modifying WITH), and the same
 * statement with its values inline for a transaction that ends with it (`store.commitWith`).
 */

/** A posting of `writeEntry`: its wallet's `seq` and `balance_after` come from the balance update. */
export type PostingDraft = Omit<PostingRow, 'seq' | 'balance_after'> & { wallet: boolean };

/** A wallet's balance and posting count after `writeEntry` applied its posting. */
export interface AppliedWallet {
  id: string;
  balance: number;
  postings: number;
}

/**
 * One entry in one statement (PostgreSQL: data-modifying WITH): every wallet posting added to its
 * wallet's cached balance and count by one conditional UPDATE (never below zero; with a `ceiling`,
 * a credit never past it), then the entry and all its postings, each wallet posting with the
 * `seq` and `balance_after` its update returned. The entry and postings are written only if every
 * wallet's update applied; returns the wallets that applied, so fewer than the entry's wallets
 * means a refusal (the caller throws, and its transaction rolls back the updates that did apply).
 * A `transfer` (the entry's own) is written by the same statement, on the same condition.
 * The wallets must be distinct; the UPDATE locks them in no set order, so an entry of several
 * wallets is for a caller that has locked them already (in id order, as transfers do).
 */
export async function writeEntry(
  db: Db,
  entry: LedgerEntriesTable,
  drafts: readonly PostingDraft[],
  ceiling: number | undefined,
  transfer: TransferRow | undefined,
): Promise<AppliedWallet[]> {
  const { rows } = await entryStatement(entry, drafts, ceiling, transfer, false).execute(db);
  return rows.map((row) => ({ id: row.id, balance: Number(row.balance), postings: Number(row.postings) }));
}

/**
 * `writeEntry`'s statement, its values inline (`inline`), for `store.commitWith`: it answers no
 * wallets (the statement and its COMMIT go as one message) but fails, SQLSTATE `CPL01` (migration
 * 0070), when a wallet's update did not apply, so the transaction rolls back instead of committing.
 */
export function entryStatementToCommit(
  entry: LedgerEntriesTable,
  drafts: readonly PostingDraft[],
  ceiling: number | undefined,
  transfer: TransferRow | undefined,
): RawBuilder<unknown> {
  return entryStatement(entry, drafts, ceiling, transfer, true);
}

function entryStatement(
  entry: LedgerEntriesTable,
  drafts: readonly PostingDraft[],
  ceiling: number | undefined,
  transfer: TransferRow | undefined,
  inline: boolean,
): RawBuilder<AppliedWallet> {
  const v = inline
    ? (value: string | number | boolean | null) => inlineValue(value)
    : (value: string | number | boolean | null) => sql.val(value);
  const wallets = drafts.filter((d) => d.wallet).length;
  const lines = sql.join(
    drafts.map(
      (d) =>
        sql`(${v(d.id)}::text, ${v(d.account_id)}::text, ${v(d.tenant_id)}::text, ${v(d.type)}::text, ${v(d.amount)}::bigint, ${v(d.wallet)}::boolean, ${v(d.description)}::text, ${v(d.source_id)}::text)`,
    ),
  );
  const capped =
    ceiling === undefined ? sql`` : sql`AND (l.amount < 0 OR a.balance + l.amount <= ${v(ceiling)}::bigint)`;
  const transferWrite =
    transfer === undefined
      ? sql``
      : sql`,
    transfer AS (
      INSERT INTO wallet_transfers
        (id, tenant_id, source_wallet_id, destination_wallet_id, amount, currency, description, metadata, entry_id, created)
      SELECT ${v(transfer.id)}::text, ${v(transfer.tenant_id)}::text, ${v(transfer.source_wallet_id)}::text,
        ${v(transfer.destination_wallet_id)}::text, ${v(transfer.amount)}::bigint, ${v(transfer.currency)}::text,
        ${v(transfer.description)}::text, ${v(transfer.metadata)}::text, ${v(transfer.entry_id)}::text, ${v(transfer.created)}::bigint
      FROM complete WHERE ok
    )`;
  const answer = inline
    ? sql`SELECT ledger_entry_applied((SELECT ok FROM complete))`
    : sql`SELECT id, balance, postings FROM applied`;
  return sql<AppliedWallet>`
    WITH lines (id, account_id, tenant_id, type, amount, wallet, description, source_id) AS (VALUES ${lines}),
    applied AS (
      UPDATE ledger_accounts a
      SET balance = a.balance + l.amount, postings = a.postings + 1, updated = ${v(entry.created)}::bigint
      FROM lines l
      WHERE l.wallet AND a.id = l.account_id AND a.type = 'wallet' AND a.balance + l.amount >= 0 ${capped}
      RETURNING a.id, a.balance, a.postings
    ),
    complete AS (SELECT COUNT(*) = ${v(wallets)}::bigint AS ok FROM applied),
    entry AS (
      INSERT INTO ledger_entries (id, type, currency, created)
      SELECT ${v(entry.id)}::text, ${v(entry.type)}::text, ${v(entry.currency)}::text, ${v(entry.created)}::bigint
      FROM complete WHERE ok
    ),
    postings AS (
      INSERT INTO ledger_postings
        (id, entry_id, account_id, tenant_id, type, currency, amount, seq, balance_after, description, source_id, created)
      SELECT l.id, ${v(entry.id)}::text, l.account_id, l.tenant_id, l.type, ${v(entry.currency)}::text, l.amount,
        w.postings, w.balance, l.description, l.source_id, ${v(entry.created)}::bigint
      FROM lines l LEFT JOIN applied w ON l.wallet AND w.id = l.account_id
      WHERE (SELECT ok FROM complete)
    )${transferWrite}
    ${answer}`;
}
