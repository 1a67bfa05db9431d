import type { Db, Store } from '../../db/store.js';
import { notFound, validationError } from '../../lib/errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { EmitInput, EventService } from '../events/index.js';
import { commitTransition, TRANSITIONS } from './orders.lifecycle.js';
import { loadOrder, presentOrder } from './orders.presenter.js';
import * as orders from './orders.repository.js';
import type { OrderObject } from './orders.schemas.js';
import type * as refunds from './refunds.repository.js';
import { orderMoneyOf, type WalletService } from '../wallet/index.js';
import type { ChargeResult, PaymentProvider } from './payments.provider.js';
import * as repo from './payments.repository.js';
import { createMoneyReturns, PAYMENT_LEASE_MS } from './payments.returns.js';

/**
 * Payments of orders through the provider interface: charging, settling, returning money, and
 * the sweeps that finish what a dead process left. A provider call never runs inside a
 * transaction: the attempt is recorded first (in the order's transaction), the provider is called,
 * and one transaction records the outcome, with the order it pays, the wallet posting and the
 * events. A refund (src/modules/refunds) is committed with its wallet debit (`recordRefund`) and
 * the provider told afterwards (`returnRefund`), owed until it confirms (`refunds.due_at`).
 *
 * An attempt left pending (its process died, or its outcome could not be recorded) is settled by
 * `settleStalePayments`; a refund the provider has not confirmed is sent again by
 * `returnOwedRefunds`. Both run every minute in a serving process (`start` in payments.module.ts).
 */

/** A payment's event. */
function paymentEvent(type: 'payment.received' | 'payment.failed', payment: repo.PaymentRow): EmitInput {
  return {
    tenantId: payment.tenant_id,
    type,
    objectType: 'payment',
    object: { ...repo.presentPayment(payment) },
  };
}

/** What the caller of `settleIn` has of the order already, so it is not read again. */
export interface KnownOrder {
  /** The order's row as this transaction wrote it (a held order placed now), locked by its insert. */
  order?: orders.OrderRow;
  /** Its lines: those of an unpaid order, which do not change while it is unpaid. */
  items?: readonly orders.OrderItemRow[];
  /** Events of the same change that come before the payment's (a placed order's own). */
  before?: readonly EmitInput[];
  /**
   * The caller does nothing in the transaction after `settleIn`: a succeeded payment's wallet
   * credit then goes with the COMMIT, which ends the transaction (PostgreSQL: one message).
   */
  last?: boolean;
}

/** A settled attempt and its order, as committed. */
export interface Settled {
  order: OrderObject;
  payment: repo.PaymentRow;
}

export interface PaymentServiceDeps {
  store: Store;
  clock: Clock;
  events: EventService;
  provider: PaymentProvider;
  logger: Logger;
  /** Credits captured payments to the tenant's wallet and debits refunds, in the order's transaction. */
  wallet: WalletService;
}

export type PaymentService = ReturnType<typeof createPaymentService>;

export function createPaymentService(deps: PaymentServiceDeps) {
  const { store, clock, events, provider, logger, wallet } = deps;
  const { returnMoney, returnRefund, returnOwedRefunds } = createMoneyReturns(deps);

  async function emitPayment(
    trx: Db,
    type: 'payment.received' | 'payment.failed',
    payment: repo.PaymentRow,
  ): Promise<void> {
    await events.emit(trx, paymentEvent(type, payment));
  }

  /**
   * Records a provider's answer for a pending payment in the caller's transaction `trx`: the
   * payment, the order (paid on success) and their events. A payment someone else settled first is
   * left alone. `giveBack`: the charge landed after its order was cancelled, and is owed back
   * (in this transaction); the caller tells the provider once it commits. `known`: what the caller
   * has of the order already (see `KnownOrder`).
   *
   * A payment that succeeded moves, in this order: the payment and the order (their own rows),
   * the events (and what they move: the customer's figures, webhook deliveries, the analytics
   * queue), and last the wallet, the row every payment of the store takes, held from there to the
   * commit.
   */
  async function settleIn(
    trx: Db,
    payment: repo.PaymentRow,
    result: ChargeResult,
    now: number,
    known: KnownOrder = {},
  ): Promise<{ settled: Settled; giveBack: boolean }> {
    const order = known.order ?? (await orders.findOrder(trx, payment.tenant_id, payment.order_id, true));
    if (!order) throw notFound('order');
    let current: repo.PaymentRow;
    if (result.status === 'failed') {
      current = {
        ...payment,
        status: 'failed',
        failure_code: result.failureCode,
        failure_message: result.message,
        updated: now,
      };
    } else {
      current = { ...payment, status: 'succeeded', provider_reference: result.reference, updated: now };
    }
    // Cancelled while the charge ran: the money goes straight back, owed in this same transaction.
    const giveBack = current.status === 'succeeded' && order.status !== 'pending';
    const refundDueAt = giveBack ? now + PAYMENT_LEASE_MS : null;
    const { status, failure_code, failure_message, provider_reference } = current;
    const changes = {
      status: giveBack ? 'refunded' : status,
      failure_code,
      failure_message,
      provider_reference,
      refund_due_at: refundDueAt,
      updated: now,
    } as const;
    // The order it pays, as paid: on PostgreSQL moved with the payment in one statement.
    const paidChanges = { paid_at: now, payment_id: payment.id };
    const together = current.status === 'succeeded' && !giveBack && store.dialect === 'postgres';
    const moved = together
      ? await repo.settleWithOrder(
          trx,
          { id: payment.id, changes },
          {
            tenantId: order.tenant_id,
            id: order.id,
            changes: { ...paidChanges, status: TRANSITIONS.pay.to, updated: now },
          },
        )
      : await repo.updatePayment(trx, payment.id, 'pending', changes);
    if (!moved) {
      const latest = (await repo.findPayment(trx, payment.id)) ?? payment;
      return { settled: { order: await loadOrder(trx, order), payment: latest }, giveBack: false };
    }
    if (current.status === 'failed') {
      await orders.updateOrder(trx, order.tenant_id, order.id, { updated: now });
      await emitPayment(trx, 'payment.failed', current);
      return {
        settled: { order: await loadOrder(trx, { ...order, updated: now }), payment: current },
        giveBack: false,
      };
    }
    if (giveBack) {
      // The event carries the payment as committed: received, and refunded at once.
      const refunded = { ...current, status: 'refunded' as const, refund_due_at: refundDueAt };
      await emitPayment(trx, 'payment.received', refunded);
      return { settled: { order: await loadOrder(trx, order), payment: refunded }, giveBack };
    }
    const paid: orders.OrderRow = together
      ? { ...order, ...paidChanges, status: TRANSITIONS.pay.to, updated: now }
      : await commitTransition(trx, order, 'pay', now, paidChanges);
    // An unpaid order's lines and refunds (none) do not change: a caller that has its lines need
    // not read them again.
    const object =
      known.items === undefined ? await loadOrder(trx, paid) : presentOrder(paid, known.items, current, []);
    await events.emitMany(trx, [
      ...(known.before ?? []),
      paymentEvent('payment.received', current),
      { tenantId: paid.tenant_id, type: 'order.paid', objectType: 'order', object },
    ]);
    // The store's wallet, the one row every payment of the store takes, last: what waits for the
    // commit (the audit entries of the events above) is written first, so the row is held only for
    // its credit and the commit; with `known.last`, the credit and the COMMIT go as one message.
    if (known.last === true) await wallet.creditOrderPaymentAndCommit(trx, orderMoneyOf(current));
    else {
      await store.flushBeforeCommit(trx);
      await wallet.creditOrderPayment(trx, orderMoneyOf(current));
    }
    return { settled: { order: object, payment: current }, giveBack: false };
  }

  /** Records a provider's answer for a pending payment in one transaction (`settleIn`). */
  async function settle(
    payment: repo.PaymentRow,
    result: ChargeResult,
    items?: readonly orders.OrderItemRow[],
  ): Promise<Settled> {
    const now = clock.now();
    const { settled, giveBack } = await store.transaction((trx) =>
      settleIn(trx, payment, result, now, items === undefined ? { last: true } : { items, last: true }),
    );
    if (giveBack) await returnMoney(settled.payment);
    return settled;
  }

  /**
   * Calls the provider (outside any transaction) and records its answer; `items`: the order's
   * lines, when the caller has them (it made the order).
   */
  async function chargeAndSettle(
    payment: repo.PaymentRow,
    items?: readonly orders.OrderItemRow[],
  ): Promise<Settled> {
    const result = await provider.charge({
      paymentId: payment.id,
      amount: payment.amount,
      currency: payment.currency,
      method: payment.method,
    });
    return settle(payment, result, items);
  }

  return {
    chargeAndSettle,
    returnRefund,
    returnOwedRefunds,
    settleIn,

    /**
     * Asks the provider to charge a payment not stored yet (a cart's completion records it with its
     * cart first): outside any transaction, idempotent per `id` at the provider.
     */
    charge(payment: Pick<repo.PaymentRow, 'id' | 'amount' | 'currency' | 'method'>): Promise<ChargeResult> {
      return provider.charge({
        paymentId: payment.id,
        amount: payment.amount,
        currency: payment.currency,
        method: payment.method,
      });
    },

    /** Refuses a method the provider cannot charge (400, naming `payment_method`). */
    checkMethod(method: string): void {
      if (!provider.accepts(method)) {
        throw validationError('payment_method', `must be one of ${provider.describeMethods()}`);
      }
    },

    /**
     * A new attempt to charge `order`'s total, once the wallet is known to have room for it
     * (`limit_exceeded` otherwise). Not stored yet: `insertAttempt` does, once the order row is in.
     */
    async newAttempt(
      trx: Db,
      order: Pick<orders.OrderRow, 'id' | 'tenant_id' | 'total' | 'currency'>,
      method: string,
      now: number,
    ): Promise<repo.PaymentRow> {
      await wallet.roomForPayment(trx, order.tenant_id, order.currency, order.total);
      return {
        id: newId('pay'),
        tenant_id: order.tenant_id,
        order_id: order.id,
        provider: provider.name,
        method,
        amount: order.total,
        currency: order.currency,
        status: 'pending',
        failure_code: null,
        failure_message: null,
        provider_reference: null,
        refund_due_at: null,
        created: now,
        updated: now,
      };
    },

    /** Stores an attempt; an order's second attempt in flight is refused by a unique index. */
    async insertAttempt(trx: Db, attempt: repo.PaymentRow): Promise<void> {
      await repo.insertPayment(trx, attempt);
    },

    /** An attempt whose process died before recording the outcome is asked for again (idempotent per payment). */
    async recoverStalePayment(orderId: string): Promise<void> {
      const pending = await repo.findPendingPayment(store.db, orderId);
      if (pending && pending.created <= clock.now() - PAYMENT_LEASE_MS) await chargeAndSettle(pending);
    },

    /** The order and payment a pay attempt made, settled now if it is still pending. */
    async resumePayment(tenantId: string, paymentId: string): Promise<Settled> {
      const payment = await repo.findPayment(store.db, paymentId);
      if (!payment || payment.tenant_id !== tenantId) throw notFound('payment');
      // The attempt that marked the key gave up (its answer failed) or lost its lease: asking the
      // provider again is safe (idempotent per payment) and only one outcome can be recorded.
      if (payment.status === 'pending') return chargeAndSettle(payment);
      const order = await orders.findOrder(store.db, tenantId, payment.order_id);
      if (!order) throw notFound('order');
      return { order: await loadOrder(store.db, order), payment };
    },

    /**
     * The captured payment of an order being refunded, in the refund's transaction: the order's
     * payment, which must have succeeded (a paid, shipped or delivered order's always has).
     */
    async capturedPayment(trx: Db, order: orders.OrderRow): Promise<repo.PaymentRow> {
      const payment = order.payment_id === null ? undefined : await repo.findPayment(trx, order.payment_id);
      if (payment?.status !== 'succeeded') {
        throw new Error(`order ${order.id} is ${order.status} without a succeeded payment`);
      }
      return payment;
    },

    /**
     * A refund's money leaving the tenant's wallet, in the refund's transaction: one ledger entry of
     * the refund's amount, naming the refund (committed with the refund row, so once per refund).
     * Without the funds it is 422 `insufficient_funds` and the transaction rolls back.
     */
    async recordRefund(trx: Db, refund: refunds.RefundRow): Promise<void> {
      await wallet.debitOrderRefund(trx, {
        tenantId: refund.tenant_id,
        currency: refund.currency,
        amount: refund.amount,
        orderId: refund.order_id,
        paymentId: refund.payment_id,
        refundId: refund.id,
      });
    },

    /** Marks a payment refunded once its order has nothing left to refund, in that refund's transaction. */
    async closeRefunded(trx: Db, payment: repo.PaymentRow, now: number): Promise<repo.PaymentRow> {
      const changes = { status: 'refunded' as const, updated: now };
      if (!(await repo.updatePayment(trx, payment.id, 'succeeded', changes))) {
        throw new Error(`payment ${payment.id} is no longer succeeded`);
      }
      return { ...payment, ...changes };
    },

    /**
     * Settles payment attempts still pending past their lease (their process died, or recording
     * the outcome failed); returns how many it settled. Safe to run from several processes at once.
     */
    async settleStalePayments(limit = 100): Promise<number> {
      const stale = await repo.findStalePayments(store.db, clock.now() - PAYMENT_LEASE_MS, limit);
      let settled = 0;
      for (const payment of stale) {
        try {
          await chargeAndSettle(payment);
          settled++;
        } catch (error) {
          logger.warn({ err: error, payment_id: payment.id }, 'stale payment not settled; will retry');
        }
      }
      return settled;
    },
  };
}
