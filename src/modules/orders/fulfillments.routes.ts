import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.js';
import { BODY_ERRORS, EmptyBody, errorResponses } from '../../http/schemas.js';
import type { Services } from '../../kernel/module.js';
import { idempotentWrite } from '../../lib/idempotent-write.js';
import {
  CreateFulfillmentBody,
  CreateReturnBody,
  FulfillmentSchema,
  ReceiveReturnBody,
  ReturnIdParams,
  ReturnSchema,
} from './fulfillments.schemas.js';
import { OrderIdParams } from './orders.schemas.js';

const TAGS = ['Orders'];

/** `/orders/{id}/fulfillments`, `/orders/{id}/returns` and `/returns/{id}/...`. */
export function fulfillmentRoutes(deps: Pick<Services, 'fulfillments'>): FastifyPluginAsyncTypebox {
  const { fulfillments } = deps;
  return async (app) => {
    app.post(
      '/orders/:id/fulfillments',
      {
        config: { auth: 'write:orders', resource: 'fulfillment' },
        schema: {
          tags: TAGS,
          summary: 'Ship units of a paid order from a location',
          description:
            'Ships `items` (by variant and quantity; absent: everything not fulfilled yet) from `location_id` (the default location if absent), with optional tracking. An order takes several; more than is left to fulfil is 422 `quantity_exceeds_unfulfilled` naming the item, also under concurrent fulfilments; a location with too few units is 422 `insufficient_stock`. Units committed at another location are released there and taken from this one. The order’s first fulfilment emits `order.shipped`, each one `fulfillment.created`; the order becomes `shipped` when nothing is left. Only a paid order (409 `invalid_state_transition`); another store’s location is 404.',
          params: OrderIdParams,
          body: CreateFulfillmentBody,
          response: { 201: FulfillmentSchema, ...errorResponses(...BODY_ERRORS, 404, 409, 422) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return fulfillments.create(
          principalOf(request).tenant.id,
          request.params.id,
          request.body,
          idempotentWrite(request.idempotency),
        );
      },
    );

    app.post(
      '/orders/:id/returns',
      {
        config: { auth: 'write:orders', resource: 'return' },
        schema: {
          tags: TAGS,
          summary: 'Request a return of shipped units',
          description:
            'Only units shipped and not returned yet (returns not cancelled count): more is 422 `quantity_exceeds_returnable` naming the item. The return is `requested` until it is received or cancelled; emits `return.created`.',
          params: OrderIdParams,
          body: CreateReturnBody,
          response: { 201: ReturnSchema, ...errorResponses(...BODY_ERRORS, 404, 422) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return fulfillments.createReturn(
          principalOf(request).tenant.id,
          request.params.id,
          request.body,
          idempotentWrite(request.idempotency),
        );
      },
    );

    app.post(
      '/returns/:id/receive',
      {
        config: { auth: 'write:orders', resource: 'return' },
        schema: {
          tags: TAGS,
          summary: 'Receive a return at a location',
          description:
            'At `location_id` (the default location if absent). `restock` (default true) puts its units back on hand there; `refund: true` refunds their part of what was paid, as `POST /orders/{id}/refunds` with those items would, in the same transaction (`refund_id`; 422 `amount_exceeds_refundable` when they were refunded already, and nothing is received). Once: a return received or cancelled is 409 `invalid_state_transition`, so its units come back once. Emits `return.received`.',
          params: ReturnIdParams,
          body: ReceiveReturnBody,
          response: { 200: ReturnSchema, ...errorResponses(...BODY_ERRORS, 404, 409, 422) },
        },
      },
      async (request) =>
        fulfillments.receive(principalOf(request).tenant.id, request.params.id, request.body),
    );

    app.post(
      '/returns/:id/cancel',
      {
        config: { auth: 'write:orders', resource: 'return' },
        schema: {
          tags: TAGS,
          summary: 'Cancel a requested return',
          description:
            'The units will not come back: they may be returned again. A return received or cancelled is 409 `invalid_state_transition`.',
          params: ReturnIdParams,
          body: EmptyBody,
          response: { 200: ReturnSchema, ...errorResponses(...BODY_ERRORS, 404, 409) },
        },
      },
      async (request) => fulfillments.cancelReturn(principalOf(request).tenant.id, request.params.id),
    );
  };
}
