import { sql } from 'kysely';
import type { Db } from '../../db/store.js';

/**
 * The pages an export reads, each a seek past the last row of the one before: products and
 * customers in the order they were stored (`seq`, by the (tenant, seq) indexes of migration 0025),
 * orders by creation. A page costs the same at the millionth row as at the first.
 */

const PRODUCT_COLUMNS = [
  'seq',
  'id',
  'handle',
  'name',
  'description',
  'category',
  'status',
  'tags',
  'currency',
  'images',
  'image_alts',
  'attributes',
  'options',
  'variant_count',
  'seo_title',
  'seo_description',
] as const;

export async function productsAfter(db: Db, tenantId: string, afterSeq: number, limit: number) {
  return db
    .selectFrom('products')
    .select(PRODUCT_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
}

export type ExportProductRow = Awaited<ReturnType<typeof productsAfter>>[number];

const VARIANT_COLUMNS = [
  'id',
  'product_id',
  'position',
  'sku',
  'options',
  'price',
  'compare_at_price',
  'stock',
  'committed',
  'spread',
  'weight_grams',
  'barcode',
  'image',
  'cost',
  'requires_shipping',
  'taxable',
] as const;

/**
 * The variants of these products (the tenant's, as `productsAfter` read them), each product's by
 * position. No `tenant_id` predicate: with one, SQLite's planner picks the (tenant_id, sku_key)
 * index and walks every variant of the tenant for each page, a quadratic export.
 */
export async function variantsOf(db: Db, productIds: readonly string[]) {
  if (productIds.length === 0) return [];
  return variantsQuery(db, productIds).execute();
}

/** The query of `variantsOf` (its plan is tested: src/modules/exports/exports.plan.test.ts). */
export function variantsQuery(db: Db, productIds: readonly string[]) {
  return db
    .selectFrom('product_variants')
    .select(VARIANT_COLUMNS)
    .where('product_id', 'in', [...productIds])
    .orderBy('product_id')
    .orderBy('position');
}

export type ExportVariantRow = Awaited<ReturnType<typeof variantsOf>>[number];

/**
 * One product's variants past `afterPosition` (a product of the tenant's): a product with many is
 * read a page at a time, by the (product_id, position) index.
 */
export async function variantsAfter(
  db: Db,
  productId: string,
  afterPosition: number,
  limit: number,
): Promise<ExportVariantRow[]> {
  return db
    .selectFrom('product_variants')
    .select(VARIANT_COLUMNS)
    .where('product_id', '=', productId)
    .where('position', '>', afterPosition)
    .orderBy('position')
    .limit(limit)
    .execute();
}

export async function customersAfter(db: Db, tenantId: string, afterSeq: number, limit: number) {
  return db
    .selectFrom('customers')
    .select([
      'seq',
      'id',
      'email',
      'name',
      'phone',
      'tags',
      'note',
      'marketing_consent',
      'metadata',
      'addresses',
    ])
    .where('tenant_id', '=', tenantId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
}

export type ExportCustomerRow = Awaited<ReturnType<typeof customersAfter>>[number];

export async function ordersAfter(
  db: Db,
  tenantId: string,
  after: [number, string] | undefined,
  limit: number,
) {
  let query = db
    .selectFrom('orders')
    .select([
      'id',
      'created',
      'status',
      'currency',
      'customer_id',
      'customer_email',
      'customer_name',
      'subtotal',
      'discount_total',
      'shipping_total',
      'tax_total',
      'total',
      'refunded_amount',
      'shipping_address',
      'carrier',
      'tracking_number',
    ])
    .where('tenant_id', '=', tenantId);
  if (after) query = query.where(sql<boolean>`(created, id) > (${after[0]}, ${after[1]})`);
  return query.orderBy('created').orderBy('id').limit(limit).execute();
}

export type ExportOrderRow = Awaited<ReturnType<typeof ordersAfter>>[number];

export async function itemsOf(db: Db, orderIds: readonly string[]) {
  if (orderIds.length === 0) return [];
  return db
    .selectFrom('order_items')
    .select([
      'order_id',
      'position',
      'product_id',
      'variant_id',
      'sku',
      'name',
      'variant_title',
      'quantity',
      'unit_price',
      'total',
      'discount',
      'tax',
    ])
    .where('order_id', 'in', [...orderIds])
    .orderBy('order_id')
    .orderBy('position')
    .execute();
}

export type ExportItemRow = Awaited<ReturnType<typeof itemsOf>>[number];
