import type { Db, Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { MAX_BALANCE } from '../../lib/money.js';
import { checkAmount, platformLine, type WalletAccounts, walletLine } from './wallet.accounts.js';
import { type EntryInput, postEntry, postEntryAndCommit } from './wallet.ledger.js';
import { presentTransaction } from './wallet.presenter.js';
import * as repo from './wallet.repository.js';
import type { TransactionObject } from './wallet.schemas.js';

/**
 * An order's money in the tenant's wallet, in the orders' own transaction: room checked before a
 * charge, a captured payment credited from the platform's clearing account, a refund debited back.
 */

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

export function createWalletOrderMoney(deps: { store: Store; clock: Clock }, accounts: WalletAccounts) {
  const { store, clock } = deps;

  /** The ledger entry of an order's captured payment (none for a free order). */
  async function paymentEntry(trx: Db, input: OrderMoney): Promise<EntryInput | undefined> {
    if (input.amount === 0) return undefined;
    checkAmount(input.amount);
    const now = clock.now();
    const wallet = await accounts.walletOf(trx, input.tenantId, input.currency, now);
    const clearing = await accounts.platformAccount(trx, 'clearing', input.tenantId, input.currency, now);
    const description = `Payment ${input.paymentId} for order ${input.orderId}`;
    return {
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
    };
  }

  return {
    /**
     * 422 `limit_exceeded` when a payment of `amount` would take the tenant's wallet past
     * MAX_BALANCE: checked before anything is charged, since a captured payment always lands.
     */
    async roomForPayment(trx: Db, tenantId: string, currency: string, amount: number): Promise<void> {
      const wallet = await repo.findWallet(trx, tenantId, currency);
      if (wallet) accounts.remember(trx, tenantId, currency, wallet.id);
      if (Number(wallet?.balance ?? 0) + amount > MAX_BALANCE) {
        throw new AppError(
          'limit_exceeded',
          `The ${currency} wallet may hold at most ${MAX_BALANCE}; a payment of ${amount} would take it past that.`,
          { extra: { wallet_id: wallet?.id ?? null } },
        );
      }
    },

    /**
     * A captured order payment, in the orders' transaction: clearing account -> tenant's wallet.
     * A free order (total 0) moves nothing and posts nothing.
     */
    async creditOrderPayment(trx: Db, input: OrderMoney): Promise<TransactionObject | null> {
      const entry = await paymentEntry(trx, input);
      if (!entry) return null;
      const {
        postings: [credited],
      } = await postEntry(trx, entry, store.dialect);
      return presentTransaction(credited);
    },

    /**
     * `creditOrderPayment` as the last statement of the orders' transaction, which it ends: on
     * PostgreSQL the credit and the COMMIT go as one message, so the store's wallet, the row every
     * payment of the store takes, is held for no round trip to the process (`postEntryAndCommit`).
     * The caller does nothing in `trx` after it.
     */
    async creditOrderPaymentAndCommit(trx: Db, input: OrderMoney): Promise<void> {
      const entry = await paymentEntry(trx, input);
      if (entry) await postEntryAndCommit(trx, entry, store);
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
      const clearing = await accounts.platformAccount(trx, 'clearing', input.tenantId, input.currency, now);
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
  };
}
