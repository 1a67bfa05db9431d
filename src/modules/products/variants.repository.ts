import { validationError } from '../../lib/errors.js';
import { type Selectable, sql } from 'kysely';
import type { ProductVariantsTable } from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';

export type VariantRow = Selectable<ProductVariantsTable>;

/** Rows per INSERT: 20 columns each, well under SQLite's and PostgreSQL's parameter limits. */
const INSERT_BATCH = 500;

export async function insertVariants(db: Db, rows: readonly VariantRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    await db
      .insertInto('product_variants')
      .values(rows.slice(i, i + INSERT_BATCH))
      .execute();
  }
}

export async function findVariant(
  db: Db,
  tenantId: string,
  productId: string,
  id: string,
): Promise<VariantRow | undefined> {
  return db
    .selectFrom('product_variants')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('product_id', '=', productId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findVariantsByIds(
  db: Db,
  tenantId: string,
  ids: readonly string[],
): Promise<VariantRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('product_variants')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...ids])
    .execute();
}

/** The product's variant of one combination (`option_key`), if it has one. */
export async function findByCombination(
  db: Db,
  tenantId: string,
  productId: string,
  optionKey: string,
): Promise<VariantRow | undefined> {
  return db
    .selectFrom('product_variants')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('product_id', '=', productId)
    .where('option_key', '=', optionKey)
    .executeTakeFirst();
}

/** The only variant of each of these products that has exactly one (the others are left out). */
export async function soleVariants(
  db: Db,
  tenantId: string,
  productIds: readonly string[],
): Promise<VariantRow[]> {
  if (productIds.length === 0) return [];
  return db
    .selectFrom('product_variants')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('product_id', 'in', [...productIds])
    .where('position', '=', 1)
    .execute();
}

/** Every variant of one product, by position. */
export async function productVariants(db: Db, tenantId: string, productId: string): Promise<VariantRow[]> {
  return db
    .selectFrom('product_variants')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('product_id', '=', productId)
    .orderBy('position')
    .orderBy('id')
    .execute();
}

/** The first `n` variants of each product, by position: one query for a page of products. */
export async function firstVariants(
  db: Db,
  tenantId: string,
  productIds: readonly string[],
  n: number,
): Promise<VariantRow[]> {
  if (productIds.length === 0) return [];
  if (productIds.length === 1) {
    return db
      .selectFrom('product_variants')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('product_id', '=', productIds[0] as string)
      .orderBy('position')
      .orderBy('id')
      .limit(n)
      .execute();
  }
  // The tenant compared as an expression no index holds: with a plain `tenant_id = ?`, SQLite's
  // planner reads the tenant's variants through its (tenant_id, sku_key) index, every variant of
  // the store for each page, instead of the (product_id, position) index for the page's products.
  const ranked = db
    .selectFrom('product_variants')
    .selectAll()
    .select(sql<number>`row_number() over (partition by product_id order by position, id)`.as('rank'))
    .where(sql<boolean>`tenant_id || '' = ${tenantId}`)
    .where('product_id', 'in', [...productIds])
    .as('ranked');
  const rows = await db
    .selectFrom(ranked)
    .selectAll()
    .where('rank', '<=', n)
    .orderBy('product_id')
    .orderBy('position')
    .orderBy('id')
    .execute();
  return rows.map(({ rank: _rank, ...row }) => row);
}

/** One page of a product's variants by position: a keyset seek past the cursor, or OFFSET. */
export async function listVariants(
  db: Db,
  tenantId: string,
  productId: string,
  window: PageWindow,
): Promise<VariantRow[]> {
  let query = db
    .selectFrom('product_variants')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('product_id', '=', productId);
  if (window.cursor) {
    const [position, id] = window.cursor.after;
    query = query.where((eb) => eb(eb.refTuple('position', 'id'), '>', eb.tuple(Number(position), id)));
  } else if (window.offset > 0) {
    query = query.offset(window.offset);
  }
  return query
    .orderBy('position')
    .orderBy('id')
    .limit(window.limit + 1)
    .execute();
}

/** The first of these SKUs some other variant of the tenant holds, compared case-insensitively. */
export async function takenSku(
  db: Db,
  tenantId: string,
  skus: readonly string[],
  exceptVariantIds: readonly string[] = [],
): Promise<string | undefined> {
  if (skus.length === 0) return undefined;
  const byKey = new Map(skus.map((sku) => [sku.toLowerCase(), sku]));
  let query = db
    .selectFrom('product_variants')
    .select('sku_key')
    .where('tenant_id', '=', tenantId)
    .where('sku_key', 'in', [...byKey.keys()]);
  if (exceptVariantIds.length > 0) query = query.where('id', 'not in', [...exceptVariantIds]);
  const row = await query.limit(1).executeTakeFirst();
  return row?.sku_key ? byKey.get(row.sku_key) : undefined;
}

export async function updateVariant(
  db: Db,
  tenantId: string,
  id: string,
  changes: Partial<Omit<VariantRow, 'id' | 'tenant_id' | 'product_id' | 'created'>>,
): Promise<void> {
  let query = db
    .updateTable('product_variants')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id);
  const stock = changes.stock;
  if (stock === undefined) {
    await query.execute();
    return;
  }
  // A new `stock` is the default location's units plus what the other fulfilling locations have
  // available (products.levels.ts): it cannot be less than theirs.
  query = query.where(
    sql<boolean>`(spread = 0 OR ${stock} >= (SELECT COALESCE(SUM(l.on_hand - l.committed), 0)
      FROM stock_levels l WHERE l.variant_id = product_variants.id AND l.fulfills = 1))`,
  );
  const result = await query.executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0 && (await findVariantsByIds(db, tenantId, [id])).length === 1) {
    throw validationError(
      'stock',
      `is less than the units other locations have available for online orders; adjust those at their locations (POST /inventory/adjustments)`,
    );
  }
}

export async function deleteVariants(db: Db, tenantId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .deleteFrom('product_variants')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...ids])
    .execute();
}

export async function deleteProductVariants(db: Db, tenantId: string, productId: string): Promise<void> {
  await db
    .deleteFrom('product_variants')
    .where('tenant_id', '=', tenantId)
    .where('product_id', '=', productId)
    .execute();
}

/** Moves the positions in [from, to] of a product by `delta` (+1 or -1): making or closing a gap. */
export async function shiftPositions(
  db: Db,
  tenantId: string,
  productId: string,
  from: number,
  to: number,
  delta: 1 | -1,
): Promise<void> {
  if (from > to) return;
  await db
    .updateTable('product_variants')
    .set((eb) => ({ position: eb('position', '+', delta) }))
    .where('tenant_id', '=', tenantId)
    .where('product_id', '=', productId)
    .where('position', '>=', from)
    .where('position', '<=', to)
    .execute();
}

/** What a product's own figures are made of: its variants' count, price range and stock. */
export interface VariantSummary {
  count: number;
  minPrice: number;
  maxPrice: number;
  stock: number;
}

export async function summarize(db: Db, tenantId: string, productId: string): Promise<VariantSummary> {
  const row = await db
    .selectFrom('product_variants')
    .where('tenant_id', '=', tenantId)
    .where('product_id', '=', productId)
    .select((eb) => [
      eb.fn.countAll<number>().as('count'),
      eb.fn.min<number>('price').as('min_price'),
      eb.fn.max<number>('price').as('max_price'),
      eb.fn.sum<number>('stock').as('stock'),
    ])
    .executeTakeFirstOrThrow();
  return {
    count: Number(row.count),
    minPrice: Number(row.min_price ?? 0),
    maxPrice: Number(row.max_price ?? 0),
    stock: Number(row.stock ?? 0),
  };
}

/**
 * Takes `quantity` units of a variant if that many are on hand, in one conditional UPDATE, so
 * concurrent orders never oversell: they are committed at the store's default location, which is
 * all the variant's stock while no other location holds any (`spread` 0; products.levels.ts takes
 * the others). The variant after the change, or undefined if short or held elsewhere too.
 */
export async function reserveVariantStock(
  db: Db,
  tenantId: string,
  id: string,
  quantity: number,
  now: number,
): Promise<VariantRow | undefined> {
  return db
    .updateTable('product_variants')
    .set((eb) => ({
      stock: eb('stock', '-', quantity),
      committed: eb('committed', '+', quantity),
      updated: now,
    }))
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('stock', '>=', quantity)
    .where('spread', '=', 0)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Puts `quantity` committed units back, at the default location while no other holds any
 * (`spread` 0); undefined when the variant has been deleted since or is held elsewhere too
 * (products.levels.ts gives those back). Units committed before locations existed have no
 * commitment left: they come back on hand.
 */
export async function releaseVariantStock(
  db: Db,
  tenantId: string,
  id: string,
  quantity: number,
  now: number,
): Promise<VariantRow | undefined> {
  return db
    .updateTable('product_variants')
    .set((eb) => ({
      stock: eb('stock', '+', quantity),
      committed: eb
        .case()
        .when('committed', '>=', quantity)
        .then(eb('committed', '-', quantity))
        .else(eb.val(0))
        .end(),
      updated: now,
    }))
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('spread', '=', 0)
    .returningAll()
    .executeTakeFirst();
}

/** The SKUs of a product's variants, by position (what its searched text is made of). */
export async function variantSkus(db: Db, tenantId: string, productId: string): Promise<(string | null)[]> {
  const rows = await db
    .selectFrom('product_variants')
    .select('sku')
    .where('tenant_id', '=', tenantId)
    .where('product_id', '=', productId)
    .orderBy('position')
    .orderBy('id')
    .execute();
  return rows.map((row) => row.sku);
}
