import { Type } from 'typebox';
import { Nullable } from '../../http/schemas.js';
import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import type { CodesOf } from '../../lib/errors.js';
import { createCartAnswers, type CartAnswers } from './carts.answers.js';
import { createCartCheckout, type CartCheckout } from './carts.checkout.js';
import { CART_PROBLEMS } from './carts.problems.js';
import { adminCartRoutes, storeCartRoutes } from './carts.routes.js';
import { CartListSchema, CartSchema } from './carts.schemas.js';
import { createCartService, type CartService } from './carts.service.js';
import { createCartSweeps, type CartSweeps } from './carts.sweeps.js';
import type { CartLinesTable, CartsTable } from './carts.tables.js';
import * as carts from './migrations/0039_carts.js';
import * as cartHolds from './migrations/0043_cart_holds.js';

/**
 * Carts: a shopper's cart (`/v1/store/carts`), priced at every read and change by the code that
 * prices orders, holding its stock for a while if the store wishes (carts.holds.ts), and completed
 * into a paid order exactly once (carts.checkout.ts); the store reads its carts at `/v1/carts`.
 * Sweeps finish completions a dead process left in flight, give back holds that ran out, announce
 * abandoned carts and expire idle ones (carts.sweeps.ts). A shopper's read of a cart is answered
 * from memory while nothing it was priced from has changed (carts.answers.ts).
 */

const EVENTS = ['cart.abandoned'] as const;
/** A cart's id (`cart_...`) and its lines' (`cli_...`). */
const ID_PREFIXES = ['cart', 'cli'] as const;
const SWEEP_EVERY_MS = 60_000;
/** Holds that ran out are given back this often: their units come back within as long. */
const HOLD_SWEEP_EVERY_MS = 15_000;

declare module '../../kernel/vocabulary.js' {
  interface EventTypeNames extends Names<typeof EVENTS> {}
}
declare module '../../lib/errors.js' {
  interface ProblemCodeNames extends CodesOf<typeof CART_PROBLEMS> {}
}
declare module '../../lib/ids.js' {
  interface IdPrefixNames extends Names<typeof ID_PREFIXES> {}
}
declare module '../../db/schema.js' {
  interface Database {
    carts: CartsTable;
    cart_lines: CartLinesTable;
  }
}
declare module '../../kernel/module.js' {
  interface Services {
    /** Shoppers' carts: made, changed, held, priced, listed. */
    carts: CartService;
    /** A cart's completion into its paid order, once. */
    cartCheckout: CartCheckout;
    /** What happens to carts while nobody calls: holds given back, abandoned carts, expiry. */
    cartSweeps: CartSweeps;
    /** A shopper's cart answers, kept while nothing they were priced from has changed. */
    cartAnswers: CartAnswers;
  }
}

export default defineModule({
  name: 'carts',
  position: 75,
  tags: [
    {
      name: 'Carts',
      description:
        'Shoppers’ carts (`/store/carts`, for a publishable key), priced at every change, their stock held for a while if the store wishes, completed into a paid order exactly once; and the store’s view of them',
    },
  ],
  events: [
    {
      types: EVENTS,
      object: CartSchema,
      data: {
        'cart.abandoned': {
          recovery_url: Nullable(
            Type.String({
              description:
                'The store’s `storefront.recovery_url_template` with `{cart_id}` filled in: the link the store mails the shopper; null when the store has none.',
              examples: ['https://shop.example.com/cart?id=cart_7Hq2Lx9Vb4Nc8Zt1Mk6Pw3Rs'],
            }),
          ),
        },
      },
      exampleData: (_type, cart) => ({
        object: cart,
        recovery_url: `https://shop.example.com/cart?id=${String(cart.id)}`,
      }),
    },
  ],
  operationIds: {
    'POST /v1/store/carts': 'createStoreCart',
    'GET /v1/store/carts/:id': 'getStoreCart',
    'PATCH /v1/store/carts/:id': 'updateStoreCart',
    'POST /v1/store/carts/:id/lines': 'addStoreCartLine',
    'PATCH /v1/store/carts/:id/lines/:line_id': 'updateStoreCartLine',
    'DELETE /v1/store/carts/:id/lines/:line_id': 'removeStoreCartLine',
    'POST /v1/store/carts/:id/hold': 'holdStoreCart',
    'POST /v1/store/carts/:id/complete': 'completeStoreCart',
    'GET /v1/carts': 'listCarts',
    'GET /v1/carts/:id': 'getCart',
  },
  components: () => ({ Cart: CartSchema, CartList: CartListSchema }),
  problems: CART_PROBLEMS,
  idPrefixes: ID_PREFIXES,
  migrations: { '0039_carts': carts, '0043_cart_holds': cartHolds },
  needs: ['events', 'orders', 'orderCheckout', 'payments', 'settings', 'shopperSessions'],
  services: (deps) => ({
    carts: createCartService({
      ...deps,
      abandonedAfterMinutes: async (tenantId) =>
        (await deps.settings.get(tenantId)).storefront.abandoned_after_minutes,
      holdMinutes: async (tenantId) => (await deps.settings.get(tenantId)).storefront.hold_minutes,
    }),
    cartCheckout: createCartCheckout({
      ...deps,
      orderCheckout: deps.orderCheckout,
      leaseMs: deps.config.checkoutLeaseMs,
    }),
    cartSweeps: createCartSweeps(deps),
    cartAnswers: createCartAnswers({
      ...deps,
      shopperFor: (tenantId, token) => deps.shopperSessions.customerForToken(tenantId, token),
    }),
  }),
  routes: [{ plugin: storeCartRoutes }, { plugin: adminCartRoutes }],
  // Completions whose process died mid-way are finished once their lease is over (checked at
  // least as often as a lease lasts, and at start: a restarted process finishes what it left).
  start: ({ config, cartCheckout, cartSweeps }, every) => {
    every(
      Math.min(SWEEP_EVERY_MS, config.checkoutLeaseMs),
      () => cartCheckout.settleStaleCheckouts(),
      'stale cart completion sweep failed',
      { atStart: true },
    );
    every(HOLD_SWEEP_EVERY_MS, () => cartSweeps.releaseHolds(), 'cart hold release sweep failed');
    every(SWEEP_EVERY_MS, () => cartSweeps.announceAbandoned(), 'abandoned cart sweep failed');
    every(SWEEP_EVERY_MS, () => cartSweeps.expireIdle(), 'idle cart expiry sweep failed');
  },
});
