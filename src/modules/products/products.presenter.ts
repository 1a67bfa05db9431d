import type { Db } from '../../db/store.js';
import { iso } from '../../lib/clock.js';
import { parseAlts, presentMedia } from './products.media.js';
import type { ProductRow } from './products.repository.js';
import type { ProductObject } from './products.schemas.js';
import type { ProductOption } from './variants.rules.js';
import { VARIANTS_SHOWN } from './variants.rules.js';
import * as variantsRepo from './variants.repository.js';
import type { VariantObject } from './variants.schemas.js';

/** Rows to API shapes: a product (with its first variants, or without them in a plain list) and a variant. */

export function presentVariant(row: variantsRepo.VariantRow, currency: string): VariantObject {
  return {
    id: row.id,
    product_id: row.product_id,
    sku: row.sku,
    title: row.title,
    options: JSON.parse(row.options) as Record<string, string>,
    price: row.price,
    compare_at_price: row.compare_at_price,
    currency,
    stock: row.stock,
    weight_grams: row.weight_grams,
    barcode: row.barcode,
    image: row.image,
    cost: row.cost,
    requires_shipping: row.requires_shipping === 1,
    taxable: row.taxable === 1,
    position: row.position,
    created: iso(row.created),
    updated: iso(row.updated),
  };
}

export function productOptions(row: Pick<ProductRow, 'options'>): ProductOption[] {
  return JSON.parse(row.options) as ProductOption[];
}

/**
 * `variants`: the product's first variants by position (more than `VARIANTS_SHOWN` are cut), or
 * undefined for a list item without `expand=variants`, which then carries neither `variants` nor
 * `variants_has_more`.
 */
export function presentProduct(
  row: ProductRow,
  variants?: readonly variantsRepo.VariantRow[],
): ProductObject {
  const images = JSON.parse(row.images) as string[];
  return {
    id: row.id,
    handle: row.handle,
    name: row.name,
    description: row.description,
    sku: row.sku,
    price: row.price,
    price_max: row.price_max,
    currency: row.currency,
    category: row.category,
    stock: row.stock,
    status: row.status,
    images,
    media: presentMedia(images, parseAlts(row.image_alts)),
    attributes: JSON.parse(row.attributes) as Record<string, string>,
    tags: JSON.parse(row.tags) as string[],
    options: productOptions(row),
    seo: { title: row.seo_title, description: row.seo_description },
    variant_count: row.variant_count,
    ...(variants === undefined
      ? {}
      : {
          variants: variants.slice(0, VARIANTS_SHOWN).map((variant) => presentVariant(variant, row.currency)),
          variants_has_more: row.variant_count > VARIANTS_SHOWN,
        }),
    created: iso(row.created),
    updated: iso(row.updated),
  };
}

/** A product with its first variants, read from `db`. */
export async function loadProduct(db: Db, row: ProductRow): Promise<ProductObject> {
  return presentProduct(row, await variantsRepo.firstVariants(db, row.tenant_id, [row.id], VARIANTS_SHOWN));
}

/** A page of products with their first variants: the variants of all of them in one query. */
export async function presentWithVariants(
  db: Db,
  tenantId: string,
  rows: readonly ProductRow[],
): Promise<(row: ProductRow) => ProductObject> {
  const variants = await variantsRepo.firstVariants(
    db,
    tenantId,
    rows.map((row) => row.id),
    VARIANTS_SHOWN,
  );
  const byProduct = new Map<string, variantsRepo.VariantRow[]>();
  for (const variant of variants) {
    const list = byProduct.get(variant.product_id) ?? [];
    list.push(variant);
    byProduct.set(variant.product_id, list);
  }
  return (row) => presentProduct(row, byProduct.get(row.id) ?? []);
}
