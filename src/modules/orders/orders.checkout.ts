import type { Db, Store } from '../../db/store.js';
import type { EventService } from '../events/index.js';
import type { OrderCustomers } from '../customers/index.js';
import { pricingService as pricing } from '../pricing/index.js';
import {
  findProductsByIds,
  isNotTakenAsRead,
  productsInventory as inventory,
  stockTakenAsRead,
  type VariantRow,
} from '../products/index.js';
import {
  type Built,
  buildOrder,
  type KnownRows,
  checkCreate,
  NotTakenAsRead,
  type OrderOrigin,
  PRICED_PRODUCT_FIELDS,
  PRICED_VARIANT_FIELDS,
  takeStock,
} from './orders.build.js';
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
 * 1. `prepare`, then `take`: the order made as `POST /orders` makes it (the same checks, pricing
 *    and errors) and its payment attempt named; then its stock reserved and its discounts' uses
 *    taken, none of its own rows inserted. The caller keeps the held order (JSON) until the
 *    charge's outcome is known, so a process that dies meanwhile leaves it to the one that
 *    finishes; it may write what `prepare` answers before `take`, so the products, locked by
 *    `take` until the commit, are held for as few statements as possible.
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

/** An order made and priced, its payment attempt named, nothing taken yet (`prepare`). */
export interface PreparedOrder {
  built: Built;
  /** The order as `take` holds it when none of its variants runs out. */
  held: HeldOrder;
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
     * Makes the order `body` describes, refusing as `POST /orders` refuses (`discount_invalid`,
     * `shipping_unavailable`, `limit_exceeded`, ...), and the attempt to charge it with `method`;
     * takes nothing yet and writes nothing of the order (a customer new to the store is made).
     * `held` is what `take` answers when no variant runs out, so the caller may keep it before the
     * stock is taken (the products' locks held the shortest). `known`: rows the caller read in this
     * transaction already, not read again.
     */
    async prepare(
      trx: Db,
      tenantId: string,
      body: CreateOrderBody,
      method: string,
      origin: OrderOrigin,
      now: number,
      known: KnownRows = {},
    ): Promise<PreparedOrder> {
      const input = checkCreate(body);
      const built = await buildOrder(customers, trx, tenantId, input, now, origin, known);
      const { order, items, discountIds } = built;
      const payment = await payments.newAttempt(trx, order, method, now);
      // In the order `take` answers them (code-unit order, as the stock is taken).
      const productIds = [...new Set(built.lines.map((line) => line.product_id))].sort();
      return {
        built,
        held: {
          order: { ...order, payment_id: payment.id },
          items,
          discountIds,
          payment,
          productIds,
          soldOut: [],
        },
      };
    },

    /**
     * Takes what the prepared order needs: its stock (422 `insufficient_stock`), with the products'
     * counts, then its discounts' uses, in the order every order use case takes them; the products
     * stay locked from here to the commit. Answers the held order with the variants it took to 0.
     */
    async take(trx: Db, prepared: PreparedOrder, now: number): Promise<HeldOrder> {
      const { built, held } = prepared;
      const tenantId = held.order.tenant_id;
      const reservation = await takeStock(trx, built, now, dialect);
      await inventory.countReservation(trx, tenantId, reservation);
      await pricing.reserveUses(trx, tenantId, held.discountIds, held.order.customer_id, now);
      return { ...held, productIds: [...reservation.products.keys()], soldOut: reservation.soldOut };
    },

    /**
     * `take` and the transaction's COMMIT in one round trip (`store.commitWith`), for an order it
     * fits (PostgreSQL; one product; no discount uses to take): the units taken only as the order
     * read its product and variants and only while neither reaches zero, so the held order is
     * `prepared.held` as it stands and the product, which a flash sale's shoppers all buy, is
     * locked for no round trip. The caller has written all else and does nothing more in `trx`.
     * Undefined for an order it does not fit (the caller takes it with `take`); `NotTakenAsRead`
     * (retried, rolled back) when the rows changed or a count or an event must follow.
     */
    async takeAndCommit(trx: Db, prepared: PreparedOrder, now: number): Promise<HeldOrder | undefined> {
      const { built, held } = prepared;
      const [productId] = held.productIds;
      const product = productId === undefined ? undefined : built.rows.products.get(productId);
      if (dialect !== 'postgres' || held.discountIds.length > 0 || held.productIds.length !== 1 || !product) {
        return undefined;
      }
      const lines = [...built.lines]
        .sort((a, b) => (a.variant_id < b.variant_id ? -1 : a.variant_id > b.variant_id ? 1 : 0))
        .map((line) => ({
          variant_id: line.variant_id,
          quantity: line.quantity,
          read: fieldsOf(built.rows.variants.get(line.variant_id), PRICED_VARIANT_FIELDS),
        }));
      const statement = stockTakenAsRead(
        held.order.tenant_id,
        product.id,
        fieldsOf(product, PRICED_PRODUCT_FIELDS),
        lines,
        now,
      );
      try {
        await deps.store.commitWith(trx, statement);
      } catch (error) {
        if (isNotTakenAsRead(error)) throw new NotTakenAsRead();
        throw error;
      }
      return held;
    },

    /** Gives back what `take` took: the units (with their counts) and the discounts' uses. */
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
     * paid: the events, customer figures and wallet credit of a paid order (its counts follow by
     * trigger). It ends the caller's transaction: the wallet's credit goes with the COMMIT
     * (`KnownOrder.last`), so the caller does nothing in `trx` after it.
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
          last: true,
        },
      );
      return settled.order;
    },
  };
}

/** The `fields` of `row` (a product or variant as read), as `take_stock_as_read` compares them. */
function fieldsOf<R extends object, K extends keyof R>(
  row: R | undefined,
  fields: readonly K[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (row) for (const field of fields) out[String(field)] = row[field];
  return out;
}
