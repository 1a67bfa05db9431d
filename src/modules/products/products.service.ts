import type { Db, Store } from '../../db/store.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { AppError, notFound, validationError } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { envelope, pageWindow } from '../../lib/paging.js';
import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { isCurrency } from '../../lib/money.js';
import type { EventService } from '../events/events.service.js';
import * as repo from './products.repository.js';
import type {
  CreateProductBody,
  ProductListQuery,
  ProductObject,
  ProductSort,
  UpdateProductBody,
} from './products.schemas.js';

/** The tenant a product belongs to; its currency is the default price currency. */
export interface TenantRef {
  id: string;
  currency: string;
}

export function presentProduct(row: repo.ProductRow): ProductObject {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    sku: row.sku,
    price: row.price,
    currency: row.currency,
    category: row.category,
    stock: row.stock,
    status: row.status,
    images: JSON.parse(row.images) as string[],
    attributes: JSON.parse(row.attributes) as Record<string, string>,
    tags: JSON.parse(row.tags) as string[],
    created: iso(row.created),
    updated: iso(row.updated),
  };
}

function checkCurrency(currency: string): void {
  if (!isCurrency(currency)) throw validationError('currency', 'must be an ISO 4217 currency code');
}

/** The schema already demands `https://`; this also refuses what a URL parser does not accept. */
function checkImages(images: readonly string[]): void {
  images.forEach((image, index) => {
    let url: URL;
    try {
      url = new URL(image);
    } catch {
      throw validationError(`images[${index}]`, 'must be an https URL');
    }
    if (url.protocol !== 'https:' || url.hostname === '' || url.username !== '' || url.password !== '') {
      throw validationError(`images[${index}]`, 'must be an https URL without credentials');
    }
  });
}

function duplicateSku(sku: string): AppError {
  return new AppError('duplicate_sku', `Another product already has the SKU "${sku}".`);
}

export type ProductService = ReturnType<typeof createProductService>;

export function createProductService(deps: { store: Store; clock: Clock; events: EventService }) {
  const { store, clock, events } = deps;

  /** Runs a write that may hit the SKU index; a concurrent twin that slipped past the check is 409 too. */
  async function guardSku<T>(sku: string | null | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (sku && isUniqueViolation(error)) throw duplicateSku(sku);
      throw error;
    }
  }

  async function emitProduct(
    trx: Db,
    type: 'product.created' | 'product.updated' | 'product.deleted' | 'product.outofstock',
    row: repo.ProductRow,
  ): Promise<void> {
    await events.emit(trx, {
      tenantId: row.tenant_id,
      type,
      objectType: 'product',
      object: presentProduct(row),
    });
  }

  async function get(tenantId: string, id: string): Promise<ProductObject> {
    const row = await repo.findProduct(store.db, tenantId, id);
    if (!row) throw notFound('product');
    return presentProduct(row);
  }

  return {
    present: presentProduct,
    emitProduct,

    async create(
      tenant: TenantRef,
      input: CreateProductBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<ProductObject> {
      if (idempotent.committed !== null) return get(tenant.id, idempotent.committed);
      const currency = input.currency ?? tenant.currency;
      checkCurrency(currency);
      checkImages(input.images ?? []);
      const now = clock.now();
      const row: repo.ProductRow = {
        id: newId('prod'),
        tenant_id: tenant.id,
        name: input.name,
        description: input.description ?? null,
        sku: input.sku ?? null,
        price: input.price,
        currency,
        category: input.category ?? null,
        stock: input.stock ?? 0,
        status: input.status ?? 'active',
        images: JSON.stringify(input.images ?? []),
        attributes: JSON.stringify(input.attributes ?? {}),
        tags: JSON.stringify(input.tags ?? []),
        created: now,
        updated: now,
      };
      await guardSku(row.sku, () =>
        store.transaction(async (trx) => {
          if (row.sku !== null && (await repo.skuTaken(trx, tenant.id, row.sku))) throw duplicateSku(row.sku);
          await repo.insertProducts(trx, [row]);
          await idempotent.mark(trx, row.id);
          await repo.adjustCounts(trx, tenant.id, [{ ...repo.bucketOf(row), delta: 1 }]);
          await emitProduct(trx, 'product.created', row);
        }),
      );
      return presentProduct(row);
    },

    get,

    /**
     * Applies the fields given. Nothing changed: no write, no event. Stock set to 0 from above 0
     * also emits `product.outofstock`, once per such transition.
     */
    /** `alongside` makes further writes in the update's transaction (committed with it or not at all). */
    async update(
      tenantId: string,
      id: string,
      input: UpdateProductBody,
      alongside?: (trx: Db) => Promise<void>,
    ): Promise<ProductObject> {
      if (input.currency !== undefined) checkCurrency(input.currency);
      if (input.images !== undefined) checkImages(input.images);
      const changes: Partial<repo.ProductRow> = {};
      if (input.name !== undefined) changes.name = input.name;
      if (input.description !== undefined) changes.description = input.description;
      if (input.sku !== undefined) changes.sku = input.sku;
      if (input.price !== undefined) changes.price = input.price;
      if (input.currency !== undefined) changes.currency = input.currency;
      if (input.category !== undefined) changes.category = input.category;
      if (input.stock !== undefined) changes.stock = input.stock;
      if (input.status !== undefined) changes.status = input.status;
      if (input.images !== undefined) changes.images = JSON.stringify(input.images);
      if (input.attributes !== undefined) changes.attributes = JSON.stringify(input.attributes);
      if (input.tags !== undefined) changes.tags = JSON.stringify(input.tags);

      const row = await guardSku(changes.sku, () =>
        store.transaction(async (trx) => {
          const before = await repo.findProduct(trx, tenantId, id, store.supportsRowLocks);
          if (!before) throw notFound('product');
          const changed = Object.fromEntries(
            Object.entries(changes).filter(([key, value]) => before[key as keyof repo.ProductRow] !== value),
          ) as Partial<repo.ProductRow>;
          await alongside?.(trx);
          if (Object.keys(changed).length === 0) return before;
          if (changed.sku && (await repo.skuTaken(trx, tenantId, changed.sku, id)))
            throw duplicateSku(changed.sku);
          const after: repo.ProductRow = { ...before, ...changed, updated: clock.now() };
          await repo.updateProduct(trx, tenantId, id, { ...changed, updated: after.updated });
          await repo.adjustCounts(trx, tenantId, [
            { ...repo.bucketOf(before), delta: -1 },
            { ...repo.bucketOf(after), delta: 1 },
          ]);
          await emitProduct(trx, 'product.updated', after);
          if (before.stock > 0 && after.stock === 0) await emitProduct(trx, 'product.outofstock', after);
          return after;
        }),
      );
      return presentProduct(row);
    },

    /** Deletes the product; past orders keep their own snapshot of it. */
    async remove(tenantId: string, id: string): Promise<void> {
      await store.transaction(async (trx) => {
        const row = await repo.findProduct(trx, tenantId, id, store.supportsRowLocks);
        if (!row) throw notFound('product');
        await repo.deleteProduct(trx, tenantId, id);
        await repo.adjustCounts(trx, tenantId, [{ ...repo.bucketOf(row), delta: -1 }]);
        await emitProduct(trx, 'product.deleted', row);
      });
    },

    async list(tenantId: string, query: ProductListQuery) {
      const sort: ProductSort = query.sort ?? '-created';
      if (
        query.min_price !== undefined &&
        query.max_price !== undefined &&
        query.min_price > query.max_price
      ) {
        throw validationError('min_price', 'must not be greater than max_price');
      }
      const window = pageWindow(query, sort, repo.sortColumn(sort) === 'name' ? 'string' : 'number');
      const filter: repo.ProductFilter = {
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
      return envelope(rows, total, window, sort, (row) => [row[column], row.id], presentProduct);
    },
  };
}
