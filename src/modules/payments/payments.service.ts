import type { Db, Store } from '../../db/store.js';
import { notFound, validationError } from '../../lib/errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { EventService } from '../events/events.service.js';
import { commitTransition, emitOrder } from '../orders/orders.lifecycle.js';
import { loadOrder } from '../orders/orders.presenter.js';
import * as orders from '../orders/orders.repository.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import { orderMoneyOf, type WalletService } from '../wallet/wallet.service.js';
import type { ChargeResult, PaymentProvider } from './payments.provider.js';
import * as repo from './payments.repository.js';

/**
 * Payments of orders through the provider interface: charging, settling, returning money, and
 * the sweeps that finish what a dead process left. A provider call never runs inside a
 * transaction: the attempt is recorded first (in the order's transaction), the provider is called,
 * and one transaction records the outcome, with the order it pays, the wallet posting and the
 * events. A refund is committed with its order (`refund`) and the provider told afterwards.
 *
 * An attempt left pending (its process died, or its outcome could not be recorded) is settled by
 * `settleStalePayments`; a refund the provider has not confirmed is sent again by
 * `returnOwedRefunds`. Both run from the maintenance timers (`start` in src/deps.ts).
 */

/** A payment attempt still pending after this long is taken to have lost its process. */
export const PAYMENT_LEASE_MS = 2 * 60 * 1000;

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

  async function emitPayment(
    trx: Db,
    type: 'payment.received' | 'payment.failed',
    payment: repo.PaymentRow,
  ): Promise<void> {
    await events.emit(trx, {
      tenantId: payment.tenant_id,
      type,
      objectType: 'payment',
      object: { ...repo.presentPayment(payment) },
    });
  }

  /**
   * Tells the provider about a committed refund (idempotent per payment there) and clears what is
   * owed. On failure the refund stays owed and `returnOwedRefunds` retries it.
   */
  async function returnMoney(payment: repo.PaymentRow): Promise<boolean> {
    try {
      await provider.refund({
        paymentId: payment.id,
        reference: payment.provider_reference ?? '',
        amount: payment.amount,
        currency: payment.currency,
      });
    } catch (error) {
      logger.error(
        { err: error, payment_id: payment.id },
        'payment provider refund failed; it will be retried',
      );
      return false;
    }
    await repo.refundConfirmed(store.db, payment.id, clock.now());
    return true;
  }

  /**
   * Records a provider's answer for a pending payment in one transaction: the payment, the order
   * (paid on success) and their events. A payment someone else settled first is left alone.
   */
  async function settle(payment: repo.PaymentRow, result: ChargeResult): Promise<Settled> {
    const now = clock.now();
    const { settled, giveBack } = await store.transaction(async (trx) => {
      const order = await orders.findOrder(trx, payment.tenant_id, payment.order_id, store.supportsRowLocks);
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
      const moved = await repo.updatePayment(trx, payment.id, 'pending', {
        status: giveBack ? 'refunded' : status,
        failure_code,
        failure_message,
        provider_reference,
        refund_due_at: refundDueAt,
        updated: now,
      });
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
      await emitPayment(trx, 'payment.received', current);
      const paid = await commitTransition(trx, order, 'pay', now, { paid_at: now, payment_id: payment.id });
      await wallet.creditOrderPayment(trx, orderMoneyOf(current));
      return {
        settled: { order: await emitOrder(trx, events, 'order.paid', paid), payment: current },
        giveBack: false,
      };
    });
    if (giveBack) await returnMoney(settled.payment);
    return settled;
  }

  /** Calls the provider (outside any transaction) and records its answer. */
  async function chargeAndSettle(payment: repo.PaymentRow): Promise<Settled> {
    const result = await provider.charge({
      paymentId: payment.id,
      amount: payment.amount,
      currency: payment.currency,
      method: payment.method,
    });
    return settle(payment, result);
  }

  return {
    chargeAndSettle,
    returnMoney,

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
     * Marks the order's captured payment refunded and debits the wallet, in the order's
     * transaction, with the provider's confirmation owed (`refund_due_at`): the caller tells the
     * provider after the commit (`returnMoney`), and should that never happen (a crash, a provider
     * error), `returnOwedRefunds` tells it once the lease is over.
     */
    async refund(trx: Db, order: orders.OrderRow, now: number): Promise<repo.PaymentRow> {
      const payment = order.payment_id === null ? undefined : await repo.findPayment(trx, order.payment_id);
      const changes = { status: 'refunded' as const, refund_due_at: now + PAYMENT_LEASE_MS, updated: now };
      if (!payment || !(await repo.updatePayment(trx, payment.id, 'succeeded', changes))) {
        throw new Error(`order ${order.id} is ${order.status} without a succeeded payment`);
      }
      const refunded = { ...payment, ...changes };
      await wallet.debitOrderRefund(trx, orderMoneyOf(refunded));
      return refunded;
    },

    /**
     * Tells the provider about the committed refunds it has not confirmed once their lease is over
     * (the process that committed one died, or the provider failed): each is first postponed by a
     * lease, so concurrent sweepers send it once, and cleared when the provider confirms.
     */
    async returnOwedRefunds(limit = 100): Promise<number> {
      const now = clock.now();
      const due = await repo.findDueRefunds(store.db, now, limit);
      let returned = 0;
      for (const payment of due) {
        const claimed = await repo.postponeRefund(
          store.db,
          payment.id,
          payment.refund_due_at ?? now,
          now + PAYMENT_LEASE_MS,
        );
        if (claimed && (await returnMoney(payment))) returned++;
      }
      return returned;
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
