import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.js';
import { errorResponses } from '../../http/schemas.js';
import type { StorefrontCatalog } from './storefront.service.js';
import {
  StoreProductListQuery,
  StoreProductListSchema,
  StoreProductParams,
  StoreProductSchema,
  StoreShippingRateListSchema,
  StoreShippingRateQuery,
} from './storefront.schemas.js';

const TAG = 'Storefront catalog';

/**
 * The shopper's catalog under `/v1/store/`: active products (kept in the read cache with the
 * tenant's catalog version, as the admin catalog is) and the shipping rates of a country.
 */
export function storefrontRoutes(deps: { storefrontCatalog: StorefrontCatalog }): FastifyPluginAsyncTypebox {
  const catalog = deps.storefrontCatalog;
  return async (app) => {
    app.get(
      '/store/products',
      {
        config: { auth: 'storefront', cache: 'catalog' },
        schema: {
          tags: [TAG],
          summary: 'List the products a shopper may buy',
          description:
            'Active products only, paged and sorted as `GET /products`. Each carries its first variants by position; `variants_has_more` says when its own page has more.',
          querystring: StoreProductListQuery,
          response: { 200: StoreProductListSchema },
        },
      },
      async (request) => catalog.list(principalOf(request).tenant.id, request.query),
    );

    app.get(
      '/store/products/:id_or_handle',
      {
        config: { auth: 'storefront', cache: 'catalog' },
        schema: {
          tags: [TAG],
          summary: 'Get one product by id or handle',
          description:
            'An active product with all its variants. A draft or archived product is `404`, as an unknown one.',
          params: StoreProductParams,
          response: { 200: StoreProductSchema, ...errorResponses(404) },
        },
      },
      async (request) => catalog.get(principalOf(request).tenant.id, request.params.id_or_handle),
    );

    app.get(
      '/store/shipping-rates',
      {
        config: { auth: 'storefront' },
        schema: {
          tags: [TAG],
          summary: 'List the shipping rates a cart to a country may choose',
          querystring: StoreShippingRateQuery,
          response: { 200: StoreShippingRateListSchema },
        },
      },
      async (request) => catalog.shippingRates(principalOf(request).tenant, request.query),
    );
  };
}
