import type { ApiVersion } from '../versions.registry.js';

/**
 * Release v2.6: the store opens to shoppers. Its changes to each module's own resources are
 * declared by that module (its manifest's `versionChanges['2027-01-20']`); this file says when the
 * version came and what it brought.
 */
export const V2027_01_20: ApiVersion = {
  version: '2027-01-20',
  release: 'v2.6',
  changelog: [
    'The storefront API (`/v1/store/*`): publishable keys (`pk_live_`) a browser may hold, the shopper’s catalog, carts priced at every change, exactly-once checkout and shopper accounts.',
    'Publishable keys: `POST /api-keys {type: "publishable", name, allowed_origins}` makes a `pk_live_` key, public and shown in full, that may call `/v1/store/*` only (`403 publishable_key_not_allowed` elsewhere) from its `allowed_origins` (`403 origin_not_allowed`; CORS answered on `/v1/store/*` only); API keys gain `type` and `allowed_origins`.',
    'Shopper accounts: `POST /store/customers` signs a shopper up, `POST /store/sessions` signs them in with a `cst_` token sent as `X-Customer-Token` (`401 invalid_credentials`, `401 invalid_customer_token`), `GET`/`PATCH /store/customers/me` and `GET /store/customers/me/orders` act as them, and `POST /store/customers/password-reset` emits the new `customer.password_reset` event with a single-use `reset_token`; a customer’s export gains `login`.',
    'Products gain `handle`: lowercase `a-z 0-9 -`, unique per tenant (`409 handle_taken`), made from the name when not given (`classic-tee`, then `classic-tee-2`), settable on create and change, a filter of `GET /products`, and filled by imports (`handle`, Shopify’s `Handle` or `URL handle`) and written by exports; the shopper’s catalog: `GET /store/products`, `GET /store/products/{id_or_handle}` (active products, `available` instead of stock) and `GET /store/shipping-rates?country=`.',
    'Store settings: `GET /settings` (`read:users`) and `PATCH /settings` (`write:settings`, partial) answer `{name, currency, unpaid_order_expiry_minutes, storefront: {hold_minutes, abandoned_after_minutes, recovery_url_template, requests_per_minute}}`; `currency` is chosen at creation (`tenant:create --currency`, the console’s sign-up) and changes only while the store has no orders (`409 invalid_state_transition`). Unpaid orders expire: a `pending` order older than `unpaid_order_expiry_minutes` (default 1440; 0: never) is cancelled by the system, its stock and discount uses given back, and orders gain `cancel_reason` (`requested` or `expired`).',
    'Carts: `POST /store/carts`, `GET`/`PATCH /store/carts/{id}` and its `lines`, priced at every read and change by the code that prices orders, with what would stop the order listed in `problems`; `POST /store/carts/{id}/complete {payment_method, expected_total}` makes the paid order exactly once (`409 cart_changed`, `422 cart_not_ready`, `422 payment_failed` with nothing taken); orders gain `source` (`api`, `storefront`, `import`, `console`) and `cart_id`; the store lists its carts with `GET /carts?status=open|abandoned|completed|expired` (`read:orders`).',
    'Storefront limits: calls to `/v1/store/*` count against neither the hourly limit nor the monthly quota but against their own, per buyer address (the store’s `storefront.requests_per_minute`, default 120), per cart (300 changes an hour) and for completion (10 an hour per address, 300 a minute per product), refused with `429 rate_limited`, `Retry-After` and the refusing policy’s `RateLimit` headers; their answers carry the per-address `RateLimit` headers and no `X-RateLimit-*`. `GET /usage` reports them apart in `storefront`.',
    'Stock holds and abandoned carts: `POST /store/carts/{id}/hold` takes a cart’s units out of stock for the store’s `storefront.hold_minutes` (renewed by calling it again; given back when it runs out, when the cart’s lines change or when it expires; taken over by its completion), at most 3 carts per buyer address (`409 too_many_holds`), `409 holds_disabled` while the store holds none; the new `cart.abandoned` event, once per cart left unchanged with an email and a line for `storefront.abandoned_after_minutes`, with `recovery_url`; open carts unchanged for 30 days become `expired`.',
  ],
  changes: [],
};
