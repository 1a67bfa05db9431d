import type { Db } from '../../db/store.js';
import { iso } from '../../lib/clock.js';
import { AppError, isAppError } from '../../lib/errors.js';
import { MAX_AMOUNT } from '../../lib/money.js';
import { type Address, type CustomerRow, findCustomerByEmail } from '../customers/index.js';
import type { OrderObject } from '../orders/index.js';
import {
  type CheckoutLine,
  type CheckoutPricing,
  type PricedLine,
  priceCheckout,
  pricingService,
} from '../pricing/index.js';
import { findProductsByIds, findVariantsByIds, type ProductRow, type VariantRow } from '../products/index.js';
import { heldUnits, holdOf } from './carts.holds.js';
import type { CartLineRow, CartRow } from './carts.repository.js';
import type { CartObject, CartProblem } from './carts.schemas.js';

/**
 * A cart as the API shows it, priced now: its lines' variants and products as they are, and the
 * discounts, rates and taxes as `POST /orders` would apply them, by the same function
 * (src/modules/pricing/pricing.checkout.ts). Nothing priced is ever stored. What would stop its
 * order is listed in `problems`, never refused: a line that cannot be had, a code that does not
 * apply, no rate for the address, no email.
 *
 * A line that can no longer be bought (its variant deleted, its product not active, or priced in
 * another currency) counts for nothing in the totals; a line asking for more than is in stock is
 * priced as asked; the units the cart's own hold took (carts.holds.ts) count as its own. A
 * completed cart shows what its order charged.
 */

/** An open cart unchanged this long is expired. */
export const CART_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

/** The cart's status as shown: an open cart unchanged for `CART_LIFETIME_MS` is expired. */
export function statusOf(cart: Pick<CartRow, 'status' | 'updated'>, now: number): CartRow['status'] {
  return cart.status === 'open' && cart.updated + CART_LIFETIME_MS <= now ? 'expired' : cart.status;
}

/** What a cart is priced from, as read. */
export interface CartContext {
  variants: ReadonlyMap<string, VariantRow>;
  products: ReadonlyMap<string, ProductRow>;
  /** The checkout priced (the sellable lines, in order). */
  priced: CheckoutPricing;
  /** The sellable lines' indexes in the cart's lines. */
  sellable: readonly number[];
  /** The store's customer of the cart's email, if it has one (the order's, when the cart completes). */
  customer: CustomerRow | undefined;
  /** The discounts and rates it was priced from (the order's, when the cart completes). */
  checkout: pricingService.LoadedCheckout;
}

/** A line's variant and product when it can be bought in this cart; else why not. */
function sellability(
  cart: CartRow,
  line: CartLineRow,
  variants: ReadonlyMap<string, VariantRow>,
  products: ReadonlyMap<string, ProductRow>,
): { variant: VariantRow; product: ProductRow } | { why: string } {
  const variant = variants.get(line.variant_id);
  const product = variant === undefined ? undefined : products.get(variant.product_id);
  if (variant === undefined || product === undefined || product.status !== 'active') {
    return { why: `${label(line)} is no longer sold.` };
  }
  if (product.currency !== cart.currency) {
    return { why: `${label(line)} is priced in ${product.currency}; this cart is in ${cart.currency}.` };
  }
  return { variant, product };
}

function label(line: Pick<CartLineRow, 'name' | 'variant_title'>): string {
  return line.variant_title === 'Default' ? line.name : `${line.name} / ${line.variant_title}`;
}

/** Reads what pricing `cart` needs (in `db`, a transaction or not) and prices it at `now`. */
export async function loadCartContext(
  db: Db,
  cart: CartRow,
  lines: readonly CartLineRow[],
  now: number,
): Promise<CartContext> {
  const tenantId = cart.tenant_id;
  const variants = new Map(
    (
      await findVariantsByIds(
        db,
        tenantId,
        lines.map((line) => line.variant_id),
      )
    ).map((row) => [row.id, row]),
  );
  const products = new Map(
    (
      await findProductsByIds(db, tenantId, [...new Set([...variants.values()].map((v) => v.product_id))])
    ).map((row) => [row.id, row]),
  );
  const sellable: number[] = [];
  const checkoutLines: CheckoutLine[] = [];
  lines.forEach((line, index) => {
    const found = sellability(cart, line, variants, products);
    if ('why' in found) return;
    sellable.push(index);
    checkoutLines.push({
      product_id: found.product.id,
      category: found.product.category,
      unit_price: found.variant.price,
      quantity: line.quantity,
      weight_grams: found.variant.weight_grams ?? 0,
      requires_shipping: found.variant.requires_shipping === 1,
      taxable: found.variant.taxable === 1,
    });
  });
  // A customer's earlier uses count against a discount's per-customer limit, as for an order.
  const customer = cart.email === null ? undefined : await findCustomerByEmail(db, tenantId, cart.email);
  const codes = JSON.parse(cart.discount_codes) as string[];
  const address = addressOf(cart);
  const checkout = await pricingService.loadCheckout(db, tenantId, {
    codes,
    customerId: customer?.id ?? null,
    country: address?.country,
    currency: cart.currency,
  });
  const { discounts, rates } = checkout;
  const priced = priceCheckout({
    lines: checkoutLines,
    currency: cart.currency,
    now,
    codes,
    discounts,
    address,
    rates,
    shippingRateId: cart.shipping_rate_id ?? undefined,
  });
  return { variants, products, priced, sellable, customer, checkout };
}

/**
 * The first instant after `now` at which the cart as `presentCart` shows it at `now` could read
 * otherwise with nothing stored changed: the open cart expires, its hold runs out, a discount of
 * its pricing starts or ends (Infinity when nothing will). Nothing else it shows depends on time.
 */
export function cartChangesAt(cart: CartRow, context: CartContext, now: number): number {
  let next = context.priced.changesAt;
  const expires = cart.updated + CART_LIFETIME_MS;
  if (cart.status === 'open' && expires > now) next = Math.min(next, expires);
  if (cart.hold_expires !== null && cart.hold_expires > now) next = Math.min(next, cart.hold_expires);
  return next;
}

export function addressOf(cart: Pick<CartRow, 'shipping_address'>): Address | undefined {
  return cart.shipping_address === null ? undefined : (JSON.parse(cart.shipping_address) as Address);
}

/** The cart as the API shows it, from its rows and what they were priced at (pure). */
export function presentCart(
  cart: CartRow,
  lines: readonly CartLineRow[],
  context: CartContext,
  now: number,
): CartObject {
  const { priced, variants, products } = context;
  const held = heldUnits(cart);
  const problems: CartProblem[] = [];
  if (lines.length === 0) problems.push({ code: 'cart_empty', message: 'The cart has no lines.' });
  const shown = lines.map((line, index) => {
    const found = sellability(cart, line, variants, products);
    const position = context.sellable.indexOf(index);
    const figures = position < 0 ? undefined : (priced.pricing.lines[position] as PricedLine);
    if ('why' in found || figures === undefined) {
      problems.push({
        code: 'variant_unavailable',
        line_id: line.id,
        message: 'why' in found ? found.why : `${label(line)} cannot be bought.`,
      });
      return lineObject(line, { name: line.name, title: line.variant_title, sku: line.sku }, 0, null, false);
    }
    const { variant, product } = found;
    const inStock = variant.stock + (held.get(variant.id) ?? 0) >= line.quantity;
    const current = { name: product.name, title: variant.title, sku: variant.sku };
    if (!inStock) {
      problems.push({
        code: 'insufficient_stock',
        line_id: line.id,
        message: `${label({ name: current.name, variant_title: current.title })}: not enough in stock for ${line.quantity} ${line.quantity === 1 ? 'unit' : 'units'}.`,
      });
    }
    return lineObject(line, current, variant.price, figures, inStock);
  });
  for (const refusal of priced.refusals) {
    const { error } = refusal;
    if (refusal.kind === 'discount') {
      problems.push({
        code: 'discount_invalid',
        message: error.detail,
        reason: String(error.extra.reason),
        discount_code: String(error.extra.discount_code),
      });
    } else {
      problems.push({ code: 'shipping_unavailable', message: error.detail });
    }
  }
  if (cart.email === null) {
    problems.push({
      code: 'email_required',
      message: 'Give the shopper’s email (PATCH the cart’s email) before completing it.',
    });
  }
  const pricing = priced.pricing;
  if (pricing.total > MAX_AMOUNT) {
    problems.push({
      code: 'total_too_large',
      message: `The cart comes to ${pricing.total}; an order may total at most ${MAX_AMOUNT} minor units.`,
    });
  }
  return {
    ...header(cart, now),
    lines: shown,
    shipping_rates: priced.shippingOptions,
    subtotal: pricing.subtotal,
    discount_total: pricing.discount_total,
    shipping_total: pricing.shipping_total,
    tax_total: pricing.tax_total,
    total: pricing.total,
    problems,
    ...footer(cart, now),
  };
}

/**
 * A completed cart as its order charged it: each line's figures from the order's line of its
 * variant, the totals from the order; nothing stands in its way any more.
 */
export function presentCompleted(
  cart: CartRow,
  lines: readonly CartLineRow[],
  order: OrderObject,
  now: number,
): CartObject {
  const exclusive = order.taxes.some((tax) => !tax.inclusive);
  return {
    ...header(cart, now),
    lines: lines.map((line) => {
      const item = order.items.find((candidate) => candidate.variant_id === line.variant_id);
      if (item === undefined) {
        return lineObject(
          line,
          { name: line.name, title: line.variant_title, sku: line.sku },
          0,
          null,
          false,
        );
      }
      return lineObject(
        line,
        { name: item.name, title: item.variant_title, sku: item.sku },
        item.unit_price,
        {
          amount: item.total,
          discount: item.discount,
          tax: item.tax,
          total: item.total - item.discount + (exclusive ? item.tax : 0),
        },
        true,
      );
    }),
    shipping_rates: [],
    subtotal: order.subtotal,
    discount_total: order.discount_total,
    shipping_total: order.shipping_total,
    tax_total: order.tax_total,
    total: order.total,
    problems: [],
    ...footer(cart, now),
  };
}

function header(cart: CartRow, now: number) {
  return {
    id: cart.id,
    status: statusOf(cart, now),
    currency: cart.currency,
    email: cart.email,
    customer_id: cart.customer_id,
  };
}

function footer(cart: CartRow, now: number) {
  return {
    discount_codes: JSON.parse(cart.discount_codes) as string[],
    shipping_address: addressOf(cart) ?? null,
    shipping_rate_id: cart.shipping_rate_id,
    hold: holdOf(cart, now),
    order_id: cart.order_id,
    created: iso(cart.created),
    updated: iso(cart.updated),
    expires_at: iso(cart.updated + CART_LIFETIME_MS),
  };
}

function lineObject(
  line: CartLineRow,
  shown: { name: string; title: string; sku: string | null },
  unitPrice: number,
  figures: PricedLine | null,
  available: boolean,
): CartObject['lines'][number] {
  return {
    id: line.id,
    variant_id: line.variant_id,
    product_id: line.product_id,
    name: shown.name,
    variant_title: shown.title,
    sku: shown.sku,
    quantity: line.quantity,
    unit_price: figures === null ? 0 : unitPrice,
    subtotal: figures?.amount ?? 0,
    discount: figures?.discount ?? 0,
    tax: figures?.tax ?? 0,
    total: figures?.total ?? 0,
    available,
  };
}

/** What a refusal says the cart cannot be: completed (its order) or held (its units). */
export type CartAction = 'completed' | 'held';

/** `422 cart_not_ready`, listing what stops the cart's order (or its hold). */
export function notReady(problems: CartProblem[], action: CartAction = 'completed'): AppError {
  const first = problems[0]?.message ?? '';
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more: see problems)` : '';
  return new AppError('cart_not_ready', `The cart cannot be ${action}: ${first}${more}`, {
    extra: { problems },
  });
}

/**
 * An order's (or a reservation's) refusal as the cart's problem: what changed between the cart's
 * pricing and the order's in the same transaction (a race on PostgreSQL). Other errors pass as
 * they are.
 */
export function asProblem(
  error: unknown,
  lines: readonly CartLineRow[],
  action: CartAction = 'completed',
): unknown {
  if (!isAppError(error)) return error;
  const variantId = typeof error.extra.variant_id === 'string' ? error.extra.variant_id : undefined;
  const line = lines.find((candidate) => candidate.variant_id === variantId);
  const about = line === undefined ? {} : { line_id: line.id };
  switch (error.code) {
    case 'insufficient_stock':
      return notReady([{ code: 'insufficient_stock', ...about, message: error.detail }], action);
    case 'discount_invalid':
      return notReady(
        [
          {
            code: 'discount_invalid',
            message: error.detail,
            reason: String(error.extra.reason),
            discount_code: String(error.extra.discount_code),
          },
        ],
        action,
      );
    case 'shipping_unavailable':
      return notReady([{ code: 'shipping_unavailable', message: error.detail }], action);
    case 'not_found':
    case 'validation_failed':
    case 'currency_mismatch':
      return notReady([{ code: 'variant_unavailable', ...about, message: error.detail }], action);
    default:
      return error;
  }
}
