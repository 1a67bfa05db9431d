import type { Db, Store } from '../../db/store.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { type AppError, notFound, validationError } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import type { Envelope } from '../../lib/paging.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { isCurrency } from '../../lib/money.js';
import type { EventService } from '../events/index.js';
import {
  decideHandles,
  type HandleRequest,
  handleTaken,
  isHandleViolation,
  slugify,
} from './products.handles.js';
import { altsJson, checkOneOf, fromMedia, parseAlts } from './products.media.js';
import { loadProduct, presentProduct, presentWithVariants, productOptions } from './products.presenter.js';
import * as repo from './products.repository.js';
import { productPage } from './products.listing.js';
import { emitUpdated, settle } from './products.rollup.js';
import type {
  CreateProductBody,
  ProductListQuery,
  ProductObject,
  UpdateProductBody,
} from './products.schemas.js';
import {
  applyOptions,
  checkCombinationsUnique,
  checkOptions,
  checkSkusUnique,
  checkVariantOptions,
  DEFAULT_TITLE,
  duplicateSku,
  optionKey,
  type ProductOption,
  searchExtra,
  variantTitle,
  VARIANTS_SHOWN,
} from './variants.rules.js';
import * as variantsRepo from './variants.repository.js';
import type { NewVariantBody } from './variants.schemas.js';
import {
  checkImageUrl,
  checkVariantFields,
  newSeo,
  newVariantDetails,
  seoChanges,
  VARIANT_DETAIL_FIELDS,
  variantDetailChanges,
} from './variants.details.js';

/** The tenant a product belongs to; its currency is the default price currency. */
export interface TenantRef {
  id: string;
  currency: string;
}

/** The product fields a product with options takes from its variants, never from a request. */
const VARIANT_FIELDS = ['sku', 'price', 'stock'] as const;
/** The one variant's fields a product without options takes too, though the product does not show them. */
const DEFAULT_VARIANT_FIELDS = ['compare_at_price', 'weight_grams', 'barcode'] as const;
/** A request's fields that are the one variant's on a product without options: each a 400 with options. */
const ONE_VARIANT_FIELDS = [...VARIANT_FIELDS, ...DEFAULT_VARIANT_FIELDS, ...VARIANT_DETAIL_FIELDS] as const;
type OneVariantField = (typeof ONE_VARIANT_FIELDS)[number];

function checkCurrency(currency: string): void {
  if (!isCurrency(currency)) throw validationError('currency', 'must be an ISO 4217 currency code');
}

/** The schema already demands `https://`; this also refuses what a URL parser does not accept. */
export function checkImages(images: readonly string[], field: 'images' | 'media' = 'images'): void {
  images.forEach((image, index) =>
    checkImageUrl(image, field === 'images' ? `images[${index}]` : `media[${index}].url`),
  );
}

function readOnlyWithOptions(field: OneVariantField): AppError {
  if (field === 'sku' || field === 'price' || field === 'stock') {
    return validationError(
      field,
      `is read-only on a product with options: it follows the variants (${field === 'sku' ? 'each variant has its own SKU' : `set each variant's ${field}`})`,
    );
  }
  return validationError(
    field,
    `is each variant's own on a product with options: set each variant's ${field}`,
  );
}

/** The variants a new product is created with: its one Default variant, or the ones it lists. */
function newVariants(input: CreateProductBody, options: readonly ProductOption[]): NewVariantBody[] {
  if (options.length === 0) {
    if (input.variants !== undefined) {
      throw validationError(
        'variants',
        'needs options: a product without options has one variant, made from its sku, price, stock, compare_at_price, weight_grams, barcode, image, cost, requires_shipping and taxable',
      );
    }
    if (input.price === undefined)
      throw validationError('price', 'is required for a product without options');
    return [
      {
        sku: input.sku ?? null,
        options: {},
        price: input.price,
        stock: input.stock ?? 0,
        compare_at_price: input.compare_at_price ?? null,
        weight_grams: input.weight_grams ?? null,
        barcode: input.barcode ?? null,
        ...(input.image === undefined ? {} : { image: input.image }),
        ...(input.cost === undefined ? {} : { cost: input.cost }),
        ...(input.requires_shipping === undefined ? {} : { requires_shipping: input.requires_shipping }),
        ...(input.taxable === undefined ? {} : { taxable: input.taxable }),
      },
    ];
  }
  for (const field of ONE_VARIANT_FIELDS) if (input[field] !== undefined) throw readOnlyWithOptions(field);
  const variants = input.variants ?? [];
  if (variants.length === 0)
    throw validationError('variants', 'must list at least one variant of a product with options');
  variants.forEach((variant, index) =>
    checkVariantOptions(options, variant.options, `variants[${index}].options`),
  );
  checkCombinationsUnique(
    variants.map((variant) => variant.options),
    (index) => `variants[${index}].options`,
  );
  checkSkusUnique(variants.map((variant) => variant.sku));
  return variants;
}

/**
 * A new product's rows, as `buildProduct` makes them and `insertProduct` writes them. Its handle
 * is decided as it is written (`row.handle` is then set): `handle` says from what.
 */
export interface NewProduct {
  row: repo.NewProductRow;
  variants: variantsRepo.VariantRow[];
  handle: HandleRequest;
}

/**
 * Times a product whose handle is made from its name is written again after a concurrent product
 * took that handle first (PostgreSQL: both read it free; SQLite's writers never overlap): each
 * round one of the contenders commits.
 */
const HANDLE_ATTEMPTS = 16;

/**
 * The rows of a new product for `input`, checked by every rule `POST /products` applies beyond
 * its schema (currency, images, options, variants and their combinations, SKUs within the
 * request): a 400 naming the field otherwise; with `codes`, SKUs and barcodes too (422
 * `invalid_product_code`, variants.codes.ts). Nothing is read or written.
 */
export function buildProduct(
  tenant: TenantRef,
  input: CreateProductBody,
  now: number,
  codes = true,
): NewProduct {
  const currency = input.currency ?? tenant.currency;
  checkCurrency(currency);
  checkOneOf(input);
  const media = input.media === undefined ? { images: input.images ?? [], alts: {} } : fromMedia(input.media);
  checkImages(media.images, input.media === undefined ? 'images' : 'media');
  const options = input.options ?? [];
  checkOptions(options);
  const given = newVariants(input, options);
  given.forEach((variant, index) =>
    checkVariantFields(variant, options.length === 0 ? '' : `variants[${index}].`, codes),
  );
  const productId = newId('prod');
  const variants: variantsRepo.VariantRow[] = given.map((variant, index) => ({
    id: newId('var'),
    tenant_id: tenant.id,
    product_id: productId,
    sku: variant.sku ?? null,
    sku_key: variant.sku?.toLowerCase() ?? null,
    title: options.length === 0 ? DEFAULT_TITLE : variantTitle(options, variant.options),
    options: JSON.stringify(variant.options),
    option_key: optionKey(variant.options),
    price: variant.price,
    compare_at_price: variant.compare_at_price ?? null,
    stock: variant.stock ?? 0,
    committed: 0,
    spread: 0,
    weight_grams: variant.weight_grams ?? null,
    barcode: variant.barcode ?? null,
    ...newVariantDetails(variant),
    position: index + 1,
    created: now,
    updated: now,
  }));
  const prices = variants.map((variant) => variant.price);
  const handle: HandleRequest =
    input.handle === undefined
      ? { base: slugify(input.name), exact: false }
      : { base: input.handle, exact: true };
  const row: repo.NewProductRow = {
    id: productId,
    tenant_id: tenant.id,
    handle: handle.base,
    name: input.name,
    description: input.description ?? null,
    sku: options.length === 0 ? (variants[0]?.sku ?? null) : null,
    price: Math.min(...prices),
    price_max: Math.max(...prices),
    currency,
    category: input.category ?? null,
    stock: variants.reduce((sum, variant) => sum + variant.stock, 0),
    status: input.status ?? 'active',
    images: JSON.stringify(media.images),
    image_alts: altsJson(media.images, media.alts),
    attributes: JSON.stringify(input.attributes ?? {}),
    tags: JSON.stringify(input.tags ?? []),
    options: JSON.stringify(options),
    variant_count: variants.length,
    search_extra: searchExtra(
      options,
      variants.map((variant) => variant.sku),
    ),
    ...newSeo(input.seo),
    created: now,
    updated: now,
  };
  return { row, variants, handle };
}

/**
 * Writes a product `buildProduct` made, with its variants, its `product_counts` bucket and
 * `product.created`, in `trx`. A SKU another variant of the tenant has is `409 duplicate_sku`,
 * and a given handle another product has `409 handle_taken`, before anything is written.
 */
export async function insertProduct(trx: Db, events: EventService, product: NewProduct): Promise<void> {
  await insertNewProducts(trx, events, [product]);
}

/**
 * `insertProduct` of several products of one tenant at once (a batch of an import), each write
 * one statement for all of them: the SKU check, the handles (products.handles.ts), the products,
 * their variants, the count buckets, the events. A SKU taken by any is `409 duplicate_sku` for
 * all, a given handle taken `409 handle_taken`, before anything is written.
 */
export async function insertNewProducts(
  trx: Db,
  events: EventService,
  products: readonly NewProduct[],
): Promise<void> {
  const first = products[0];
  if (first === undefined) return;
  const tenantId = first.row.tenant_id;
  const variants = products.flatMap((product) => product.variants);
  const skus = variants.flatMap((variant) => (variant.sku === null ? [] : [variant.sku]));
  const taken = await variantsRepo.takenSku(trx, tenantId, skus);
  if (taken !== undefined) throw duplicateSku(taken);
  const handles = await decideHandles(
    trx,
    tenantId,
    products.map((product) => product.handle),
  );
  products.forEach((product, index) => {
    product.row.handle = handles[index] as string;
  });
  await repo.insertProducts(
    trx,
    products.map((product) => product.row),
  );
  await variantsRepo.insertVariants(trx, variants);
  await repo.adjustCounts(
    trx,
    tenantId,
    products.map((product) => ({ ...repo.bucketOf(product.row), delta: 1 })),
  );
  await events.emitMany(
    trx,
    products.map(({ row, variants: own }) => {
      const { search_extra: _searched, ...created } = row;
      return {
        tenantId,
        type: 'product.created' as const,
        objectType: 'product',
        object: presentProduct(created, own.slice(0, VARIANTS_SHOWN)),
      };
    }),
  );
}

export type ProductService = ReturnType<typeof createProductService>;

export function createProductService(deps: { store: Store; clock: Clock; events: EventService }) {
  const { store, clock, events } = deps;

  /**
   * Runs a write that may hit the SKU or handle index; a concurrent twin that slipped past the
   * check is 409 too. A handle made from a name (`handle` undefined) is left to its caller to make again.
   */
  async function guardUnique<T>(
    skus: readonly (string | null | undefined)[],
    handle: string | undefined,
    write: () => Promise<T>,
  ): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (isHandleViolation(error)) {
        if (handle !== undefined) throw handleTaken(handle);
        throw error;
      }
      const sku = skus.find((value): value is string => typeof value === 'string');
      if (sku !== undefined && isUniqueViolation(error)) throw duplicateSku(sku);
      throw error;
    }
  }

  async function emitProduct(
    trx: Db,
    type: 'product.created' | 'product.deleted',
    row: repo.ProductRow,
    variants?: readonly variantsRepo.VariantRow[],
  ): Promise<void> {
    const object = variants === undefined ? await loadProduct(trx, row) : presentProduct(row, variants);
    await events.emit(trx, { tenantId: row.tenant_id, type, objectType: 'product', object });
  }

  async function get(tenantId: string, id: string): Promise<ProductObject> {
    const row = await repo.findProduct(store.db, tenantId, id);
    if (!row) throw notFound('product');
    return loadProduct(store.db, row);
  }

  /**
   * A product's options replaced (variants.rules.ts `applyOptions`): dropped variants deleted,
   * kept ones given their new values and titles, positions closed up. Returns the variants that
   * changed, for the caller's `settle`.
   */
  async function replaceOptions(trx: Db, product: repo.ProductRow, next: ProductOption[], now: number) {
    checkOptions(next);
    const current = await variantsRepo.productVariants(trx, product.tenant_id, product.id);
    const { kept, dropped } = applyOptions(
      next,
      current.map((row) => ({ ...row, options: JSON.parse(row.options) as Record<string, string> })),
    );
    await variantsRepo.deleteVariants(
      trx,
      product.tenant_id,
      dropped.map((variant) => variant.id),
    );
    for (const [index, { variant, values }] of kept.entries()) {
      const changes = {
        title: variantTitle(next, values),
        options: JSON.stringify(values),
        option_key: optionKey(values),
        position: index + 1,
      };
      const before = current.find((row) => row.id === variant.id) as variantsRepo.VariantRow;
      if (
        before.title !== changes.title ||
        before.options !== changes.options ||
        before.option_key !== changes.option_key ||
        before.position !== changes.position
      ) {
        await variantsRepo.updateVariant(trx, product.tenant_id, variant.id, { ...changes, updated: now });
      }
    }
  }

  /** A change of the product's own fields only (its variants as they were). */
  async function updateOwn(
    trx: Db,
    before: repo.ProductRow,
    own: Partial<repo.ProductRow>,
    now: number,
  ): Promise<repo.ProductRow> {
    const after: repo.ProductRow = { ...before, ...own, updated: now };
    await repo.updateProduct(trx, before.tenant_id, before.id, { ...own, updated: now });
    await repo.adjustCounts(trx, before.tenant_id, [
      { ...repo.bucketOf(before), delta: -1 },
      { ...repo.bucketOf(after), delta: 1 },
    ]);
    return after;
  }

  /** A page of products as `GET /products` reads it (products.listing.ts). */
  const page = (tenantId: string, query: ProductListQuery) => productPage(store, tenantId, query);

  return {
    present: presentProduct,

    /** `codes`: SKUs and barcodes are checked (variants.codes.ts; the API from 2027-01-20). */
    async create(
      tenant: TenantRef,
      input: CreateProductBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
      codes = true,
    ): Promise<ProductObject> {
      if (idempotent.committed !== null) return get(tenant.id, idempotent.committed);
      const product = buildProduct(tenant, input, clock.now(), codes);
      const { row, variants } = product;
      for (let attempt = 1; ; attempt += 1) {
        try {
          await guardUnique(
            variants.map((variant) => variant.sku),
            product.handle.exact ? product.handle.base : undefined,
            () =>
              store.transaction(async (trx) => {
                await insertProduct(trx, events, product);
                await idempotent.mark(trx, row.id);
              }),
          );
          break;
        } catch (error) {
          // A concurrent product took the handle this one made from its name: made again.
          if (attempt < HANDLE_ATTEMPTS && isHandleViolation(error)) continue;
          throw error;
        }
      }
      const { search_extra: _searched, ...created } = row;
      return presentProduct(created, variants);
    },

    get,

    /**
     * Applies the fields given. Nothing changed: no write, no event. On a product without options,
     * `sku`, `price` and `stock` are its one variant's and change it too, and `compare_at_price`,
     * `weight_grams`, `barcode`, `image`, `cost`, `requires_shipping` and `taxable` change it alone;
     * a product with options refuses them all (400): each variant has its own. New `options` apply to the variants (`replaceOptions`).
     * A variant taken to 0 stock emits `product.outofstock`. `alongside` makes further writes in
     * the update's transaction (committed with it or not at all); `codes` checks a SKU and barcode
     * given (variants.codes.ts).
     */
    async update(
      tenantId: string,
      id: string,
      input: UpdateProductBody,
      alongside?: (trx: Db) => Promise<void>,
      codes = true,
    ): Promise<ProductObject> {
      if (input.currency !== undefined) checkCurrency(input.currency);
      checkOneOf(input);
      if (input.images !== undefined) checkImages(input.images);
      const media = input.media === undefined ? undefined : fromMedia(input.media);
      if (media !== undefined) checkImages(media.images, 'media');
      if (input.options !== undefined) checkOptions(input.options);
      checkVariantFields(input, '', codes);
      const changes: Partial<repo.ProductRow> = {};
      if (input.name !== undefined) changes.name = input.name;
      if (input.handle !== undefined) changes.handle = input.handle;
      if (input.description !== undefined) changes.description = input.description;
      if (input.currency !== undefined) changes.currency = input.currency;
      if (input.category !== undefined) changes.category = input.category;
      if (input.status !== undefined) changes.status = input.status;
      if (media !== undefined) {
        changes.images = JSON.stringify(media.images);
        changes.image_alts = altsJson(media.images, media.alts);
      } else if (input.images !== undefined) changes.images = JSON.stringify(input.images);
      if (input.attributes !== undefined) changes.attributes = JSON.stringify(input.attributes);
      if (input.tags !== undefined) changes.tags = JSON.stringify(input.tags);
      Object.assign(changes, seoChanges(input.seo));
      const newOptions = input.options === undefined ? undefined : JSON.stringify(input.options);

      const row = await guardUnique([input.sku], input.handle, () =>
        store.transaction(async (trx) => {
          const before = await repo.findProduct(trx, tenantId, id, true);
          if (!before) throw notFound('product');
          if (input.handle !== undefined && input.handle !== before.handle) {
            const [taken] = await repo.takenHandles(trx, tenantId, [input.handle], id);
            if (taken !== undefined) throw handleTaken(taken);
          }
          // New images keep the alt text of the URLs that stay, the others' is dropped.
          if (media === undefined && input.images !== undefined) {
            changes.image_alts = altsJson(input.images, parseAlts(before.image_alts));
          }
          const options = input.options ?? productOptions(before);
          if (options.length > 0) {
            for (const field of ONE_VARIANT_FIELDS)
              if (input[field] !== undefined) throw readOnlyWithOptions(field);
          }
          await alongside?.(trx);
          const now = clock.now();
          let soldOut: variantsRepo.VariantRow[] = [];
          let variantsChanged = false;
          if (newOptions !== undefined && newOptions !== before.options) {
            await replaceOptions(trx, before, options, now);
            changes.options = newOptions;
            variantsChanged = true;
          }
          if (options.length === 0 && ONE_VARIANT_FIELDS.some((field) => input[field] !== undefined)) {
            const [variant] = await variantsRepo.productVariants(trx, tenantId, id);
            if (!variant) throw notFound('product');
            const edit: Partial<variantsRepo.VariantRow> = {};
            if (input.sku !== undefined && input.sku !== variant.sku) {
              if (
                input.sku !== null &&
                (await variantsRepo.takenSku(trx, tenantId, [input.sku], [variant.id]))
              )
                throw duplicateSku(input.sku);
              edit.sku = input.sku;
              edit.sku_key = input.sku?.toLowerCase() ?? null;
            }
            if (input.price !== undefined && input.price !== variant.price) edit.price = input.price;
            if (input.stock !== undefined && input.stock !== variant.stock) edit.stock = input.stock;
            for (const field of DEFAULT_VARIANT_FIELDS) {
              const value = input[field];
              if (value !== undefined && value !== variant[field]) Object.assign(edit, { [field]: value });
            }
            Object.assign(edit, variantDetailChanges(variant, input));
            if (Object.keys(edit).length > 0) {
              await variantsRepo.updateVariant(trx, tenantId, variant.id, { ...edit, updated: now });
              variantsChanged = true;
              if (variant.stock > 0 && edit.stock === 0) soldOut = [{ ...variant, ...edit, updated: now }];
            }
          }
          const own = Object.fromEntries(
            Object.entries(changes).filter(([key, value]) => before[key as keyof repo.ProductRow] !== value),
          ) as Partial<repo.ProductRow>;
          if (!variantsChanged && Object.keys(own).length === 0) return before;
          const after = variantsChanged
            ? await settle(trx, before, now, own)
            : await updateOwn(trx, before, own, now);
          await emitUpdated(trx, events, after, soldOut);
          return after;
        }),
      );
      return loadProduct(store.db, row);
    },

    /** Deletes the product and its variants; past orders keep their own snapshot of them. */
    async remove(tenantId: string, id: string): Promise<void> {
      await store.transaction(async (trx) => {
        const row = await repo.findProduct(trx, tenantId, id, true);
        if (!row) throw notFound('product');
        const shown = await variantsRepo.firstVariants(trx, tenantId, [id], VARIANTS_SHOWN);
        await variantsRepo.deleteProductVariants(trx, tenantId, id);
        await repo.deleteProduct(trx, tenantId, id);
        await repo.adjustCounts(trx, tenantId, [{ ...repo.bucketOf(row), delta: -1 }]);
        await emitProduct(trx, 'product.deleted', row, shown);
      });
    },

    page,

    async list(tenantId: string, query: ProductListQuery): Promise<Envelope<ProductObject>> {
      const { rows, envelope: around } = await page(tenantId, query);
      const present =
        query.expand === 'variants'
          ? await presentWithVariants(store.db, tenantId, rows)
          : (row: repo.ProductRow) => presentProduct(row);
      return around(present);
    },
  };
}
