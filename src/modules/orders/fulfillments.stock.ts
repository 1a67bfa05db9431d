import type { Db } from '../../db/store.js';
import {
  type LevelLocation,
  productsInventory as inventory,
  type ProductRow,
  stockLevels,
  type StockLine,
} from '../products/index.js';
import * as fulfillments from './fulfillments.repository.js';
import type * as repo from './orders.repository.js';
import type { LinePart } from './refunds.plan.js';

/**
 * The stock side of fulfilments, returns and restocking refunds: what each does to the levels of
 * the locations (src/modules/products/products.levels.ts), in the caller's transaction.
 */

/** The store's default location, as stock levels name it. */
export const DEFAULT_LEVEL: LevelLocation = { id: 'default', position: 0, fulfills: true, isDefault: true };

/** Ships the lines' committed units from `at` (`insufficient_stock` when it has too few). */
export async function shipFrom(
  trx: Db,
  tenantId: string,
  lines: readonly StockLine[],
  at: LevelLocation,
  now: number,
) {
  return inventory.moveLines(
    trx,
    tenantId,
    lines,
    (levels, line) => stockLevels.fulfil(levels, at, line.quantity, line.variant_id),
    now,
  );
}

/** Puts the lines' units back on hand at `at` (a return received with restock). */
export async function receiveAt(
  trx: Db,
  tenantId: string,
  lines: readonly StockLine[],
  at: LevelLocation,
  now: number,
) {
  return inventory.moveLines(
    trx,
    tenantId,
    lines,
    (levels, line) => stockLevels.receive(levels, at, line.quantity),
    now,
  );
}

/**
 * A restocking refund's units back in stock: those not shipped yet give their commitment back
 * (and count as released, so no fulfilment ships them), those shipped come back on hand at the
 * default location. Answers the products whose stock moved.
 */
export async function restockParts(
  trx: Db,
  order: repo.OrderRow,
  lines: readonly repo.OrderItemRow[],
  parts: readonly LinePart[],
  now: number,
): Promise<ProductRow[]> {
  const unshipped: StockLine[] = [];
  const shipped: StockLine[] = [];
  for (const part of parts) {
    const line = lines.find((candidate) => candidate.position === part.position);
    const left = line ? Math.max(0, line.quantity - line.fulfilled_quantity - line.released_quantity) : 0;
    const released = Math.min(part.quantity, left);
    const ref = { product_id: part.product_id, variant_id: part.variant_id };
    if (released > 0) {
      unshipped.push({ ...ref, quantity: released });
      await fulfillments.releaseUnits(trx, order.id, part.position, released);
    }
    if (part.quantity > released) shipped.push({ ...ref, quantity: part.quantity - released });
  }
  const moved = new Map<string, ProductRow>();
  if (unshipped.length > 0) {
    for (const product of (await inventory.release(trx, order.tenant_id, unshipped, now, true)).products) {
      moved.set(product.id, product);
    }
  }
  if (shipped.length > 0) {
    for (const product of (await receiveAt(trx, order.tenant_id, shipped, DEFAULT_LEVEL, now)).products) {
      moved.set(product.id, product);
    }
  }
  return [...moved.values()];
}
