import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { principalOf } from '../../http/auth.js';
import { PageQuery } from '../../http/pagination.js';
import type { Services } from '../../kernel/module.js';
import { idempotentWrite } from '../../lib/idempotent-write.js';
import { BODY_ERRORS, EmptyBody, errorResponses } from '../../http/schemas.js';
import { CustomerIdParams } from '../customers/index.js';
import {
  CreateOrderBody,
  OrderIdParams,
  OrderListQuery,
  OrderListSchema,
  OrderPreviewSchema,
  OrderSchema,
  PayBody,
  RefundBody,
  ShipBody,
} from './orders.schemas.js';

/** The key id of a principal that is a console session, not a key. */
const CONSOLE_KEY_ID = 'console';

const ACTION_ERRORS = errorResponses(...BODY_ERRORS, 404, 409);
/** Cancelling a paid order and refunding take the money back out of the wallet: 422 insufficient_funds. */
const MONEY_BACK_ERRORS = errorResponses(...BODY_ERRORS, 404, 409, 422);

export function orderRoutes(deps: Pick<Services, 'orders' | 'customers'>): FastifyPluginAsyncTypebox {
  const { orders, customers } = deps;
  return async (app) => {
    app.post(
      '/orders',
      {
        config: { auth: 'write:orders', resource: 'order' },
        schema: {
          tags: ['Orders'],
          summary: 'Create an order; reserves its stock',
          description:
            'Priced as a checkout: `discount_codes` and the automatic discounts that apply, the shipping rate (`shipping_rate_id`, else the cheapest for the `shipping_address`), the address’s tax rate; a code that does not apply is 422 `discount_invalid` with its `reason`, an address no rate serves 422 `shipping_unavailable`, and nothing is created. A discount’s use is taken in the order’s transaction (a usage limit holds under concurrency) and given back by a cancel. Stock is reserved atomically (422 `insufficient_stock` names the product) and each product reserved emits `product.updated` with its new `stock` (and `product.outofstock` at 0); all items share one currency (422 `currency_mismatch`); an unknown product is 404. With `payment_method` the order is charged at once: a declined payment still creates the order (201, `pending`, `payment.status: "failed"`); a charge whose outcome could not be recorded answers 201 with `payment.status: "pending"` and is settled by a sweep; a payment that would take the wallet past its maximum (10^15 minor units) is 422 `limit_exceeded` before anything is charged, and no order is made. A retry with the same `Idempotency-Key` after a 5xx resumes the committed order instead of making a second one.',
          body: CreateOrderBody,
          response: { 201: OrderSchema, ...errorResponses(...BODY_ERRORS, 404, 409, 422) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        const principal = principalOf(request);
        // The console's session acts without a key of its own (src/modules/console/console.service.ts).
        const source = principal.key.id === CONSOLE_KEY_ID ? 'console' : 'api';
        return orders.create(principal.tenant.id, request.body, idempotentWrite(request.idempotency), {
          source,
          cartId: null,
        });
      },
    );

    app.post(
      '/orders/preview',
      {
        config: { auth: 'write:orders', resource: 'order' },
        schema: {
          tags: ['Orders'],
          summary: 'Price an order without making it',
          description:
            'Takes the body of `POST /orders` and answers the order it would create now (`id: null`, `status: "preview"`): its discounts, shipping, tax and total, by the same code, with the same errors (422 `discount_invalid` with its `reason`, 422 `shipping_unavailable`, 422 `insufficient_stock`, ...). Changes nothing: no stock is reserved, no discount use taken, no customer created, no event emitted, nothing charged. Needs `write:orders`, as creating does.',
          body: CreateOrderBody,
          response: { 200: OrderPreviewSchema, ...errorResponses(...BODY_ERRORS, 404, 409, 422) },
        },
      },
      async (request) => orders.preview(principalOf(request).tenant.id, request.body),
    );

    app.get(
      '/orders',
      {
        config: { auth: 'read:orders', resource: 'order', list: true },
        schema: {
          tags: ['Orders'],
          summary: 'List orders, newest first',
          querystring: OrderListQuery,
          response: { 200: OrderListSchema },
        },
      },
      async (request) => orders.list(principalOf(request).tenant.id, request.query),
    );

    app.get(
      '/orders/:id',
      {
        config: { auth: 'read:orders', resource: 'order' },
        schema: {
          tags: ['Orders'],
          summary: 'Get one order',
          params: OrderIdParams,
          response: { 200: OrderSchema, ...errorResponses(404) },
        },
      },
      async (request) => orders.get(principalOf(request).tenant.id, request.params.id),
    );

    app.post(
      '/orders/:id/pay',
      {
        config: { auth: 'write:orders', resource: 'order' },
        schema: {
          tags: ['Orders'],
          summary: 'Pay a pending order',
          description:
            'A declined method is 422 `payment_failed` (with `failure_code`); the attempt is recorded. A payment that would take the wallet past its maximum (10^15 minor units) is 422 `limit_exceeded`, before anything is charged. A retry with the same `Idempotency-Key` after a 5xx resumes that attempt: the order is never charged twice.',
          params: OrderIdParams,
          body: PayBody,
          response: { 200: OrderSchema, ...errorResponses(...BODY_ERRORS, 404, 409, 422) },
        },
      },
      async (request) =>
        orders.pay(
          principalOf(request).tenant.id,
          request.params.id,
          request.body.payment_method,
          idempotentWrite(request.idempotency),
        ),
    );

    app.post(
      '/orders/:id/ship',
      {
        config: { auth: 'write:orders', resource: 'order' },
        schema: {
          tags: ['Orders'],
          summary: 'Ship a paid order',
          params: OrderIdParams,
          body: ShipBody,
          response: { 200: OrderSchema, ...ACTION_ERRORS },
        },
      },
      async (request) =>
        orders.ship(
          principalOf(request).tenant.id,
          request.params.id,
          request.body,
          idempotentWrite(request.idempotency),
        ),
    );

    app.post(
      '/orders/:id/deliver',
      {
        config: { auth: 'write:orders', resource: 'order' },
        schema: {
          tags: ['Orders'],
          summary: 'Mark a shipped order delivered',
          params: OrderIdParams,
          body: EmptyBody,
          response: { 200: OrderSchema, ...ACTION_ERRORS },
        },
      },
      async (request) =>
        orders.deliver(
          principalOf(request).tenant.id,
          request.params.id,
          idempotentWrite(request.idempotency),
        ),
    );

    app.post(
      '/orders/:id/cancel',
      {
        config: { auth: 'write:orders', resource: 'order' },
        schema: {
          tags: ['Orders'],
          summary: 'Cancel a pending or paid order',
          description:
            'Puts the stock back (once; each product emits `product.updated` with its new `stock`) and returns a captured payment.',
          params: OrderIdParams,
          body: EmptyBody,
          response: { 200: OrderSchema, ...MONEY_BACK_ERRORS },
        },
      },
      async (request) =>
        orders.cancel(
          principalOf(request).tenant.id,
          request.params.id,
          idempotentWrite(request.idempotency),
        ),
    );

    app.post(
      '/orders/:id/refund',
      {
        config: { auth: 'write:orders', resource: 'order' },
        schema: {
          tags: ['Orders'],
          summary: 'Refund a paid, shipped or delivered order',
          params: OrderIdParams,
          body: RefundBody,
          response: { 200: OrderSchema, ...MONEY_BACK_ERRORS },
        },
      },
      async (request) =>
        orders.refund(
          principalOf(request).tenant.id,
          request.params.id,
          request.body.restock ?? false,
          idempotentWrite(request.idempotency),
        ),
    );

    // A customer's orders are read here, with the orders: orders need customers' `orderCustomers`,
    // so customers' routes cannot need orders in turn. The reference lists it under Customers.
    app.get(
      '/customers/:id/orders',
      {
        config: { auth: 'read:orders', resource: 'order', list: true },
        schema: {
          tags: ['Customers'],
          summary: "A customer's orders, newest first",
          params: CustomerIdParams,
          querystring: Type.Object({ ...PageQuery }, { additionalProperties: false }),
          response: { 200: OrderListSchema, ...errorResponses(404) },
        },
      },
      async (request) => {
        const tenantId = principalOf(request).tenant.id;
        await customers.get(tenantId, request.params.id);
        return orders.list(tenantId, { ...request.query, customer_id: request.params.id });
      },
    );
  };
}
