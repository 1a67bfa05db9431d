import type { Db, Store } from '../../db/store.js';
import { AppError, notFound } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import type { Envelope } from '../../lib/paging.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { EventService } from '../events/index.js';
import { commitTransition, emitOrder, invalidTransition, TRANSITIONS } from './orders.lifecycle.js';
import { fulfillmentStatusOf, loadOrder } from './orders.presenter.js';
import * as orders from './orders.repository.js';
import type { OrderObject } from './orders.schemas.js';
import { PAYMENT_LEASE_MS } from './payments.returns.js';
import type { PaymentService } from './payments.service.js';
import { productsInventory as inventory } from '../products/index.js';
import {
  checkRequest,
  exceedsRefundable,
  type Plan,
  planRefund,
  type Refundable,
  type RefundRequest,
  refundItems,
  unitsOut,
} from './refunds.plan.js';
import { restockParts } from './fulfillments.stock.js';
import { presentRefund } from './refunds.presenter.js';
import * as repo from './refunds.repository.js';
import { MAX_PARTIAL_REFUNDS, MAX_REFUNDS, type RefundObject } from './refunds.schemas.js';

/**
 * Refunds of orders: a part of what was captured (an amount, units of lines, the shipping) or all
 * that is left, several per order, never more in all than was captured. Each is one transaction
 * under the order's row lock (PostgreSQL; SQLite's write transaction excludes other writers), so
 * concurrent refunds see each other's amounts: the refund row, the order's `refunded_amount`, the
 * lines' `refunded_quantity`, one wallet debit, the stock put back (`restock`), `refund.created`,
 * and when nothing is left to refund the order's move to `refunded` with `order.refunded`. The
 * payment provider is told after the commit; until it confirms, the refund is owed (`due_at`) and
 * the payment service's sweep sends it again (`returnOwedRefunds`).
 *
 * The whole refund (`POST /orders/{id}/refund`) and the cancel of a paid order return what is left
 * through the same code (`refundRest`, `forCancel`), inside the order service's transaction.
 */

export interface RefundServiceDeps {
  store: Store;
  clock: Clock;
  events: EventService;
  /** Finds the captured payment, debits the wallet, closes the payment, tells the provider. */
  payments: PaymentService;
}

/** A refund as committed in the caller's transaction. */
export interface Committed {
  /** The refund row; undefined when nothing was left to cover (a refund of a free order's rest). */
  refund: repo.RefundRow | undefined;
  /** The order after the refund. */
  order: orders.OrderRow;
  /** The order as `order.refunded` carried it, when the refund left nothing to refund. */
  closed: OrderObject | undefined;
}

interface CommitOptions {
  /** Put the refunded units back in stock. */
  restock: boolean;
  reason: string | null;
  /**
   * `refund`: when nothing is left to refund the order moves to `refunded` here. `cancel`: the
   * caller cancels the order and puts its stock back; the payment is closed here.
   */
  close: 'refund' | 'cancel';
}

export type RefundService = ReturnType<typeof createRefundService>;

export function createRefundService(deps: RefundServiceDeps) {
  const { store, clock, events, payments } = deps;

  /** The order's lines and refunds in `trx`, and what of it is left to refund. */
  async function stateOf(trx: Db, order: orders.OrderRow) {
    const lines = await orders.findItems(trx, [order.id]);
    const existing = await repo.listRefunds(trx, [order.id]);
    const left: Refundable = {
      amount: order.total - order.refunded_amount,
      currency: order.currency,
      shipping: order.shipping_paid - existing.reduce((sum, refund) => sum + refund.shipping, 0),
      lines,
    };
    return { lines, existing, left };
  }

  /**
   * Writes `plan` as a refund of `order` (read under its lock in `trx`, in a status a refund may
   * start from), with everything that goes with it; see the module comment. A refund covering
   * nothing (no money, no unit, no shipping) writes no row but still closes the order.
   *
   * Rows other transactions share are taken in the order every order use case takes them, so two
   * of them never wait on each other in a cycle: the products (restock), what the events move (the
   * customer's figures), then the wallet, the row every payment and refund of the store takes.
   */
  async function commit(
    trx: Db,
    order: orders.OrderRow,
    lines: readonly orders.OrderItemRow[],
    plan: Plan,
    options: CommitOptions,
    now: number,
    id = newId('re'),
  ): Promise<Committed> {
    const payment = await payments.capturedPayment(trx, order);
    const covers = plan.amount > 0 || plan.parts.length > 0 || plan.shipping > 0;
    // A cancel puts every unit of the order back itself: its refund's units go back with them.
    const restocked = plan.parts.length > 0 && (options.restock || options.close === 'cancel');
    const unitsLeft =
      lines.reduce((sum, line) => sum + line.quantity - line.refunded_quantity, 0) -
      plan.parts.reduce((sum, part) => sum + part.quantity, 0);
    const refundedAmount = order.refunded_amount + plan.amount;
    // Nothing left: no money (and, for a refund of no money, no unit either: a free order's lines).
    const nothingLeft = refundedAmount >= order.total && (plan.amount > 0 || unitsLeft === 0);
    const closes = options.close === 'refund' && nothingLeft;

    const products =
      covers && restocked && options.close === 'refund'
        ? await restockParts(trx, order, lines, plan.parts, now)
        : [];
    let after: orders.OrderRow = {
      ...order,
      refunded_amount: refundedAmount,
      restocked: restocked ? 1 : order.restocked,
      updated: covers ? now : order.updated,
    };
    if (closes) after = await commitTransition(trx, after, 'refund', now, { refunded_at: now });
    else if (covers && restocked && options.close === 'refund') {
      after = await shipIfFulfilled(trx, after, now);
    }

    let refund: repo.RefundRow | undefined;
    if (covers) {
      refund = {
        id,
        tenant_id: order.tenant_id,
        order_id: order.id,
        payment_id: payment.id,
        amount: plan.amount,
        currency: order.currency,
        items: JSON.stringify(refundItems(plan.parts)),
        shipping: plan.shipping,
        restocked: restocked ? 1 : 0,
        reason: options.reason,
        status: 'succeeded',
        // Nothing to tell the provider about a refund of nothing (a free line).
        due_at: plan.amount > 0 ? now + PAYMENT_LEASE_MS : null,
        provider_reference: null,
        created: now,
      };
      await repo.insertRefund(trx, refund);
      for (const part of plan.parts) {
        if (!(await repo.refundUnits(trx, order.id, part.position, part.quantity))) {
          throw new Error(`line ${part.position} of order ${order.id} has fewer units left than planned`);
        }
      }
      await repo.addToOrder(trx, order.tenant_id, order.id, { amount: plan.amount, restocked, now });
    }
    if (options.close === 'cancel' || closes) await payments.closeRefunded(trx, payment, now);
    if (refund) {
      await events.emit(trx, {
        tenantId: order.tenant_id,
        type: 'refund.created',
        objectType: 'refund',
        object: presentRefund(refund),
      });
    }
    const closed = closes ? await emitOrder(trx, events, 'order.refunded', after) : undefined;
    await inventory.emitStockChanges(trx, events, products);
    // The wallet last: every payment and refund of the store takes its row, held to the commit.
    if (refund) await payments.recordRefund(trx, refund);
    return { refund, order: after, closed };
  }

  /**
   * A paid order whose restocking refund released its last unshipped units, and of which some units
   * shipped, is fulfilled: it becomes `shipped` as its last fulfilment would have made it (its
   * `order.shipped` went with its first). An order none of whose units shipped stays as it is.
   */
  async function shipIfFulfilled(trx: Db, order: orders.OrderRow, now: number): Promise<orders.OrderRow> {
    if (order.status !== 'paid') return order;
    const items = await orders.findItems(trx, [order.id]);
    if (fulfillmentStatusOf(items) !== 'fulfilled') return order;
    return commitTransition(trx, order, 'ship', now, { shipped_at: now });
  }

  /** Tells the provider about a committed refund of money (owed until it confirms). */
  async function tellProvider(refund: repo.RefundRow | undefined): Promise<void> {
    if (refund !== undefined && refund.due_at !== null) await payments.returnRefund(refund);
  }

  return {
    present: presentRefund,
    tellProvider,

    /**
     * `POST /orders/{id}/refunds`: refunds an amount, units of lines and/or the shipping, or with
     * none of them all that is left. Bad input is a 400 naming the field; more than is left is 422
     * `amount_exceeds_refundable` (an order refunded in full included); an order never paid, or
     * cancelled, is 409 `invalid_state_transition`.
     */
    async create(
      tenantId: string,
      orderId: string,
      input: RefundRequest & { reason?: string | undefined },
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<RefundObject> {
      if (idempotent.committed !== null) {
        const row = await repo.findRefund(store.db, tenantId, idempotent.committed);
        if (!row) throw notFound('refund');
        return presentRefund(row);
      }
      checkRequest(input);
      const { refund } = await store.transaction(async (trx) => {
        const order = await orders.findOrder(trx, tenantId, orderId, true);
        if (!order) throw notFound('order');
        const { lines, existing, left } = await stateOf(trx, order);
        // Refunded in full: nothing is left, whether or not a concurrent refund got there first.
        if (order.status === 'refunded') throw exceedsRefundable(0, { ...left, amount: 0 });
        if (!TRANSITIONS.refund.from.includes(order.status)) throw invalidTransition('refund', order.status);
        const plan = planRefund(left, input);
        if (!plan.rest && existing.length >= MAX_PARTIAL_REFUNDS) {
          throw new AppError(
            'limit_exceeded',
            `An order takes at most ${MAX_REFUNDS} refunds: ${existing.length} were made; refund all that is left with no amount, items or shipping.`,
            { extra: { refunds: existing.length } },
          );
        }
        if (plan.amount === 0 && plan.parts.length === 0 && plan.shipping === 0) {
          throw exceedsRefundable(0, left);
        }
        const id = newId('re');
        await idempotent.mark(trx, id);
        const options = {
          restock: input.restock === true,
          reason: input.reason ?? null,
          close: 'refund' as const,
        };
        return commit(trx, order, lines, plan, options, clock.now(), id);
      });
      await tellProvider(refund);
      return presentRefund(refund as repo.RefundRow); // a plan covering something writes its row
    },

    /** The order's refunds, oldest first: all of them (an order has at most `MAX_REFUNDS`). */
    async list(tenantId: string, orderId: string): Promise<Envelope<RefundObject>> {
      const order = await orders.findOrder(store.db, tenantId, orderId);
      if (!order) throw notFound('order');
      const rows = await repo.listRefunds(store.db, [order.id]);
      return {
        data: rows.map(presentRefund),
        total: rows.length,
        page: 1,
        limit: MAX_REFUNDS,
        offset: 0,
        has_more: false,
        next_cursor: null,
      };
    },

    /**
     * The whole refund, in the order service's transaction (the order read under its lock, in a
     * status a refund starts from): all that is left, the units not refunded yet (back in stock
     * with `restock`) and the shipping left, closing the order as refunded. Tell the provider
     * after the commit (`tellProvider`).
     */
    async refundRest(trx: Db, order: orders.OrderRow, now: number, restock: boolean) {
      const { lines, left } = await stateOf(trx, order);
      const committed = await commit(
        trx,
        order,
        lines,
        planRefund(left, {}),
        { restock, reason: null, close: 'refund' },
        now,
      );
      return { ...committed, object: committed.closed ?? (await loadOrder(trx, committed.order)) };
    },

    /**
     * The refund of a return's units, in the return's transaction (the order read under its lock,
     * in a status a refund starts from): their part of what was paid, without restock (the return
     * puts them back where it is received). Tell the provider after the commit (`tellProvider`).
     */
    async forReturn(
      trx: Db,
      order: orders.OrderRow,
      items: readonly { variant_id: string; quantity: number }[],
      now: number,
    ): Promise<Committed> {
      const { lines, left } = await stateOf(trx, order);
      const plan = planRefund(left, { items });
      return commit(trx, order, lines, plan, { restock: false, reason: 'return', close: 'refund' }, now);
    },

    /** The units a cancel of `order` puts back: those no refund put back before. */
    async unitsToRelease(trx: Db, order: orders.OrderRow): Promise<inventory.StockLine[]> {
      const { lines, existing } = await stateOf(trx, order);
      return unitsOut(lines, existing);
    },

    /**
     * The money side of a cancel, in the order service's transaction once the order is cancelled
     * (`order` as it was before, under its lock): for a paid order, the refund of all that is left,
     * with its payment closed. Returns the refund (none for an unpaid order) and the amount the
     * order has refunded since.
     */
    async forCancel(
      trx: Db,
      order: orders.OrderRow,
      now: number,
    ): Promise<{ refund: repo.RefundRow | undefined; refunded_amount: number }> {
      if (order.status !== 'paid') return { refund: undefined, refunded_amount: order.refunded_amount };
      const { lines, left } = await stateOf(trx, order);
      const committed = await commit(
        trx,
        order,
        lines,
        planRefund(left, {}),
        { restock: false, reason: null, close: 'cancel' },
        now,
      );
      return { refund: committed.refund, refunded_amount: committed.order.refunded_amount };
    },
  };
}
