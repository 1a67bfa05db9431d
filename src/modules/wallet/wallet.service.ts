import type { Db, Store } from '../../db/store.js';
import { AppError, notFound, validationError } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { envelope, pageWindow } from '../../lib/paging.js';
import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { isCurrency, MAX_AMOUNT, MAX_BALANCE } from '../../lib/money.js';
import type { AuditRecorder } from '../audit/index.js';
import type { EventService } from '../events/index.js';
import {
  ensurePlatformAccount,
  type LedgerReport,
  openWallet,
  platformAccountId,
  type PlatformAccountType,
  postEntry,
  verifyLedger,
} from './wallet.ledger.js';
import { livemodeOf } from '../tenants/index.js';
import * as repo from './wallet.repository.js';
import {
  type BalanceObject,
  type TransactionListQuery,
  type TransactionObject,
  type TransferBody,
  type TransferListQuery,
  type TransferObject,
} from './wallet.schemas.js';

/**
 * The wallet: one per tenant and currency, on the double-entry ledger of `wallet.ledger.ts`.
 * Payments come in from the platform's clearing account, refunds go back to it, adjustments come
 * from its funding account (test mode has its own of each), transfers move money between wallets. Use cases open one transaction;
 * the order hooks (`creditOrderPayment`, `debitOrderRefund`) run in the orders' transaction.
 */

const LATEST_TRANSACTIONS = 10;
const DAY_MS = 86_400_000;

export function presentTransaction(row: repo.PostingRow): TransactionObject {
  return {
    id: row.id,
    type: row.type,
    amount: row.amount,
    currency: row.currency,
    balance_after: row.balance_after ?? 0, // wallet postings always carry it (ledger:verify checks)
    description: row.description,
    source_id: row.source_id,
    created: iso(row.created),
  };
}

/** A transfer as `viewer` sees it: the sender's `metadata` is the sender's own, `{}` to the receiver. */
export function presentTransfer(row: repo.TransferRow, viewer: string): TransferObject {
  return {
    id: row.id,
    amount: row.amount,
    currency: row.currency,
    source_wallet_id: row.source_wallet_id,
    destination_wallet_id: row.destination_wallet_id,
    status: 'succeeded',
    description: row.description,
    metadata: row.tenant_id === viewer ? (JSON.parse(row.metadata) as Record<string, string>) : {},
    created: iso(row.created),
  };
}

function walletLine(wallet: Pick<repo.WalletRow, 'id' | 'tenant_id'>) {
  return { id: wallet.id, wallet: true, tenantId: wallet.tenant_id };
}

function platformLine(id: string) {
  return { id, wallet: false, tenantId: null };
}

function checkCurrency(currency: string, field = 'currency'): string {
  if (!isCurrency(currency)) throw validationError(field, 'must be an ISO 4217 currency code');
  return currency;
}

function checkAmount(amount: number, field = 'amount'): number {
  if (!Number.isSafeInteger(amount) || amount < 1 || amount > MAX_AMOUNT) {
    throw validationError(field, `must be a whole number of minor units from 1 to ${MAX_AMOUNT}`);
  }
  return amount;
}

/** `from`/`to` of a listing: an instant, or a UTC date (from its start / through its end). */
function bound(value: string | undefined, edge: 'start' | 'end'): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const start = Date.parse(`${value}T00:00:00.000Z`);
    return edge === 'start' ? start : start + DAY_MS - 1;
  }
  return Date.parse(value);
}

export interface OrderMoney {
  tenantId: string;
  currency: string;
  /** Minor units, positive. */
  amount: number;
  orderId: string;
  paymentId: string;
}

/** A refund's money, as `debitOrderRefund` takes it: an order may have several refunds. */
export interface RefundMoney extends OrderMoney {
  /** The refund (`re_...`): its one debit names it. */
  refundId: string;
}

/** The money of an order's payment, as the order hooks take it. */
export function orderMoneyOf(payment: {
  id: string;
  tenant_id: string;
  order_id: string;
  amount: number;
  currency: string;
}): OrderMoney {
  return {
    tenantId: payment.tenant_id,
    currency: payment.currency,
    amount: payment.amount,
    orderId: payment.order_id,
    paymentId: payment.id,
  };
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
  const { store, clock, events } = deps;
  /** Platform accounts a committed transaction of this process wrote or found: they are never deleted. */
  const platformAccounts = new Set<string>();

  /**
   * Tenants' wallets by tenant and currency, as this process read them: a wallet's id never
   * changes (its row is never deleted), so a payment's credit need not read it again.
   */
  const walletIds = new Map<string, string>();

  /** The tenant's wallet in `currency` (made if it has none): its id, read once per process. */
  async function walletOf(trx: Db, tenantId: string, currency: string, now: number) {
    const key = `${tenantId} ${currency}`;
    const known = walletIds.get(key);
    if (known !== undefined) return { id: known, tenant_id: tenantId };
    const wallet = await openWallet(trx, tenantId, currency, now);
    store.afterCommit(trx, () => walletIds.set(key, wallet.id));
    return wallet;
  }

  /**
   * `ensurePlatformAccount` of the tenant's mode (test money has accounts of its own), without a
   * statement once this process has seen the account committed.
   */
  async function platformAccount(
    trx: Db,
    type: PlatformAccountType,
    tenantId: string,
    currency: string,
    now: number,
  ) {
    const livemode = await livemodeOf(trx, tenantId);
    const id = platformAccountId(type, currency, livemode);
    if (platformAccounts.has(id)) return id;
    await ensurePlatformAccount(trx, type, currency, livemode, now);
    store.afterCommit(trx, () => platformAccounts.add(id));
    return id;
  }

  /**
   * Refuses a transfer that would take the wallet past the tenant's daily `limit` (UTC day). Read
   * after the wallet is locked, so transfers from it at once each count the others.
   */
  async function checkDailyLimit(
    trx: Db,
    limit: number | null,
    wallet: repo.WalletRow,
    amount: number,
    now: number,
  ) {
    if (limit === null) return;
    const dayStart = now - (now % DAY_MS);
    const sent = await repo.sentSince(trx, wallet.id, dayStart);
    if (sent + amount > limit) {
      throw new AppError(
        'limit_exceeded',
        `This transfer would exceed the daily transfer limit of ${limit} ${wallet.currency}: ${sent} sent today (UTC).`,
        { extra: { daily_transfer_limit: limit, sent_today: sent } },
      );
    }
  }

  async function getTransfer(tenantId: string, id: string): Promise<TransferObject> {
    const row = await repo.findTransfer(store.db, tenantId, id);
    if (!row) throw notFound('transfer');
    return presentTransfer(row, tenantId);
  }

  async function transferInTransaction(
    trx: Db,
    tenantId: string,
    input: TransferBody,
    idempotent: IdempotentWrite,
  ): Promise<repo.TransferRow> {
    const now = clock.now();
    const { accounts, dailyLimit } = await repo.findTransferAccounts(
      trx,
      tenantId,
      input.currency,
      input.destination_wallet_id,
      true,
    );
    const source = accounts.find(
      (a): a is repo.WalletRow =>
        repo.isWallet(a) && a.tenant_id === tenantId && a.currency === input.currency,
    );
    const destination = accounts.find((a) => a.id === input.destination_wallet_id);
    // A wallet of the other mode (test money to a live store, or the reverse) is no such wallet.
    const otherMode =
      destination?.tenant_id != null &&
      (await livemodeOf(trx, destination.tenant_id)) !== (await livemodeOf(trx, tenantId));
    if (!destination || !repo.isWallet(destination) || otherMode) {
      throw new AppError('invalid_destination', `No such wallet: ${input.destination_wallet_id}.`);
    }
    if (destination.id === source?.id) {
      throw new AppError('invalid_destination', 'A wallet cannot transfer to itself.');
    }
    if (destination.currency !== input.currency) {
      throw new AppError(
        'currency_mismatch',
        `The destination wallet holds ${destination.currency}, not ${input.currency}.`,
      );
    }
    if (!source || source.balance < input.amount) {
      throw new AppError(
        'insufficient_funds',
        `The ${input.currency} wallet has ${source?.balance ?? 0} available; the transfer needs ${input.amount}.`,
        { extra: { available: source?.balance ?? 0 } },
      );
    }
    await checkDailyLimit(trx, dailyLimit, source, input.amount, now);

    const id = newId('tr');
    const { transfer } = await postEntry(
      trx,
      {
        type: 'transfer',
        currency: input.currency,
        created: now,
        lines: [
          {
            account: walletLine(source),
            type: 'transfer_out',
            amount: -input.amount,
            description: input.description ?? `Transfer to ${destination.id}`,
            sourceId: id,
          },
          {
            account: walletLine(destination),
            type: 'transfer_in',
            amount: input.amount,
            description: input.description ?? `Transfer from ${source.id}`,
            sourceId: id,
          },
        ],
        transfer: {
          id,
          tenant_id: tenantId,
          source_wallet_id: source.id,
          destination_wallet_id: destination.id,
          amount: input.amount,
          currency: input.currency,
          description: input.description ?? null,
          metadata: JSON.stringify(input.metadata ?? {}),
          created: now,
        },
      },
      store.dialect,
    );
    if (!transfer) throw new Error('postEntry returned no transfer for a transfer entry');
    await idempotent.mark(trx, id);
    // The sender and the receiving tenant each get the event, in the transfer's transaction.
    await events.emitMany(
      trx,
      [tenantId, destination.tenant_id].map((party) => ({
        tenantId: party,
        type: 'transfer.created' as const,
        objectType: 'transfer',
        object: presentTransfer(transfer, party),
      })),
    );
    return transfer;
  }

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

    /**
     * Moves `amount` from the tenant's wallet in `currency` to another wallet (any tenant's) in
     * one transaction: balanced postings, the transfer, and `transfer.created` for the sender and
     * for the receiving tenant. A retry whose first answer was lost (a 5xx after the commit)
     * answers for the transfer its key committed instead of moving the money again.
     */
    async transfer(
      tenantId: string,
      input: TransferBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<TransferObject> {
      if (idempotent.committed !== null) return getTransfer(tenantId, idempotent.committed);
      checkAmount(input.amount);
      checkCurrency(input.currency);
      const row = await store.transaction((trx) => transferInTransaction(trx, tenantId, input, idempotent));
      return presentTransfer(row, tenantId);
    },

    getTransfer,

    /** The transfers the tenant sent or received (`direction` narrows to one), newest first. */
    async listTransfers(tenantId: string, query: TransferListQuery) {
      // A forged cursor (no timestamp in it) is refused by pageWindow for every creation-order list.
      const window = pageWindow(query, '-created');
      const wallets = query.direction === 'sent' ? [] : await repo.listWallets(store.db, tenantId);
      const party: repo.TransferParty = {
        tenantId,
        walletIds: wallets.map((wallet) => wallet.id),
        direction: query.direction,
      };
      const [rows, total] = await Promise.all([
        repo.listTransfers(store.db, party, window),
        repo.countTransfers(store.db, party),
      ]);
      return envelope(
        rows,
        total,
        window,
        '-created',
        (row) => [row.created, row.id],
        (row) => presentTransfer(row, tenantId),
      );
    },

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
        const funding = await platformAccount(trx, 'funding', tenantId, currency, now);
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
        const funding = await platformAccount(trx, 'funding', tenantId, wallet.currency, now);
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

    /** Sets (a number) or removes (null) the tenant's daily transfer limit per wallet. */
    async setDailyTransferLimit(
      tenantId: string,
      limit: number | null,
    ): Promise<{ tenant_id: string; daily_transfer_limit: number | null }> {
      if (limit !== null && (!Number.isSafeInteger(limit) || limit < 1)) {
        throw validationError('daily_transfer_limit', 'must be a positive whole number of minor units');
      }
      await store.transaction(async (trx) => {
        if (!(await repo.tenantExists(trx, tenantId))) throw notFound('tenant');
        await repo.upsertSettings(trx, {
          tenant_id: tenantId,
          daily_transfer_limit: limit,
          updated: clock.now(),
        });
      });
      return { tenant_id: tenantId, daily_transfer_limit: limit };
    },

    /**
     * A captured order payment, in the orders' transaction: clearing account -> tenant's wallet.
     * A free order (total 0) moves nothing and posts nothing.
     */
    /**
     * 422 `limit_exceeded` when a payment of `amount` would take the tenant's wallet past
     * MAX_BALANCE: checked before anything is charged, since a captured payment always lands.
     */
    async roomForPayment(trx: Db, tenantId: string, currency: string, amount: number): Promise<void> {
      const wallet = await repo.findWallet(trx, tenantId, currency);
      if (wallet) store.afterCommit(trx, () => walletIds.set(`${tenantId} ${currency}`, wallet.id));
      if (Number(wallet?.balance ?? 0) + amount > MAX_BALANCE) {
        throw new AppError(
          'limit_exceeded',
          `The ${currency} wallet may hold at most ${MAX_BALANCE}; a payment of ${amount} would take it past that.`,
          { extra: { wallet_id: wallet?.id ?? null } },
        );
      }
    },

    async creditOrderPayment(trx: Db, input: OrderMoney): Promise<TransactionObject | null> {
      if (input.amount === 0) return null;
      checkAmount(input.amount);
      const now = clock.now();
      const wallet = await walletOf(trx, input.tenantId, input.currency, now);
      const clearing = await platformAccount(trx, 'clearing', input.tenantId, input.currency, now);
      const description = `Payment ${input.paymentId} for order ${input.orderId}`;
      const {
        postings: [credited],
      } = await postEntry(
        trx,
        {
          // The provider has the money: it lands even past MAX_BALANCE (`roomForPayment` came first).
          uncapped: true,
          type: 'payment',
          currency: input.currency,
          created: now,
          lines: [
            {
              account: walletLine(wallet),
              type: 'payment',
              amount: input.amount,
              description,
              sourceId: input.orderId,
            },
            {
              account: platformLine(clearing),
              type: 'payment',
              amount: -input.amount,
              description,
              sourceId: input.orderId,
            },
          ],
        },
        store.dialect,
      );
      return presentTransaction(credited);
    },

    /**
     * A refund of an order (a part of its payment, or all that was left), in the refund's
     * transaction: tenant's wallet -> clearing account, one balanced entry per refund, written with
     * the refund row (so a refund never debits twice). `source_id` is the order, as for its payment;
     * the description names the refund. Without the funds it is 422 `insufficient_funds` and the
     * caller's transaction rolls back. A refund of nothing (a free line) posts nothing.
     */
    async debitOrderRefund(trx: Db, input: RefundMoney): Promise<TransactionObject | null> {
      if (input.amount === 0) return null;
      checkAmount(input.amount);
      const now = clock.now();
      const wallet = await repo.findWallet(trx, input.tenantId, input.currency);
      if (!wallet || wallet.balance < input.amount) {
        throw new AppError(
          'insufficient_funds',
          `The ${input.currency} wallet has ${wallet?.balance ?? 0} available; refunding order ${input.orderId} needs ${input.amount}.`,
          { extra: { available: wallet?.balance ?? 0 } },
        );
      }
      const clearing = await platformAccount(trx, 'clearing', input.tenantId, input.currency, now);
      const description = `Refund ${input.refundId} of payment ${input.paymentId} for order ${input.orderId}`;
      const {
        postings: [debited],
      } = await postEntry(
        trx,
        {
          type: 'refund',
          currency: input.currency,
          created: now,
          lines: [
            {
              account: walletLine(wallet),
              type: 'refund',
              amount: -input.amount,
              description,
              sourceId: input.orderId,
            },
            {
              account: platformLine(clearing),
              type: 'refund',
              amount: input.amount,
              description,
              sourceId: input.orderId,
            },
          ],
        },
        store.dialect,
      );
      return presentTransaction(debited);
    },

    /** Checks every ledger invariant (`ledger:verify`). */
    async verify(): Promise<LedgerReport> {
      return verifyLedger(store.db);
    },
  };
}
