import type { Db, Store } from '../../db/store.js';
import type { EventService } from '../events/index.js';
import type { OrderCustomers } from '../customers/index.js';
import { pricingService as pricing } from '../pricing/index.js';
import { findProductsByIds, productsInventory as inventory, type VariantRow } from '../products/index.js';
import { buildOrder, checkCreate, type OrderOrigin, takeStock } from './orders.build.js';
import { presentOrder } from './orders.presenter.js';
import * as repo from './orders.repository.js';
import type { CreateOrderBody, OrderObject } from './orders.schemas.js';
import type { PaymentRow } from './payments.repository.js';
import type { PaymentService } from './payments.service.js';

/**
 * An order placed only once its payment succeeded: what a cart's completion
 * (src/modules/carts/carts.checkout.ts) does, in three steps, each inside the caller's
 * transaction, with the provider's charge between the first and the others:
 *
 * 1. `hold`: the order made as `POST /orders` makes it (the same checks, pricing and errors), its
 *    stock reserved, its discounts' uses taken and its payment attempt made, none of its own rows
 *    inserted. The caller keeps what it returns (JSON) until the charge's outcome is known, so a
 *    process that dies meanwhile leaves it to the one that finishes.
 * 2. The caller has the payment charged (`PaymentService.charge`, idempotent per payment id).
 * 3. `place` on success: the order and its payment inserted, and the same events, counts and
 *    wallet credit as an order paid through `POST /orders` (order.created, the stock events,
 *    payment.received, order.paid, written as one batch). `release` on failure: the stock and the uses given back,
 *    and nothing else was ever written, so nothing is left of the attempt.
 */

/** An order held for a charge in flight (plain JSON: the caller stores it). */
export interface HeldOrder {
  /** Pending, with `payment_id` set; not inserted. */
  order: repo.OrderRow;
  items: repo.OrderItemRow[];
  discountIds: string[];
  /** The attempt to charge the order's total, pending; not inserted. */
  payment: PaymentRow;
  /** The products whose stock it took, and the variants it took to 0: their events come with the order. */
  productIds: string[];
  soldOut: VariantRow[];
}

export interface OrderCheckoutDeps {
  store: Store;
  events: EventService;
  customers: OrderCustomers;
  payments: PaymentService;
}

export type OrderCheckout = ReturnType<typeof createOrderCheckout>;

export function createOrderCheckout(deps: OrderCheckoutDeps) {
  const { customers, payments } = deps;
  const { dialect } = deps.store;
  return {
    /**
     * Makes the order `body` describes and takes what it needs (stock, discount uses), refusing as
     * `POST /orders` refuses (422 `insufficient_stock`, `discount_invalid`, `shipping_unavailable`,
     * `limit_exceeded`, ...), and the attempt to charge it with `method`. Nothing of the order
     * itself is written.
     */
    async hold(
      trx: Db,
      tenantId: string,
      body: CreateOrderBody,
      method: string,
      origin: OrderOrigin,
      now: number,
    ): Promise<HeldOrder> {
      const input = checkCreate(body);
      const built = await buildOrder(customers, trx, tenantId, input, now, origin);
      const { order, items, discountIds } = built;
      const payment = await payments.newAttempt(trx, order, method, now);
      // The stock last (the products many orders share, locked from here to the commit), then
      // their counts and the discounts, in the order every order use case takes them.
      const reservation = await takeStock(trx, built, now);
      await inventory.countReservation(trx, tenantId, reservation);
      await pricing.reserveUses(trx, tenantId, discountIds, order.customer_id, now);
      return {
        order: { ...order, payment_id: payment.id },
        items,
        discountIds,
        payment,
        productIds: [...reservation.products.keys()],
        soldOut: reservation.soldOut,
      };
    },

    /** Gives back what `hold` took: the units (with their counts) and the discounts' uses. */
    async release(trx: Db, held: HeldOrder, now: number): Promise<void> {
      const tenantId = held.order.tenant_id;
      const lines = held.items.map(({ product_id, variant_id, quantity }) => ({
        product_id,
        variant_id,
        quantity,
      }));
      await inventory.release(trx, tenantId, lines, now, true);
      await pricing.returnUses(trx, tenantId, held.discountIds, held.order.customer_id, now);
    },

    /**
     * Inserts the held order with its payment, charged (`reference`: the provider's), and answers it
     * paid: the events, customer figures and wallet credit of a paid order (its counts follow by trigger).
     */
    async place(trx: Db, held: HeldOrder, reference: string, now: number): Promise<OrderObject> {
      const tenantId = held.order.tenant_id;
      await repo.insertOrder(trx, dialect, held.order, held.items, held.payment);
      const created = presentOrder(held.order, held.items, held.payment);
      const products = await findProductsByIds(trx, tenantId, held.productIds);
      // The order's events and the payment's, written together (one batch) as it is paid.
      const before = [
        { tenantId, type: 'order.created' as const, objectType: 'order', object: created },
        ...(await inventory.stockEvents(trx, products, held.soldOut)),
      ];
      const { settled } = await payments.settleIn(
        trx,
        held.payment,
        { status: 'succeeded', reference },
        now,
        {
          order: held.order,
          items: held.items,
          before,
        },
      );
      return settled.order;
    },
  };
}
