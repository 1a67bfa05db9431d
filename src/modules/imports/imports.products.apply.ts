import type { Db } from '../../db/store.js';
import type { EventService } from '../events/index.js';
import { setOnHand } from '../inventory/index.js';
import {
  duplicateSku,
  emitUpdated,
  findProduct,
  insertNewProducts,
  insertProduct,
  insertVariants,
  settle,
  takenSku,
  updateVariant,
  type VariantRow,
} from '../products/index.js';
import type { ProductLine } from './imports.product-lines.js';
import type { LevelSet } from './imports.products.changes.js';
import type { Action, ProductPlan } from './imports.products.js';
import type { RowError } from './imports.rows.js';
import { isConflict } from './imports.validate.js';

/**
 * Writes the plans of imports.products.ts in the caller's transaction: new products (several at
 * once, or one), an existing product's variants, units at locations, then its figures and events.
 */

/**
 * Writes the new products of several plans at once (`insertNewProducts`: a statement per table for
 * all of them). A SKU taken meanwhile by any sends each back through `applyProduct`, which finds
 * whose it is. Returns each plan's errors, in order.
 */
export async function applyNewProducts(
  trx: Db,
  events: EventService,
  plans: readonly ProductPlan[],
  now: number,
): Promise<RowError[][]> {
  const products = plans.flatMap((plan) => (plan.action?.kind === 'create' ? [plan.action.product] : []));
  if (products.length !== plans.length) throw new Error('applyNewProducts takes plans that create');
  try {
    await insertNewProducts(trx, events, products);
    for (const plan of plans) {
      if (plan.action?.kind === 'create') await settleNewLevels(trx, events, plan.action, now);
    }
    return plans.map(() => []);
  } catch (error) {
    if (!isConflict(error)) throw error;
    const out: RowError[][] = [];
    for (const plan of plans) out.push(await applyProduct(trx, events, plan, now));
    return out;
  }
}

/**
 * Sets the units on hand the plan's rows give at locations (adjustments with reason `import`);
 * answers the variants this took to 0. The caller settles the product.
 */
async function applyLevels(
  trx: Db,
  tenantId: string,
  levels: readonly LevelSet[],
  now: number,
): Promise<VariantRow[]> {
  const soldOut = new Map<string, VariantRow>();
  for (const { line, variantId, set } of levels) {
    for (const { location, units } of set) {
      const changed = await setOnHand(trx, {
        tenantId,
        variantId,
        location,
        units,
        reason: 'import',
        field: line.columnOf('stock_by_location'),
        now,
      });
      if (changed && changed.stockDelta < 0 && changed.variant.stock === 0) {
        soldOut.set(variantId, changed.variant);
      }
    }
  }
  return [...soldOut.values()];
}

/** A new product's units at locations other than the default one, then its figures and event. */
async function settleNewLevels(
  trx: Db,
  events: EventService,
  action: Extract<Action, { kind: 'create' }>,
  now: number,
): Promise<void> {
  if (action.levels.length === 0) return;
  const { id, tenant_id: tenantId } = action.product.row;
  await applyLevels(trx, tenantId, action.levels, now);
  const product = await findProduct(trx, tenantId, id, true);
  if (!product) throw new Error(`product ${id} vanished in its own transaction`);
  await emitUpdated(trx, events, await settle(trx, product, now));
}

/** The row a 409 on `sku` is about. */
function lineOfSku(lines: readonly ProductLine[], sku: string): ProductLine | undefined {
  return lines.find((line) => line.variant.sku?.toLowerCase() === sku.toLowerCase());
}

/**
 * Writes a plan in `trx`: a new product through `insertProduct` (with `product.created`), or the
 * variants of an existing one, then its figures (`settle`) and `product.updated` (and
 * `product.outofstock` for a variant taken to 0). A SKU taken meanwhile turns the rows it names
 * into errors and writes nothing of the product; returns those errors.
 */
export async function applyProduct(
  trx: Db,
  events: EventService,
  plan: ProductPlan,
  now: number,
): Promise<RowError[]> {
  const action = plan.action;
  if (action === undefined) return [];
  try {
    if (action.kind === 'create') {
      await insertProduct(trx, events, action.product);
      await settleNewLevels(trx, events, action, now);
      return [];
    }
    const tenantId = action.before.tenant_id;
    // Every check before the first write: a conflict leaves nothing of the product written.
    const newSkus = action.inserts.flatMap(({ row }) => (row.sku === null ? [] : [row.sku]));
    const taken = await takenSku(trx, tenantId, newSkus);
    if (taken !== undefined) throw duplicateSku(taken);
    for (const { before, changes } of action.updates) {
      if (changes.sku === undefined || changes.sku === null) continue;
      const clash = await takenSku(trx, tenantId, [changes.sku], [before.id]);
      if (clash !== undefined) throw duplicateSku(clash);
    }
    await insertVariants(
      trx,
      action.inserts.map(({ row }) => row),
    );
    const soldOut: VariantRow[] = [];
    for (const { before, changes } of action.updates) {
      await updateVariant(trx, tenantId, before.id, { ...changes, updated: now });
      if (before.stock > 0 && changes.stock === 0) soldOut.push({ ...before, ...changes, updated: now });
    }
    soldOut.push(...(await applyLevels(trx, tenantId, action.levels, now)));
    const after = await settle(trx, action.before, now, action.own);
    await emitUpdated(trx, events, after, soldOut);
    return [];
  } catch (error) {
    if (!isConflict(error)) throw error;
    const sku = /"([^"]+)"/.exec(error.detail)?.[1] ?? '';
    const lines =
      action.kind === 'create'
        ? action.lines
        : [...action.inserts, ...action.updates].map((entry) => entry.line);
    const line = lineOfSku(lines, sku) ?? lines[0];
    return line === undefined
      ? []
      : [{ line: line.line, column: line.columnOf('sku'), message: error.detail }];
  }
}
