import type { OrderStatus } from '../../db/schema.js';
import type { Db, Store } from '../../db/store.js';
import { AppError, notFound, validationError } from '../../http/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../http/idempotency.js';
import { envelope, type PageQuery, pageWindow } from '../../http/pagination.js';
import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { MAX_AMOUNT } from '../../lib/money.js';
import type { EventService } from '../events/events.service.js';
import type { ChargeResult, PaymentProvider } from '../payments/payments.provider.js';
import { orderMoneyOf, type WalletService } from '../wallet/wallet.service.js';
import * as payments from '../payments/payments.repository.js';
import * as products from '../products/products.repository.js';
import { presentProduct } from '../products/products.service.js';
import * as repo from './orders.repository.js';
import type { Address, CreateOrderBody, OrderObject, OrderListQuery, ShipBody } from './orders.schemas.js';

/**
 * Orders: creation with atomic stock reservation, the lifecycle, and payments through the
 * provider interface. Every use case that changes data runs in one `store.transaction`, and its
 * events are emitted in that transaction. A provider call never runs inside a transaction: the
 * attempt is recorded first, the provider is called, and one transaction records the outcome.
 *
 * Creating and paying outlive one transaction, so each marks its request's idempotency key in the
 * transaction that commits the work (`IdempotentWrite`): a retry after a failed or lost answer
 * resumes that order or payment instead of reserving or charging again. An attempt left pending
 * (its process died, or its outcome could not be recorded) is settled by `settleStalePayments`.
 */

export type OrderAction = 'pay' | 'ship' | 'deliver' | 'cancel' | 'refund';

/** The lifecycle (contract section 8). Every other move is 409 `invalid_state_transition`. */
export const TRANSITIONS: Readonly<Record<OrderAction, { from: readonly OrderStatus[]; to: OrderStatus }>> = {
  pay: { from: ['pending'], to: 'paid' },
  ship: { from: ['paid'], to: 'shipped' },
  deliver: { from: ['shipped'], to: 'delivered' },
  cancel: { from: ['pending', 'paid'], to: 'cancelled' },
  refund: { from: ['paid', 'shipped', 'delivered'], to: 'refunded' },
};

/** A payment attempt still pending after this long is taken to have lost its process. */
export const PAYMENT_LEASE_MS = 2 * 60 * 1000;

function invalidTransition(action: OrderAction, status: OrderStatus): AppError {
  return new AppError('invalid_state_transition', `Cannot ${action} an order that is ${status}.`, {
    extra: { order_status: status },
  });
}

export function presentOrder(
  order: repo.OrderRow,
  items: readonly repo.OrderItemRow[],
  payment: payments.PaymentRow | undefined,
): OrderObject {
  return {
    id: order.id,
    status: order.status,
    items: items.map((item) => ({
      product_id: item.product_id,
      name: item.name,
      sku: item.sku,
      quantity: item.quantity,
      unit_price: item.unit_price,
      total: item.total,
    })),
    subtotal: order.subtotal,
    total: order.total,
    currency: order.currency,
    customer: { email: order.customer_email, name: order.customer_name },
    shipping_address:
      order.shipping_address === null ? null : (JSON.parse(order.shipping_address) as Address),
    payment: payment
      ? {
          id: payment.id,
          status: payment.status,
          method: payment.method,
          ...(payment.failure_code === null ? {} : { failure_code: payment.failure_code }),
        }
      : null,
    metadata: JSON.parse(order.metadata) as Record<string, string>,
    carrier: order.carrier,
    tracking_number: order.tracking_number,
    restocked: order.restocked === 1,
    created: iso(order.created),
    updated: iso(order.updated),
    paid_at: iso(order.paid_at),
    shipped_at: iso(order.shipped_at),
    delivered_at: iso(order.delivered_at),
    cancelled_at: iso(order.cancelled_at),
    refunded_at: iso(order.refunded_at),
  };
}

export interface OrderServiceDeps {
  store: Store;
  clock: Clock;
  events: EventService;
  provider: PaymentProvider;
  logger: Logger;
  /** Credits captured payments to the tenant's wallet and debits refunds, in the order's transaction. */
  wallet: WalletService;
}

export type OrderService = ReturnType<typeof createOrderService>;

export function createOrderService(deps: OrderServiceDeps) {
  const { store, clock, events, provider, logger, wallet } = deps;

  async function load(db: Db, order: repo.OrderRow): Promise<OrderObject> {
    const [items, payment] = await Promise.all([
      repo.findItems(db, [order.id]),
      order.payment_id === null ? undefined : payments.findPayment(db, order.payment_id),
    ]);
    return presentOrder(order, items, payment);
  }

  async function emitOrder(
    trx: Db,
    type:
      | 'order.created'
      | 'order.paid'
      | 'order.shipped'
      | 'order.delivered'
      | 'order.cancelled'
      | 'order.refunded',
    order: repo.OrderRow,
  ): Promise<OrderObject> {
    const object = await load(trx, order);
    await events.emit(trx, { tenantId: order.tenant_id, type, objectType: 'order', object });
    return object;
  }

  async function emitPayment(
    trx: Db,
    type: 'payment.received' | 'payment.failed',
    payment: payments.PaymentRow,
  ): Promise<void> {
    await events.emit(trx, {
      tenantId: payment.tenant_id,
      type,
      objectType: 'payment',
      object: { ...payments.presentPayment(payment) },
    });
  }

  function checkMethod(method: string): void {
    if (!provider.accepts(method)) {
      throw validationError('payment_method', `must be one of ${provider.describeMethods()}`);
    }
  }

  /** Locks the order (PostgreSQL) and checks that `action` may start from its status. */
  async function begin(trx: Db, tenantId: string, id: string, action: OrderAction): Promise<repo.OrderRow> {
    const order = await repo.findOrder(trx, tenantId, id, store.supportsRowLocks);
    if (!order) throw notFound('order');
    if (!TRANSITIONS[action].from.includes(order.status)) throw invalidTransition(action, order.status);
    return order;
  }

  /** Applies `action` to an order `begin` returned, with the changes that go with it. */
  async function commitTransition(
    trx: Db,
    before: repo.OrderRow,
    action: OrderAction,
    now: number,
    changes: Partial<repo.OrderRow>,
  ): Promise<repo.OrderRow> {
    const to = TRANSITIONS[action].to;
    const set = { ...changes, status: to, updated: now };
    if (!(await repo.transitionOrder(trx, before.tenant_id, before.id, before.status, set))) {
      throw invalidTransition(action, before.status);
    }
    await repo.adjustOrderCounts(trx, before.tenant_id, [
      { status: before.status, delta: -1 },
      { status: to, delta: 1 },
    ]);
    return { ...before, ...set };
  }

  /**
   * Puts an order's units back, once: callers only reach it through a terminal transition. Returns
   * the products as restocked, for `emitStockChanges` after the order's own event.
   */
  async function releaseStock(trx: Db, order: repo.OrderRow, now: number): Promise<products.ProductRow[]> {
    const items = await repo.findItems(trx, [order.id]);
    const deltas: products.CountDelta[] = [];
    const released = new Map<string, products.ProductRow>();
    for (const item of [...items].sort((a, b) => a.product_id.localeCompare(b.product_id))) {
      const after = await products.releaseStock(trx, order.tenant_id, item.product_id, item.quantity, now);
      // A product deleted since the order was placed has nothing to go back to.
      if (!after) continue;
      released.set(after.id, after);
      if (after.stock === item.quantity) {
        deltas.push({ ...products.bucketOf({ ...after, stock: 0 }), delta: -1 });
        deltas.push({ ...products.bucketOf(after), delta: 1 });
      }
    }
    await products.adjustCounts(trx, order.tenant_id, deltas);
    return [...released.values()];
  }

  /**
   * `product.updated` for each product whose stock an order moved (inventory subscribers follow
   * stock through it), and `product.outofstock` for each one the order took to 0, as a PATCH of
   * `stock` emits them.
   */
  async function emitStockChanges(trx: Db, changed: Iterable<products.ProductRow>): Promise<void> {
    for (const product of changed) {
      const object = presentProduct(product);
      await events.emit(trx, {
        tenantId: product.tenant_id,
        type: 'product.updated',
        objectType: 'product',
        object,
      });
      if (product.stock === 0) {
        await events.emit(trx, {
          tenantId: product.tenant_id,
          type: 'product.outofstock',
          objectType: 'product',
          object,
        });
      }
    }
  }

  /**
   * Marks the order's captured payment refunded, with the provider's confirmation owed
   * (`refund_due_at`): the provider is told after the commit (`returnMoney`), and should that never
   * happen (a crash, a provider error), `returnOwedRefunds` tells it once the lease is over.
   */
  async function refundPayment(trx: Db, order: repo.OrderRow, now: number): Promise<payments.PaymentRow> {
    const payment = order.payment_id === null ? undefined : await payments.findPayment(trx, order.payment_id);
    const changes = { status: 'refunded' as const, refund_due_at: now + PAYMENT_LEASE_MS, updated: now };
    if (!payment || !(await payments.updatePayment(trx, payment.id, 'succeeded', changes))) {
      throw new Error(`order ${order.id} is ${order.status} without a succeeded payment`);
    }
    return { ...payment, ...changes };
  }

  /**
   * Tells the provider about a committed refund (idempotent per payment there) and clears what is
   * owed. On failure the refund stays owed and `returnOwedRefunds` retries it.
   */
  async function returnMoney(payment: payments.PaymentRow): Promise<boolean> {
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
    await payments.refundConfirmed(store.db, payment.id, clock.now());
    return true;
  }

  interface Settled {
    order: OrderObject;
    payment: payments.PaymentRow;
  }

  /**
   * Records a provider's answer for a pending payment in one transaction: the payment, the order
   * (paid on success) and their events. A payment someone else settled first is left alone.
   */
  async function settle(payment: payments.PaymentRow, result: ChargeResult): Promise<Settled> {
    const now = clock.now();
    const { settled, giveBack } = await store.transaction(async (trx) => {
      const order = await repo.findOrder(trx, payment.tenant_id, payment.order_id, store.supportsRowLocks);
      if (!order) throw notFound('order');
      let current: payments.PaymentRow;
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
      const moved = await payments.updatePayment(trx, payment.id, 'pending', {
        status: giveBack ? 'refunded' : status,
        failure_code,
        failure_message,
        provider_reference,
        refund_due_at: refundDueAt,
        updated: now,
      });
      if (!moved) {
        const latest = (await payments.findPayment(trx, payment.id)) ?? payment;
        return { settled: { order: await load(trx, order), payment: latest }, giveBack: false };
      }
      if (current.status === 'failed') {
        await repo.updateOrder(trx, order.tenant_id, order.id, { updated: now });
        await emitPayment(trx, 'payment.failed', current);
        return {
          settled: { order: await load(trx, { ...order, updated: now }), payment: current },
          giveBack: false,
        };
      }
      if (giveBack) {
        // The event carries the payment as committed: received, and refunded at once.
        const refunded = { ...current, status: 'refunded' as const, refund_due_at: refundDueAt };
        await emitPayment(trx, 'payment.received', refunded);
        return { settled: { order: await load(trx, order), payment: refunded }, giveBack };
      }
      await emitPayment(trx, 'payment.received', current);
      const paid = await commitTransition(trx, order, 'pay', now, { paid_at: now, payment_id: payment.id });
      await wallet.creditOrderPayment(trx, orderMoneyOf(current));
      return {
        settled: { order: await emitOrder(trx, 'order.paid', paid), payment: current },
        giveBack: false,
      };
    });
    if (giveBack) await returnMoney(settled.payment);
    return settled;
  }

  /** Calls the provider (outside any transaction) and records its answer. */
  async function chargeAndSettle(payment: payments.PaymentRow): Promise<Settled> {
    const result = await provider.charge({
      paymentId: payment.id,
      amount: payment.amount,
      currency: payment.currency,
      method: payment.method,
    });
    return settle(payment, result);
  }

  /** An attempt whose process died before recording the outcome is asked for again (idempotent per payment). */
  async function recoverStalePayment(orderId: string): Promise<void> {
    const pending = await payments.findPendingPayment(store.db, orderId);
    if (pending && pending.created <= clock.now() - PAYMENT_LEASE_MS) await chargeAndSettle(pending);
  }

  /** The order and payment a pay attempt made, settled now if it is still pending. */
  async function resumePayment(tenantId: string, paymentId: string): Promise<Settled> {
    const payment = await payments.findPayment(store.db, paymentId);
    if (!payment || payment.tenant_id !== tenantId) throw notFound('payment');
    // The attempt that marked the key gave up (its answer failed) or lost its lease: asking the
    // provider again is safe (idempotent per payment) and only one outcome can be recorded.
    if (payment.status === 'pending') return chargeAndSettle(payment);
    const order = await repo.findOrder(store.db, tenantId, payment.order_id);
    if (!order) throw notFound('order');
    return { order: await load(store.db, order), payment };
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
    return load(store.db, order);
  }

  function newPayment(
    order: Pick<repo.OrderRow, 'id' | 'tenant_id' | 'total' | 'currency'>,
    method: string,
    now: number,
  ) {
    const row: payments.PaymentRow = {
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
    return row;
  }

  return {
    present: presentOrder,

    /**
     * Reserves stock for every line with a conditional update, snapshots the lines, and with a
     * `payment_method` charges it afterwards: a declined payment leaves the order pending.
     */
    async create(
      tenantId: string,
      input: CreateOrderBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<OrderObject> {
      if (idempotent.committed !== null) {
        const order = await current(tenantId, idempotent.committed);
        const pending = order.payment?.status === 'pending' ? order.payment.id : undefined;
        if (pending === undefined) return order;
        return (await resumePayment(tenantId, pending).catch(() => ({ order }))).order;
      }
      const seen = new Set<string>();
      input.items.forEach((item, index) => {
        if (seen.has(item.product_id)) {
          throw validationError(
            `items[${index}].product_id`,
            'appears more than once; send one line per product',
          );
        }
        seen.add(item.product_id);
      });
      if (input.payment_method !== undefined) checkMethod(input.payment_method);
      const now = clock.now();

      const { object, payment } = await store.transaction(async (trx) => {
        const found = new Map(
          (await products.findProductsByIds(trx, tenantId, [...seen])).map((row) => [row.id, row]),
        );
        const check = (rows: ReadonlyMap<string, products.ProductRow>) => {
          let currency: string | undefined;
          let total = 0;
          input.items.forEach((item, index) => {
            const product = rows.get(item.product_id);
            if (!product) throw new AppError('not_found', `No such product: ${item.product_id}.`);
            if (product.status !== 'active') {
              throw validationError(
                `items[${index}].product_id`,
                `is ${product.status}, not an active product`,
              );
            }
            if (currency !== undefined && product.currency !== currency) {
              throw new AppError(
                'currency_mismatch',
                `All items must share one currency: ${product.id} is priced in ${product.currency}, an earlier item in ${currency}.`,
              );
            }
            currency = product.currency;
            total += product.price * item.quantity;
          });
          // Checked before anything is charged: the wallet takes no payment above MAX_AMOUNT.
          if (total > MAX_AMOUNT) {
            throw validationError(
              'items',
              `bring the order total to ${total}; an order may total at most ${MAX_AMOUNT} minor units`,
            );
          }
        };
        check(found);

        // Conditional updates in product-id order: never below zero, and a fixed lock order.
        const reserved = new Map<string, products.ProductRow>();
        const deltas: products.CountDelta[] = [];
        for (const item of [...input.items].sort((a, b) => a.product_id.localeCompare(b.product_id))) {
          const after = await products.reserveStock(trx, tenantId, item.product_id, item.quantity, now);
          if (!after) {
            const product = found.get(item.product_id);
            throw new AppError(
              'insufficient_stock',
              `Not enough stock for ${item.product_id} (${product?.name ?? 'product'}): ${item.quantity} requested.`,
              { extra: { product_id: item.product_id } },
            );
          }
          reserved.set(after.id, after);
          if (after.stock === 0) {
            deltas.push({ ...products.bucketOf({ ...after, stock: item.quantity }), delta: -1 });
            deltas.push({ ...products.bucketOf(after), delta: 1 });
          }
        }
        // The rows as reserved are the snapshot: a concurrent edit cannot slip between check and lock.
        check(reserved);

        const orderId = newId('ord');
        const items: repo.OrderItemRow[] = input.items.map((item, position) => {
          const product = reserved.get(item.product_id) as products.ProductRow; // check() proved it present
          return {
            order_id: orderId,
            position,
            tenant_id: tenantId,
            product_id: product.id,
            name: product.name,
            sku: product.sku,
            category: product.category,
            quantity: item.quantity,
            unit_price: product.price,
            total: product.price * item.quantity,
          };
        });
        const subtotal = items.reduce((sum, item) => sum + item.total, 0);
        const order: repo.OrderRow = {
          id: orderId,
          tenant_id: tenantId,
          status: 'pending',
          currency: (reserved.get(items[0]?.product_id ?? '') as products.ProductRow).currency, // items is non-empty
          subtotal,
          total: subtotal,
          customer_email: input.customer.email.toLowerCase(),
          customer_name: input.customer.name ?? null,
          shipping_address: input.shipping_address ? JSON.stringify(input.shipping_address) : null,
          metadata: JSON.stringify(input.metadata ?? {}),
          payment_id: null,
          carrier: null,
          tracking_number: null,
          restocked: 0,
          created: now,
          updated: now,
          paid_at: null,
          shipped_at: null,
          delivered_at: null,
          cancelled_at: null,
          refunded_at: null,
        };
        if (input.payment_method !== undefined) {
          await wallet.roomForPayment(trx, tenantId, order.currency, order.total);
        }
        const attempt =
          input.payment_method === undefined ? undefined : newPayment(order, input.payment_method, now);
        order.payment_id = attempt?.id ?? null;
        await repo.insertOrder(trx, order, items);
        await idempotent.mark(trx, orderId);
        if (attempt) await payments.insertPayment(trx, attempt);
        await products.adjustCounts(trx, tenantId, deltas);
        await repo.adjustOrderCounts(trx, tenantId, [{ status: 'pending', delta: 1 }]);
        const created = presentOrder(order, items, attempt);
        await events.emit(trx, { tenantId, type: 'order.created', objectType: 'order', object: created });
        await emitStockChanges(trx, reserved.values());
        return { object: created, payment: attempt };
      });
      if (!payment) return object;
      try {
        return (await chargeAndSettle(payment)).order;
      } catch (error) {
        // The order is committed: it is answered as it stands (payment pending), never as a 5xx
        // that invites a second order. The charge is settled by the sweep once its lease is over.
        logger.warn({ err: error, payment_id: payment.id }, 'payment outcome not recorded; left pending');
        return object;
      }
    },

    async get(tenantId: string, id: string): Promise<OrderObject> {
      const order = await repo.findOrder(store.db, tenantId, id);
      if (!order) throw notFound('order');
      return load(store.db, order);
    },

    async list(tenantId: string, query: OrderListQuery & PageQuery) {
      const from = query.created_from === undefined ? undefined : Date.parse(query.created_from);
      const to = query.created_to === undefined ? undefined : Date.parse(query.created_to);
      if (from !== undefined && to !== undefined && from > to) {
        throw validationError('created_from', 'must not be after created_to');
      }
      // A forged cursor (no timestamp in it) is refused by pageWindow for every creation-order list.
      const window = pageWindow(query, '-created');
      const filter: repo.OrderFilter = {
        status: query.status,
        customerEmail: query.customer_email?.toLowerCase(),
        from,
        to,
      };
      const [rows, total] = await Promise.all([
        repo.listOrders(store.db, tenantId, filter, window),
        repo.countOrders(store.db, tenantId, filter),
      ]);
      const page = rows.slice(0, window.limit);
      const [items, paymentRows] = await Promise.all([
        repo.findItems(
          store.db,
          page.map((order) => order.id),
        ),
        payments.findPayments(
          store.db,
          page.flatMap((order) => (order.payment_id === null ? [] : [order.payment_id])),
        ),
      ]);
      const itemsByOrder = new Map<string, repo.OrderItemRow[]>();
      for (const item of items) {
        const list = itemsByOrder.get(item.order_id) ?? [];
        list.push(item);
        itemsByOrder.set(item.order_id, list);
      }
      const paymentById = new Map(paymentRows.map((payment) => [payment.id, payment]));
      return envelope(
        rows,
        total,
        window,
        '-created',
        (order) => [order.created, order.id],
        (order) =>
          presentOrder(
            order,
            itemsByOrder.get(order.id) ?? [],
            order.payment_id === null ? undefined : paymentById.get(order.payment_id),
          ),
      );
    },

    /** Charges a pending order. A declined method is 422 `payment_failed`; the attempt stays on record. */
    async pay(
      tenantId: string,
      id: string,
      method: string,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<OrderObject> {
      if (idempotent.committed !== null)
        return paidOrFailed(await resumePayment(tenantId, idempotent.committed));
      checkMethod(method);
      const order = await repo.findOrder(store.db, tenantId, id);
      if (!order) throw notFound('order');
      if (order.status !== 'pending') throw invalidTransition('pay', order.status);
      await recoverStalePayment(order.id);
      let attempt: payments.PaymentRow;
      try {
        attempt = await store.transaction(async (trx) => {
          const current = await begin(trx, tenantId, id, 'pay');
          await wallet.roomForPayment(trx, tenantId, current.currency, current.total);
          const row = newPayment(current, method, clock.now());
          await payments.insertPayment(trx, row);
          await repo.updateOrder(trx, tenantId, id, { payment_id: row.id, updated: row.created });
          await idempotent.mark(trx, row.id);
          return row;
        });
      } catch (error) {
        if (products.isUniqueViolation(error)) {
          throw new AppError('invalid_state_transition', 'A payment for this order is already in progress.', {
            extra: { order_status: 'pending' },
          });
        }
        throw error;
      }
      return paidOrFailed(await chargeAndSettle(attempt));
    },

    /**
     * Tells the provider about the committed refunds it has not confirmed once their lease is over
     * (the process that committed one died, or the provider failed): each is first postponed by a
     * lease, so concurrent sweepers send it once, and cleared when the provider confirms.
     */
    async returnOwedRefunds(limit = 100): Promise<number> {
      const now = clock.now();
      const due = await payments.findDueRefunds(store.db, now, limit);
      let returned = 0;
      for (const payment of due) {
        const claimed = await payments.postponeRefund(
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
      const stale = await payments.findStalePayments(store.db, clock.now() - PAYMENT_LEASE_MS, limit);
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

    async ship(
      tenantId: string,
      id: string,
      input: ShipBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<OrderObject> {
      if (idempotent.committed !== null) return current(tenantId, idempotent.committed);
      return store.transaction(async (trx) => {
        const before = await begin(trx, tenantId, id, 'ship');
        await idempotent.mark(trx, id);
        const now = clock.now();
        const after = await commitTransition(trx, before, 'ship', now, {
          shipped_at: now,
          carrier: input.carrier ?? null,
          tracking_number: input.tracking_number ?? null,
        });
        return emitOrder(trx, 'order.shipped', after);
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
        return emitOrder(trx, 'order.delivered', after);
      });
    },

    /** Releases the stock (once: the order leaves pending/paid for good) and returns a captured payment. */
    async cancel(
      tenantId: string,
      id: string,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<OrderObject> {
      if (idempotent.committed !== null) return current(tenantId, idempotent.committed);
      const { object, refunded } = await store.transaction(async (trx) => {
        const before = await begin(trx, tenantId, id, 'cancel');
        await idempotent.mark(trx, id);
        const now = clock.now();
        const after = await commitTransition(trx, before, 'cancel', now, { cancelled_at: now, restocked: 1 });
        const restocked = await releaseStock(trx, after, now);
        const payment = before.status === 'paid' ? await refundPayment(trx, before, now) : undefined;
        if (payment) await wallet.debitOrderRefund(trx, orderMoneyOf(payment));
        const object = await emitOrder(trx, 'order.cancelled', after);
        await emitStockChanges(trx, restocked);
        return { object, refunded: payment };
      });
      if (refunded) await returnMoney(refunded);
      return object;
    },

    /** Returns the payment; with `restock` the units go back in stock too. */
    async refund(
      tenantId: string,
      id: string,
      restock: boolean,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<OrderObject> {
      if (idempotent.committed !== null) return current(tenantId, idempotent.committed);
      const { object, refunded } = await store.transaction(async (trx) => {
        const before = await begin(trx, tenantId, id, 'refund');
        await idempotent.mark(trx, id);
        const now = clock.now();
        const after = await commitTransition(trx, before, 'refund', now, {
          refunded_at: now,
          restocked: restock ? 1 : 0,
        });
        const restocked = restock ? await releaseStock(trx, after, now) : [];
        const payment = await refundPayment(trx, before, now);
        await wallet.debitOrderRefund(trx, orderMoneyOf(payment));
        const object = await emitOrder(trx, 'order.refunded', after);
        await emitStockChanges(trx, restocked);
        return { object, refunded: payment };
      });
      await returnMoney(refunded);
      return object;
    },
  };
}
