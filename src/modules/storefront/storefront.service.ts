import type { Store } from '../../db/store.js';
import { isCountry } from '../../lib/countries.js';
import { notFound, validationError } from '../../lib/errors.js';
import type { Envelope } from '../../lib/paging.js';
import { pricingService, ratesFor } from '../pricing/index.js';
import {
  findProduct,
  findProductByHandle,
  firstVariants,
  parseAlts,
  presentMedia,
  type ProductRow,
  type ProductService,
  productOptions,
  productVariants,
  VARIANTS_SHOWN,
  type VariantRow,
} from '../products/index.js';
import type {
  StoreProductListQuery,
  StoreProductObject,
  StoreShippingRateList,
  StoreShippingRateQuery,
  StoreVariantObject,
} from './storefront.schemas.js';

/**
 * The shopper's catalog: active products as `StoreProduct`s, read through the products module's
 * list and repository, and the shipping rates a cart to a country may choose. Reads only.
 */

/** A variant as a shopper sees it: `available` instead of its stock, nothing of SKUs, weights or costs. */
function presentVariant(row: VariantRow): StoreVariantObject {
  return {
    id: row.id,
    title: row.title,
    options: JSON.parse(row.options) as Record<string, string>,
    price: row.price,
    compare_at_price: row.compare_at_price,
    image: row.image,
    available: row.stock > 0,
  };
}

/**
 * A product as a shopper sees it, with `variants` by position (the first `VARIANTS_SHOWN` of a
 * list's item, all of them on its own page). Its `available` is its summed stock above zero: some
 * variant has a unit.
 */
export function presentStoreProduct(
  row: ProductRow,
  variants: readonly VariantRow[],
  hasMore: boolean,
): StoreProductObject {
  const images = JSON.parse(row.images) as string[];
  return {
    id: row.id,
    handle: row.handle,
    name: row.name,
    description: row.description,
    category: row.category,
    images,
    media: presentMedia(images, parseAlts(row.image_alts)),
    tags: JSON.parse(row.tags) as string[],
    options: productOptions(row),
    price: row.price,
    price_max: row.price_max,
    currency: row.currency,
    available: row.stock > 0,
    variants: variants.map(presentVariant),
    variants_has_more: hasMore,
  };
}

/** A handle holds no `_`, which every id (`prod_...`) has: a path segment is one or the other. */
function isProductId(idOrHandle: string): boolean {
  return idOrHandle.includes('_');
}

export type StorefrontCatalog = ReturnType<typeof createStorefrontCatalog>;

export function createStorefrontCatalog(deps: { store: Store; products: ProductService }) {
  const { store, products } = deps;

  return {
    /** Active products, as the admin list pages them: three queries a page, the cache aside. */
    async list(tenantId: string, query: StoreProductListQuery): Promise<Envelope<StoreProductObject>> {
      const page = await products.page(tenantId, { ...query, status: 'active' });
      const variants = await firstVariants(
        store.db,
        tenantId,
        page.rows.map((row) => row.id),
        VARIANTS_SHOWN,
      );
      const byProduct = new Map<string, VariantRow[]>();
      for (const variant of variants) {
        const list = byProduct.get(variant.product_id);
        if (list === undefined) byProduct.set(variant.product_id, [variant]);
        else list.push(variant);
      }
      return page.envelope((row) =>
        presentStoreProduct(row, byProduct.get(row.id) ?? [], row.variant_count > VARIANTS_SHOWN),
      );
    },

    /** An active product by id or handle, with all its variants; a draft, archived or unknown one is 404. */
    async get(tenantId: string, idOrHandle: string): Promise<StoreProductObject> {
      const row = isProductId(idOrHandle)
        ? await findProduct(store.db, tenantId, idOrHandle)
        : await findProductByHandle(store.db, tenantId, idOrHandle);
      if (row === undefined || row.status !== 'active') throw notFound('product');
      return presentStoreProduct(row, await productVariants(store.db, tenantId, row.id), false);
    },

    /**
     * The shipping rates a cart to `country` may choose, in its currency (the store's by default):
     * those that name the country, or, when none does, those for the rest of the world
     * (pricing's own rule), cheapest first. Which one takes a cart depends on its weight.
     */
    async shippingRates(
      tenant: { id: string; currency: string },
      query: StoreShippingRateQuery,
    ): Promise<StoreShippingRateList> {
      if (!isCountry(query.country))
        throw validationError('country', 'must be an ISO 3166-1 alpha-2 country code');
      const currency = query.currency ?? tenant.currency;
      const { shipping } = await pricingService.loadRates(store.db, tenant.id, null, currency);
      const zone = ratesFor(shipping, query.country).sort(
        (a, b) => a.price - b.price || a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1),
      );
      return {
        data: zone.map((rate) => ({
          id: rate.id,
          name: rate.name,
          amount: rate.price,
          currency: rate.currency,
          free_over: rate.free_over,
          min_weight_grams: rate.min_weight_grams,
          max_weight_grams: rate.max_weight_grams,
        })),
      };
    },
  };
}
