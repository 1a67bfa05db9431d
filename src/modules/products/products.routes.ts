import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../kernel/module.js';
import { principalOf } from '../../http/auth.js';
import { idempotentWrite } from '../../lib/idempotent-write.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas.js';
import { getBodyParameters } from './products.get-body.js';
import { checksCodes } from './variants.codes.js';
import { checkMediaVersion } from './products.media.js';
import {
  CreateProductBody,
  ProductIdParams,
  ProductListQuery,
  ProductListSchema,
  ProductSchema,
  UpdateProductBody,
} from './products.schemas.js';

const LIST_DESCRIPTION = `
Parameters come from the query string or from a JSON
body on the GET request (\`{"limit": 10, "offset": 0, "category": "shoes"}\` with
\`Content-Type: application/json\`); a body is validated like the query string (unknown fields 400)
and the query string wins for a parameter both give. \`total\` is exact and comes from kept counts
unless \`q\`, \`min_price\` or \`max_price\` is given. Use \`next_cursor\` for deep pages. Items carry
\`variants\` only with \`expand=variants\`; price filters and sorts use the product's \`price\`, its
lowest variant price.
`.trim();

export function productRoutes(deps: Pick<Services, 'products'>): FastifyPluginAsyncTypebox {
  const { products } = deps;
  const mergeGetBody = getBodyParameters(ProductListQuery);
  return async (app) => {
    app.get(
      '/products',
      {
        config: { auth: 'read:products', resource: 'product', list: true, cache: 'catalog' },
        preValidation: mergeGetBody,
        schema: {
          tags: ['Products'],
          summary: 'List products',
          description: LIST_DESCRIPTION,
          querystring: ProductListQuery,
          response: { 200: ProductListSchema, ...errorResponses(413, 415) },
        },
      },
      async (request) => products.list(principalOf(request).tenant.id, request.query),
    );

    app.post(
      '/products',
      {
        config: { auth: 'write:products', resource: 'product' },
        schema: {
          tags: ['Products'],
          summary: 'Create a product',
          description:
            'Without `options`: give `price` (and `sku`, `stock`), which become its one `Default` variant. With `options`: list `variants`, one per combination sold (at most 2,048), created with the product in one transaction; `sku`, `price` and `stock` then follow the variants and may not be given.',
          body: CreateProductBody,
          response: { 201: ProductSchema, ...errorResponses(...BODY_ERRORS, 409) },
        },
      },
      async (request, reply) => {
        checkMediaVersion(request.body, request.apiVersion);
        reply.code(201);
        return products.create(
          principalOf(request).tenant,
          request.body,
          idempotentWrite(request.idempotency),
          checksCodes(request.apiVersion),
        );
      },
    );

    app.get(
      '/products/:id',
      {
        config: { auth: 'read:products', resource: 'product', cache: 'catalog' },
        schema: {
          tags: ['Products'],
          summary: 'Get one product',
          params: ProductIdParams,
          response: { 200: ProductSchema, ...errorResponses(404) },
        },
      },
      async (request) => products.get(principalOf(request).tenant.id, request.params.id),
    );

    app.patch(
      '/products/:id',
      {
        config: { auth: 'write:products', resource: 'product' },
        schema: {
          tags: ['Products'],
          summary: 'Change a product',
          description:
            "Only the fields given change; past orders keep their own copy. Without options, `sku`, `price` and `stock` are the one variant's and change it too; with options they follow the variants (400 if given). `options` replaces the options: variants keep the values still listed, take the first value of an added option, and are deleted with a removed value. Setting `stock` to 0 emits `product.outofstock`.",
          params: ProductIdParams,
          body: UpdateProductBody,
          response: { 200: ProductSchema, ...errorResponses(...BODY_ERRORS, 404, 409, 422) },
        },
      },
      async (request) => {
        checkMediaVersion(request.body, request.apiVersion);
        return products.update(
          principalOf(request).tenant.id,
          request.params.id,
          request.body,
          undefined,
          checksCodes(request.apiVersion),
        );
      },
    );

    app.delete(
      '/products/:id',
      {
        config: { auth: 'write:products' },
        schema: {
          tags: ['Products'],
          summary: 'Delete a product and its variants; past orders keep their own copy',
          params: ProductIdParams,
          response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(404) },
        },
      },
      async (request, reply) => {
        await products.remove(principalOf(request).tenant.id, request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
