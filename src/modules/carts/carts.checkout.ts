import { setTimeout as sleep } from 'node:timers/promises';
import type { Db, Store } from '../../db/store.js';
import type { Services } from '../../kernel/module.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { Clock } from '../../lib/clock.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import type { Logger } from '../../lib/logger.js';
import { type HeldOrder, NotTakenAsRead, type OrderObject } from '../orders/index.js';
import { releaseHold } from './carts.holds.js';
import { addressOf, asProblem, loadCartContext, notReady, presentCart, statusOf } from './carts.pricing.js';
import * as repo from './carts.repository.js';
import type { CartObject, CompleteCartBody } from './carts.schemas.js';
import { notOpen } from './carts.service.js';

/**
 * Completing a cart (`POST /store/carts/{id}/complete`): its order made, paid, exactly once.
 *
 * The payment provider is called outside any transaction (it may be a remote service), so a
 * completion is three steps, and what the first commits lets any process finish it:
 *
 * 1. Hold (one transaction, under the cart's row lock): the cart priced now must total
 *    `expected_total` (409 `cart_changed`) and have no problem (422 `cart_not_ready`); then the
 *    order is made exactly as `POST /orders` makes it (src/modules/orders/orders.checkout.ts
 *    `prepare` and `take`): its customer found or made, its payment attempt given an id, all of it
 *    kept on the cart (`carts.checkout`, JSON) with a lease (`checkout_started`), and then, last,
 *    its stock reserved and its discounts' uses taken. The cart's stock hold, if it has one, is
 *    given back in the same transaction as the order reserves the units (carts.holds.ts): stock
 *    moves once. No order row exists yet; the cart takes no change meanwhile.
 * 2. Charge: the provider is asked to charge the payment, keyed by its id (so asking again is
 *    answered with the same outcome, never a second charge).
 * 3. Settle (one transaction, under the cart's row lock): on success the held order is inserted
 *    paid (its events, counts, customer figures and wallet credit, as a paid `POST /orders`) and
 *    the cart marked `completed` with its `order_id`; on failure the stock and discount uses are
 *    given back and the cart is open again with nothing taken: no order, no payment, no use.
 *
 * A process killed at any point leaves one of: nothing (before 1 commits), or a hold on the cart
 * (after 1), which a later completion of the cart or the sweep (`settleStaleCheckouts`, every
 * minute) takes over once its lease is over and finishes from step 2: the charge asked again
 * answers what the provider did, so a charge never stays without its order, and an order is
 * acknowledged (201) only once step 3 committed it. Concurrent completions of one cart are
 * serialized by its row lock (PostgreSQL) or the one writer (SQLite): the first holds, the others
 * find the hold and wait for its outcome (in this process, for its promise; in another, polling the
 * row), then answer with its order (200), or try their own payment if it failed.
 */

/**
 * A completion in flight this long is taken to have lost its process (as a payment attempt), unless
 * the configuration says otherwise (`CHECKOUT_LEASE_MS`).
 */
export const CHECKOUT_LEASE_MS = 2 * 60 * 1000;
/** The most rounds one completion goes through (another's hold, its failure, its own try). */
const MAX_ROUNDS = 20;

/** What a cart holds while its completion is in flight (`carts.checkout`). */
interface Intent {
  held: HeldOrder;
}

export interface CartCheckoutDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  orderCheckout: Services['orderCheckout'];
  payments: Pick<Services['payments'], 'charge' | 'checkMethod'>;
  orders: Pick<Services['orders'], 'get'>;
  /** How long a completion in flight keeps its lease (`CHECKOUT_LEASE_MS`; default 2 minutes). */
  leaseMs?: number;
}

export type CartCheckout = ReturnType<typeof createCartCheckout>;

/** The order a completion answers with, and whether this completion made it (201) or found it (200). */
export interface Completion {
  order: OrderObject;
  created: boolean;
}

type Begun =
  { kind: 'done'; orderId: string } | { kind: 'busy' } | { kind: 'charge'; intent: Intent; resumed: boolean };

type Settled =
  | { kind: 'placed'; order: OrderObject }
  | { kind: 'failed'; code: string; message: string }
  | { kind: 'gone' };

export function createCartCheckout(deps: CartCheckoutDeps) {
  const { store, clock, logger, orderCheckout, payments, orders } = deps;
  const leaseMs = deps.leaseMs ?? CHECKOUT_LEASE_MS;
  /** This process's completions between their hold and their outcome, by cart id. */
  const inFlight = new Map<string, Promise<Settled>>();

  /** Step 1, in one transaction: the cart's outcome, another's completion in flight, or a new hold. */
  async function begin(
    trx: Db,
    tenantId: string,
    id: string,
    body: CompleteCartBody,
    now: number,
    idempotent: IdempotentWrite,
    quick: { fits: boolean },
  ): Promise<Begun> {
    const cart = await repo.findCart(trx, tenantId, id, true);
    if (!cart) throw notFound('cart');
    if (cart.status === 'completed' && cart.order_id !== null)
      return { kind: 'done', orderId: cart.order_id };
    const status = statusOf(cart, now);
    if (status !== 'open') throw notOpen(status);
    if (cart.checkout !== null) {
      if ((cart.checkout_started ?? 0) > now - leaseMs) return { kind: 'busy' };
      // Its process died (or lost the outcome): take its lease over and finish it.
      await repo.updateCart(trx, id, { checkout_started: now });
      return { kind: 'charge', intent: JSON.parse(cart.checkout) as Intent, resumed: true };
    }
    const lines = await repo.findLines(trx, [id]);
    const context = await loadCartContext(trx, cart, lines, now);
    const shown = presentCart(cart, lines, context, now);
    if (shown.total !== body.expected_total) throw cartChanged(shown, body.expected_total);
    if (shown.problems.length > 0) throw notReady(shown.problems);
    // The cart's stock hold, if any, becomes the order's: given back and reserved again at once,
    // under the same locks (carts.holds.ts); a refusal below rolls both back.
    const released = await releaseHold(trx, cart, now);
    try {
      const prepared = await orderCheckout.prepare(
        trx,
        tenantId,
        {
          items: lines.map((line) => ({ variant_id: line.variant_id, quantity: line.quantity })),
          // A signed-in shopper's cart is their order; else the customer of its email (it has one).
          ...(cart.customer_id !== null
            ? { customer_id: cart.customer_id }
            : { customer: { email: cart.email as string } }),
          ...withAddress(cart),
          discount_codes: JSON.parse(cart.discount_codes) as string[],
          ...(cart.shipping_rate_id === null ? {} : { shipping_rate_id: cart.shipping_rate_id }),
        },
        body.payment_method,
        { source: 'storefront', cartId: id },
        now,
        // What pricing the cart read a moment ago in this transaction is not read again, but for
        // the stock a released hold just gave back.
        released
          ? { customer: context.customer, checkout: context.checkout }
          : { customer: context.customer, rows: context, checkout: context.checkout },
      );
      if (prepared.held.order.total !== shown.total) throw cartChanged(shown, body.expected_total);
      // The cart's checkout and the key's mark first, the stock last: the variant a flash sale's
      // shoppers all buy stays locked only for its update and the commit. Written again in the
      // rare case the order takes a variant to 0 (its `product.outofstock` comes with the order).
      const provisional = JSON.stringify({ held: prepared.held } satisfies Intent);
      await repo.updateCart(trx, id, { checkout: provisional, checkout_started: now });
      await idempotent.mark(trx, id);
      // PostgreSQL, an order of one product: the stock and the COMMIT in one round trip, unless an
      // attempt found that it does not fit (then this one takes it statement by statement).
      if (quick.fits) {
        try {
          const held = await orderCheckout.takeAndCommit(trx, prepared, now);
          if (held) return { kind: 'charge', intent: { held }, resumed: false };
        } catch (error) {
          if (error instanceof NotTakenAsRead) quick.fits = false;
          throw error;
        }
      }
      const intent: Intent = { held: await orderCheckout.take(trx, prepared, now) };
      const checkout = JSON.stringify(intent);
      if (checkout !== provisional) await repo.updateCart(trx, id, { checkout });
      return { kind: 'charge', intent, resumed: false };
    } catch (error) {
      // What the cart saw a moment ago changed under it (PostgreSQL: another order took the stock).
      throw asProblem(error, lines);
    }
  }

  /** Steps 2 and 3: the charge, and its outcome recorded, unless another finished it first (`gone`). */
  async function settle(tenantId: string, id: string, intent: Intent): Promise<Settled> {
    const { payment } = intent.held;
    let result;
    try {
      result = await payments.charge(payment);
    } catch (error) {
      logger.warn(
        { err: error, cart_id: id, payment_id: payment.id },
        'cart payment outcome unknown; left to the sweep',
      );
      throw new AppError(
        'service_unavailable',
        'The payment provider did not answer. The payment is settled within minutes: complete the cart again to learn the outcome (it is never charged twice).',
        { headers: { 'retry-after': '5' } },
      );
    }
    const now = clock.now();
    return store.transaction(async (trx): Promise<Settled> => {
      const cart = await repo.findCart(trx, tenantId, id, true);
      const current = cart?.checkout == null ? undefined : (JSON.parse(cart.checkout) as Intent);
      if (current?.held.payment.id !== payment.id) return { kind: 'gone' };
      if (result.status === 'failed') {
        await orderCheckout.release(trx, intent.held, now);
        await repo.updateCart(trx, id, { checkout: null, checkout_started: null });
        return { kind: 'failed', code: result.failureCode, message: result.message };
      }
      // The cart first (its row is this completion's, locked above): placing the order ends with
      // the store's wallet, the row every payment takes, held from there to the commit.
      await repo.updateCart(trx, id, {
        status: 'completed',
        order_id: intent.held.order.id,
        checkout: null,
        checkout_started: null,
        completed_at: now,
        updated: now,
      });
      const order = await orderCheckout.place(trx, intent.held, result.reference, now);
      return { kind: 'placed', order };
    });
  }

  /** `settle`, known to this process's other completions of the cart while it runs. */
  async function run(tenantId: string, id: string, intent: Intent): Promise<Settled> {
    const running = settle(tenantId, id, intent);
    inFlight.set(id, running);
    try {
      return await running;
    } finally {
      if (inFlight.get(id) === running) inFlight.delete(id);
    }
  }

  /**
   * Waits for another completion of the cart: this process's (its promise), or another's (its
   * hold gone from the row, or its lease over).
   */
  async function waitFor(tenantId: string, id: string): Promise<void> {
    const local = inFlight.get(id);
    if (local !== undefined) {
      await local.catch(() => undefined);
      return;
    }
    for (let delay = 10; ; delay = Math.min(delay * 2, 250)) {
      await sleep(delay);
      const cart = await repo.findCart(store.db, tenantId, id);
      if (cart?.checkout == null) return;
      if ((cart.checkout_started ?? 0) <= clock.now() - leaseMs) return;
    }
  }

  return {
    /**
     * Completes the cart: its order made and paid once (201), or the order an earlier completion
     * made (200). See the module's comment for the steps and what a crash leaves.
     */
    async complete(
      tenantId: string,
      id: string,
      body: CompleteCartBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<Completion> {
      payments.checkMethod(body.payment_method);
      // A retry of a request that held the cart finds its outcome as any other completion does.
      let key = idempotent.committed === null ? idempotent : NO_IDEMPOTENCY;
      /** Whether the stock may be taken with the COMMIT (`OrderCheckout.takeAndCommit`). */
      const quick = { fits: true };
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const now = clock.now();
        const mark = key;
        const begun = await store.transaction((trx) => begin(trx, tenantId, id, body, now, mark, quick));
        if (begun.kind === 'done')
          return { order: await orders.get(tenantId, begun.orderId), created: false };
        if (begun.kind === 'busy') {
          await waitFor(tenantId, id);
          continue;
        }
        if (!begun.resumed) key = NO_IDEMPOTENCY; // the key names the cart from now on
        const outcome = await run(tenantId, id, begun.intent);
        if (outcome.kind === 'placed') return { order: outcome.order, created: true };
        // Another's payment (a hold taken over) failing says nothing of this one's: try it.
        if (outcome.kind === 'failed' && !begun.resumed) throw paymentFailed(outcome.code, outcome.message);
      }
      throw new AppError('service_unavailable', 'The cart’s completion did not settle; retry shortly.', {
        headers: { 'retry-after': '1' },
      });
    },

    /**
     * Finishes the completions whose process died or lost the outcome (their lease over): each is
     * taken over by one sweeper (a conditional update of its lease) and settled. Safe from several
     * processes at once; returns how many it settled.
     */
    async settleStaleCheckouts(limit = 100): Promise<number> {
      const now = clock.now();
      let settled = 0;
      for (const cart of await repo.staleCheckouts(store.db, now - leaseMs, limit)) {
        if (cart.checkout === null || cart.checkout_started === null) continue;
        if (!(await repo.claimCheckout(store.db, cart.id, cart.checkout_started, now))) continue;
        try {
          const outcome = await run(cart.tenant_id, cart.id, JSON.parse(cart.checkout) as Intent);
          if (outcome.kind !== 'gone') settled++;
        } catch (error) {
          logger.warn({ err: error, cart_id: cart.id }, 'stale cart completion not settled; will retry');
        }
      }
      return settled;
    },
  };
}

function withAddress(cart: repo.CartRow) {
  const address = addressOf(cart);
  return address === undefined ? {} : { shipping_address: address };
}

/** `409 cart_changed`, with the cart as it now stands. */
function cartChanged(cart: CartObject, expected: number): AppError {
  return new AppError(
    'cart_changed',
    `The cart now totals ${cart.total} ${cart.currency} (minor units), not the ${expected} expected; show the shopper the cart in \`cart\` and complete it with its total.`,
    { extra: { cart } },
  );
}

function paymentFailed(code: string, message: string): AppError {
  return new AppError(
    'payment_failed',
    `The payment failed: ${message} Nothing was charged or taken; the cart is still open.`,
    {
      extra: { failure_code: code },
    },
  );
}
