import type { Db, Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import { AppError, notFound, validationError } from '../../lib/errors.js';
import { envelope, pageWindow } from '../../lib/paging.js';
import type { AuditRecorder } from '../audit/index.js';
import type { EventService } from '../events/index.js';
import {
  checkAmount,
  checkCurrency,
  createWalletAccounts,
  platformLine,
  walletLine,
} from './wallet.accounts.js';
import { type LedgerReport, openWallet, postEntry, verifyLedger } from './wallet.ledger.js';
import { createWalletOrderMoney } from './wallet.order-money.js';
import { presentTransaction } from './wallet.presenter.js';
import * as repo from './wallet.repository.js';
import type { BalanceObject, TransactionListQuery, TransactionObject } from './wallet.schemas.js';
import { createWalletTransfers } from './wallet.transfers.js';

/**
 * The wallet: one per tenant and currency, on the double-entry ledger of `wallet.ledger.ts`.
 * Payments come in from the platform's clearing account, refunds go back to it, adjustments come
 * from its funding account (test mode has its own of each), transfers move money between wallets
 * (wallet.transfers.ts). Use cases open one transaction; the order hooks (`creditOrderPayment`,
 * `debitOrderRefund`, wallet.order-money.ts) run in the orders' transaction.
 */

const LATEST_TRANSACTIONS = 10;
const DAY_MS = 86_400_000;

/** `from`/`to` of a listing: an instant, or a UTC date (from its start / through its end). */
function bound(value: string | undefined, edge: 'start' | 'end'): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const start = Date.parse(`${value}T00:00:00.000Z`);
    return edge === 'start' ? start : start + DAY_MS - 1;
  }
  return Date.parse(value);
}

export interface WalletServiceDeps {
  store: Store;
  clock: Clock;
  events: EventService;
  /** Records an operator's or test mode's credit (absent: the demo's wallet, unaudited). */
  audit?: AuditRecorder;
}

/**
 * The tenant's wallet in its own currency, made inside the tenant-creation transaction so a tenant
 * never exists without one.
 */
export async function openTenantWallet(
  trx: Db,
  tenantId: string,
  currency: string,
  now: number,
): Promise<void> {
  await openWallet(trx, tenantId, currency, now);
}

export type WalletService = ReturnType<typeof createWalletService>;

export function createWalletService(deps: WalletServiceDeps) {
  const { store, clock } = deps;
  const accounts = createWalletAccounts(store);

  return {
    present: presentTransaction,

    /** The wallet in `currency` (default the tenant's) with its latest transactions. */
    async balance(tenant: { id: string; currency: string }, currency?: string): Promise<BalanceObject> {
      const code = currency ?? tenant.currency;
      const wallet = await repo.findWallet(store.db, tenant.id, code);
      if (!wallet) throw new AppError('not_found', `This tenant has no ${code} wallet.`);
      // Postings up to the count read with the balance: the list and the balance agree.
      const latest = await repo.latestPostings(store.db, wallet.id, wallet.postings, LATEST_TRANSACTIONS);
      return {
        wallet_id: wallet.id,
        currency: wallet.currency,
        available: wallet.balance,
        pending: 0,
        transactions: latest.map(presentTransaction),
        updated: iso(wallet.updated),
      };
    },

    /** Every wallet of the tenant (one per currency), by currency code, without transactions. */
    async balances(tenantId: string) {
      const wallets = await repo.listWallets(store.db, tenantId);
      return {
        data: wallets.map((wallet) => ({
          wallet_id: wallet.id,
          currency: wallet.currency,
          available: wallet.balance,
          pending: 0,
          updated: iso(wallet.updated),
        })),
      };
    },

    async listTransactions(tenantId: string, query: TransactionListQuery) {
      const from = bound(query.from, 'start');
      const to = bound(query.to, 'end');
      if (from !== undefined && to !== undefined && from > to) {
        throw validationError('from', 'must not be after to');
      }
      // A forged cursor (no timestamp in it) is refused by pageWindow for every creation-order list.
      const window = pageWindow(query, '-created');
      const filter: repo.PostingFilter = { type: query.type, currency: query.currency, from, to };
      const unfiltered = query.type === undefined && from === undefined && to === undefined;
      const [rows, total] = await Promise.all([
        repo.listPostings(store.db, tenantId, filter, window),
        unfiltered
          ? repo.countAllPostings(store.db, tenantId, query.currency)
          : repo.countPostings(store.db, tenantId, filter),
      ]);
      return envelope(rows, total, window, '-created', (row) => [row.created, row.id], presentTransaction);
    },

    ...createWalletTransfers(deps),

    /**
     * An operator's adjustment (`wallet:credit`): from the platform's funding account into the
     * tenant's wallet in `currency`, which appears with its first credit.
     */
    async credit(
      tenantId: string,
      input: { amount: number; currency: string; description?: string | undefined },
    ): Promise<TransactionObject> {
      checkAmount(input.amount);
      const currency = checkCurrency(input.currency.toUpperCase());
      const description = input.description?.trim() || 'Adjustment';
      if (description.length > 500) throw validationError('description', 'must be at most 500 characters');
      const now = clock.now();
      return store.transaction(async (trx) => {
        if (!(await repo.tenantExists(trx, tenantId))) throw notFound('tenant');
        const wallet = await openWallet(trx, tenantId, currency, now);
        const funding = await accounts.platformAccount(trx, 'funding', tenantId, currency, now);
        const {
          postings: [credited],
        } = await postEntry(
          trx,
          {
            type: 'adjustment',
            currency,
            created: now,
            lines: [
              {
                account: walletLine(wallet),
                type: 'adjustment',
                amount: input.amount,
                description,
                sourceId: null,
              },
              {
                account: platformLine(funding),
                type: 'adjustment',
                amount: -input.amount,
                description,
                sourceId: null,
              },
            ],
          },
          store.dialect,
        );
        const transaction = presentTransaction(credited);
        await deps.audit?.record(trx, {
          tenantId,
          action: 'wallet_transaction.created',
          resource: { type: 'wallet_transaction', id: transaction.id },
          after: transaction,
        });
        return transaction;
      });
    },

    /**
     * Brings every wallet of the tenant back to zero inside `trx`, each with one adjustment entry
     * against the platform's funding account (the ledger is append-only: nothing is deleted). What a
     * reset of test mode does to its test money.
     */
    async zero(trx: Db, tenantId: string, description: string): Promise<void> {
      const now = clock.now();
      for (const wallet of await repo.listWallets(trx, tenantId)) {
        if (wallet.balance === 0) continue;
        const funding = await accounts.platformAccount(trx, 'funding', tenantId, wallet.currency, now);
        await postEntry(
          trx,
          {
            type: 'adjustment',
            currency: wallet.currency,
            created: now,
            lines: [
              {
                account: walletLine(wallet),
                type: 'adjustment',
                amount: -wallet.balance,
                description,
                sourceId: null,
              },
              {
                account: platformLine(funding),
                type: 'adjustment',
                amount: wallet.balance,
                description,
                sourceId: null,
              },
            ],
          },
          store.dialect,
        );
      }
    },

    ...createWalletOrderMoney(deps, accounts),

    /** Checks every ledger invariant (`ledger:verify`). */
    async verify(): Promise<LedgerReport> {
      return verifyLedger(store.db);
    },
  };
}
