import { Timestamp } from '../../http/schemas.js';
import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import type { CodesOf } from '../../lib/errors.js';
import { Type } from 'typebox';
import { CustomerSchema } from '../customers/index.js';
import { RESET_TOKEN_EXAMPLE } from './shoppers.examples.js';
import { SHOPPER_PROBLEMS } from './shoppers.problems.js';
import { shopperRoutes } from './shoppers.routes.js';
import {
  StoreCustomerSchema,
  StoreOrderListSchema,
  StoreOrderSchema,
  StoreSessionSchema,
} from './shoppers.schemas.js';
import { createShopperAccounts, type ShopperAccounts } from './shoppers.service.js';
import { createShopperSessions, type ShopperSessions } from './shoppers.sessions.js';

/**
 * Shopper accounts on the storefront (`/v1/store/customers`, `/v1/store/sessions`): sign-up,
 * sign-in with a session token (`X-Customer-Token`) beside the publishable key, the shopper's own
 * profile and orders, and password resets mailed by the store's webhook. The login is the
 * customer's data, kept by the customers module; this module runs the storefront's use of it.
 */

const EVENTS = ['customer.password_reset'] as const;
/** Expired sessions and resets, and spent throttle counters, are purged this often. */
const PURGE_EVERY_MS = 3_600_000;

declare module '../../kernel/vocabulary.js' {
  interface EventTypeNames extends Names<typeof EVENTS> {}
}
declare module '../../lib/errors.js' {
  interface ProblemCodeNames extends CodesOf<typeof SHOPPER_PROBLEMS> {}
}
declare module '../../kernel/module.js' {
  interface Services {
    /** The shoppers' sign-up, sign-in, profile, orders and password resets. */
    shopperAccounts: ShopperAccounts;
    /** Resolves a shopper's `X-Customer-Token` to its customer (carts bind to it). */
    shopperSessions: ShopperSessions;
  }
}

export default defineModule({
  name: 'shoppers',
  position: 75,
  tags: [
    {
      name: 'Shopper accounts',
      description:
        'Storefront sign-up, sign-in and sign-out, the signed-in shopper’s profile and orders, and password resets',
    },
  ],
  events: [
    {
      types: EVENTS,
      object: CustomerSchema,
      // The store's webhook mails the token to the customer's email; it is never stored in clear.
      data: {
        'customer.password_reset': {
          reset_token: Type.String({
            description:
              'Single use, for `POST /store/customers/password-reset/confirm`, valid until `expires_at` (one hour).',
            examples: [RESET_TOKEN_EXAMPLE],
          }),
          expires_at: Timestamp,
        },
      },
      exampleData: (_type, customer) => ({
        object: customer,
        reset_token: RESET_TOKEN_EXAMPLE,
        expires_at: '2026-11-12T09:03:51.270Z',
      }),
    },
  ],
  operationIds: {
    'POST /v1/store/customers': 'createStoreCustomer',
    'POST /v1/store/sessions': 'createStoreSession',
    'DELETE /v1/store/sessions/current': 'deleteStoreSession',
    'GET /v1/store/customers/me': 'getStoreCustomer',
    'PATCH /v1/store/customers/me': 'updateStoreCustomer',
    'GET /v1/store/customers/me/orders': 'listStoreCustomerOrders',
    'POST /v1/store/customers/password-reset': 'requestStorePasswordReset',
    'POST /v1/store/customers/password-reset/confirm': 'confirmStorePasswordReset',
  },
  components: () => ({
    StoreCustomer: StoreCustomerSchema,
    StoreSession: StoreSessionSchema,
    StoreOrder: StoreOrderSchema,
    StoreOrderList: StoreOrderListSchema,
  }),
  needs: ['events', 'orders', 'audit'],
  services: (deps) => {
    const shopperSessions = createShopperSessions(deps);
    return {
      shopperSessions,
      shopperAccounts: createShopperAccounts({ ...deps, sessions: shopperSessions }),
    };
  },
  problems: SHOPPER_PROBLEMS,
  routes: [{ plugin: shopperRoutes }],
  start: ({ shopperAccounts }, every) => {
    every(PURGE_EVERY_MS, () => shopperAccounts.purgeExpired(), 'shopper session purge failed');
  },
});
