import type { Db } from '../../db/store.js';
import { AppError } from '../../lib/errors.js';
import type { EventService } from '../events/events.service.js';
import * as repo from './products.repository.js';
import { presentProduct } from './products.service.js';

/**
 * The inventory side of products: orders take units out of stock and put them back here. Every
 * function runs in the caller's transaction (the order's), so stock, the kept `product_counts` and
 * the stock events commit with the order or not at all. Units move in product-id order: a fixed
 * lock order, so two orders never deadlock on each other's products.
 */

/** Units of one product an order takes or gives back. */
export interface StockLine {
  product_id: string;
  quantity: number;
}

export interface Reservation {
  /** Each product as reserved, by id: the snapshot an order's lines are made from. */
  products: Map<string, repo.ProductRow>;
  /** The `product_counts` changes of the products it took to 0, applied by `countReservation`. */
  counts: repo.CountDelta[];
}

/**
 * Takes every line's units with a conditional update (never below zero), or none of them:
 * `insufficient_stock` names the first line that cannot be served. `check` sees the products
 * before (refusing what it must) and again as reserved, so a concurrent edit cannot slip between
 * check and lock. Lines name each product once.
 */
export async function reserve(
  trx: Db,
  tenantId: string,
  lines: readonly StockLine[],
  now: number,
  check: (products: ReadonlyMap<string, repo.ProductRow>) => void,
): Promise<Reservation> {
  const found = new Map(
    (
      await repo.findProductsByIds(
        trx,
        tenantId,
        lines.map((line) => line.product_id),
      )
    ).map((row) => [row.id, row]),
  );
  check(found);
  const reserved = new Map<string, repo.ProductRow>();
  const counts: repo.CountDelta[] = [];
  for (const line of [...lines].sort((a, b) => a.product_id.localeCompare(b.product_id))) {
    const after = await repo.reserveStock(trx, tenantId, line.product_id, line.quantity, now);
    if (!after) {
      const product = found.get(line.product_id);
      throw new AppError(
        'insufficient_stock',
        `Not enough stock for ${line.product_id} (${product?.name ?? 'product'}): ${line.quantity} requested.`,
        { extra: { product_id: line.product_id } },
      );
    }
    reserved.set(after.id, after);
    if (after.stock === 0) {
      counts.push({ ...repo.bucketOf({ ...after, stock: line.quantity }), delta: -1 });
      counts.push({ ...repo.bucketOf(after), delta: 1 });
    }
  }
  check(reserved);
  return { products: reserved, counts };
}

/** Applies a reservation's `product_counts` changes (the order does so once its own rows are in). */
export async function countReservation(trx: Db, tenantId: string, reservation: Reservation): Promise<void> {
  await repo.adjustCounts(trx, tenantId, reservation.counts);
}

/**
 * Puts the lines' units back, with their `product_counts` changes. Returns the products as
 * restocked, for `emitStockChanges` after the order's own event. The caller releases an order's
 * lines once (it only gets here through a terminal transition).
 */
export async function release(
  trx: Db,
  tenantId: string,
  lines: readonly StockLine[],
  now: number,
): Promise<repo.ProductRow[]> {
  const counts: repo.CountDelta[] = [];
  const released = new Map<string, repo.ProductRow>();
  for (const line of [...lines].sort((a, b) => a.product_id.localeCompare(b.product_id))) {
    const after = await repo.releaseStock(trx, tenantId, line.product_id, line.quantity, now);
    // A product deleted since the order was placed has nothing to go back to.
    if (!after) continue;
    released.set(after.id, after);
    if (after.stock === line.quantity) {
      counts.push({ ...repo.bucketOf({ ...after, stock: 0 }), delta: -1 });
      counts.push({ ...repo.bucketOf(after), delta: 1 });
    }
  }
  await repo.adjustCounts(trx, tenantId, counts);
  return [...released.values()];
}

/**
 * `product.updated` for each product whose stock an order moved (inventory subscribers follow
 * stock through it), and `product.outofstock` for each one the order took to 0, as a PATCH of
 * `stock` emits them.
 */
export async function emitStockChanges(
  trx: Db,
  events: EventService,
  changed: Iterable<repo.ProductRow>,
): Promise<void> {
  for (const product of changed) {
    const object = presentProduct(product);
    await events.emit(trx, {
      tenantId: product.tenant_id,
      type: 'product.updated',
      objectType: 'product',
      object,
    });
    if (product.stock === 0) {
      await events.emit(trx, {
        tenantId: product.tenant_id,
        type: 'product.outofstock',
        objectType: 'product',
        object,
      });
    }
  }
}
