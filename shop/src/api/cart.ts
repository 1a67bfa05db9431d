import { CommerceApiError, type Body } from '@commerce-platform/client/storefront';
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { readStored, storeScoped, writeStored } from '../config.js';
import { navigate } from '../router.js';
import type { Cart, CartLine, Order } from '../types.js';
import { storefront } from './client.js';
import { isProblem, problemMember } from './errors.js';
import { queryKeys } from './queries.js';
import { forgetEndedSession } from './session.js';

/**
 * The shopper's cart: its id kept in local storage (so it outlives a reload; the id, with the
 * store's key, is all it takes to use the cart), read priced by the API at every visit, and
 * changed through the storefront's cart routes, each answering the cart as it now stands.
 *
 * The prices the shopper was shown are kept beside it, per line: a line whose price the merchant
 * changed since shows the price it had and the new one, and the shopper accepts the new one before
 * paying. A completion that finds the total changed (`409 cart_changed`) answers the cart as it
 * stands, which shows the same way; nothing is charged until the shopper pays the new figure.
 */

const CART_ID = storeScoped('cart');
const SEEN = storeScoped('seen-prices');
const LAST_ORDER = storeScoped('last-order');

interface Seen {
  cart: string;
  /** The unit price each line had when the shopper first saw it or accepted it. */
  prices: Record<string, number>;
}

function readSeen(): Seen {
  try {
    const parsed = JSON.parse(readStored(SEEN) ?? 'null') as Seen | null;
    if (parsed && typeof parsed.cart === 'string' && typeof parsed.prices === 'object') return parsed;
  } catch {
    // Unreadable: start again.
  }
  return { cart: '', prices: {} };
}

let cartId: string | null = readStored(CART_ID);
let seen: Seen = readSeen();
const listeners = new Set<() => void>();

function notify(): void {
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Keeps the cart's id (or forgets it: the next line added starts a new cart). */
export function setCartId(id: string | null): void {
  cartId = id;
  writeStored(CART_ID, id);
  notify();
}

export function useCartId(): string | null {
  return useSyncExternalStore(subscribe, () => cartId);
}

function keepSeen(next: Seen): void {
  seen = next;
  writeStored(SEEN, JSON.stringify(next));
  notify();
}

/** A line's price is what the shopper sees from the first time they see the line. */
function noteFirstSight(cart: Cart): void {
  const prices = seen.cart === cart.id ? { ...seen.prices } : {};
  let added = seen.cart !== cart.id;
  for (const line of cart.lines) {
    if (prices[line.id] === undefined && line.available) {
      prices[line.id] = line.unit_price;
      added = true;
    }
  }
  if (added) keepSeen({ cart: cart.id, prices });
}

/** The shopper accepts the prices the cart has now. */
export function acceptPrices(cart: Cart): void {
  keepSeen({
    cart: cart.id,
    prices: Object.fromEntries(cart.lines.map((line) => [line.id, line.unit_price])),
  });
}

export interface PriceChange {
  line: CartLine;
  /** The unit price the shopper was shown. */
  was: number;
}

/** The lines whose price changed since the shopper saw it (a line no longer sold is a problem instead). */
export function usePriceChanges(cart: Cart | null | undefined): PriceChange[] {
  const current = useSyncExternalStore(subscribe, () => seen);
  if (!cart || current.cart !== cart.id) return [];
  return cart.lines.flatMap((line) => {
    const was = current.prices[line.id];
    return was !== undefined && line.available && was !== line.unit_price ? [{ line, was }] : [];
  });
}

/** What the API answered for the cart: kept as the cart query's data, its new lines' prices noted. */
function receive(client: QueryClient, cart: Cart): Cart {
  noteFirstSight(cart);
  client.setQueryData(queryKeys.cart(cart.id), cart);
  return cart;
}

/** Whether the error says the cart can take no more changes, or is not there (another store's, expired). */
function cartGone(error: unknown): boolean {
  return (
    error instanceof CommerceApiError &&
    (error.status === 404 || error.code === 'cart_not_open' || error.code === 'not_found')
  );
}

/** The cart, priced now; null when there is none (nothing added yet, or it expired). */
export function useCart() {
  const id = useCartId();
  const client = useQueryClient();
  return useQuery({
    queryKey: queryKeys.cart(id),
    queryFn: async (): Promise<Cart | null> => {
      if (id === null) return null;
      try {
        const cart = await storefront().store.getCart(id);
        if (cart.status === 'expired') {
          setCartId(null);
          return null;
        }
        noteFirstSight(cart);
        return cart;
      } catch (error) {
        // A cart another shopper signed in here owns, or that is gone, is not this shopper's.
        if (error instanceof CommerceApiError && error.status === 404) {
          setCartId(null);
          return null;
        }
        if (forgetEndedSession(error)) void client.invalidateQueries({ queryKey: ['cart'] });
        throw error;
      }
    },
    staleTime: 0,
  });
}

export function lastOrder(): Order | undefined {
  try {
    return (JSON.parse(readStored(LAST_ORDER) ?? 'null') as Order | null) ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * The changes a shopper makes to their cart, each answering the cart, which the page then shows.
 * A completion goes on to the order's confirmation (`/orders/{id}`) and starts the next cart afresh.
 */
export function useCartActions() {
  const client = useQueryClient();
  /** No answer of a read sent before a change may replace the change's answer. */
  const quiet = () => client.cancelQueries({ queryKey: ['cart'] });
  const done = (cart: Cart) => receive(client, cart);
  const open = () => {
    if (cartId === null) throw new Error('There is no cart yet.');
    return cartId;
  };
  const onError = (error: unknown) => {
    forgetEndedSession(error);
    // The cart changed elsewhere (another tab completed it): show it as it is.
    if (cartGone(error)) void client.invalidateQueries({ queryKey: ['cart'] });
  };

  const add = useMutation({
    onMutate: quiet,
    mutationFn: async ({ variantId, quantity }: { variantId: string; quantity: number }) => {
      const line = { variant_id: variantId, quantity };
      if (cartId !== null) {
        try {
          return await storefront().store.addCartLine(cartId, line);
        } catch (error) {
          if (!cartGone(error)) throw error;
        }
      }
      const cart = await storefront().store.createCart({ lines: [line] });
      setCartId(cart.id);
      return cart;
    },
    onSuccess: done,
    onError,
  });

  const setQuantity = useMutation({
    onMutate: quiet,
    mutationFn: ({ lineId, quantity }: { lineId: string; quantity: number }) =>
      storefront().store.updateCartLine(open(), lineId, { quantity }),
    onSuccess: done,
    onError,
  });

  const remove = useMutation({
    onMutate: quiet,
    mutationFn: (lineId: string) => storefront().store.removeCartLine(open(), lineId),
    onSuccess: done,
    onError,
  });

  const update = useMutation({
    onMutate: quiet,
    mutationFn: (body: Body<'updateStoreCart'>) => storefront().store.updateCart(open(), body),
    onSuccess: done,
    onError,
  });

  const complete = useMutation({
    onMutate: quiet,
    mutationFn: ({ cart, paymentMethod }: { cart: Cart; paymentMethod: string }) =>
      storefront().store.completeCart(cart.id, { payment_method: paymentMethod, expected_total: cart.total }),
    onSuccess: (order) => {
      writeStored(LAST_ORDER, JSON.stringify(order));
      // On to the confirmation first: the checkout page, left without its cart, goes.
      navigate(`/orders/${order.id}`);
      setCartId(null);
      void client.invalidateQueries({ queryKey: ['orders'] });
      // The catalog's stock changed: what is still available is asked again.
      void client.invalidateQueries({ queryKey: ['product'] });
      void client.invalidateQueries({ queryKey: ['products'] });
    },
    onError: (error) => {
      onError(error);
      // The total changed: the problem carries the cart as it now stands, shown for the shopper to accept.
      const now = problemMember(error, 'cart');
      if (isProblem(error, 'cart_changed') && now && typeof now === 'object') receive(client, now as Cart);
      else void client.invalidateQueries({ queryKey: ['cart'] });
    },
  });

  return { add, setQuantity, remove, update, complete };
}

/** The cart is forgotten on this device (the shopper signed out). */
export function forgetCart(client: QueryClient): void {
  setCartId(null);
  client.removeQueries({ queryKey: ['cart'] });
}
