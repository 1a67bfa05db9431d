import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.js';
import type { Services } from '../../kernel/module.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas.js';
import { idempotentWrite } from '../../lib/idempotent-write.js';
import {
  CreateDiscountBody,
  DiscountIdParams,
  DiscountListQuery,
  DiscountListSchema,
  DiscountSchema,
  UpdateDiscountBody,
} from './discounts.schemas.js';

const TAGS = ['Pricing'];

export function discountRoutes(deps: Pick<Services, 'discounts'>): FastifyPluginAsyncTypebox {
  const { discounts } = deps;
  return async (app) => {
    app.get(
      '/discounts',
      {
        config: { auth: 'read:pricing' },
        schema: {
          tags: TAGS,
          summary: 'List discounts, newest first',
          querystring: DiscountListQuery,
          response: { 200: DiscountListSchema },
        },
      },
      async (request) => discounts.list(principalOf(request).tenant.id, request.query),
    );

    app.post(
      '/discounts',
      {
        config: { auth: 'write:pricing' },
        schema: {
          tags: TAGS,
          summary: 'Create a discount',
          description:
            'A `code` buyers type (`discount_codes` of `POST /orders`) or `automatic: true`, not both. Rules that span fields (a percentage in 1-10000 basis points, a fixed amount with its `currency`, `ends_at` after `starts_at`...) are `400 validation_failed` naming the field.',
          body: CreateDiscountBody,
          response: { 201: DiscountSchema, ...errorResponses(...BODY_ERRORS, 409) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return discounts.create(
          principalOf(request).tenant.id,
          request.body,
          idempotentWrite(request.idempotency),
        );
      },
    );

    app.get(
      '/discounts/:id',
      {
        config: { auth: 'read:pricing' },
        schema: {
          tags: TAGS,
          summary: 'Get one discount',
          params: DiscountIdParams,
          response: { 200: DiscountSchema, ...errorResponses(404) },
        },
      },
      async (request) => discounts.get(principalOf(request).tenant.id, request.params.id),
    );

    app.patch(
      '/discounts/:id',
      {
        config: { auth: 'write:pricing' },
        schema: {
          tags: TAGS,
          summary: 'Change a discount',
          description:
            'Only the fields given change; the discount as changed must keep the rules of `POST /discounts`. `times_used` follows the orders.',
          params: DiscountIdParams,
          body: UpdateDiscountBody,
          response: { 200: DiscountSchema, ...errorResponses(...BODY_ERRORS, 404, 409) },
        },
      },
      async (request) => discounts.update(principalOf(request).tenant.id, request.params.id, request.body),
    );

    app.delete(
      '/discounts/:id',
      {
        config: { auth: 'write:pricing' },
        schema: {
          tags: TAGS,
          summary: 'Delete a discount',
          description: 'Orders that hold it keep it as they were priced.',
          params: DiscountIdParams,
          response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(404) },
        },
      },
      async (request, reply) => {
        await discounts.remove(principalOf(request).tenant.id, request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
