import { StorefrontClient } from '@commerce-platform/client/storefront';
import { API_URL, PUBLISHABLE_KEY, readStored, storeScoped, writeStored } from '../config.js';

/**
 * The shop's one client of the API: the TypeScript client's browser entry with the store's
 * publishable key, calling `/v1/store/*` and nothing else. It retries nothing itself: a failure
 * is shown as it is (a `429` with its wait), and the page's own Retry or the shopper asks again
 * (queries retry a network error or a 5xx twice; a completion is exactly once per cart however
 * often it is asked). The signed-in shopper's token is kept in local storage, per store.
 */

const TOKEN = storeScoped('customer-token');

let shop: StorefrontClient | undefined;

/** The client; only called once the page has a key (App shows how to get one otherwise). */
export function storefront(): StorefrontClient {
  if (PUBLISHABLE_KEY === undefined) throw new Error('The shop has no publishable key.');
  shop ??= new StorefrontClient({
    publishableKey: PUBLISHABLE_KEY,
    ...(API_URL === undefined ? {} : { baseUrl: API_URL }),
    customerToken: readStored(TOKEN),
    maxRetries: 0,
  });
  return shop;
}

/** Keeps the shopper's session token (or forgets it), for this tab's client and the next visit. */
export function keepCustomerToken(token: string | null): void {
  storefront().customerToken = token;
  writeStored(TOKEN, token);
}
