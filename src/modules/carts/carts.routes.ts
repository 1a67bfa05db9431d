import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { buyerIpOf, principalOf } from '../../http/auth.js';
import { clientAddressKey } from '../../http/client-address.js';
import { BODY_ERRORS, EmptyBody, errorResponses } from '../../http/schemas.js';
import type { Services } from '../../kernel/module.js';
import { AppError } from '../../lib/errors.js';
import { idempotentWrite } from '../../lib/idempotent-write.js';
import type { Principal } from '../../lib/principal.js';
import { OrderSchema } from '../orders/index.js';
import { CustomerTokenHeaders, invalidCustomerToken } from '../shoppers/index.js';
import type { CartShopper } from './carts.service.js';
import {
  AddLineBody,
  CartIdParams,
  CartLineParams,
  CartListQuery,
  CartListSchema,
  CartSchema,
  CompleteCartBody,
  CreateCartBody,
  SetLineBody,
  UpdateCartBody,
} from './carts.schemas.js';

/** A change to a cart: 404 unknown (another store's included), 409 `cart_not_open`. */
const CHANGE_ERRORS = errorResponses(...BODY_ERRORS, 404, 409);

/**
 * A secret key completing a cart (a server-rendered shop) places an order: it needs `write:orders`
 * besides the storefront's `read:products`. A publishable key is the shopper's, and may.
 */
function mayPlaceOrders(principal: Principal): void {
  if (principal.key.type === 'publishable' || principal.key.permissions.has('write:orders')) return;
  throw new AppError('insufficient_permissions', 'This API key lacks the write:orders permission.', {
    extra: { required_permission: 'write:orders' },
  });
}

/** The shopper's side: `/v1/store/carts`, for a publishable key (or a secret key with `read:products`). */
export function storeCartRoutes(
  deps: Pick<Services, 'carts' | 'cartCheckout' | 'cartAnswers' | 'shopperSessions'>,
): FastifyPluginAsyncTypebox {
  const { carts, cartCheckout, cartAnswers, shopperSessions } = deps;
  const config = { auth: 'storefront', resource: 'cart' } as const;

  /**
   * The shopper signed in by `X-Customer-Token`: a cart made or read with it is theirs. A token
   * that signs nobody in is `401 invalid_customer_token`, not a cart of nobody.
   */
  async function shopperOf(request: FastifyRequest): Promise<CartShopper | null> {
    const token = request.headers['x-customer-token'];
    if (token === undefined) return null;
    const tenantId = principalOf(request).tenant.id;
    const shopper = await shopperSessions.customerForToken(tenantId, typeof token === 'string' ? token : '');
    if (shopper === null) throw invalidCustomerToken();
    return shopper;
  }

  return async (app) => {
    app.post(
      '/store/carts',
      {
        config,
        schema: {
          tags: ['Carts'],
          summary: 'Create a cart',
          description:
            'A new open cart in `currency` (default: the store’s), with the lines, codes, email, address and rate given, answered priced. A variant that is not on sale is a 400 naming its line; one out of stock is taken, and listed in `problems`. A retry with the same `Idempotency-Key` answers the same cart.',
          headers: CustomerTokenHeaders,
          body: CreateCartBody,
          response: { 201: CartSchema, ...errorResponses(...BODY_ERRORS, 401) },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        const shopper = await shopperOf(request);
        reply.code(201);
        return carts.create(
          principal.tenant.id,
          principal.tenant.currency,
          request.body,
          idempotentWrite(request.idempotency),
          shopper,
        );
      },
    );

    app.get(
      '/store/carts/:id',
      {
        // Answered from memory while nothing the cart was priced from has changed (carts.answers.ts).
        config: { ...config, cache: cartAnswers },
        schema: {
          tags: ['Carts'],
          summary: 'Get a cart, priced now',
          description:
            'Read with a shopper’s `X-Customer-Token`, a cart of nobody becomes theirs (with their email if it has none); another shopper’s cart is a 404.',
          headers: CustomerTokenHeaders,
          params: CartIdParams,
          response: { 200: CartSchema, ...errorResponses(401, 404) },
        },
      },
      async (request) => {
        const shopper = await shopperOf(request);
        const answer = await carts.read(principalOf(request).tenant.id, request.params.id, shopper);
        cartAnswers.holds(request, answer);
        return answer.cart;
      },
    );

    app.patch(
      '/store/carts/:id',
      {
        config: { ...config, rateLimit: 'cart' },
        schema: {
          tags: ['Carts'],
          summary: 'Change a cart’s email, address, shipping rate or discount codes',
          description:
            'Only the members given change; null clears one. A code that does not apply, or an address no rate serves, is taken and listed in `problems`.',
          params: CartIdParams,
          body: UpdateCartBody,
          response: { 200: CartSchema, ...CHANGE_ERRORS },
        },
      },
      async (request) => carts.update(principalOf(request).tenant.id, request.params.id, request.body),
    );

    app.post(
      '/store/carts/:id/lines',
      {
        config: { ...config, rateLimit: 'cart' },
        schema: {
          tags: ['Carts'],
          summary: 'Add a variant to a cart',
          description:
            'Adds to the line of that variant when the cart has one (at most 999 units a line, 100 lines a cart: a 400 naming the field past either).',
          params: CartIdParams,
          body: AddLineBody,
          response: { 200: CartSchema, ...CHANGE_ERRORS },
        },
      },
      async (request) =>
        carts.addLine(
          principalOf(request).tenant.id,
          request.params.id,
          request.body,
          idempotentWrite(request.idempotency),
        ),
    );

    app.patch(
      '/store/carts/:id/lines/:line_id',
      {
        config: { ...config, rateLimit: 'cart' },
        schema: {
          tags: ['Carts'],
          summary: 'Set a cart line’s quantity',
          description: '0 removes the line. An unknown line is 404.',
          params: CartLineParams,
          body: SetLineBody,
          response: { 200: CartSchema, ...CHANGE_ERRORS },
        },
      },
      async (request) =>
        carts.setLine(
          principalOf(request).tenant.id,
          request.params.id,
          request.params.line_id,
          request.body.quantity,
        ),
    );

    app.delete(
      '/store/carts/:id/lines/:line_id',
      {
        config: { ...config, rateLimit: 'cart' },
        schema: {
          tags: ['Carts'],
          summary: 'Remove a cart line',
          params: CartLineParams,
          response: { 200: CartSchema, ...errorResponses(404, 409) },
        },
      },
      async (request) =>
        carts.removeLine(principalOf(request).tenant.id, request.params.id, request.params.line_id),
    );

    app.post(
      '/store/carts/:id/hold',
      {
        config: { ...config, rateLimit: 'cart' },
        schema: {
          tags: ['Carts'],
          summary: 'Hold a cart’s stock',
          description:
            'Takes the cart’s units out of stock for the store’s `storefront.hold_minutes`, as a pending order would: every other cart, order and the catalog see them gone. Answers the cart with `hold: {expires_at}`; called again, it renews the hold for as long again. The hold ends at `expires_at` (its units back in stock), when the cart’s lines change (the cart answers `hold: null`: hold it again) or when the cart is completed (its order takes the held units). 409 `holds_disabled` when the store does not hold stock; 409 `too_many_holds` when the shopper’s address (a secret key’s `X-Buyer-IP`) already holds 3 other carts of the store; 422 `cart_not_ready` listing the lines that cannot be held (`cart_empty`, `variant_unavailable`, `insufficient_stock`).',
          params: CartIdParams,
          body: EmptyBody,
          response: { 200: CartSchema, ...errorResponses(...BODY_ERRORS, 404, 409, 422) },
        },
      },
      async (request) =>
        carts.hold(principalOf(request).tenant.id, request.params.id, clientAddressKey(buyerIpOf(request))),
    );

    app.post(
      '/store/carts/:id/complete',
      {
        config: { auth: 'storefront', resource: 'order', rateLimit: 'checkout', queue: 'ahead' },
        schema: {
          tags: ['Carts'],
          summary: 'Complete a cart: its order, paid, exactly once',
          description:
            'Makes the cart’s order (`source: "storefront"`, `cart_id`) and charges it, in one transaction with its stock, discount uses, customer and payment; `201` with the paid order. Once per cart: concurrent completions make one order (a completion that finds another in progress waits for it), and completing a completed cart answers `200` with the same order. `expected_total` must be the cart’s `total` now, else 409 `cart_changed` with the cart as it now stands in `cart`; a cart with `problems` is 422 `cart_not_ready` listing them in `problems`; a declined payment is 422 `payment_failed` (with `failure_code`), and the cart stays open with nothing taken. A secret key needs `write:orders` too.',
          params: CartIdParams,
          body: CompleteCartBody,
          response: {
            200: OrderSchema,
            201: OrderSchema,
            ...errorResponses(...BODY_ERRORS, 404, 409, 422),
          },
        },
      },
      async (request, reply) => {
        const principal = principalOf(request);
        mayPlaceOrders(principal);
        const { order, created } = await cartCheckout.complete(
          principal.tenant.id,
          request.params.id,
          request.body,
          idempotentWrite(request.idempotency),
        );
        reply.code(created ? 201 : 200);
        return order;
      },
    );
  };
}

/** The store's side: its carts, read with `read:orders`. */
export function adminCartRoutes(deps: Pick<Services, 'carts'>): FastifyPluginAsyncTypebox {
  const { carts } = deps;
  return async (app) => {
    app.get(
      '/carts',
      {
        config: { auth: 'read:orders', resource: 'cart', list: true },
        schema: {
          tags: ['Carts'],
          summary: 'List carts, newest first',
          description:
            '`status=abandoned`: open carts with an email and a line, unchanged for the store’s `storefront.abandoned_after_minutes` (default 60). Each cart is priced now, as its shopper sees it.',
          querystring: CartListQuery,
          response: { 200: CartListSchema },
        },
      },
      async (request) => carts.list(principalOf(request).tenant.id, request.query),
    );

    app.get(
      '/carts/:id',
      {
        config: { auth: 'read:orders', resource: 'cart' },
        schema: {
          tags: ['Carts'],
          summary: 'Get a cart',
          params: CartIdParams,
          response: { 200: CartSchema, ...errorResponses(404) },
        },
      },
      async (request) => carts.get(principalOf(request).tenant.id, request.params.id),
    );
  };
}
