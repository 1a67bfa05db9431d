import type { Db } from '../../db/store.js';
import { newId } from '../../lib/ids.js';
import { storeLocations } from '../inventory/index.js';
import {
  stockLevels,
  isHandle,
  productOptions,
  type ProductRow,
  findProduct,
  type CreateProductBody,
  buildProduct,
  type NewProduct,
  type TenantRef,
  MAX_OPTION_VALUES,
  MAX_VARIANTS,
  optionKey,
  type ProductOption,
  variantTitle,
  type VariantRow,
} from '../products/index.js';
import {
  carrierOf,
  fail,
  fieldHead,
  ok,
  ownInput,
  type ProductGroup,
  rowsOf,
  variantInput,
} from './imports.product-groups.js';
import type { ProductLine } from './imports.product-lines.js';
import {
  detailsOf,
  type LevelSet,
  namedLevels,
  type Locations,
  newLevels,
  newStock,
  ownChanges,
  variantChanges,
} from './imports.products.changes.js';
import * as repo from './imports.repository.js';
import { type RowError, shown } from './imports.rows.js';
import { fieldErrorsOf } from './imports.validate.js';

/**
 * Products from a file against the store, a product at a time (grouped and checked by
 * imports.product-groups.ts): matched by variant SKU and planned here, to be created
 * (`buildProduct`) or changed (what each row changes: imports.products.changes.ts); the plans are
 * written by imports.products.apply.ts (`insertProduct`, or the variants, then `settle` and
 * `emitUpdated`, as the variants service does), in the caller's transaction.
 *
 * A product's first row carries the product: an error on it keeps the whole product out. An error
 * on another row keeps only that row's variant out.
 */

export type Outcome = 'created' | 'updated' | 'unchanged';

/** How a product's rows go into the store. */
export type Action =
  | { kind: 'create'; product: NewProduct; lines: ProductLine[]; levels: LevelSet[] }
  | {
      kind: 'update';
      before: ProductRow;
      own: Partial<ProductRow>;
      inserts: { line: ProductLine; row: VariantRow }[];
      updates: { line: ProductLine; before: VariantRow; changes: Partial<VariantRow> }[];
      levels: LevelSet[];
    };

/** The store's locations by name (what `PlanContext.locations` is read for). */
export async function locationsByName(db: Db, tenantId: string): Promise<Locations> {
  return new Map((await storeLocations(db, tenantId)).map((row) => [row.name, row.location]));
}

export interface ProductPlan {
  /** The rows that go in, with what each does; the others have errors. */
  outcomes: { line: ProductLine; outcome: Outcome }[];
  /** Every error of the product's rows: the file's and the store's. */
  errors: RowError[];
  action: Action | undefined;
}

export interface PlanContext {
  db: Db;
  tenant: TenantRef;
  mode: 'upsert' | 'create';
  now: number;
  /** Take row locks on what will change (PostgreSQL; in the writing transaction). */
  lock: boolean;
  /** Lines already reported with errors (by the validating pass): they stay out, whatever now. */
  known: ReadonlySet<number>;
  /**
   * The variants of the tenant that the batch's SKUs name, read once for the batch (by SKU key;
   * a key of the batch missing here names no variant). Without it a plan reads its own.
   */
  skus?: ReadonlyMap<string, VariantRow>;
  /** The store's locations by name, read once for the batch; without it a plan reads them. */
  locations?: Locations;
}

/** The SKU keys a product's rows name (what `PlanContext.skus` is read for). */
export function skuKeysOf(group: ProductGroup): string[] {
  return group.lines.flatMap((line) =>
    typeof line.variant.sku === 'string' ? [line.variant.sku.toLowerCase()] : [],
  );
}

async function variantsNamed(ctx: PlanContext, keys: readonly string[]): Promise<VariantRow[]> {
  const known = ctx.skus;
  if (known === undefined) return repo.variantsBySkuKeys(ctx.db, ctx.tenant.id, keys);
  return keys.flatMap((key) => {
    const row = known.get(key);
    return row === undefined ? [] : [row];
  });
}

/** The first row failed: the product's other rows are not imported either. */
function skipProduct(group: ProductGroup, errors: () => RowError[]): ProductPlan {
  const first = carrierOf(group);
  for (const line of rowsOf(group)) {
    if (line !== first && ok(line))
      fail(line, null, `not imported: the product's first row (line ${first.line}) has errors`);
  }
  return { outcomes: [], errors: errors(), action: undefined };
}

/** The column of `line` a field error of `buildProduct` is about (`first` carries the product). */
function buildErrorColumn(
  field: string,
  first: ProductLine,
  good: ProductLine[],
  names: string[],
): { line: ProductLine; field: string } {
  const variant = /^variants\[(\d+)\]\.?(.*)$/.exec(field);
  if (variant) {
    const line = good[Number(variant[1])] ?? first;
    const rest = variant[2] ?? '';
    if (rest.startsWith('options.')) {
      const k = names.indexOf(rest.slice('options.'.length));
      return { line, field: k >= 0 ? `option${k + 1}_value` : 'option1_value' };
    }
    return { line, field: fieldHead(rest) || 'handle' };
  }
  const option = /^options\[(\d+)\]/.exec(field);
  if (option) return { line: first, field: `option${Number(option[1]) + 1}_name` };
  return { line: first, field: fieldHead(field) || 'handle' };
}

/**
 * What a product's rows would do to the store as it is now (read through `ctx.db`): each row's
 * outcome or errors, and the writes. Reads only; `applyProduct` writes.
 */
export async function planProduct(ctx: PlanContext, group: ProductGroup): Promise<ProductPlan> {
  const all = rowsOf(group);
  const errors = (): RowError[] => all.flatMap((line) => line.errors);
  const first = carrierOf(group);
  const notWritten = (line: ProductLine) => !ok(line) || ctx.known.has(line.line);
  if (group.fatal || notWritten(first)) return { outcomes: [], errors: errors(), action: undefined };
  const lines = group.lines.filter((line) => !notWritten(line));
  const names = group.optionNames ?? [];
  const locations = await locationsFor(ctx, lines);

  // Which existing variants the rows' SKUs name, and whose they are.
  const skuKeys = lines.flatMap((line) =>
    typeof line.variant.sku === 'string' ? [line.variant.sku.toLowerCase()] : [],
  );
  const found = new Map((await variantsNamed(ctx, skuKeys)).map((row) => [row.sku_key as string, row]));
  const matched = new Map<ProductLine, VariantRow>();
  let productId: string | undefined;
  let matchedAt: ProductLine | undefined;
  for (const line of lines) {
    const sku = line.variant.sku;
    const variant = typeof sku === 'string' ? found.get(sku.toLowerCase()) : undefined;
    if (variant === undefined) continue;
    if (ctx.mode === 'create') {
      fail(
        line,
        'sku',
        `is the SKU of a variant of product ${variant.product_id}: mode=create adds new products only (mode=upsert changes existing ones)`,
      );
      continue;
    }
    if (productId !== undefined && variant.product_id !== productId) {
      fail(
        line,
        'sku',
        `is the SKU of a variant of product ${variant.product_id}, but the SKU of line ${matchedAt?.line} is one of product ${productId}: one handle is one product`,
      );
      continue;
    }
    productId = variant.product_id;
    matchedAt ??= line;
    matched.set(line, variant);
  }
  if (!ok(first)) return skipProduct(group, errors);
  if (productId === undefined) return planCreate(ctx, group, lines.filter(ok), names, errors, locations);
  const before = await findProduct(ctx.db, ctx.tenant.id, productId, ctx.lock);
  if (!before) {
    // Deleted since its variant was read: nothing to change.
    fail(first, 'sku', `names product ${productId}, which was deleted meanwhile`);
    return { outcomes: [], errors: errors(), action: undefined };
  }
  return planUpdate(ctx, group, before, lines.filter(ok), matched, errors, locations);
}

/**
 * The store's locations by name, when a row names some; a name the store does not have is an
 * error on the row's `stock_by_location`.
 */
async function locationsFor(ctx: PlanContext, lines: readonly ProductLine[]): Promise<Locations> {
  const naming = lines.filter((line) => line.variant.stock_by_location);
  if (naming.length === 0) return new Map();
  const locations = ctx.locations ?? (await locationsByName(ctx.db, ctx.tenant.id));
  for (const line of naming) {
    for (const name of Object.keys(line.variant.stock_by_location ?? {})) {
      if (locations.has(name)) continue;
      fail(
        line,
        'stock_by_location',
        `names the location "${shown(name)}", which the store does not have (its locations are ${[...locations.keys()].join(', ')})`,
      );
    }
  }
  return locations;
}

/**
 * What an existing variant's `stock_by_location` changes: each named location whose units on hand
 * differ. A location cannot hold fewer than it has committed to orders (an error on the row).
 */
async function changedLevels(
  ctx: PlanContext,
  line: ProductLine,
  variant: VariantRow,
  locations: Locations,
): Promise<LevelSet[]> {
  const named = namedLevels(line.variant, locations);
  if (named.length === 0) return [];
  const rows = variant.spread === 0 ? [] : await stockLevels.levelRows(ctx.db, ctx.tenant.id, [variant.id]);
  const levels = stockLevels.levelsOf(variant, rows);
  const set: LevelSet['set'] = [];
  for (const [name, units] of Object.entries(line.variant.stock_by_location ?? {})) {
    const location = locations.get(name);
    if (location === undefined) continue;
    const level = stockLevels.levelFor(levels, location);
    if (level.on_hand === units) continue;
    if (units < level.committed) {
      fail(
        line,
        'stock_by_location',
        `gives ${name} ${units} on hand, fewer than the ${level.committed} committed to orders there`,
      );
      continue;
    }
    set.push({ location, units });
  }
  return set.length === 0 ? [] : [{ line, variantId: variant.id, set }];
}

function planCreate(
  ctx: PlanContext,
  group: ProductGroup,
  lines: ProductLine[],
  names: string[],
  errors: () => RowError[],
  locations: Locations,
): ProductPlan {
  const first = carrierOf(group);
  const skipRest = () => skipProduct(group, errors);
  if (typeof first.own.name !== 'string') {
    fail(first, 'name', 'is required to create a product');
    return skipRest();
  }
  for (const line of lines) {
    if (typeof line.variant.price !== 'number') fail(line, 'price', 'is required for a new variant');
  }
  if (!ok(first)) return skipRest();
  const good = lines.filter(ok);
  const own = ownInput(first.own);
  const variant = (line: ProductLine) =>
    variantInput({ ...line.variant, stock: newStock(line.variant, locations) }, group.values.get(line));
  const options: ProductOption[] = names.map((name) => ({
    name,
    values: [...new Set(good.map((line) => group.values.get(line)?.[name] as string))],
  }));
  // Without options the product's one variant is its (first) variant row's.
  const one = (group.lines[0] as ProductLine).variant;
  const input = (
    names.length === 0
      ? {
          ...own,
          ...(typeof one.sku === 'string' ? { sku: one.sku } : {}),
          price: one.price,
          ...(typeof newStock(one, locations) === 'number' ? { stock: newStock(one, locations) } : {}),
        }
      : { ...own, options, variants: good.map(variant) }
  ) as CreateProductBody;
  let product: NewProduct;
  try {
    // SKUs and barcodes were checked with the file's other rules (imports.product-groups.ts).
    product = buildProduct(ctx.tenant, input, ctx.now, false);
  } catch (error) {
    for (const { field, message } of fieldErrorsOf(error)) {
      const at = buildErrorColumn(field, first, good, names);
      fail(at.line, at.field, message);
    }
    return skipRest();
  }
  // The file's handle names the new product when it is one (`classic-tee`), numbered when another
  // product has it already (`classic-tee-2`); otherwise (`prod_...` of an older export, `Tee 1`)
  // the handle is made from the name, as without one.
  if (isHandle(group.handle)) product.handle = { base: group.handle, exact: false };
  if (names.length === 0) {
    // A product without options takes its one variant's other fields as a PATCH of it would.
    const only = product.variants[0] as VariantRow;
    only.compare_at_price = one.compare_at_price ?? null;
    only.weight_grams = one.weight_grams ?? null;
    only.barcode = one.barcode ?? null;
    Object.assign(only, detailsOf(one));
  }
  return {
    outcomes: [
      ...(group.head ? [{ line: group.head, outcome: 'created' as const }] : []),
      ...good.map((line) => ({ line, outcome: 'created' as const })),
      ...group.passive.filter(ok).map((line) => ({ line, outcome: 'unchanged' as const })),
    ],
    errors: errors(),
    action: {
      kind: 'create',
      product,
      lines: good,
      // Without options the one variant is the first row's; else each row's, in order.
      levels: (names.length === 0 ? good.slice(0, 1) : good).flatMap((line, i) =>
        newLevels(line, (product.variants[i] as VariantRow).id, locations),
      ),
    },
  };
}

async function planUpdate(
  ctx: PlanContext,
  group: ProductGroup,
  before: ProductRow,
  lines: ProductLine[],
  matched: Map<ProductLine, VariantRow>,
  errors: () => RowError[],
  locations: Locations,
): Promise<ProductPlan> {
  const first = carrierOf(group);
  const existing = productOptions(before);
  const names = group.optionNames;
  const skip = () => skipProduct(group, errors);
  if (names !== undefined) {
    const same = names.length === existing.length && existing.every((option) => names.includes(option.name));
    if (!same) {
      fail(
        first,
        'option1_name',
        existing.length === 0
          ? `names options, but product ${before.id} has none: an import does not add options to a product (change them through the API)`
          : `must name the options of product ${before.id} (${existing.map((o) => o.name).join(', ')}): an import does not rename or add options`,
      );
      return skip();
    }
  }
  const merged: ProductOption[] = existing.map((option) => ({
    name: option.name,
    values: [...option.values],
  }));
  const unmatched = lines.filter((line) => !matched.has(line));
  const byCombination = new Map(
    (
      await repo.variantsByOptionKeys(
        ctx.db,
        ctx.tenant.id,
        before.id,
        names === undefined ? [] : unmatched.map((line) => optionKey(group.values.get(line) ?? {})),
      )
    ).map((row) => [row.option_key, row]),
  );
  const inserts: { line: ProductLine; row: VariantRow }[] = [];
  const updates: { line: ProductLine; before: VariantRow; changes: Partial<VariantRow> }[] = [];
  const levels: LevelSet[] = [];
  const outcomes: { line: ProductLine; outcome: Outcome }[] = [];
  for (const line of lines) {
    const values = group.values.get(line) ?? {};
    const sku = line.variant.sku;
    let target = matched.get(line);
    if (target === undefined && names !== undefined) {
      target = byCombination.get(optionKey(values));
      if (
        target !== undefined &&
        target.sku !== null &&
        (typeof sku !== 'string' || sku.toLowerCase() !== target.sku_key)
      ) {
        fail(
          line,
          'sku',
          `${typeof sku === 'string' ? `is "${sku}", but` : 'is empty, but'} the variant ${target.title} of product ${before.id} has the SKU "${target.sku}": a variant's SKU changes through the API`,
        );
        continue;
      }
    }
    if (target !== undefined) {
      if (names !== undefined && names.length > 0 && target.option_key !== optionKey(values)) {
        fail(
          line,
          'option1_value',
          `names ${variantTitle(existing, values)}, but the variant with this SKU is ${target.title}: a variant's options change through the API`,
        );
        continue;
      }
      const moved = await changedLevels(ctx, line, target, locations);
      if (!ok(line)) continue;
      const changes = variantChanges(target, line.variant);
      if (Object.keys(changes).length > 0) updates.push({ line, before: target, changes });
      levels.push(...moved);
      const changed = Object.keys(changes).length > 0 || moved.length > 0;
      outcomes.push({ line, outcome: changed ? 'updated' : 'unchanged' });
      continue;
    }
    if (names === undefined || existing.length === 0) {
      fail(line, 'sku', `matches no variant of product ${before.id}; a new variant needs its option values`);
      continue;
    }
    if (typeof line.variant.price !== 'number') {
      fail(line, 'price', 'is required for a new variant');
      continue;
    }
    if (before.variant_count + inserts.length >= MAX_VARIANTS) {
      fail(
        line,
        'handle',
        `would give product ${before.id} more than the ${MAX_VARIANTS} variants a product may have`,
      );
      continue;
    }
    // New option values join the product's options (as a PATCH of `options` would add them).
    let refused = false;
    for (const option of merged) {
      const value = values[option.name] as string;
      const column = `option${names.indexOf(option.name) + 1}_value`;
      const folded = value.toLocaleLowerCase('und');
      const same = option.values.find((known) => known.toLocaleLowerCase('und') === folded);
      if (same !== undefined && same !== value) {
        fail(line, column, `is "${same}" of product ${before.id} written another way`);
        refused = true;
      } else if (same === undefined && option.values.length >= MAX_OPTION_VALUES) {
        fail(line, column, `would be past the ${MAX_OPTION_VALUES} values an option may have`);
        refused = true;
      }
    }
    if (refused) continue;
    for (const option of merged) {
      const value = values[option.name] as string;
      if (!option.values.includes(value)) option.values.push(value);
    }
    const id = newId('var');
    levels.push(...newLevels(line, id, locations));
    inserts.push({
      line,
      row: {
        id,
        tenant_id: ctx.tenant.id,
        product_id: before.id,
        sku: typeof sku === 'string' ? sku : null,
        sku_key: typeof sku === 'string' ? sku.toLowerCase() : null,
        title: variantTitle(existing, values),
        options: JSON.stringify(values),
        option_key: optionKey(values),
        price: line.variant.price,
        compare_at_price: line.variant.compare_at_price ?? null,
        stock: newStock(line.variant, locations) ?? 0,
        committed: 0,
        spread: 0,
        weight_grams: line.variant.weight_grams ?? null,
        barcode: line.variant.barcode ?? null,
        ...detailsOf(line.variant),
        position: before.variant_count + inserts.length + 1,
        created: ctx.now,
        updated: ctx.now,
      },
    });
    outcomes.push({ line, outcome: 'created' });
  }
  const own = ownChanges(before, first.own);
  const options = JSON.stringify(merged);
  if (options !== before.options) own.options = options;
  const ownChanged = Object.keys(own).some((key) => key !== 'options');
  const firstOutcome = outcomes.find((entry) => entry.line === first);
  if (ownChanged && firstOutcome?.outcome === 'unchanged') firstOutcome.outcome = 'updated';
  if (group.head) outcomes.unshift({ line: group.head, outcome: ownChanged ? 'updated' : 'unchanged' });
  outcomes.push(...group.passive.filter(ok).map((line) => ({ line, outcome: 'unchanged' as const })));
  const changed =
    ownChanged || own.options !== undefined || inserts.length > 0 || updates.length > 0 || levels.length > 0;
  return {
    outcomes,
    errors: errors(),
    action: changed ? { kind: 'update', before, own, inserts, updates, levels } : undefined,
  };
}
