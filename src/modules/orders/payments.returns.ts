import type { Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { PaymentProvider } from './payments.provider.js';
import * as repo from './payments.repository.js';
import * as refunds from './refunds.repository.js';

/** A payment attempt still pending after this long is taken to have lost its process. */
export const PAYMENT_LEASE_MS = 2 * 60 * 1000;

/**
 * The provider's idempotency key of a refund: its id; for a whole refund migration 0022 carried
 * over from release v2.4 (its id is `re_` and its order id's suffix), the payment id that release
 * sent, so a refund the provider took then is not taken twice.
 */
export function refundKey(refund: Pick<refunds.RefundRow, 'id' | 'order_id' | 'payment_id'>): string {
  return refund.id === `re_${refund.order_id.slice('ord_'.length)}` ? refund.payment_id : refund.id;
}

/**
 * Money owed back to a shopper, told to the provider after the commit that owes it: a refund of
 * an order, or a whole charge that landed after its order was cancelled; and the sweep that sends
 * again what is still owed (its process died, or the provider failed).
 */
export function createMoneyReturns(deps: {
  store: Store;
  clock: Clock;
  provider: PaymentProvider;
  logger: Logger;
}) {
  const { store, clock, provider, logger } = deps;

  /**
   * Gives back a whole charge that landed after its order was cancelled (`settle`; no refund of
   * the order, which never was paid): tells the provider, keyed by the payment as release v2.4 did,
   * and clears `payments.refund_due_at`. On failure it stays owed and `returnOwedRefunds` retries it.
   */
  async function returnMoney(payment: repo.PaymentRow): Promise<boolean> {
    try {
      await provider.refund({
        paymentId: payment.id,
        reference: payment.provider_reference ?? '',
        refundId: payment.id,
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
   * Tells the provider about a committed refund (idempotent per `refundId` there) and clears what
   * is owed. On failure the refund stays owed and `returnOwedRefunds` retries it.
   */
  async function returnRefund(refund: refunds.RefundRow): Promise<boolean> {
    try {
      const payment = await repo.findPayment(store.db, refund.payment_id);
      const { reference } = await provider.refund({
        paymentId: refund.payment_id,
        reference: payment?.provider_reference ?? '',
        refundId: refundKey(refund),
        amount: refund.amount,
        currency: refund.currency,
      });
      await refunds.refundConfirmed(store.db, refund.id, reference);
      return true;
    } catch (error) {
      logger.error(
        { err: error, refund_id: refund.id },
        'payment provider refund failed; it will be retried',
      );
      return false;
    }
  }

  /**
   * Tells the provider about the committed refunds it has not confirmed once their lease is over
   * (the process that committed one died, or the provider failed): each is first postponed by a
   * lease, so concurrent sweepers send it once, and cleared when the provider confirms. Refunds
   * owe it on their row (`refunds.due_at`); a charge given back because its order was cancelled
   * while it ran owes it on its payment (`payments.refund_due_at`).
   */
  async function returnOwedRefunds(limit = 100): Promise<number> {
    const now = clock.now();
    let returned = 0;
    for (const refund of await refunds.findDueRefunds(store.db, now, limit)) {
      const claimed = await refunds.postponeRefund(
        store.db,
        refund.id,
        refund.due_at ?? now,
        now + PAYMENT_LEASE_MS,
      );
      if (claimed && (await returnRefund(refund))) returned++;
    }
    for (const payment of await repo.findDueRefunds(store.db, now, limit)) {
      const claimed = await repo.postponeRefund(
        store.db,
        payment.id,
        payment.refund_due_at ?? now,
        now + PAYMENT_LEASE_MS,
      );
      if (claimed && (await returnMoney(payment))) returned++;
    }
    return returned;
  }

  return { returnMoney, returnRefund, returnOwedRefunds };
}
