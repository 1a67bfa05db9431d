import type { Db, Store } from '../../db/store.js';
import type { Services } from '../../kernel/module.js';
import { AppError, notFound, validationError } from '../../lib/errors.js';
import type { Clock } from '../../lib/clock.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { newId } from '../../lib/ids.js';
import { envelope, type PageQuery, pageWindow } from '../../lib/paging.js';
import { normaliseAddresses } from '../customers/index.js';
import { MAX_HOLDS_PER_ADDRESS, holdsDisabled, releaseHold, takeUnits, tooManyHolds } from './carts.holds.js';
import {
  asProblem,
  CART_LIFETIME_MS,
  cartChangesAt,
  loadCartContext,
  notReady,
  presentCart,
  presentCompleted,
  statusOf,
} from './carts.pricing.js';
import { mergeLines, newLines } from './carts.lines.js';
import * as repo from './carts.repository.js';
import {
  type AddLineBody,
  type CartProblem,
  type CartListQuery,
  type CartObject,
  type CreateCartBody,
  MAX_LINES,
  MAX_QUANTITY,
  type UpdateCartBody,
} from './carts.schemas.js';

/**
 * Carts: a shopper's lines, codes, address and chosen rate, changed one request at a time and
 * priced at every read and change (carts.pricing.ts); completing one is carts.checkout.ts's. Every
 * change locks the cart's row (PostgreSQL; SQLite's write transaction already excludes writers),
 * refuses a cart that is not open (409 `cart_not_open`: completed, expired, or being completed),
 * and answers the cart as that change left it, priced in the same transaction. A change of its
 * lines gives back its stock hold (carts.holds.ts); any change re-arms `cart.abandoned`. A read
 * says how long its answer holds (`CartAnswer`), which the shopper's reads are kept for
 * (carts.answers.ts).
 */

/** What stops a cart's units from being held: the problems of its lines. */
const HOLD_PROBLEMS: ReadonlySet<CartProblem['code']> = new Set([
  'cart_empty',
  'variant_unavailable',
  'insufficient_stock',
]);

export interface CartServiceDeps {
  store: Store;
  clock: Clock;
  /** A completed cart shows what its order charged. */
  orders: Pick<Services['orders'], 'get'>;
  /** The store's `storefront.abandoned_after_minutes`. */
  abandonedAfterMinutes: (tenantId: string) => Promise<number>;
  /** The store's `storefront.hold_minutes` (null: holds are off). */
  holdMinutes: (tenantId: string) => Promise<number | null>;
}

export type CartService = ReturnType<typeof createCartService>;

/**
 * A cart as read, with how long the answer holds: priced at `pricedAt`, it reads the same until
 * `until` unless something stored changes (carts.answers.ts keeps it that long); `until` is null
 * for a completed cart, which shows its order (read by the orders module) and is not kept.
 */
export interface CartAnswer {
  cart: CartObject;
  pricedAt: number;
  until: number | null;
}

/** The signed-in shopper a request carries (`X-Customer-Token`), if any. */
export interface CartShopper {
  id: string;
  email: string;
}

/** `409 cart_not_open` for a cart in `status`, or one whose completion is in flight. */
export function notOpen(status: string, completing = false): AppError {
  const detail = completing
    ? 'The cart is being completed: it takes no changes.'
    : `The cart is ${status}: it takes no changes.`;
  return new AppError('cart_not_open', detail, { extra: { cart_status: status } });
}

export function createCartService(deps: CartServiceDeps) {
  const { store, clock, orders } = deps;

  /**
   * The cart as the API shows it, priced in `db` at `now`. A completed cart's order is read from
   * the store directly: never inside a transaction (nothing changes a completed cart).
   */
  async function answer(
    db: Db,
    cart: repo.CartRow,
    lines: readonly repo.CartLineRow[],
    now: number,
  ): Promise<CartAnswer> {
    if (cart.status === 'completed' && cart.order_id !== null) {
      const order = await orders.get(cart.tenant_id, cart.order_id);
      return { cart: presentCompleted(cart, lines, order, now), pricedAt: now, until: null };
    }
    const context = await loadCartContext(db, cart, lines, now);
    return {
      cart: presentCart(cart, lines, context, now),
      pricedAt: now,
      until: cartChangesAt(cart, context, now),
    };
  }

  async function view(db: Db, cart: repo.CartRow, lines: readonly repo.CartLineRow[], now: number) {
    return (await answer(db, cart, lines, now)).cart;
  }

  /** Locks an open cart for a change: 404 unknown (or another tenant's), 409 not open. */
  async function openForChange(trx: Db, tenantId: string, id: string, now: number): Promise<repo.CartRow> {
    const cart = await repo.findCart(trx, tenantId, id, true);
    if (!cart) throw notFound('cart');
    const status = statusOf(cart, now);
    if (status !== 'open') throw notOpen(status);
    if (cart.checkout !== null) throw notOpen(status, true);
    return cart;
  }

  async function currentAnswer(tenantId: string, id: string): Promise<CartAnswer> {
    const cart = await repo.findCart(store.db, tenantId, id);
    if (!cart) throw notFound('cart');
    return answer(store.db, cart, await repo.findLines(store.db, [id]), clock.now());
  }

  async function current(tenantId: string, id: string): Promise<CartObject> {
    return (await currentAnswer(tenantId, id)).cart;
  }

  /**
   * The cart read by a signed-in shopper: an open cart of nobody becomes theirs (with their email
   * when it has none); one of another shopper is not theirs to see (404, as an unknown cart).
   */
  async function currentFor(
    tenantId: string,
    id: string,
    shopper: CartShopper | null = null,
  ): Promise<CartAnswer> {
    if (shopper === null) return currentAnswer(tenantId, id);
    const cart = await repo.findCart(store.db, tenantId, id);
    if (!cart || (cart.customer_id !== null && cart.customer_id !== shopper.id)) throw notFound('cart');
    if (cart.customer_id === shopper.id || statusOf(cart, clock.now()) !== 'open' || cart.checkout !== null) {
      return currentAnswer(tenantId, id);
    }
    const now = clock.now();
    return store.transaction(async (trx) => {
      const locked = await openForChange(trx, tenantId, id, now);
      if (locked.customer_id !== null && locked.customer_id !== shopper.id) throw notFound('cart');
      await repo.updateCart(trx, id, { customer_id: shopper.id, email: locked.email ?? shopper.email });
      const bound = (await repo.findCart(trx, tenantId, id)) as repo.CartRow; // locked above
      return answer(trx, bound, await repo.findLines(trx, [id]), now);
    });
  }

  /**
   * Locks the cart, applies `change` to it, marks it changed (and not announced as abandoned), and
   * answers it priced. A change of its `lines` gives its stock hold back first.
   */
  async function change(
    tenantId: string,
    id: string,
    idempotent: IdempotentWrite,
    of: 'lines' | 'details',
    apply: (trx: Db, cart: repo.CartRow, lines: repo.CartLineRow[], now: number) => Promise<void>,
  ): Promise<CartObject> {
    if (idempotent.committed !== null) return current(tenantId, idempotent.committed);
    const now = clock.now();
    return store.transaction(async (trx) => {
      const cart = await openForChange(trx, tenantId, id, now);
      if (of === 'lines') await releaseHold(trx, cart, now);
      await apply(trx, cart, await repo.findLines(trx, [id]), now);
      await repo.updateCart(trx, id, { updated: now, abandoned_at: null });
      await idempotent.mark(trx, id);
      const changed = (await repo.findCart(trx, tenantId, id)) as repo.CartRow; // locked above
      return view(trx, changed, await repo.findLines(trx, [id]), now);
    });
  }

  return {
    /** A new open cart in `currency` (the store's by default), with what the body gives. */
    async create(
      tenantId: string,
      storeCurrency: string,
      body: CreateCartBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
      shopper: CartShopper | null = null,
    ): Promise<CartObject> {
      if (idempotent.committed !== null) return current(tenantId, idempotent.committed);
      const address = addressIn(body.shipping_address);
      const items = mergeLines(body.lines ?? []);
      const now = clock.now();
      return store.transaction(async (trx) => {
        const cart: repo.CartRow = {
          id: newId('cart'),
          tenant_id: tenantId,
          status: 'open',
          currency: body.currency ?? storeCurrency,
          email: body.email?.toLowerCase() ?? shopper?.email ?? null,
          customer_id: shopper?.id ?? null,
          discount_codes: JSON.stringify(body.discount_codes ?? []),
          shipping_address: address ?? null,
          shipping_rate_id: body.shipping_rate_id ?? null,
          order_id: null,
          checkout: null,
          checkout_started: null,
          created: now,
          updated: now,
          completed_at: null,
          hold_lines: null,
          hold_expires: null,
          hold_ip: null,
          abandoned_at: null,
          revision: 0,
        };
        await repo.insertCart(trx, cart);
        const lines = await newLines(trx, cart, items, 0, now);
        await repo.insertLines(trx, lines);
        await idempotent.mark(trx, cart.id);
        return view(trx, cart, lines, now);
      });
    },

    /** The cart, priced now; read with a shopper's token, it becomes theirs (see `currentFor`). */
    get: async (tenantId: string, id: string, shopper: CartShopper | null = null): Promise<CartObject> =>
      (await currentFor(tenantId, id, shopper)).cart,

    /** As `get`, with how long the answer holds (`CartAnswer`). */
    read: currentFor,

    /** The products in a cart, unpriced: what the per-product completion limit counts. */
    productIds: (tenantId: string, id: string): Promise<string[]> =>
      repo.findProductIds(store.db, tenantId, id),

    /** Changes the members given (null clears one). */
    async update(tenantId: string, id: string, body: UpdateCartBody): Promise<CartObject> {
      const address = body.shipping_address === null ? null : addressIn(body.shipping_address);
      return change(tenantId, id, NO_IDEMPOTENCY, 'details', async (trx) => {
        const changes: Partial<repo.CartRow> = {};
        if (body.email !== undefined) changes.email = body.email?.toLowerCase() ?? null;
        if (body.shipping_address !== undefined) changes.shipping_address = address ?? null;
        if (body.shipping_rate_id !== undefined) changes.shipping_rate_id = body.shipping_rate_id;
        if (body.discount_codes !== undefined) changes.discount_codes = JSON.stringify(body.discount_codes);
        if (Object.keys(changes).length > 0) await repo.updateCart(trx, id, changes);
      });
    },

    /** Adds `quantity` of the variant: to its line, or as a new line. */
    async addLine(
      tenantId: string,
      id: string,
      body: AddLineBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<CartObject> {
      return change(tenantId, id, idempotent, 'lines', async (trx, cart, lines, now) => {
        const existing = lines.find((line) => line.variant_id === body.variant_id);
        if (existing !== undefined) {
          const quantity = existing.quantity + body.quantity;
          if (quantity > MAX_QUANTITY) {
            throw validationError(
              'quantity',
              `would bring the line to ${quantity} units; a line holds at most ${MAX_QUANTITY}`,
            );
          }
          await repo.setLineQuantity(trx, existing.id, quantity);
          return;
        }
        if (lines.length >= MAX_LINES) {
          throw validationError(
            'variant_id',
            `would be a line too many: a cart holds at most ${MAX_LINES} lines`,
          );
        }
        const position = lines.reduce((max, line) => Math.max(max, line.position + 1), 0);
        await repo.insertLines(
          trx,
          await newLines(trx, cart, [{ ...body, field: 'variant_id' }], position, now),
        );
      });
    },

    /** Sets a line's quantity; 0 removes it. */
    async setLine(tenantId: string, id: string, lineId: string, quantity: number): Promise<CartObject> {
      return change(tenantId, id, NO_IDEMPOTENCY, 'lines', async (trx, _cart, lines) => {
        if (!lines.some((line) => line.id === lineId)) throw notFound('cart line');
        if (quantity === 0) await repo.deleteLine(trx, lineId);
        else await repo.setLineQuantity(trx, lineId, quantity);
      });
    },

    async removeLine(tenantId: string, id: string, lineId: string): Promise<CartObject> {
      return change(tenantId, id, NO_IDEMPOTENCY, 'lines', async (trx, _cart, lines) => {
        if (!lines.some((line) => line.id === lineId)) throw notFound('cart line');
        await repo.deleteLine(trx, lineId);
      });
    },

    /**
     * Holds the cart's units for the store's `storefront.hold_minutes` (carts.holds.ts), or renews
     * its hold for as long again: 409 `holds_disabled` when the store has none, 409
     * `too_many_holds` when `address` (the buyer's, an IPv6 address by its /64) holds
     * `MAX_HOLDS_PER_ADDRESS` other carts of the store, 422 `cart_not_ready` when a line cannot be
     * had (empty, no longer sold, not enough in stock). The hold is recorded with the address.
     */
    async hold(tenantId: string, id: string, address: string): Promise<CartObject> {
      const minutes = await deps.holdMinutes(tenantId);
      if (minutes === null) throw holdsDisabled();
      const now = clock.now();
      return store.transaction(async (trx) => {
        const cart = await openForChange(trx, tenantId, id, now);
        await repo.lockHolds(trx, tenantId);
        const others = await repo.holdsOf(trx, tenantId, address, now, id);
        if (others.length >= MAX_HOLDS_PER_ADDRESS) throw tooManyHolds(others[0] ?? now);
        const lines = await repo.findLines(trx, [id]);
        if (cart.hold_expires === null || cart.hold_expires <= now) {
          // Nothing held, or a hold that ran out and is not given back yet: hold anew.
          await releaseHold(trx, cart, now);
          const free = { ...cart, hold_lines: null, hold_expires: null, hold_ip: null };
          const shown = presentCart(free, lines, await loadCartContext(trx, free, lines, now), now);
          const problems = shown.problems.filter((problem) => HOLD_PROBLEMS.has(problem.code));
          if (problems.length > 0) throw notReady(problems, 'held');
          let taken;
          try {
            taken = await takeUnits(trx, tenantId, lines, now, store.dialect);
          } catch (error) {
            throw asProblem(error, lines, 'held'); // PostgreSQL: another took the stock meanwhile
          }
          await repo.updateCart(trx, id, { hold_lines: JSON.stringify(taken) });
        }
        await repo.updateCart(trx, id, { hold_expires: now + minutes * 60_000, hold_ip: address });
        const held = (await repo.findCart(trx, tenantId, id)) as repo.CartRow; // locked above
        return view(trx, held, lines, now);
      });
    },

    /** The admin's list, newest first, by the status a cart shows (or `abandoned`). */
    async list(tenantId: string, query: CartListQuery & PageQuery) {
      const now = clock.now();
      const window = pageWindow(query, '-created');
      const filter: repo.CartFilter = {
        status: query.status,
        expiredBefore: now - CART_LIFETIME_MS,
        abandonedBefore: now - (await deps.abandonedAfterMinutes(tenantId)) * 60_000,
      };
      const [rows, total] = await Promise.all([
        repo.listCarts(store.db, tenantId, filter, window),
        repo.countCarts(store.db, tenantId, filter),
      ]);
      const page = rows.slice(0, window.limit);
      const lines = await repo.findLines(
        store.db,
        page.map((cart) => cart.id),
      );
      const shown = new Map<string, CartObject>();
      for (const cart of page) {
        const own = lines.filter((line) => line.cart_id === cart.id);
        shown.set(cart.id, await view(store.db, cart, own, now));
      }
      return envelope(
        rows,
        total,
        window,
        '-created',
        (cart) => [cart.created, cart.id],
        (cart) => shown.get(cart.id) as CartObject, // every row of the page was presented above
      );
    },
  };
}

/** An address as stored (src/lib/addresses.ts), JSON; undefined when not given. */
function addressIn(address: CreateCartBody['shipping_address']): string | undefined {
  if (address === undefined) return undefined;
  const [stored] = normaliseAddresses([address], 'shipping_address', true);
  return JSON.stringify(stored);
}
