import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.js';
import type { Services } from '../../kernel/module.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas.js';
import { idempotentWrite } from '../../lib/idempotent-write.js';
import { OrderIdParams } from './orders.schemas.js';
import { CreateRefundBody, RefundListSchema, RefundSchema } from './refunds.schemas.js';

const TAGS = ['Orders'];

export function refundRoutes(deps: Pick<Services, 'refunds'>): FastifyPluginAsyncTypebox {
  const { refunds } = deps;
  return async (app) => {
    app.post(
      '/orders/:id/refunds',
      {
        config: { auth: 'write:orders', resource: 'refund' },
        schema: {
          tags: TAGS,
          summary: 'Refund a part of a paid order, or all that is left',
          description:
            'Give `amount` (an amount covering no line), or `items` (units, each at what the buyer paid for it, tax included) and/or `shipping: true` (what is left of the shipping paid); with none of them, all that is left is refunded. The order must have been paid: a pending or cancelled one is 409 `invalid_state_transition`; a refunded one has nothing left, 422 `amount_exceeds_refundable` with `refundable_amount: 0`, as every refund past what is left. Refunds never add up to more than was captured: 422 `amount_exceeds_refundable`, also under concurrent refunds. Each refund debits the wallet (422 `insufficient_funds` without the funds) and emits `refund.created`; the one that leaves nothing to refund also makes the order `refunded` (`order.refunded`). `restock` puts the refunded units back in stock. At most 100 refunds per order, the last of them all that is left (422 `limit_exceeded`).',
          params: OrderIdParams,
          body: CreateRefundBody,
          response: { 201: RefundSchema, ...errorResponses(...BODY_ERRORS, 404, 409, 422) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return refunds.create(
          principalOf(request).tenant.id,
          request.params.id,
          request.body,
          idempotentWrite(request.idempotency),
        );
      },
    );

    app.get(
      '/orders/:id/refunds',
      {
        config: { auth: 'read:orders', resource: 'refund', list: true },
        schema: {
          tags: TAGS,
          summary: 'List an order’s refunds, oldest first',
          description: 'All of them in one page: an order has at most 100.',
          params: OrderIdParams,
          response: { 200: RefundListSchema, ...errorResponses(404) },
        },
      },
      async (request) => refunds.list(principalOf(request).tenant.id, request.params.id),
    );
  };
}
