import type { Db, Store } from '../../db/store.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import { AppError, notFound, validationError } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { envelope, pageWindow } from '../../lib/paging.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { EventService } from '../events/index.js';
import { presentVariant, productOptions } from './products.presenter.js';
import * as repo from './products.repository.js';
import { emitUpdated, settle } from './products.rollup.js';
import {
  checkVariantOptions,
  duplicateSku,
  MAX_VARIANTS,
  optionKey,
  variantTitle,
} from './variants.rules.js';
import * as variantsRepo from './variants.repository.js';
import { checkVariantFields, newVariantDetails, variantDetailChanges } from './variants.details.js';
import type {
  CreateVariantBody,
  UpdateVariantBody,
  VariantListQuery,
  VariantObject,
} from './variants.schemas.js';

/**
 * One product's variants: list, create, read, change and delete. Each change runs in one
 * transaction that locks the product first (the order every writer of variants keeps), then
 * settles the product's own figures (products.rollup.ts) and emits `product.updated`, and
 * `product.outofstock` for a variant taken to 0.
 */

export type VariantService = ReturnType<typeof createVariantService>;

export function createVariantService(deps: { store: Store; clock: Clock; events: EventService }) {
  const { store, clock, events } = deps;

  async function lockProduct(trx: Db, tenantId: string, productId: string): Promise<repo.ProductRow> {
    const product = await repo.findProduct(trx, tenantId, productId, true);
    if (!product) throw notFound('product');
    return product;
  }

  async function guardSku<T>(sku: string | null | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (sku && isUniqueViolation(error)) throw duplicateSku(sku);
      throw error;
    }
  }

  /** Another variant of the product with this combination: a 400 naming `options`. */
  async function checkCombinationFree(
    trx: Db,
    product: repo.ProductRow,
    values: Record<string, string>,
    exceptId?: string,
  ): Promise<void> {
    const twin = await variantsRepo.findByCombination(trx, product.tenant_id, product.id, optionKey(values));
    if (twin && twin.id !== exceptId) {
      throw validationError(
        'options',
        productOptions(product).length === 0
          ? 'the product has no options, so it has exactly one variant: add options to the product first'
          : `repeat the combination of variant ${twin.id} (${twin.title})`,
      );
    }
  }

  async function get(tenantId: string, productId: string, id: string): Promise<VariantObject> {
    const product = await repo.findProduct(store.db, tenantId, productId);
    if (!product) throw notFound('product');
    const variant = await variantsRepo.findVariant(store.db, tenantId, productId, id);
    if (!variant) throw notFound('variant');
    return presentVariant(variant, product.currency);
  }

  return {
    get,

    async list(tenantId: string, productId: string, query: VariantListQuery) {
      const product = await repo.findProduct(store.db, tenantId, productId);
      if (!product) throw notFound('product');
      const window = pageWindow(query, 'position');
      const rows = await variantsRepo.listVariants(store.db, tenantId, productId, window);
      return envelope(
        rows,
        product.variant_count,
        window,
        'position',
        (row) => [row.position, row.id],
        (row) => presentVariant(row, product.currency),
      );
    },

    /** `codes`: its SKU and barcode are checked (variants.codes.ts; the API from 2027-01-20). */
    async create(
      tenantId: string,
      productId: string,
      input: CreateVariantBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
      codes = true,
    ): Promise<VariantObject> {
      if (idempotent.committed !== null) return get(tenantId, productId, idempotent.committed);
      checkVariantFields(input, '', codes);
      const { variant, currency } = await guardSku(input.sku, () =>
        store.transaction(async (trx) => {
          const product = await lockProduct(trx, tenantId, productId);
          const options = productOptions(product);
          checkVariantOptions(options, input.options, 'options');
          if (product.variant_count >= MAX_VARIANTS) {
            throw validationError(
              'id',
              `the product already has ${MAX_VARIANTS} variants, the most a product may have`,
            );
          }
          await checkCombinationFree(trx, product, input.options);
          if (input.sku && (await variantsRepo.takenSku(trx, tenantId, [input.sku])))
            throw duplicateSku(input.sku);
          const now = clock.now();
          const last = product.variant_count + 1;
          const position = Math.min(input.position ?? last, last);
          await variantsRepo.shiftPositions(trx, tenantId, productId, position, last - 1, 1);
          const row: variantsRepo.VariantRow = {
            id: newId('var'),
            tenant_id: tenantId,
            product_id: productId,
            sku: input.sku ?? null,
            sku_key: input.sku?.toLowerCase() ?? null,
            title: variantTitle(options, input.options),
            options: JSON.stringify(input.options),
            option_key: optionKey(input.options),
            price: input.price,
            compare_at_price: input.compare_at_price ?? null,
            stock: input.stock ?? 0,
            committed: 0,
            spread: 0,
            weight_grams: input.weight_grams ?? null,
            barcode: input.barcode ?? null,
            ...newVariantDetails(input),
            position,
            created: now,
            updated: now,
          };
          await variantsRepo.insertVariants(trx, [row]);
          await idempotent.mark(trx, row.id);
          const after = await settle(trx, product, now);
          await emitUpdated(trx, events, after);
          return { variant: row, currency: product.currency };
        }),
      );
      return presentVariant(variant, currency);
    },

    /** Only the fields given change; nothing changed: no write, no event. `codes` as for `create`. */
    async update(
      tenantId: string,
      productId: string,
      id: string,
      input: UpdateVariantBody,
      codes = true,
    ): Promise<VariantObject> {
      checkVariantFields(input, '', codes);
      const { variant, currency } = await guardSku(input.sku, () =>
        store.transaction(async (trx) => {
          const product = await lockProduct(trx, tenantId, productId);
          const before = await variantsRepo.findVariant(trx, tenantId, productId, id);
          if (!before) throw notFound('variant');
          const options = productOptions(product);
          const changes: Partial<variantsRepo.VariantRow> = {};
          if (input.options !== undefined) {
            checkVariantOptions(options, input.options, 'options');
            const key = optionKey(input.options);
            if (key !== before.option_key) {
              await checkCombinationFree(trx, product, input.options, id);
              changes.options = JSON.stringify(input.options);
              changes.option_key = key;
              changes.title = variantTitle(options, input.options);
            }
          }
          if (input.sku !== undefined && input.sku !== before.sku) {
            if (input.sku !== null && (await variantsRepo.takenSku(trx, tenantId, [input.sku], [id])))
              throw duplicateSku(input.sku);
            changes.sku = input.sku;
            changes.sku_key = input.sku?.toLowerCase() ?? null;
          }
          for (const field of ['price', 'compare_at_price', 'stock', 'weight_grams', 'barcode'] as const) {
            const value = input[field];
            if (value !== undefined && value !== before[field]) Object.assign(changes, { [field]: value });
          }
          Object.assign(changes, variantDetailChanges(before, input));
          if (input.position !== undefined) {
            const position = Math.min(input.position, product.variant_count);
            if (position !== before.position) {
              await variantsRepo.updateVariant(trx, tenantId, id, { position: 0 });
              if (position < before.position)
                await variantsRepo.shiftPositions(trx, tenantId, productId, position, before.position - 1, 1);
              else
                await variantsRepo.shiftPositions(
                  trx,
                  tenantId,
                  productId,
                  before.position + 1,
                  position,
                  -1,
                );
              changes.position = position;
            }
          }
          if (Object.keys(changes).length === 0) return { variant: before, currency: product.currency };
          const now = clock.now();
          const after: variantsRepo.VariantRow = { ...before, ...changes, updated: now };
          await variantsRepo.updateVariant(trx, tenantId, id, { ...changes, updated: now });
          const settled = await settle(trx, product, now);
          await emitUpdated(trx, events, settled, before.stock > 0 && after.stock === 0 ? [after] : []);
          return { variant: after, currency: product.currency };
        }),
      );
      return presentVariant(variant, currency);
    },

    /** Deletes a variant; past orders keep their own snapshot. A product keeps at least one (409). */
    async remove(tenantId: string, productId: string, id: string): Promise<void> {
      await store.transaction(async (trx) => {
        const product = await lockProduct(trx, tenantId, productId);
        const variant = await variantsRepo.findVariant(trx, tenantId, productId, id);
        if (!variant) throw notFound('variant');
        if (product.variant_count <= 1) {
          throw new AppError(
            'invalid_state_transition',
            productOptions(product).length === 0
              ? 'A product without options has exactly one variant; delete the product instead.'
              : 'This is the last variant of the product; a product keeps at least one.',
          );
        }
        await variantsRepo.deleteVariants(trx, tenantId, [id]);
        await variantsRepo.shiftPositions(
          trx,
          tenantId,
          productId,
          variant.position + 1,
          product.variant_count,
          -1,
        );
        const after = await settle(trx, product, clock.now());
        await emitUpdated(trx, events, after);
      });
    },
  };
}
