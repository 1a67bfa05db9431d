import type { CancelReason, OrderStatus } from '../../db/schema.js';
import type { Db, Store } from '../../db/store.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { AppError, notFound } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import type { PageQuery } from '../../lib/paging.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { EventService } from '../events/index.js';
import type { PaymentRow } from './payments.repository.js';
import type { PaymentService, Settled } from './payments.service.js';
import type { RefundService } from './refunds.service.js';
import type { FulfillmentService } from './fulfillments.service.js';
import type { OrderCustomers } from '../customers/index.js';
import { productsInventory as inventory } from '../products/index.js';
import { pricingService as pricing } from '../pricing/index.js';
import {
  commitTransition,
  emitOrder,
  invalidTransition,
  type OrderAction,
  TRANSITIONS,
} from './orders.lifecycle.js';
import { listOrders } from './orders.listing.js';
import { loadOrder, presentOrder } from './orders.presenter.js';
import { API_ORIGIN, buildOrder, checkCreate, type OrderOrigin, takeStock } from './orders.build.js';
import * as repo from './orders.repository.js';
import type {
  CreateOrderBody,
  OrderObject,
  OrderListQuery,
  OrderPreview,
  ShipBody,
  StoredPricing,
} from './orders.schemas.js';

/**
 * Orders: creation with atomic stock reservation (src/modules/products/products.inventory.ts) and
 * the lifecycle (orders.lifecycle.ts); charging, settling and refunding the payment is the payment
 * service's (payments.service.ts). Every use case that changes data runs in
 * one `store.transaction`, and its events are emitted in that transaction; the payment functions
 * it calls inside get its `trx`.
 *
 * Creating and paying outlive one transaction, so each marks its request's idempotency key in the
 * transaction that commits the work (`IdempotentWrite`): a retry after a failed or lost answer
 * resumes that order or payment instead of reserving or charging again.
 */

export interface OrderServiceDeps {
  store: Store;
  clock: Clock;
  events: EventService;
  logger: Logger;
  /** Finds or creates the customer an order is for, in the order's transaction. */
  customers: OrderCustomers;
  /** Charges and settles orders' payments. */
  payments: PaymentService;
  /** Refunds what is left of an order: its whole refund, and a cancel after payment. */
  refunds: RefundService;
  /** Ships an order's units from locations: `/ship` fulfils everything left. */
  fulfillments: FulfillmentService;
}

export type OrderService = ReturnType<typeof createOrderService>;

export function createOrderService(deps: OrderServiceDeps) {
  const { store, clock, events, logger, payments, customers, refunds, fulfillments } = deps;

  /** Locks the order (PostgreSQL) and checks that `action` may start from its status. */
  async function begin(trx: Db, tenantId: string, id: string, action: OrderAction): Promise<repo.OrderRow> {
    const order = await repo.findOrder(trx, tenantId, id, true);
    if (!order) throw notFound('order');
    if (!TRANSITIONS[action].from.includes(order.status)) throw invalidTransition(action, order.status);
    return order;
  }

  /**
   * Cancels an order read and locked in this transaction (`cancel` has checked it may be): puts
   * back the units no refund put back yet (once: the order leaves pending/paid for good), gives
   * its discounts' uses back, and refunds all that is left of a captured payment (a refund, with
   * `refund.created`), which the caller tells the provider about once committed.
   */
  async function cancelLocked(trx: Db, before: repo.OrderRow, now: number, reason: CancelReason) {
    const tenantId = before.tenant_id;
    // Rows other orders share, in the order every order use case takes them (no deadlock
    // cycle): the products, the discounts, what the events move (the customer's figures), the
    // wallet (a refund's; the events after it lock nothing others share).
    const release = await refunds.unitsToRelease(trx, before);
    const restocked = (await inventory.release(trx, tenantId, release, now, true)).products;
    // A cancelled order gives its discounts' uses back (a refunded one keeps them, as it was used).
    await pricing.returnUses(trx, tenantId, discountIdsOf(before), before.customer_id, now);
    const cancelled = await commitTransition(trx, before, 'cancel', now, {
      cancelled_at: now,
      cancel_reason: reason,
      restocked: 1,
    });
    const returned = await refunds.forCancel(trx, before, now);
    const after = { ...cancelled, refunded_amount: returned.refunded_amount };
    const object = await emitOrder(trx, events, 'order.cancelled', after);
    await inventory.emitStockChanges(trx, events, restocked);
    return { object, refund: returned.refund };
  }

  /** Expires one order found expired, if it still is once locked; true when it did. */
  async function expireOne(tenantId: string, id: string): Promise<boolean> {
    const done = await store.transaction(async (trx) => {
      const before = await repo.findOrder(trx, tenantId, id, true);
      const now = clock.now();
      if (before?.status !== 'pending' || !(await repo.isExpired(trx, tenantId, id, now))) return undefined;
      return cancelLocked(trx, before, now, 'expired');
    });
    if (done === undefined) return false;
    await refunds.tellProvider(done.refund);
    return true;
  }

  /** The answer of `pay` for a settled attempt. */
  function paidOrFailed({ order, payment }: Settled): OrderObject {
    if (payment.status === 'failed') {
      throw new AppError('payment_failed', `The payment failed: ${payment.failure_message ?? 'declined'}`, {
        extra: { payment_id: payment.id, failure_code: payment.failure_code },
      });
    }
    if (order.status !== 'paid') throw invalidTransition('pay', order.status as OrderStatus);
    return order;
  }

  /** An order a retried request committed earlier, as it is now. */
  async function current(tenantId: string, id: string): Promise<OrderObject> {
    const order = await repo.findOrder(store.db, tenantId, id);
    if (!order) throw notFound('order');
    return loadOrder(store.db, order);
  }

  return {
    present: presentOrder,

    /**
     * Resolves each item to its variant, reserves its stock with a conditional update, snapshots
     * the lines (product and variant as they were), and with a
     * `payment_method` charges it afterwards: a declined payment leaves the order pending.
     */
    async create(
      tenantId: string,
      body: CreateOrderBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
      origin: OrderOrigin = API_ORIGIN,
    ): Promise<OrderObject> {
      if (idempotent.committed !== null) {
        const order = await current(tenantId, idempotent.committed);
        const pending = order.payment?.status === 'pending' ? order.payment.id : undefined;
        if (pending === undefined) return order;
        return (await payments.resumePayment(tenantId, pending).catch(() => ({ order }))).order;
      }
      const input = checkCreate(body);
      if (input.payment_method !== undefined) payments.checkMethod(input.payment_method);
      const now = clock.now();

      const { object, payment, items } = await store.transaction(async (trx) => {
        const built = await buildOrder(customers, trx, tenantId, input, now, origin);
        const { order, items, discountIds } = built;
        const attempt =
          input.payment_method === undefined
            ? undefined
            : await payments.newAttempt(trx, order, input.payment_method, now);
        order.payment_id = attempt?.id ?? null;
        await repo.insertOrder(trx, store.dialect, order, items, attempt);
        await idempotent.mark(trx, order.id);
        // Rows other orders share last, in the order every order use case takes them: the
        // products (their stock: a product every order buys stays locked only from here to the
        // commit), their counts, the discounts, then what the events move (the customer's figures).
        const reservation = await takeStock(trx, built, now, store.dialect);
        await inventory.countReservation(trx, tenantId, reservation);
        await pricing.reserveUses(trx, tenantId, discountIds, order.customer_id, now);
        const created = presentOrder(order, items, attempt);
        await events.emitMany(trx, [
          { tenantId, type: 'order.created', objectType: 'order', object: created },
          ...(await inventory.stockEvents(
            trx,
            reservation.products.values(),
            reservation.soldOut,
            reservation.variants,
          )),
        ]);
        return { object: created, payment: attempt, items };
      });
      if (!payment) return object;
      try {
        return (await payments.chargeAndSettle(payment, items)).order;
      } catch (error) {
        // The order is committed: it is answered as it stands (payment pending), never as a 5xx
        // that invites a second order. The charge is settled by the sweep once its lease is over.
        logger.warn({ err: error, payment_id: payment.id }, 'payment outcome not recorded; left pending');
        return object;
      }
    },

    /**
     * The order `create` would make from `input` now, made by the same code in a transaction that
     * is rolled back: same checks, same errors, same figures, and nothing changes (no stock, no
     * discount use, no customer, no event). Nothing is charged.
     */
    async preview(tenantId: string, body: CreateOrderBody): Promise<OrderPreview> {
      const input = checkCreate(body);
      if (input.payment_method !== undefined) payments.checkMethod(input.payment_method);
      const now = clock.now();
      try {
        await store.transaction(async (trx) => {
          const built = await buildOrder(customers, trx, tenantId, input, now, API_ORIGIN);
          await takeStock(trx, built, now, store.dialect);
          const { order, items } = built;
          throw new PreviewMade({ ...presentOrder(order, items, undefined), id: null, status: 'preview' });
        });
      } catch (error) {
        if (error instanceof PreviewMade) return error.order;
        throw error;
      }
      throw new Error('unreachable: the preview transaction always rolls back');
    },

    async get(tenantId: string, id: string): Promise<OrderObject> {
      const order = await repo.findOrder(store.db, tenantId, id);
      if (!order) throw notFound('order');
      return loadOrder(store.db, order);
    },

    /** A page of the tenant's orders, newest first, filtered (orders.listing.ts). */
    list(tenantId: string, query: OrderListQuery & PageQuery) {
      return listOrders(store.db, tenantId, query);
    },

    /** Charges a pending order. A declined method is 422 `payment_failed`; the attempt stays on record. */
    async pay(
      tenantId: string,
      id: string,
      method: string,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<OrderObject> {
      if (idempotent.committed !== null)
        return paidOrFailed(await payments.resumePayment(tenantId, idempotent.committed));
      payments.checkMethod(method);
      const order = await repo.findOrder(store.db, tenantId, id);
      if (!order) throw notFound('order');
      if (order.status !== 'pending') throw invalidTransition('pay', order.status);
      await payments.recoverStalePayment(order.id);
      let attempt: PaymentRow;
      try {
        attempt = await store.transaction(async (trx) => {
          const current = await begin(trx, tenantId, id, 'pay');
          const row = await payments.newAttempt(trx, current, method, clock.now());
          await payments.insertAttempt(trx, row);
          await repo.updateOrder(trx, tenantId, id, { payment_id: row.id, updated: row.created });
          await idempotent.mark(trx, row.id);
          return row;
        });
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw new AppError('invalid_state_transition', 'A payment for this order is already in progress.', {
            extra: { order_status: 'pending' },
          });
        }
        throw error;
      }
      return paidOrFailed(await payments.chargeAndSettle(attempt));
    },

    async ship(
      tenantId: string,
      id: string,
      input: ShipBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<OrderObject> {
      if (idempotent.committed !== null) return current(tenantId, idempotent.committed);
      // Everything left is fulfilled from the default location, in one fulfilment; the order
      // becomes `shipped` (order.shipped fires here unless an earlier fulfilment fired it).
      return store.transaction(async (trx) => {
        const before = await begin(trx, tenantId, id, 'ship');
        await idempotent.mark(trx, id);
        const now = clock.now();
        const done = await fulfillments.fulfilLocked(trx, before, input, now);
        return loadOrder(trx, done.order);
      });
    },

    async deliver(
      tenantId: string,
      id: string,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<OrderObject> {
      if (idempotent.committed !== null) return current(tenantId, idempotent.committed);
      return store.transaction(async (trx) => {
        const before = await begin(trx, tenantId, id, 'deliver');
        await idempotent.mark(trx, id);
        const now = clock.now();
        const after = await commitTransition(trx, before, 'deliver', now, { delivered_at: now });
        return emitOrder(trx, events, 'order.delivered', after);
      });
    },

    /**
     * Puts back the units no refund put back yet (once: the order leaves pending/paid for good) and
     * refunds all that is left of a captured payment (a refund, with `refund.created`).
     */
    async cancel(
      tenantId: string,
      id: string,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<OrderObject> {
      if (idempotent.committed !== null) return current(tenantId, idempotent.committed);
      const { object, refund } = await store.transaction(async (trx) => {
        const before = await begin(trx, tenantId, id, 'cancel');
        // Units shipped cannot be unshipped: such an order is refunded (and its units returned).
        if (before.fulfillment_count > 0) {
          throw new AppError(
            'invalid_state_transition',
            'Cannot cancel an order with fulfilments: refund it, and return the shipped units.',
            { extra: { order_status: before.status } },
          );
        }
        await idempotent.mark(trx, id);
        return cancelLocked(trx, before, clock.now(), 'requested');
      });
      await refunds.tellProvider(refund);
      return object;
    },

    /**
     * Cancels the pending orders their store's `unpaid_order_expiry_minutes` ran out on, as a
     * cancel does (`cancel_reason: "expired"`): their units back in stock and their discounts'
     * uses given back, once, with `order.cancelled`. An order whose payment is in progress waits
     * for its outcome, and a paid one is never touched. Safe from several processes at once: each
     * order is cancelled in its own transaction under its row lock, once it is found there still
     * pending, still expired and with no payment in progress; a payment that took the lock first
     * leaves it alone, and one that comes after finds it cancelled (409). Batches of `limit` until
     * none is left; returns how many it expired.
     */
    async expireUnpaid(limit = 100): Promise<number> {
      let expired = 0;
      for (;;) {
        const due = await repo.findExpiredOrders(store.db, clock.now(), limit);
        let batch = 0;
        for (const order of due) {
          try {
            if (await expireOne(order.tenant_id, order.id)) batch++;
          } catch (error) {
            logger.warn({ err: error, order_id: order.id }, 'unpaid order not expired; will retry');
          }
        }
        expired += batch;
        if (due.length < limit || batch === 0) return expired;
      }
    },

    /**
     * Refunds all that is left (src/modules/refunds): the units not refunded yet, back in stock
     * with `restock`, and the shipping left; the order becomes `refunded`.
     */
    async refund(
      tenantId: string,
      id: string,
      restock: boolean,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<OrderObject> {
      if (idempotent.committed !== null) return current(tenantId, idempotent.committed);
      const { object, refund } = await store.transaction(async (trx) => {
        const before = await begin(trx, tenantId, id, 'refund');
        await idempotent.mark(trx, id);
        return refunds.refundRest(trx, before, clock.now(), restock);
      });
      await refunds.tellProvider(refund);
      return object;
    },
  };
}

/** The discounts an order applied (none for an order made before pricing). */
function discountIdsOf(order: repo.OrderRow): string[] {
  if (order.pricing === null) return [];
  return (JSON.parse(order.pricing) as StoredPricing).discounts.map((discount) => discount.id);
}

/** Carries a preview out of the transaction it rolls back. */
class PreviewMade extends Error {
  constructor(readonly order: OrderPreview) {
    super('order preview');
  }
}
