import type { Store } from '../../db/store.js';
import { validationError } from '../../lib/errors.js';
import { type Envelope, envelope, pageWindow } from '../../lib/paging.js';
import * as repo from './products.repository.js';
import type { ProductListQuery, ProductSort } from './products.schemas.js';

/** A page of products: its rows, and the list envelope around them once presented. */
export interface ProductPage {
  /** The page's products (at most `limit`), in the list's order. */
  rows: repo.ProductRow[];
  envelope<T>(present: (row: repo.ProductRow) => T): Envelope<T>;
}

/**
 * A page of products as `GET /products` reads it (its `expand` aside): filtered, sorted, with the
 * filter's total, through the filter's index when it matches few and the sort's when it matches many.
 */
export async function productPage(
  store: Store,
  tenantId: string,
  query: ProductListQuery,
): Promise<ProductPage> {
  const sort: ProductSort = query.sort ?? '-created';
  if (query.min_price !== undefined && query.max_price !== undefined && query.min_price > query.max_price) {
    throw validationError('min_price', 'must not be greater than max_price');
  }
  const window = pageWindow(query, sort, repo.sortColumn(sort) === 'name' ? 'string' : 'number');
  const filter: repo.ProductFilter = {
    handle: query.handle,
    category: query.category,
    status: query.status,
    inStock: query.in_stock,
    q: query.q === '' ? undefined : query.q,
    minPrice: query.min_price,
    maxPrice: query.max_price,
  };
  const column = repo.sortColumn(sort);
  const total = await repo.countProducts(store.db, store.dialect, tenantId, filter);
  // Few matches: read them through the price or search index and sort them. Many: walk the
  // sort's index, which meets the page's rows after about need * population / total rows.
  let filterIndexes = true;
  if (!repo.countable(filter)) {
    const population = await repo.countProducts(
      store.db,
      store.dialect,
      tenantId,
      repo.countablePart(filter),
    );
    const need = (window.cursor ? 0 : window.offset) + window.limit + 1;
    filterIndexes = total * total < need * population;
  }
  const rows = await repo.listProducts(store.db, tenantId, filter, sort, window, {
    dialect: store.dialect,
    filterIndexes,
  });
  return {
    rows: rows.slice(0, window.limit),
    envelope: <T>(present: (row: repo.ProductRow) => T) =>
      envelope(rows, total, window, sort, (row) => [row[column], row.id], present),
  };
}
