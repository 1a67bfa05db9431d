import type { Selectable } from 'kysely';
import type { Db } from '../../db/store.js';
import { AppError, validationError } from '../../lib/errors.js';
import * as repo from './products.repository.js';
import type { StockLevelsTable } from './products.tables.js';
import * as variantsRepo from './variants.repository.js';

/**
 * A variant's stock per location. The store's default location is the variant's own row: its
 * available units are the variant's `stock` less what the other fulfilling locations have
 * available, its committed units the variant's `committed` less the others'. Any other location
 * that holds a level of the variant has a `stock_levels` row (the variant's `spread` counts them),
 * so a variant of a store with one location (`spread` 0) is one row, and orders move it with the
 * one conditional UPDATE they always made (products.inventory.ts).
 *
 * A variant's `stock` is the sum of `available` (= `on_hand - committed`) over the locations that
 * fulfil online orders; its `committed` the sum of `committed` over all locations. Orders commit
 * units from locations in the store's order (the default one first, then by position), never
 * more than a location has available; a fulfilment ships committed units from a location
 * (`on_hand` and `committed` go down). Every change to a variant's levels takes its row lock
 * first (on SQLite the write transaction excludes every other writer), so levels are read and
 * written by one writer at a time.
 *
 * The operations (`commit`, `release`, `fulfil`, `receive`, `adjust`) are pure: levels in, levels
 * out. `changeLevels` reads, applies one and writes back.
 */

/** A location as stock levels see it: the inventory module's locations give these. */
export interface LevelLocation {
  id: string;
  position: number;
  fulfills: boolean;
  /** The store's default location: its level is the variant's own row. */
  isDefault: boolean;
}

/** One location's level of a variant. `location_id` null: the store's default location. */
export interface Level {
  location_id: string | null;
  position: number;
  fulfills: boolean;
  on_hand: number;
  committed: number;
}

export type LevelRow = Selectable<StockLevelsTable>;

const available = (level: Level): number => level.on_hand - level.committed;

/** The variant's levels: the default location first, then the others in the store's order. */
export function levelsOf(
  variant: Pick<variantsRepo.VariantRow, 'stock' | 'committed'>,
  rows: readonly LevelRow[],
): Level[] {
  const others = [...rows]
    .sort((a, b) => a.position - b.position)
    .map((row) => ({
      location_id: row.location_id,
      position: row.position,
      fulfills: row.fulfills === 1,
      on_hand: Number(row.on_hand),
      committed: Number(row.committed),
    }));
  const committed = Number(variant.committed) - others.reduce((sum, level) => sum + level.committed, 0);
  const stock =
    variant.stock - others.reduce((sum, level) => sum + (level.fulfills ? available(level) : 0), 0);
  return [
    { location_id: null, position: 0, fulfills: true, on_hand: stock + committed, committed },
    ...others,
  ];
}

/** The variant's `stock` and `committed` its levels make. */
export function totalsOf(levels: readonly Level[]): { stock: number; committed: number } {
  return {
    stock: levels.reduce((sum, level) => sum + (level.fulfills ? available(level) : 0), 0),
    committed: levels.reduce((sum, level) => sum + level.committed, 0),
  };
}

const copy = (levels: readonly Level[]): Level[] => levels.map((level) => ({ ...level }));

/** The level of `at` among `levels` (added, empty, when it holds none yet). */
function levelAt(levels: Level[], at: LevelLocation): Level {
  const id = at.isDefault ? null : at.id;
  let level = levels.find((candidate) => candidate.location_id === id);
  if (!level) {
    level = { location_id: at.id, position: at.position, fulfills: at.fulfills, on_hand: 0, committed: 0 };
    levels.push(level);
  }
  return level;
}

/**
 * Commits `quantity` units from the fulfilling locations in order, never more than one has
 * available; undefined when they have fewer in all.
 */
export function commit(levels: readonly Level[], quantity: number): Level[] | undefined {
  const after = copy(levels);
  let left = quantity;
  for (const level of after) {
    if (left === 0) break;
    if (!level.fulfills) continue;
    const taken = Math.min(left, Math.max(0, available(level)));
    level.committed += taken;
    left -= taken;
  }
  return left === 0 ? after : undefined;
}

/**
 * Gives back `quantity` committed units: the default location's first, then the others' in order.
 * Units committed before locations existed (or held by a cart before) have no committed unit left
 * to give back: they come back on hand at the default location.
 */
export function release(levels: readonly Level[], quantity: number): Level[] {
  const after = copy(levels);
  let left = quantity;
  for (const level of after) {
    const given = Math.min(left, Math.max(0, level.committed));
    level.committed -= given;
    left -= given;
  }
  const home = after[0];
  if (home && left > 0) home.on_hand += left;
  return after;
}

/**
 * Ships `quantity` committed units from `at`: its own committed units first; units committed at
 * other locations are released there and taken from what `at` has available (422
 * `insufficient_stock` when it has too few).
 */
export function fulfil(
  levels: readonly Level[],
  at: LevelLocation,
  quantity: number,
  variantId: string,
): Level[] {
  const after = copy(levels);
  const level = levelAt(after, at);
  const own = Math.min(quantity, Math.max(0, level.committed));
  level.committed -= own;
  let elsewhere = quantity - own;
  const moved = elsewhere;
  for (const other of after) {
    if (elsewhere === 0) break;
    if (other === level) continue;
    const given = Math.min(elsewhere, Math.max(0, other.committed));
    other.committed -= given;
    elsewhere -= given;
  }
  // Units with no commitment left anywhere (an order placed before locations existed) were
  // taken out of stock then: only those committed elsewhere are taken from `at` now.
  const fromAvailable = moved - elsewhere;
  if (level.on_hand - (level.committed + own) < fromAvailable) {
    throw new AppError(
      'insufficient_stock',
      `Not enough stock of ${variantId} at location ${at.id}: ${fromAvailable} more needed than it has available.`,
      { extra: { variant_id: variantId, location_id: at.id } },
    );
  }
  level.on_hand -= quantity - elsewhere;
  return after;
}

/**
 * Writes off `quantity` committed units (refunded without restock before they shipped): taken
 * from what is committed, in the order `release` gives back, and from what is on hand with them.
 */
export function writeOff(levels: readonly Level[], quantity: number): Level[] {
  const after = copy(levels);
  let left = quantity;
  for (const level of after) {
    const taken = Math.min(left, Math.max(0, level.committed));
    level.committed -= taken;
    level.on_hand -= taken;
    left -= taken;
  }
  return after;
}

/** Puts `quantity` units on hand at `at` (a return restocked there). */
export function receive(levels: readonly Level[], at: LevelLocation, quantity: number): Level[] {
  const after = copy(levels);
  levelAt(after, at).on_hand += quantity;
  return after;
}

/**
 * Changes what `at` has on hand by `delta`, or to `set`; never below what it has committed
 * (`field` names the refused input).
 */
export function adjust(
  levels: readonly Level[],
  at: LevelLocation,
  change: { delta: number } | { set: number },
  field: string,
): Level[] {
  const after = copy(levels);
  const level = levelAt(after, at);
  const onHand = 'set' in change ? change.set : level.on_hand + change.delta;
  if (onHand < level.committed) {
    throw validationError(
      field,
      `would leave ${onHand} on hand at ${at.id}, fewer than the ${level.committed} committed to orders there`,
    );
  }
  level.on_hand = onHand;
  return after;
}

/** The level of `location` among the variant's levels (zeros when it holds none). */
export function levelFor(levels: readonly Level[], location: LevelLocation): Level {
  const id = location.isDefault ? null : location.id;
  return (
    levels.find((level) => level.location_id === id) ?? {
      location_id: location.id,
      position: location.position,
      fulfills: location.fulfills,
      on_hand: 0,
      committed: 0,
    }
  );
}

// ---------------------------------------------------------------------------------------------
// The store's side

/** A variant's levels rows (the locations other than the default one). */
export async function levelRows(
  db: Db,
  tenantId: string,
  variantIds: readonly string[],
): Promise<LevelRow[]> {
  if (variantIds.length === 0) return [];
  return db
    .selectFrom('stock_levels')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('variant_id', 'in', [...variantIds])
    .orderBy('variant_id')
    .orderBy('position')
    .forUpdate()
    .execute();
}

/** What `changeLevels` did to a variant. */
export interface LevelChange {
  variant: variantsRepo.VariantRow;
  /** Its `stock` after less before. */
  stockDelta: number;
  levels: Level[];
}

/**
 * Reads the variant's levels under its row lock, applies `op` and writes what changed: the
 * `stock_levels` rows, and the variant's `stock`, `committed` and `spread`. Undefined for a
 * variant that is not (or no longer) there. The caller moves the product's `stock` by
 * `stockDelta` (the product's lock comes first, as every writer of variants takes them).
 */
export async function changeLevels(
  trx: Db,
  tenantId: string,
  variantId: string,
  op: (levels: Level[], variant: variantsRepo.VariantRow) => Level[],
  now: number,
): Promise<LevelChange | undefined> {
  const variant = await trx
    .selectFrom('product_variants')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', variantId)
    .forUpdate()
    .executeTakeFirst();
  if (!variant) return undefined;
  const rows = variant.spread === 0 ? [] : await levelRows(trx, tenantId, [variantId]);
  const before = levelsOf(variant, rows);
  const after = op(before, variant);
  for (const level of after) {
    if (level.location_id === null) continue;
    const was = before.find((candidate) => candidate.location_id === level.location_id);
    if (was && was.on_hand === level.on_hand && was.committed === level.committed) continue;
    if (was) {
      await trx
        .updateTable('stock_levels')
        .set({ on_hand: level.on_hand, committed: level.committed, updated: now })
        .where('variant_id', '=', variantId)
        .where('location_id', '=', level.location_id)
        .execute();
    } else {
      await trx
        .insertInto('stock_levels')
        .values({
          tenant_id: tenantId,
          variant_id: variantId,
          product_id: variant.product_id,
          location_id: level.location_id,
          position: level.position,
          fulfills: level.fulfills ? 1 : 0,
          on_hand: level.on_hand,
          committed: level.committed,
          updated: now,
        })
        .execute();
    }
  }
  const totals = totalsOf(after);
  const spread = after.length - 1;
  const changed =
    totals.stock !== variant.stock ||
    totals.committed !== Number(variant.committed) ||
    spread !== variant.spread;
  const written = changed
    ? await trx
        .updateTable('product_variants')
        .set({ stock: totals.stock, committed: totals.committed, spread, updated: now })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', variantId)
        .returningAll()
        .executeTakeFirstOrThrow()
    : variant;
  return { variant: written, stockDelta: totals.stock - variant.stock, levels: after };
}

/** What `changeStock` did: the product and variant as changed (for their events). */
export interface StockChange {
  product: repo.ProductRow | undefined;
  variant: variantsRepo.VariantRow;
  levels: Level[];
  stockDelta: number;
}

/**
 * `changeLevels` with the product's side: its lock first, then its kept `stock` and its
 * `product_counts` bucket moved by what the variant's moved. Undefined for an unknown variant.
 */
export async function changeStock(
  trx: Db,
  tenantId: string,
  variantId: string,
  op: (levels: Level[], variant: variantsRepo.VariantRow) => Level[],
  now: number,
): Promise<StockChange | undefined> {
  const [found] = await variantsRepo.findVariantsByIds(trx, tenantId, [variantId]);
  if (!found) return undefined;
  const [locked] = await repo.findProductsByIds(trx, tenantId, [found.product_id], true);
  const change = await changeLevels(trx, tenantId, variantId, op, now);
  if (!change) return undefined;
  let product: repo.ProductRow | undefined = locked;
  if (change.stockDelta !== 0) {
    product = await repo.moveStock(trx, tenantId, found.product_id, change.stockDelta, now);
    if (product && locked && product.stock > 0 !== locked.stock > 0) {
      await repo.adjustCounts(trx, tenantId, [
        { ...repo.bucketOf(locked), delta: -1 },
        { ...repo.bucketOf(product), delta: 1 },
      ]);
    }
  }
  return { product, variant: change.variant, levels: change.levels, stockDelta: change.stockDelta };
}

/**
 * A location's changed `fulfills_online_orders`, copied to its levels; each variant's `stock` (and
 * its product's) moves by what the location has available. Runs in the location's transaction.
 */
export async function locationFulfills(
  trx: Db,
  tenantId: string,
  locationId: string,
  fulfills: boolean,
  now: number,
): Promise<void> {
  // Products in id order, each one's variants in id order: the order every writer of stock takes
  // their locks in, so this never waits on an order in a cycle.
  const rows = await trx
    .selectFrom('stock_levels')
    .select(['variant_id'])
    .where('tenant_id', '=', tenantId)
    .where('location_id', '=', locationId)
    .orderBy('product_id')
    .orderBy('variant_id')
    .execute();
  for (const { variant_id } of rows) {
    await changeStock(
      trx,
      tenantId,
      variant_id,
      (levels) => levels.map((level) => (level.location_id === locationId ? { ...level, fulfills } : level)),
      now,
    );
  }
  await trx
    .updateTable('stock_levels')
    .set({ fulfills: fulfills ? 1 : 0, updated: now })
    .where('tenant_id', '=', tenantId)
    .where('location_id', '=', locationId)
    .execute();
}

/** Whether any variant has units on hand or committed at the location. */
export async function locationHoldsStock(db: Db, tenantId: string, locationId: string): Promise<boolean> {
  const row = await db
    .selectFrom('stock_levels')
    .select('variant_id')
    .where('tenant_id', '=', tenantId)
    .where('location_id', '=', locationId)
    .where((eb) => eb.or([eb('on_hand', '<>', 0), eb('committed', '<>', 0)]))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Drops a location's empty levels (the location is being deleted), and the variants' `spread` with them. */
export async function dropLocationLevels(
  trx: Db,
  tenantId: string,
  locationId: string,
  now: number,
): Promise<void> {
  const rows = await trx
    .selectFrom('stock_levels')
    .select('variant_id')
    .where('tenant_id', '=', tenantId)
    .where('location_id', '=', locationId)
    .execute();
  if (rows.length === 0) return;
  await trx
    .deleteFrom('stock_levels')
    .where('tenant_id', '=', tenantId)
    .where('location_id', '=', locationId)
    .execute();
  await trx
    .updateTable('product_variants')
    .set((eb) => ({ spread: eb('spread', '-', 1), updated: now }))
    .where('tenant_id', '=', tenantId)
    .where(
      'id',
      'in',
      rows.map((row) => row.variant_id),
    )
    .execute();
}

/** A variant's units in stock at each location named (for exports): location id -> on hand. */
export async function onHandByLocation(
  db: Db,
  tenantId: string,
  variants: readonly Pick<variantsRepo.VariantRow, 'id' | 'stock' | 'committed' | 'spread'>[],
): Promise<Map<string, Map<string | null, number>>> {
  const spread = variants.filter((variant) => variant.spread > 0).map((variant) => variant.id);
  const rows =
    spread.length === 0
      ? []
      : await db
          .selectFrom('stock_levels')
          .selectAll()
          .where('tenant_id', '=', tenantId)
          .where('variant_id', 'in', spread)
          .execute();
  const result = new Map<string, Map<string | null, number>>();
  for (const variant of variants) {
    const levels = levelsOf(
      variant,
      rows.filter((row) => row.variant_id === variant.id),
    );
    result.set(variant.id, new Map(levels.map((level) => [level.location_id, level.on_hand])));
  }
  return result;
}
