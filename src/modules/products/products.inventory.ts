import type { Db, DialectName } from '../../db/store.js';
import { AppError, validationError } from '../../lib/errors.js';
import type { EmitInput, EventService } from '../events/index.js';
import * as levels from './products.levels.js';
import * as repo from './products.repository.js';
import { takeProductStock } from './products.stock-take.js';
import { updatedEventsOf } from './products.rollup.js';
import { VARIANTS_SHOWN } from './variants.rules.js';
import * as variantsRepo from './variants.repository.js';

/**
 * The inventory side of products: orders take units out of their variants' stock and put them
 * back here. Every function runs in the caller's transaction (the order's), so stock, the kept
 * `product_counts` and the stock events commit with the order or not at all. Products are locked
 * first, in id order (as every writer of variants does), then variants move in id order: two
 * orders never deadlock on each other's products. A product's `stock`, the sum of its variants',
 * moves by the units its variants moved.
 */

/** Units of one variant an order takes or gives back. */
export interface StockLine {
  product_id: string;
  variant_id: string;
  quantity: number;
}

/** An order item as requested: a variant, or a product with one variant. */
export interface ItemRef {
  variant_id?: string | undefined;
  product_id?: string | undefined;
  quantity: number;
}

/** An order's products and variants as read, by id: what its rules are checked and it is priced on. */
export interface LineRows {
  products: Map<string, repo.ProductRow>;
  variants: Map<string, variantsRepo.VariantRow>;
}

/** Products and variants a caller read in its transaction already (`readLines` reads them no more). */
export interface KnownLineRows {
  products: ReadonlyMap<string, repo.ProductRow>;
  variants: ReadonlyMap<string, variantsRepo.VariantRow>;
}

/**
 * Each item as the variant it names: its `variant_id`, or the only variant of its `product_id`.
 * A product with several variants named by `product_id` is a 400 asking for `variant_id`; one
 * variant named twice is a 400 (one line per variant).
 */
export async function resolveLines(
  db: Db,
  tenantId: string,
  items: readonly ItemRef[],
): Promise<StockLine[]> {
  return (await readLines(db, tenantId, items, false)).lines;
}

/**
 * `resolveLines`, with the lines' products and variants as read (no lock: the reservation
 * takes the rows' locks and answers them as reserved). `all`: every line's product is read, not
 * only those named without a variant.
 */
export async function readLines(
  db: Db,
  tenantId: string,
  items: readonly ItemRef[],
  all = true,
  known?: KnownLineRows,
): Promise<{ lines: StockLine[]; rows: LineRows }> {
  items.forEach((item, index) => {
    if (item.variant_id === undefined && item.product_id === undefined) {
      throw validationError(
        `items[${index}].variant_id`,
        'is required (or product_id, for a product with one variant)',
      );
    }
  });
  const named = items.flatMap((item) => (item.variant_id === undefined ? [] : [item.variant_id]));
  // Rows the caller read in this transaction already serve when they hold every line's variant
  // and its product (a cart's completion, all its lines by variant).
  const knownRows =
    known !== undefined &&
    named.length === items.length &&
    named.every((id) => {
      const variant = known.variants.get(id);
      return variant !== undefined && known.products.has(variant.product_id);
    })
      ? known
      : undefined;
  const byVariant = new Map(
    (knownRows
      ? named.map((id) => knownRows.variants.get(id) as variantsRepo.VariantRow)
      : await variantsRepo.findVariantsByIds(db, tenantId, named)
    ).map((variant) => [variant.id, variant]),
  );
  const productIds = new Set(
    items.flatMap((item) =>
      item.variant_id === undefined && item.product_id !== undefined ? [item.product_id] : [],
    ),
  );
  if (all) for (const variant of byVariant.values()) productIds.add(variant.product_id);
  const products = new Map(
    (knownRows
      ? [...productIds].map((id) => knownRows.products.get(id) as repo.ProductRow)
      : await repo.findProductsByIds(db, tenantId, [...productIds])
    ).map((product) => [product.id, product]),
  );
  const productOnly = items.flatMap((item) =>
    item.variant_id === undefined && item.product_id !== undefined ? [item.product_id] : [],
  );
  const sole = new Map(
    (
      await variantsRepo.soleVariants(
        db,
        tenantId,
        productOnly.filter((id) => products.get(id)?.variant_count === 1),
      )
    ).map((variant) => [variant.product_id, variant]),
  );
  const seen = new Map<string, number>();
  const variants = new Map<string, variantsRepo.VariantRow>();
  const lines = items.map((item, index) => {
    let variant: variantsRepo.VariantRow | undefined;
    if (item.variant_id !== undefined) {
      variant = byVariant.get(item.variant_id);
      if (!variant) throw new AppError('not_found', `No such variant: ${item.variant_id}.`);
      if (item.product_id !== undefined && item.product_id !== variant.product_id) {
        throw validationError(`items[${index}].product_id`, `is not the product of variant ${variant.id}`);
      }
    } else {
      const productId = item.product_id as string;
      const product = products.get(productId);
      if (!product) throw new AppError('not_found', `No such product: ${productId}.`);
      variant = sole.get(productId);
      if (product.variant_count !== 1 || !variant) {
        throw validationError(
          `items[${index}].variant_id`,
          `is required: product ${productId} has ${product.variant_count} variants; name one by variant_id`,
        );
      }
    }
    const earlier = seen.get(variant.id);
    if (earlier !== undefined) {
      const field = item.variant_id === undefined ? 'product_id' : 'variant_id';
      throw validationError(
        `items[${index}].${field}`,
        `names the variant of items[${earlier}] again; send one line per variant`,
      );
    }
    seen.set(variant.id, index);
    variants.set(variant.id, variant);
    return { product_id: variant.product_id, variant_id: variant.id, quantity: item.quantity };
  });
  return { lines, rows: { products, variants } };
}

export interface Reservation {
  /** Each product as reserved, by id. */
  products: Map<string, repo.ProductRow>;
  /** Each variant as reserved, by id: with its product, the snapshot an order's lines are made from. */
  variants: Map<string, variantsRepo.VariantRow>;
  /** The `product_counts` changes of the products it took to 0, applied by `countReservation`. */
  counts: repo.CountDelta[];
  /** The variants it took to 0, for `product.outofstock`. */
  soldOut: variantsRepo.VariantRow[];
}

/** The rows an order's rules are checked on: its products and variants. */
export type CheckLines = (
  products: ReadonlyMap<string, repo.ProductRow>,
  variants: ReadonlyMap<string, variantsRepo.VariantRow>,
) => void;

/**
 * Takes every line's units with a conditional update (never below zero), or none of them:
 * `insufficient_stock` names the first line that cannot be served. `check` sees the rows before
 * (refusing what it must) and again as reserved. The products' rows are locked by their update,
 * in id order, before their variants', in id order (as every writer of variants takes them): two
 * orders never deadlock on each other's products. `before`: the rows as the caller read them in
 * this transaction (else they are read here); the reservation answers them as reserved, locked
 * until the transaction ends, so a caller that takes the stock last holds a product busy with
 * other orders the shortest. On PostgreSQL each product and its variants move in one statement
 * (products.stock-take.ts): one round trip a product.
 */
export async function reserve(
  trx: Db,
  tenantId: string,
  lines: readonly StockLine[],
  now: number,
  check: CheckLines,
  dialect: DialectName,
  before?: LineRows,
): Promise<Reservation> {
  const read = before ?? (await rowsOf(trx, tenantId, lines));
  check(read.products, read.variants);
  const taken = new Map<string, number>();
  for (const line of lines) taken.set(line.product_id, (taken.get(line.product_id) ?? 0) + line.quantity);
  const reservedProducts = new Map<string, repo.ProductRow>();
  const reservedVariants = new Map<string, variantsRepo.VariantRow>();
  const counts: repo.CountDelta[] = [];
  const soldOut: variantsRepo.VariantRow[] = [];
  const byVariant = [...lines].sort((a, b) => compare(a.variant_id, b.variant_id));
  /** The product as moved, and its variants that gave their units at its default location. */
  const moved = new Map<string, repo.ProductRow>();
  const given = new Map<string, variantsRepo.VariantRow>();
  for (const productId of [...taken.keys()].sort(compare)) {
    const quantity = taken.get(productId) as number;
    const ofProduct = byVariant.filter((line) => line.product_id === productId);
    if (dialect === 'postgres') {
      const took = await takeProductStock(trx, tenantId, productId, ofProduct, now);
      if (took.product) moved.set(productId, took.product);
      for (const variant of took.variants) given.set(variant.id, variant);
    } else {
      const after = await repo.moveStock(trx, tenantId, productId, -quantity, now);
      if (after) moved.set(productId, after);
    }
    const after = moved.get(productId);
    if (!after) continue; // deleted meanwhile: the check below refuses it
    reservedProducts.set(after.id, after);
    if (after.stock === 0) {
      counts.push({ ...repo.bucketOf({ ...after, stock: quantity }), delta: -1 });
      counts.push({ ...repo.bucketOf(after), delta: 1 });
    }
  }
  for (const line of byVariant) {
    const after =
      given.get(line.variant_id) ??
      (dialect === 'postgres'
        ? undefined
        : await variantsRepo.reserveVariantStock(trx, tenantId, line.variant_id, line.quantity, now)) ??
      (await commitElsewhere(trx, tenantId, line, read, now));
    reservedVariants.set(after.id, after);
    if (after.stock === 0) soldOut.push(after);
  }
  check(reservedProducts, reservedVariants);
  return { products: reservedProducts, variants: reservedVariants, counts, soldOut };
}

/**
 * A line whose variant other locations hold too (or that is short): its units committed from the
 * fulfilling locations in the store's order (products.levels.ts), or 422 `insufficient_stock`.
 */
async function commitElsewhere(
  trx: Db,
  tenantId: string,
  line: StockLine,
  read: LineRows,
  now: number,
): Promise<variantsRepo.VariantRow> {
  const change = await levels.changeLevels(
    trx,
    tenantId,
    line.variant_id,
    (before) => {
      const after = levels.commit(before, line.quantity);
      if (!after) throw insufficient(line, read);
      return after;
    },
    now,
  );
  if (!change) throw insufficient(line, read);
  return change.variant;
}

/**
 * Refuses the first line whose variant, as read, has fewer units than it asks (422
 * `insufficient_stock`, as `reserve` would): a check before anything is written, which `reserve`
 * makes again under the rows' locks.
 */
export function checkAvailable(lines: readonly StockLine[], rows: LineRows): void {
  for (const line of [...lines].sort((a, b) => compare(a.variant_id, b.variant_id))) {
    const variant = rows.variants.get(line.variant_id);
    if (variant !== undefined && variant.stock < line.quantity) throw insufficient(line, rows);
  }
}

function insufficient(line: StockLine, rows: LineRows): AppError {
  const product = rows.products.get(line.product_id);
  const variant = rows.variants.get(line.variant_id);
  const title = variant && product?.variant_count !== 1 ? ` / ${variant.title}` : '';
  return new AppError(
    'insufficient_stock',
    `Not enough stock for ${line.variant_id} (${product?.name ?? 'product'}${title}): ${line.quantity} requested.`,
    { extra: { product_id: line.product_id, variant_id: line.variant_id } },
  );
}

/** The lines' products and variants, read in the caller's transaction. */
async function rowsOf(trx: Db, tenantId: string, lines: readonly StockLine[]): Promise<LineRows> {
  const productIds = [...new Set(lines.map((line) => line.product_id))];
  const [products, variants] = await Promise.all([
    repo.findProductsByIds(trx, tenantId, productIds),
    variantsRepo.findVariantsByIds(
      trx,
      tenantId,
      lines.map((line) => line.variant_id),
    ),
  ]);
  return {
    products: new Map(products.map((row) => [row.id, row])),
    variants: new Map(variants.map((row) => [row.id, row])),
  };
}

/** Applies a reservation's `product_counts` changes (the order does so once its own rows are in). */
export async function countReservation(trx: Db, tenantId: string, reservation: Reservation): Promise<void> {
  await repo.adjustCounts(trx, tenantId, reservation.counts);
}

/** What a release gave back: the products as restocked (their events follow the order's own). */
export interface Restock {
  products: repo.ProductRow[];
}

/**
 * Puts the lines' units back, with their `product_counts` changes. A variant deleted since the
 * order was placed has nothing to go back to. The caller releases an order's lines once (it only
 * gets here through a terminal transition).
 */
export async function release(
  trx: Db,
  tenantId: string,
  lines: readonly StockLine[],
  now: number,
  lock: boolean,
): Promise<Restock> {
  const productIds = [...new Set(lines.map((line) => line.product_id))];
  await repo.findProductsByIds(trx, tenantId, productIds, lock);
  const given = new Map<string, number>();
  for (const line of [...lines].sort((a, b) => compare(a.variant_id, b.variant_id))) {
    const after = await variantsRepo.releaseVariantStock(trx, tenantId, line.variant_id, line.quantity, now);
    if (after) {
      given.set(after.product_id, (given.get(after.product_id) ?? 0) + line.quantity);
      continue;
    }
    // Other locations hold it too (or it is gone): given back where it was committed.
    const change = await levels.changeLevels(
      trx,
      tenantId,
      line.variant_id,
      (before) => levels.release(before, line.quantity),
      now,
    );
    if (change)
      given.set(change.variant.product_id, (given.get(change.variant.product_id) ?? 0) + change.stockDelta);
  }
  const counts: repo.CountDelta[] = [];
  const products: repo.ProductRow[] = [];
  for (const productId of [...given.keys()].sort(compare)) {
    const quantity = given.get(productId) as number;
    const after = await repo.moveStock(trx, tenantId, productId, quantity, now);
    if (!after) continue;
    products.push(after);
    if (after.stock === quantity) {
      counts.push({ ...repo.bucketOf({ ...after, stock: 0 }), delta: -1 });
      counts.push({ ...repo.bucketOf(after), delta: 1 });
    }
  }
  await repo.adjustCounts(trx, tenantId, counts);
  return { products };
}

/**
 * `product.updated` for each product whose stock an order moved (inventory subscribers follow
 * stock through it), and `product.outofstock` for each variant the order took to 0: one batch.
 * `reserved`: the variants as the order left them; a product of one variant needs no other read,
 * the first variants of the others are read in one query.
 */
export async function emitStockChanges(
  trx: Db,
  events: EventService,
  changed: Iterable<repo.ProductRow>,
  soldOut: readonly variantsRepo.VariantRow[] = [],
  reserved: ReadonlyMap<string, variantsRepo.VariantRow> = new Map(),
): Promise<void> {
  await events.emitMany(trx, await stockEvents(trx, changed, soldOut, reserved));
}

/** The events of `emitStockChanges`, for a caller that writes them with its own. */
export async function stockEvents(
  trx: Db,
  changed: Iterable<repo.ProductRow>,
  soldOut: readonly variantsRepo.VariantRow[] = [],
  reserved: ReadonlyMap<string, variantsRepo.VariantRow> = new Map(),
): Promise<EmitInput[]> {
  const products = [...changed];
  const sole = new Map<string, variantsRepo.VariantRow>();
  for (const variant of reserved.values()) sole.set(variant.product_id, variant);
  const unread = products.filter((product) => !(product.variant_count === 1 && sole.has(product.id)));
  const firsts = new Map<string, variantsRepo.VariantRow[]>();
  const tenantId = products[0]?.tenant_id;
  if (tenantId !== undefined && unread.length > 0) {
    const rows = await variantsRepo.firstVariants(
      trx,
      tenantId,
      unread.map((product) => product.id),
      VARIANTS_SHOWN,
    );
    for (const row of rows) firsts.set(row.product_id, [...(firsts.get(row.product_id) ?? []), row]);
  }
  return products.flatMap((product) =>
    updatedEventsOf(
      product,
      firsts.get(product.id) ?? [sole.get(product.id) as variantsRepo.VariantRow],
      soldOut.filter((variant) => variant.product_id === product.id),
    ),
  );
}

/**
 * Moves each line's levels by `op` (a fulfilment shipping units, a return or refund putting them
 * back, a write-off): the products locked first in id order, then each variant under its lock
 * (products.levels.ts), each product's `stock` moved by what its variants' moved. Answers the
 * products whose stock moved (for `product.updated`) and the variants it took to 0.
 */
export async function moveLines(
  trx: Db,
  tenantId: string,
  lines: readonly StockLine[],
  op: (levels: levels.Level[], line: StockLine) => levels.Level[],
  now: number,
): Promise<Restock & { soldOut: variantsRepo.VariantRow[] }> {
  const productIds = [...new Set(lines.map((line) => line.product_id))].sort(compare);
  await repo.findProductsByIds(trx, tenantId, productIds, true);
  const moved = new Map<string, repo.ProductRow>();
  const soldOut: variantsRepo.VariantRow[] = [];
  const sorted = [...lines].sort(
    (a, b) => compare(a.product_id, b.product_id) || compare(a.variant_id, b.variant_id),
  );
  for (const line of sorted) {
    const change = await levels.changeStock(
      trx,
      tenantId,
      line.variant_id,
      (before) => op(before, line),
      now,
    );
    if (!change || change.stockDelta === 0 || !change.product) continue;
    moved.set(change.product.id, change.product);
    if (change.variant.stock === 0 && change.stockDelta < 0) soldOut.push(change.variant);
  }
  return { products: [...moved.values()], soldOut };
}

/** Code-unit order, the same on every machine (the lock order must not depend on a locale). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
