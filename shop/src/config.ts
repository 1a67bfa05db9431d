/**
 * Where the shop sells from: the store's publishable key and the API's origin. The key comes from
 * the address (`/shop/?key=pk_live_...`, as `npm start` and the console print it), then from the
 * one kept from an earlier visit (local storage), then from the build (`SHOP_PUBLISHABLE_KEY`).
 * A key in the address is kept and taken out of it, so the shop's own links stay short. The key is
 * public: it opens only the storefront's routes.
 */

const KEY_STORAGE = 'shop:key';
const KEY_SHAPE = /^pk_(live|test)_[0-9A-Za-z]{20,100}$/;

/** The shop's name: the header and the page titles. */
export const SHOP_NAME = import.meta.env.SHOP_NAME || 'Shop';

/** The API's origin; undefined: the page's own. */
export const API_URL = import.meta.env.SHOP_API_URL || undefined;

/** Local storage, or nothing where it is refused (a private window's quota, a sandboxed frame). */
export function storage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

export function readStored(name: string): string | null {
  try {
    return storage()?.getItem(name) ?? null;
  } catch {
    return null;
  }
}

export function writeStored(name: string, value: string | null): void {
  try {
    if (value === null) storage()?.removeItem(name);
    else storage()?.setItem(name, value);
  } catch {
    // Full or refused: the shop goes on without remembering it.
  }
}

/** The key the page was opened with, or why the one in its address was refused. */
export type KeyFound = { key: string } | { key?: undefined; refused?: 'secret' | 'malformed' };

/** The key this page uses, read once at start. */
function findKey(): KeyFound {
  const url = new URL(window.location.href);
  const given = url.searchParams.get('key')?.trim();
  if (given) {
    url.searchParams.delete('key');
    window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash);
    if (given.startsWith('sk_')) return { refused: 'secret' };
    if (!KEY_SHAPE.test(given)) return { refused: 'malformed' };
    writeStored(KEY_STORAGE, given);
    return { key: given };
  }
  const kept = readStored(KEY_STORAGE) ?? (import.meta.env.SHOP_PUBLISHABLE_KEY || undefined);
  return kept === undefined ? {} : { key: kept };
}

export const KEY: KeyFound = findKey();
export const PUBLISHABLE_KEY: string | undefined = KEY.key;

/** A name in local storage for this store: carts and sessions of one store never reach another's. */
export function storeScoped(name: string): string {
  return `shop:${PUBLISHABLE_KEY?.slice(-12) ?? 'none'}:${name}`;
}
