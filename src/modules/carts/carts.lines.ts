import type { Db } from '../../db/store.js';
import { validationError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { findProductsByIds, findVariantsByIds } from '../products/index.js';
import type * as repo from './carts.repository.js';
import { type CartLineInput, MAX_QUANTITY } from './carts.schemas.js';

/** A cart's lines as a body gives them: merged by variant, then made rows of variants on sale. */

/** The body's lines, one per variant (a variant named twice: both quantities), at most 999 units each. */
export function mergeLines(lines: readonly CartLineInput[]): (CartLineInput & { field: string })[] {
  const merged: (CartLineInput & { field: string })[] = [];
  lines.forEach((line, index) => {
    const earlier = merged.find((item) => item.variant_id === line.variant_id);
    if (earlier === undefined) {
      merged.push({ ...line, field: `lines[${index}].variant_id` });
      return;
    }
    earlier.quantity += line.quantity;
    if (earlier.quantity > MAX_QUANTITY) {
      throw validationError(
        `lines[${index}].quantity`,
        `brings the line of ${line.variant_id} to ${earlier.quantity} units; a line holds at most ${MAX_QUANTITY}`,
      );
    }
  });
  return merged;
}

/**
 * New lines for `items`, each a variant of an active product of the tenant (400 naming its
 * field otherwise: a shopper cannot tell a draft from a variant that does not exist), with the
 * names it shows from then on should its variant go.
 */
export async function newLines(
  trx: Db,
  cart: repo.CartRow,
  items: readonly (CartLineInput & { field: string })[],
  position: number,
  now: number,
): Promise<repo.CartLineRow[]> {
  const variants = new Map(
    (
      await findVariantsByIds(
        trx,
        cart.tenant_id,
        items.map((item) => item.variant_id),
      )
    ).map((row) => [row.id, row]),
  );
  const products = new Map(
    (
      await findProductsByIds(trx, cart.tenant_id, [
        ...new Set([...variants.values()].map((v) => v.product_id)),
      ])
    ).map((row) => [row.id, row]),
  );
  return items.map((item, index) => {
    const variant = variants.get(item.variant_id);
    const product = variant === undefined ? undefined : products.get(variant.product_id);
    if (variant === undefined || product?.status !== 'active') {
      throw validationError(item.field, `is not a variant on sale in this store: ${item.variant_id}`);
    }
    return {
      id: newId('cli'),
      cart_id: cart.id,
      tenant_id: cart.tenant_id,
      variant_id: variant.id,
      product_id: product.id,
      name: product.name,
      variant_title: variant.title,
      sku: variant.sku,
      quantity: item.quantity,
      position: position + index,
      created: now,
    };
  });
}
