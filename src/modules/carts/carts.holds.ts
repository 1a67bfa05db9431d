import type { Db, DialectName } from '../../db/store.js';
import { AppError } from '../../lib/errors.js';
import { iso } from '../../lib/clock.js';
import { productsInventory as inventory, type StockLine } from '../products/index.js';
import * as repo from './carts.repository.js';

/**
 * Stock holds, the stock side (`POST /store/carts/{id}/hold`, when the store sets
 * `storefront.hold_minutes`; the use case is the cart service's `hold`). A hold takes the cart's
 * units out of stock as a pending order does (src/modules/products/products.inventory.ts), so every
 * other cart, order and the catalog's `available` see them gone, until it is given back:
 *
 * - taken for all the cart's lines or none (`insufficient_stock` names the first one short), and
 *   kept on the cart (`hold_lines`): what is given back is exactly what was taken;
 * - given back once (`releaseHold`): the cart's hold columns are cleared in the transaction that
 *   gives the units back, under the cart's row lock, so of the sweep of holds that ran out, a change
 *   of the cart's lines, its completion and its expiry, whichever comes first gives them back and
 *   the others find nothing held;
 * - a change of the cart's lines gives the hold back (the cart answers `hold: null`; the shopper
 *   holds again for the new lines), a change of its email, address, rate or codes keeps it;
 * - completion takes the held units over: its hold step gives them back and reserves the order's
 *   in one transaction, under the same locks, so no one can take them in between and stock moves
 *   once (`product.updated` and `product.outofstock` come with the order, as for any order);
 * - a hold itself emits no event, as the completion's own hold step emits none: units a hold takes
 *   and gives back come and go within the hour.
 */

/** A buyer address holds at most this many carts of a store at once. */
export const MAX_HOLDS_PER_ADDRESS = 3;

/** The units the cart's hold took out of stock, by variant (none without a hold). */
export function heldUnits(cart: Pick<repo.CartRow, 'hold_lines'>): Map<string, number> {
  const held = new Map<string, number>();
  if (cart.hold_lines === null) return held;
  for (const line of JSON.parse(cart.hold_lines) as StockLine[]) {
    held.set(line.variant_id, (held.get(line.variant_id) ?? 0) + line.quantity);
  }
  return held;
}

/** The cart's hold as the API shows it: while it runs. */
export function holdOf(cart: Pick<repo.CartRow, 'hold_expires'>, now: number): { expires_at: string } | null {
  return cart.hold_expires !== null && cart.hold_expires > now
    ? { expires_at: iso(cart.hold_expires) }
    : null;
}

/**
 * Takes the lines' units out of stock, all or none (422 `insufficient_stock` naming the first one
 * short), and answers what it took. The caller has checked the lines can be bought.
 */
export async function takeUnits(
  trx: Db,
  tenantId: string,
  lines: readonly repo.CartLineRow[],
  now: number,
  dialect: DialectName,
): Promise<StockLine[]> {
  const taken = lines.map(({ product_id, variant_id, quantity }) => ({ product_id, variant_id, quantity }));
  const reservation = await inventory.reserve(trx, tenantId, taken, now, () => undefined, dialect);
  await inventory.countReservation(trx, tenantId, reservation);
  return taken;
}

/**
 * Gives back what the cart's hold took and clears the hold, in the caller's transaction, which
 * holds the cart's row lock (`cart` was read under it). Answers whether there was anything held.
 */
export async function releaseHold(trx: Db, cart: repo.CartRow, now: number): Promise<boolean> {
  if (cart.hold_lines === null) return false;
  const lines = JSON.parse(cart.hold_lines) as StockLine[];
  await inventory.release(trx, cart.tenant_id, lines, now, true);
  await repo.updateCart(trx, cart.id, { hold_lines: null, hold_expires: null, hold_ip: null });
  return true;
}

/** `409 holds_disabled`. */
export function holdsDisabled(): AppError {
  return new AppError(
    'holds_disabled',
    'This store does not hold stock for carts (its storefront.hold_minutes is not set); units are taken when the cart is completed.',
  );
}

/** `409 too_many_holds`: the address holds `MAX_HOLDS_PER_ADDRESS` other carts, the first of which ends at `soonest`. */
export function tooManyHolds(soonest: number): AppError {
  return new AppError(
    'too_many_holds',
    `This shopper already holds ${MAX_HOLDS_PER_ADDRESS} carts at this store; complete one, change its lines or let its hold run out (${iso(soonest)}) first.`,
    { extra: { max_holds: MAX_HOLDS_PER_ADDRESS, next_release_at: iso(soonest) } },
  );
}
