import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../kernel/module.js';
import { principalOf } from '../../http/auth.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas.js';
import { idempotentWrite } from '../../lib/idempotent-write.js';
import { checksCodes } from './variants.codes.js';
import {
  CreateVariantBody,
  ProductVariantParams,
  UpdateVariantBody,
  VariantListQuery,
  VariantListSchema,
  VariantParams,
  VariantSchema,
} from './variants.schemas.js';

export function variantRoutes(deps: Pick<Services, 'variants'>): FastifyPluginAsyncTypebox {
  const { variants } = deps;
  return async (app) => {
    app.get(
      '/products/:id/variants',
      {
        config: { auth: 'read:products', resource: 'variant', list: true, cache: 'catalog' },
        schema: {
          tags: ['Products'],
          summary: "List a product's variants",
          description:
            'By position. `total` is the product’s `variant_count`; use `next_cursor` for the next page.',
          params: ProductVariantParams,
          querystring: VariantListQuery,
          response: { 200: VariantListSchema, ...errorResponses(404) },
        },
      },
      async (request) => variants.list(principalOf(request).tenant.id, request.params.id, request.query),
    );

    app.post(
      '/products/:id/variants',
      {
        config: { auth: 'write:products', resource: 'variant' },
        schema: {
          tags: ['Products'],
          summary: 'Add a variant',
          description:
            "One of the combinations of the product's options not sold yet (its values must be among the options'; add a value to the product's `options` first). At most 2,048 variants per product.",
          params: ProductVariantParams,
          body: CreateVariantBody,
          response: { 201: VariantSchema, ...errorResponses(...BODY_ERRORS, 404, 409) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return variants.create(
          principalOf(request).tenant.id,
          request.params.id,
          request.body,
          idempotentWrite(request.idempotency),
          checksCodes(request.apiVersion),
        );
      },
    );

    app.get(
      '/products/:id/variants/:variant_id',
      {
        config: { auth: 'read:products', resource: 'variant', cache: 'catalog' },
        schema: {
          tags: ['Products'],
          summary: 'Get one variant',
          params: VariantParams,
          response: { 200: VariantSchema, ...errorResponses(404) },
        },
      },
      async (request) =>
        variants.get(principalOf(request).tenant.id, request.params.id, request.params.variant_id),
    );

    app.patch(
      '/products/:id/variants/:variant_id',
      {
        config: { auth: 'write:products', resource: 'variant' },
        schema: {
          tags: ['Products'],
          summary: 'Change a variant',
          description:
            "Only the fields given change; the product's `price`, `price_max` and `stock` follow. On a product without options this is the product's own SKU, price and stock. Taking `stock` to 0 emits `product.outofstock` with the variant in `data.variant`.",
          params: VariantParams,
          body: UpdateVariantBody,
          response: { 200: VariantSchema, ...errorResponses(...BODY_ERRORS, 404, 409, 422) },
        },
      },
      async (request) =>
        variants.update(
          principalOf(request).tenant.id,
          request.params.id,
          request.params.variant_id,
          request.body,
          checksCodes(request.apiVersion),
        ),
    );

    app.delete(
      '/products/:id/variants/:variant_id',
      {
        config: { auth: 'write:products' },
        schema: {
          tags: ['Products'],
          summary: 'Delete a variant',
          description:
            'Past orders keep their own copy. A product keeps at least one variant: deleting its last one is 409 `invalid_state_transition`.',
          params: VariantParams,
          response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(404, 409) },
        },
      },
      async (request, reply) => {
        await variants.remove(principalOf(request).tenant.id, request.params.id, request.params.variant_id);
        return reply.code(204).send(null);
      },
    );
  };
}
