import type { Db } from '../../db/store.js';
import type { EmitInput, EventService } from '../events/index.js';
import { loadProduct, presentProduct, presentVariant, productOptions } from './products.presenter.js';
import * as repo from './products.repository.js';
import { type ProductOption, searchExtra } from './variants.rules.js';
import * as variantsRepo from './variants.repository.js';

/**
 * A product's own figures follow its variants: `price` (the lowest variant price), `price_max`,
 * `stock` (their sum), `variant_count`, `sku` (the one variant's, without options) and the text
 * `q` searches. `settle` sets them after a change of variants, in that change's transaction, with
 * the product's `product_counts` bucket; orders move `stock` by the units they take or give back
 * instead (products.inventory.ts), which keeps the sum.
 */

/** The product as its variants make it, written if it changed; `changes` are the product's own edits. */
export async function settle(
  trx: Db,
  before: repo.ProductRow,
  now: number,
  changes: Partial<repo.ProductRow> = {},
): Promise<repo.ProductRow> {
  const options: ProductOption[] =
    changes.options === undefined ? productOptions(before) : JSON.parse(changes.options);
  const [summary, skus, searched] = await Promise.all([
    variantsRepo.summarize(trx, before.tenant_id, before.id),
    variantsRepo.variantSkus(trx, before.tenant_id, before.id),
    repo.searchExtraOf(trx, before.tenant_id, before.id),
  ]);
  const derived: Partial<repo.ProductRow> = {
    ...changes,
    price: summary.minPrice,
    price_max: summary.maxPrice,
    stock: summary.stock,
    variant_count: summary.count,
    sku: options.length === 0 ? (skus[0] ?? null) : null,
  };
  const changed = Object.fromEntries(
    Object.entries(derived).filter(([key, value]) => before[key as keyof repo.ProductRow] !== value),
  ) as Partial<repo.ProductRow>;
  const text = searchExtra(options, skus);
  if (Object.keys(changed).length === 0 && text === searched) return before;
  const after: repo.ProductRow = { ...before, ...changed, updated: now };
  await repo.updateProduct(trx, before.tenant_id, before.id, {
    ...changed,
    ...(text === searched ? {} : { search_extra: text }),
    updated: now,
  });
  await repo.adjustCounts(trx, before.tenant_id, [
    { ...repo.bucketOf(before), delta: -1 },
    { ...repo.bucketOf(after), delta: 1 },
  ]);
  return after;
}

/**
 * The events of a product changed: `product.updated` with the product as it is now (its first
 * variants included), then `product.outofstock` for each variant that reached 0, with
 * `data.variant` that variant.
 */
export async function updatedEvents(
  trx: Db,
  product: repo.ProductRow,
  soldOut: readonly variantsRepo.VariantRow[] = [],
): Promise<EmitInput[]> {
  const object = await loadProduct(trx, product);
  return eventsOf(product, object, soldOut);
}

/** `updatedEvents` of a product whose first variants (up to VARIANTS_SHOWN) the caller has. */
export function updatedEventsOf(
  product: repo.ProductRow,
  variants: readonly variantsRepo.VariantRow[],
  soldOut: readonly variantsRepo.VariantRow[] = [],
): EmitInput[] {
  return eventsOf(product, presentProduct(product, variants), soldOut);
}

function eventsOf(
  product: repo.ProductRow,
  object: ReturnType<typeof presentProduct>,
  soldOut: readonly variantsRepo.VariantRow[],
): EmitInput[] {
  return [
    { tenantId: product.tenant_id, type: 'product.updated', objectType: 'product', object },
    ...soldOut.map((variant): EmitInput => ({
      tenantId: product.tenant_id,
      type: 'product.outofstock',
      objectType: 'product',
      object,
      extra: { variant: presentVariant(variant, product.currency) },
    })),
  ];
}

/** Emits `updatedEvents` of the product, in one batch. */
export async function emitUpdated(
  trx: Db,
  events: EventService,
  product: repo.ProductRow,
  soldOut: readonly variantsRepo.VariantRow[] = [],
): Promise<void> {
  await events.emitMany(trx, await updatedEvents(trx, product, soldOut));
}
