import createClient, { type Client } from 'openapi-fetch';
import { apiOrigin } from './base-url.js';
import { createCaller } from './caller.js';
import { CommerceApiError } from './errors.js';
import { storeNamespace } from './generated/namespaces.js';
import { API_VERSION } from './generated/operations.js';
import type { paths } from './generated/schema.js';
import type { RequestOptions } from './request-options.js';
import { retryingFetch, type SendInit } from './retrying-fetch.js';
import type { Body, Result } from './types.js';

/**
 * The storefront's client, for a shopper's browser: the `/v1/store/*` operations (the generated
 * `store` namespace, the same methods as `CommerceClient`'s) with the store's publishable key.
 * It sends with the global `fetch` and uses Web APIs only, never a Node module (the full client's
 * transport is undici's, for its TLS settings), so a bundler for the browser takes it as it is:
 * `import { StorefrontClient } from '@commerce-platform/client/storefront'`. The test
 * `clients/typescript/test/storefront.test.ts` bundles it for the browser, and
 * `storefront.browser.test.ts` runs it in Chromium from another origin.
 */

export { CommerceApiError, CommerceConnectionError, type FieldError, unwrap } from './errors.js';
export { API_VERSION } from './generated/operations.js';
export type { components, paths } from './generated/schema.js';
export { PagedList } from './pagination.js';
export type { RequestOptions } from './request-options.js';
export type { Body, ItemOf, PageOf, Problem, ProblemCode, Query, Result } from './types.js';

/** The storefront's operations: `listProducts`, `createCart`, `completeCart`, `createSession`... */
export type StoreOperations = ReturnType<typeof storeNamespace>;

/** A fetch: the global one (the default), or one of the caller's (a server's own agent, a test's). */
export type StorefrontFetch = (url: string, init: SendInit) => Promise<Response>;

export interface StorefrontClientOptions {
  /**
   * The store's publishable key (`pk_live_...`): public, made for pages, good for `/v1/store/*` only.
   * A server that renders the shop may use a secret key with `read:products` instead (and name the
   * shopper's address in `X-Buyer-IP` per call); a page may not: a secret key is refused there.
   */
  publishableKey: string;
  /** The API's origin (`https://api.example.com`); default: the page's own (`location.origin`). */
  baseUrl?: string;
  /** The signed-in shopper's session token (`cst_...`), kept from an earlier page; see `signIn`. */
  customerToken?: string | null;
  /** The dated API version sent as `X-Service-Version`; default: the one the client was generated for. */
  version?: string;
  /** Retries after a network error, timeout, 409 idempotency_key_in_use, 429 or 5xx; default 2. */
  maxRetries?: number;
  /** Each attempt's time limit in milliseconds, the answer's body included; default 60000. */
  timeoutMs?: number;
  /** What sends each request; default: the global `fetch`. */
  fetch?: StorefrontFetch;
}

/** Whether this code runs in a page (a secret key there would be shown to every visitor). */
function inPage(): boolean {
  return typeof (globalThis as { document?: unknown }).document === 'object';
}

/**
 * A shopper's storefront: `shop.store.listProducts()`, `shop.store.createCart(...)`,
 * `shop.store.completeCart(id, { payment_method, expected_total })`. Every POST carries an
 * `Idempotency-Key`, the same on each retry, so a completion retried after a lost answer pays once.
 * While a shopper is signed in (`signIn`, or `customerToken` given), every call sends their token
 * as `X-Customer-Token`: their carts become theirs, and `store.getCustomer()` and
 * `store.listCustomerOrders()` answer for them.
 */
export class StorefrontClient {
  /** The `/v1/store/*` operations, one method each (`ApiNamespaces['store']` of the full client). */
  readonly store: StoreOperations;
  /** The typed openapi-fetch client over the same fetch: `{ data, error, response }` per call. */
  readonly api: Client<paths>;
  /** The dated API version sent as `X-Service-Version`. */
  readonly version: string;
  readonly baseUrl: string;
  /** The shopper's session token, sent as `X-Customer-Token` while set (`signIn` sets it, `signOut` clears it). */
  customerToken: string | null;

  constructor(options: StorefrontClientOptions) {
    const key = options.publishableKey;
    if (typeof key !== 'string' || key === '') throw new Error('No key: pass { publishableKey }');
    if (key.startsWith('sk_') && inPage()) {
      throw new Error('A secret key must never reach a page: use the store’s publishable key (pk_live_...)');
    }
    const origin = options.baseUrl ?? (globalThis as { location?: { origin?: string } }).location?.origin;
    if (origin === undefined) throw new Error('No baseUrl: pass { baseUrl }, the API’s origin');
    const maxRetries = options.maxRetries ?? 2;
    const timeoutMs = options.timeoutMs ?? 60_000;
    if (!Number.isInteger(maxRetries) || maxRetries < 0)
      throw new RangeError('maxRetries must be an integer >= 0');
    if (!(timeoutMs > 0)) throw new RangeError('timeoutMs must be positive');
    this.baseUrl = apiOrigin(origin);
    this.version = options.version ?? API_VERSION;
    this.customerToken = options.customerToken ?? null;
    // The global fetch is looked up at each call, so a page or test that replaces it is heard.
    const send: StorefrontFetch = options.fetch ?? ((url, init) => fetch(url, init));
    this.api = createClient<paths>({
      baseUrl: this.baseUrl,
      headers: { Authorization: `Bearer ${key}`, 'X-Service-Version': this.version },
      fetch: retryingFetch(send, { maxRetries, timeoutMs }),
    });
    this.api.use({
      onRequest: ({ request }) => {
        if (this.customerToken !== null) request.headers.set('X-Customer-Token', this.customerToken);
        return request;
      },
    });
    this.store = storeNamespace(createCaller(this.api));
  }

  /** Signs the shopper in (`POST /v1/store/sessions`) and sends their token from now on. */
  async signIn(
    body: Body<'createStoreSession'>,
    options?: RequestOptions,
  ): Promise<Result<'createStoreSession'>> {
    const session = await this.store.createSession(body, options);
    this.customerToken = session.token;
    return session;
  }

  /**
   * Signs the shopper out (`DELETE /v1/store/sessions/current`): the token stops working and is no
   * longer sent. A session that had already ended (`401 invalid_customer_token`) is signed out too.
   */
  async signOut(options?: RequestOptions): Promise<void> {
    if (this.customerToken === null) return;
    try {
      await this.store.deleteSession(options);
    } catch (error) {
      if (!(error instanceof CommerceApiError && error.code === 'invalid_customer_token')) throw error;
    } finally {
      this.customerToken = null;
    }
  }
}
