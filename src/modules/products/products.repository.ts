import { type RawBuilder, type Selectable, sql } from 'kysely';
import type { ProductCountsTable, ProductStatus, ProductsTable } from '../../db/schema.js';
import { ftsPhrase, likePattern, pgFold } from '../../db/search.js';
import { type Db, type DialectName, searchFold } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';
import type { ProductSort } from './products.schemas.js';

/**
 * A product as stored; `seq` (the search index key) stays inside the database. Its `price`,
 * `price_max`, `stock`, `variant_count`, `sku` and `search_extra` follow its variants
 * (products.rollup.ts), so lists filter and sort on the product row alone.
 */
export type ProductRow = Omit<Selectable<ProductsTable>, 'seq' | 'search_extra'>;

/**
 * What reads return: every column but `seq` and `search_extra`, which only the search index reads
 * (15 KB of SKUs for a product of 2,000 variants: a list page read it and threw it away).
 */
const COLUMNS = [
  'id',
  'tenant_id',
  'handle',
  'name',
  'description',
  'sku',
  'price',
  'currency',
  'category',
  'stock',
  'status',
  'images',
  'image_alts',
  'attributes',
  'tags',
  'options',
  'variant_count',
  'price_max',
  'seo_title',
  'seo_description',
  'created',
  'updated',
] as const satisfies readonly (keyof ProductRow)[];
export { COLUMNS as PRODUCT_COLUMNS };

/** A product as written: with the searched text of its variants. */
export type NewProductRow = ProductRow & Pick<ProductsTable, 'search_extra'>;

/** Products a statement inserts at most (about 20 columns each: within SQLite's bound variables). */
const INSERT_BATCH = 500;

export async function insertProducts(db: Db, rows: readonly NewProductRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    await db
      .insertInto('products')
      .values(rows.slice(i, i + INSERT_BATCH))
      .execute();
  }
}

/** `lock` takes a row lock on PostgreSQL (SQLite's write transaction already excludes writers). */
export async function findProduct(
  db: Db,
  tenantId: string,
  id: string,
  lock = false,
): Promise<ProductRow | undefined> {
  let query = db
    .selectFrom('products')
    .select(COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The product of a handle (handles are unique per tenant). */
export async function findProductByHandle(
  db: Db,
  tenantId: string,
  handle: string,
): Promise<ProductRow | undefined> {
  return db
    .selectFrom('products')
    .select(COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('handle', '=', handle)
    .executeTakeFirst();
}

/** Bases a statement looks up at most (three bound values each). */
const HANDLE_BATCH = 200;

/** Those of `handles` another product of the tenant has (other than `exceptId`'s). */
export async function takenHandles(
  db: Db,
  tenantId: string,
  handles: readonly string[],
  exceptId?: string,
): Promise<string[]> {
  const taken: string[] = [];
  for (let i = 0; i < handles.length; i += HANDLE_BATCH) {
    let query = db
      .selectFrom('products')
      .select('handle')
      .where('tenant_id', '=', tenantId)
      .where('handle', 'in', handles.slice(i, i + HANDLE_BATCH));
    if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
    taken.push(...(await query.execute()).map((row) => row.handle));
  }
  return taken;
}

/**
 * The tenant's handles that are one of `bases` or a base followed by a hyphen and a digit (its
 * numbered forms `base-2`, `base-3`... among them): one range of the handle index per base, as
 * handles compare byte by byte (migration 0038), `-0` to `-:` being every such handle.
 */
export async function numberedHandles(db: Db, tenantId: string, bases: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (let i = 0; i < bases.length; i += HANDLE_BATCH) {
    const rows = await db
      .selectFrom('products')
      .select('handle')
      .where('tenant_id', '=', tenantId)
      .where((eb) =>
        eb.or(
          bases
            .slice(i, i + HANDLE_BATCH)
            .flatMap((base) => [
              eb('handle', '=', base),
              eb.and([eb('handle', '>=', `${base}-0`), eb('handle', '<', `${base}-:`)]),
            ]),
        ),
      )
      .execute();
    found.push(...rows.map((row) => row.handle));
  }
  return found;
}

/**
 * `lock` takes the rows' locks on PostgreSQL in id order: every writer that changes a product's
 * variants locks the product first, and several products in this order, so none deadlocks.
 */
export async function findProductsByIds(
  db: Db,
  tenantId: string,
  ids: readonly string[],
  lock = false,
): Promise<ProductRow[]> {
  if (ids.length === 0) return [];
  let query = db
    .selectFrom('products')
    .select(COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...ids])
    .orderBy('id');
  if (lock) query = query.forUpdate();
  return query.execute();
}

/** Moves a product's kept stock (the sum of its variants') by `delta`, as its variants' stock moved. */
export async function moveStock(
  db: Db,
  tenantId: string,
  id: string,
  delta: number,
  now: number,
): Promise<ProductRow | undefined> {
  return db
    .updateTable('products')
    .set((eb) => ({ stock: eb('stock', '+', delta), updated: now }))
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirst();
}

export async function updateProduct(
  db: Db,
  tenantId: string,
  id: string,
  changes: Partial<Omit<ProductRow, 'id' | 'tenant_id' | 'created'> & Pick<ProductsTable, 'search_extra'>>,
): Promise<void> {
  await db
    .updateTable('products')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

export async function deleteProduct(db: Db, tenantId: string, id: string): Promise<void> {
  await db.deleteFrom('products').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
}

/** The `product_counts` row a product is counted in. */
export interface CountBucket {
  category: string | null;
  status: ProductStatus;
  inStock: boolean;
}

/** The text of variant SKUs and option values `q` searches beside the product's own fields. */
export async function searchExtraOf(db: Db, tenantId: string, id: string): Promise<string> {
  const row = await db
    .selectFrom('products')
    .select('search_extra')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.search_extra ?? '';
}

export function bucketOf(row: Pick<ProductRow, 'category' | 'status' | 'stock'>): CountBucket {
  return { category: row.category, status: row.status, inStock: row.stock > 0 };
}

export interface CountDelta extends CountBucket {
  delta: number;
}

/**
 * Applies count changes in one sorted pass (a fixed lock order: no deadlock between two writers).
 * Runs in the transaction of the product change it accounts for.
 */
export async function adjustCounts(db: Db, tenantId: string, deltas: readonly CountDelta[]): Promise<void> {
  const merged = new Map<string, ProductCountsTable>();
  for (const d of deltas) {
    const row: ProductCountsTable = {
      tenant_id: tenantId,
      category: d.category ?? '',
      status: d.status,
      in_stock: d.inStock ? 1 : 0,
      n: d.delta,
    };
    const key = JSON.stringify([row.category, row.status, row.in_stock]);
    const existing = merged.get(key);
    if (existing) existing.n += d.delta;
    else merged.set(key, row);
  }
  const keys = [...merged.keys()].sort();
  for (const key of keys) {
    const row = merged.get(key);
    if (!row || row.n === 0) continue;
    await db
      .insertInto('product_counts')
      .values(row)
      .onConflict((oc) =>
        oc
          .columns(['tenant_id', 'category', 'status', 'in_stock'])
          .doUpdateSet((eb) => ({ n: eb('product_counts.n', '+', eb.ref('excluded.n')) })),
      )
      .execute();
  }
}

export interface ProductFilter {
  handle?: string | undefined;
  category?: string | undefined;
  status?: ProductStatus | undefined;
  inStock?: boolean | undefined;
  q?: string | undefined;
  minPrice?: number | undefined;
  maxPrice?: number | undefined;
}

/** Whether the kept counts answer `total` for this filter (handle, price and text filters need a COUNT). */
export function countable(filter: ProductFilter): boolean {
  return (
    filter.handle === undefined &&
    filter.q === undefined &&
    filter.minPrice === undefined &&
    filter.maxPrice === undefined
  );
}

/** The part of a filter the kept counts answer. */
export function countablePart(filter: ProductFilter): ProductFilter {
  return { category: filter.category, status: filter.status, inStock: filter.inStock };
}

/**
 * How a page is read when the filter has a price range or text. `filterIndexes`: through the
 * filter's own index (price index, search index), then sorted; otherwise by walking the sort's
 * index and testing each row, which wins when most rows match. The service chooses from `total`.
 */
export interface ReadPlan {
  dialect: DialectName;
  filterIndexes: boolean;
}

/**
 * What `q` searches: name, SKU, description and the variants' SKUs and option values joined by newlines (`q` cannot contain one, so no
 * match spans two fields), case-folded in every script. The text and `q` go through one fold, so
 * they compare alike (Greek final sigma and Turkish `İ` included): on PostgreSQL the SQL of
 * `pgFold`, exactly as migration 0019's trigram index is built; on SQLite `search_fold`, which is
 * `searchFold` (src/db/store.ts), since SQLite's lower() folds ASCII only. The FTS5 trigram table
 * that narrows the rows on SQLite holds the folded text too (migration 0019).
 */
const SEARCH_TEXT: Record<DialectName, RawBuilder<string>> = {
  sqlite: sql`search_fold(name || char(10) || coalesce(sku, '') || char(10) || coalesce(description, '') || char(10) || search_extra)`,
  postgres: pgFold(
    sql`name || chr(10) || coalesce(sku, '') || chr(10) || coalesce(description, '') || chr(10) || search_extra`,
  ),
};

function filtered(db: Db, tenantId: string, filter: ProductFilter, plan: ReadPlan, sortedByPrice = false) {
  const q = filter.q === undefined ? undefined : { text: filter.q, folded: searchFold(filter.q) };
  const useFts =
    plan.dialect === 'sqlite' && plan.filterIndexes && q !== undefined && [...q.folded].length >= 3;
  // With the FTS table narrowing the rows, SQLite must start from it: `+tenant_id` keeps it from
  // preferring a tenant index and probing every row of the tenant against the FTS result.
  let query = db
    .selectFrom('products')
    .where(useFts ? sql<boolean>`+tenant_id = ${tenantId}` : sql<boolean>`tenant_id = ${tenantId}`);
  if (filter.handle !== undefined) query = query.where('handle', '=', filter.handle);
  if (filter.category !== undefined) query = query.where('category', '=', filter.category);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  // Literal comparisons, so the partial index on `stock = 0` matches the query's term.
  if (filter.inStock === true) query = query.where(sql<boolean>`stock > 0`);
  if (filter.inStock === false) query = query.where(sql<boolean>`stock = 0`);
  // `+price` is the same value, but no index applies to it: the sort's index is walked instead.
  const price = plan.filterIndexes || sortedByPrice ? sql`price` : sql`+price`;
  if (filter.minPrice !== undefined) query = query.where(sql<boolean>`${price} >= ${filter.minPrice}`);
  if (filter.maxPrice !== undefined) query = query.where(sql<boolean>`${price} <= ${filter.maxPrice}`);
  if (q !== undefined) {
    // The LIKE defines the match; on PostgreSQL the trigram index serves it directly, on SQLite
    // the FTS5 trigram table narrows the rows first (it needs at least 3 characters). PostgreSQL
    // folds the pattern with the SQL that folds the text: its lower() is not JavaScript's.
    const pattern =
      plan.dialect === 'sqlite' ? sql.val(likePattern(q.folded)) : pgFold(sql.val(likePattern(q.text)));
    query = query.where(sql<boolean>`${SEARCH_TEXT[plan.dialect]} like ${pattern} escape '\\'`);
    if (useFts) {
      query = query.where(
        sql<boolean>`seq in (select rowid from products_search where products_search match ${ftsPhrase(q.folded)})`,
      );
    }
  }
  return query;
}

const SORTS: Record<ProductSort, { column: 'created' | 'price' | 'name'; direction: 'asc' | 'desc' }> = {
  created: { column: 'created', direction: 'asc' },
  '-created': { column: 'created', direction: 'desc' },
  price: { column: 'price', direction: 'asc' },
  '-price': { column: 'price', direction: 'desc' },
  name: { column: 'name', direction: 'asc' },
};

export function sortColumn(sort: ProductSort): 'created' | 'price' | 'name' {
  return SORTS[sort].column;
}

/** One page, `limit + 1` rows: a keyset seek past the cursor, or OFFSET without one. */
export async function listProducts(
  db: Db,
  tenantId: string,
  filter: ProductFilter,
  sort: ProductSort,
  window: PageWindow,
  plan: ReadPlan,
): Promise<ProductRow[]> {
  const { column, direction } = SORTS[sort];
  let query = filtered(db, tenantId, filter, plan, column === 'price').select(COLUMNS);
  if (window.cursor) {
    const [value, id] = window.cursor.after;
    query = query.where((eb) =>
      eb(eb.refTuple(column, 'id'), direction === 'desc' ? '<' : '>', eb.tuple(value, id)),
    );
  } else if (window.offset > 0) {
    query = query.offset(window.offset);
  }
  return query
    .orderBy(column, direction)
    .orderBy('id', direction)
    .limit(window.limit + 1)
    .execute();
}

/** Exact total: summed from `product_counts` when it can be, a COUNT otherwise. */
export async function countProducts(
  db: Db,
  dialect: DialectName,
  tenantId: string,
  filter: ProductFilter,
): Promise<number> {
  if (!countable(filter)) {
    const { n } = await filtered(db, tenantId, filter, { dialect, filterIndexes: true })
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(n);
  }
  let query = db.selectFrom('product_counts').where('tenant_id', '=', tenantId);
  if (filter.category !== undefined) query = query.where('category', '=', filter.category);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.inStock !== undefined) query = query.where('in_stock', '=', filter.inStock ? 1 : 0);
  const { n } = await query
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), sql<number>`0`).as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}
