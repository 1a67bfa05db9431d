import { defineModule } from '../../kernel/module.js';
import { createCartCheckout, type CartCheckout } from './carts.checkout.js';
import { adminCartRoutes, storeCartRoutes } from './carts.routes.js';
import { CartListSchema, CartSchema } from './carts.schemas.js';
import { createCartService, type CartService } from './carts.service.js';

/**
 * Carts: a shopper's cart (`/v1/store/carts`), priced at every read and change by the code that
 * prices orders, and completed into a paid order exactly once (carts.checkout.ts); the store reads
 * its carts at `/v1/carts`. Completions a dead process left in flight are finished by a sweep.
 */

const SWEEP_EVERY_MS = 60_000;

declare module '../../kernel/module.js' {
  interface Services {
    /** Shoppers' carts: made, changed, priced, listed. */
    carts: CartService;
    /** A cart's completion into its paid order, once. */
    cartCheckout: CartCheckout;
  }
}

export default defineModule({
  name: 'carts',
  position: 75,
  tags: [
    {
      name: 'Carts',
      description:
        'Shoppers’ carts (`/store/carts`, for a publishable key), priced at every change, completed into a paid order exactly once; and the store’s view of them',
    },
  ],
  operationIds: {
    'POST /v1/store/carts': 'createStoreCart',
    'GET /v1/store/carts/:id': 'getStoreCart',
    'PATCH /v1/store/carts/:id': 'updateStoreCart',
    'POST /v1/store/carts/:id/lines': 'addStoreCartLine',
    'PATCH /v1/store/carts/:id/lines/:line_id': 'updateStoreCartLine',
    'DELETE /v1/store/carts/:id/lines/:line_id': 'removeStoreCartLine',
    'POST /v1/store/carts/:id/complete': 'completeStoreCart',
    'GET /v1/carts': 'listCarts',
    'GET /v1/carts/:id': 'getCart',
  },
  components: () => ({ Cart: CartSchema, CartList: CartListSchema }),
  needs: ['orders', 'orderCheckout', 'payments', 'settings', 'shopperSessions'],
  services: (deps) => ({
    carts: createCartService({
      ...deps,
      abandonedAfterMinutes: async (tenantId) =>
        (await deps.settings.get(tenantId)).storefront.abandoned_after_minutes,
    }),
    cartCheckout: createCartCheckout({ ...deps, orderCheckout: deps.orderCheckout }),
  }),
  routes: [{ plugin: storeCartRoutes }, { plugin: adminCartRoutes }],
  // Completions whose process died mid-way are finished once their lease is over.
  start: ({ cartCheckout }, every) => {
    every(SWEEP_EVERY_MS, () => cartCheckout.settleStaleCheckouts(), 'stale cart completion sweep failed');
  },
});
