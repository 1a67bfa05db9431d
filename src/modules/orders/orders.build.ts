import type { OrderSource } from '../../db/schema.js';
import type { Db, DialectName } from '../../db/store.js';
import { AppError, validationError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { MAX_AMOUNT } from '../../lib/money.js';
import { type CustomerRow, normaliseAddresses, type OrderCustomers } from '../customers/index.js';
import type { PricedLine, pricingService } from '../pricing/index.js';
import { productsInventory as inventory, type ProductRow, type VariantRow } from '../products/index.js';
import { priceOrder } from './orders.pricing.js';
import type * as repo from './orders.repository.js';
import type { CreateOrderBody, StoredPricing } from './orders.schemas.js';

/**
 * An order made, in the transaction of the use case that makes it (`POST /orders`, its preview, a
 * cart's completion): the customer found or created, the lines read and priced
 * (orders.pricing.ts) and the order's rows, not yet inserted (`buildOrder`); then its stock taken
 * (`takeStock`), which the use case does as late as it can: the product rows many orders share
 * stay locked from then until the commit.
 */

/** Where an order comes from: how it was placed, and the cart it completes. */
export interface OrderOrigin {
  source: OrderSource;
  cartId: string | null;
}

export const API_ORIGIN: OrderOrigin = { source: 'api', cartId: null };

/** An order's rows as `buildOrder` makes them, before they are inserted, and what its stock needs. */
export interface Built {
  order: repo.OrderRow;
  items: repo.OrderItemRow[];
  discountIds: string[];
  /** Its lines, and their products and variants as read: what it was checked and priced on. */
  lines: inventory.StockLine[];
  rows: inventory.LineRows;
  /** The order's rules on its products and variants (active, one currency, within MAX_AMOUNT). */
  check: inventory.CheckLines;
}

/**
 * The rows an order was priced on changed between their read and the reservation that locked them
 * (PostgreSQL, another writer in between): its transaction is tried again from the start, as
 * `store.transaction` retries a serialization failure (SQLSTATE 40001), and prices the order anew.
 */
export class StaleLines extends Error {
  readonly code = '40001';
  constructor() {
    super('the products or variants an order was priced on changed before their stock was taken');
  }
}

/**
 * The one-statement take (`OrderCheckout.takeAndCommit`) declined: the rows changed since the read,
 * or the order takes a product or variant to zero (its count and event need the ordinary take).
 * Retried as `StaleLines` is, and the caller takes the order the ordinary way the next time.
 */
export class NotTakenAsRead extends StaleLines {}

/**
 * What the caller of `buildOrder` read in its transaction already, not to be read again: the
 * customer of the order's email, the lines' products and variants, and the discounts and rates of
 * its checkout (a cart's completion, which priced the cart a moment before; the reads are the same,
 * none of them locks).
 */
type LoadedCheckout = pricingService.LoadedCheckout;

export interface KnownRows {
  customer?: CustomerRow | undefined;
  rows?: inventory.KnownLineRows | undefined;
  checkout?: LoadedCheckout | undefined;
}

export async function buildOrder(
  customers: OrderCustomers,
  trx: Db,
  tenantId: string,
  input: CreateOrderBody,
  now: number,
  origin: OrderOrigin,
  known: KnownRows = {},
): Promise<Built> {
  // What the caller read in this transaction already (a cart's completion, which priced the cart).
  const byEmail =
    input.customer_id === undefined &&
    known.customer !== undefined &&
    known.customer.email_key === input.customer?.email.toLowerCase();
  const customer = byEmail
    ? (known.customer as CustomerRow)
    : await customers.forOrder(trx, tenantId, input, now);
  const { lines, rows } = await inventory.readLines(trx, tenantId, input.items, true, known.rows);
  /** The order's rules on its products and variants, checked before the reservation and as reserved. */
  const check: inventory.CheckLines = (products, variants) => {
    let currency: string | undefined;
    let total = 0;
    lines.forEach((line, index) => {
      const product = products.get(line.product_id);
      if (!product) throw new AppError('not_found', `No such product: ${line.product_id}.`);
      const variant = variants.get(line.variant_id);
      if (!variant) throw new AppError('not_found', `No such variant: ${line.variant_id}.`);
      if (input.items[index]?.variant_id === undefined && product.variant_count !== 1) {
        throw validationError(
          `items[${index}].variant_id`,
          `is required: product ${product.id} has ${product.variant_count} variants; name one by variant_id`,
        );
      }
      if (product.status !== 'active') {
        throw validationError(
          `items[${index}].${input.items[index]?.variant_id === undefined ? 'product_id' : 'variant_id'}`,
          `is ${product.status}, not an active product`,
        );
      }
      if (currency !== undefined && product.currency !== currency) {
        throw new AppError(
          'currency_mismatch',
          `All items must share one currency: ${product.id} is priced in ${product.currency}, an earlier item in ${currency}.`,
        );
      }
      currency = product.currency;
      total += variant.price * line.quantity;
    });
    // Checked before anything is charged: the wallet takes no payment above MAX_AMOUNT.
    if (total > MAX_AMOUNT) throw tooLarge(total);
  };
  check(rows.products, rows.variants);
  // As read: an order short of stock is refused before it is priced, as when its reservation came
  // first; the reservation checks again under the rows' locks.
  inventory.checkAvailable(lines, rows);
  const currency = (rows.products.get(lines[0]?.product_id ?? '') as ProductRow).currency; // items is non-empty
  const priced = await priceOrder(
    trx,
    tenantId,
    input,
    {
      lines,
      products: rows.products,
      variants: rows.variants,
      currency,
      customerId: customer.id,
      now,
    },
    known.checkout,
  );
  const figures = priced.pricing;
  if (figures.total > MAX_AMOUNT) throw tooLarge(figures.total);

  const orderId = newId('ord');
  const items: repo.OrderItemRow[] = lines.map((line, position) => {
    // check() proved both present
    const product = rows.products.get(line.product_id) as ProductRow;
    const variant = rows.variants.get(line.variant_id) as VariantRow;
    const priced = figures.lines[position] as PricedLine;
    return {
      order_id: orderId,
      position,
      tenant_id: tenantId,
      product_id: product.id,
      variant_id: variant.id,
      variant_title: variant.title,
      name: product.name,
      sku: variant.sku,
      category: product.category,
      quantity: line.quantity,
      unit_price: variant.price,
      total: priced.amount,
      discount: priced.discount,
      tax: priced.tax,
      paid: priced.total,
      refunded_quantity: 0,
      fulfilled_quantity: 0,
      released_quantity: 0,
      returned_quantity: 0,
    };
  });
  const linesPaid = items.reduce((sum, item) => sum + item.paid, 0);
  const order: repo.OrderRow = {
    id: orderId,
    tenant_id: tenantId,
    status: 'pending',
    currency,
    subtotal: figures.subtotal,
    total: figures.total,
    discount_total: figures.discount_total,
    shipping_total: figures.shipping_total,
    tax_total: figures.tax_total,
    shipping_paid: figures.total - linesPaid,
    pricing: JSON.stringify({
      discounts: figures.discounts,
      shipping: figures.shipping,
      taxes: figures.taxes,
    } satisfies StoredPricing),
    refunded_amount: 0,
    customer_id: customer.id,
    customer_email: (input.customer?.email ?? customer.email).toLowerCase(),
    customer_name: input.customer?.name ?? customer.name,
    shipping_address: input.shipping_address ? JSON.stringify(input.shipping_address) : null,
    metadata: JSON.stringify(input.metadata ?? {}),
    payment_id: null,
    carrier: null,
    tracking_number: null,
    restocked: 0,
    source: origin.source,
    cart_id: origin.cartId,
    created: now,
    updated: now,
    paid_at: null,
    shipped_at: null,
    delivered_at: null,
    cancelled_at: null,
    cancel_reason: null,
    fulfillment_count: 0,
    refunded_at: null,
  };
  return { order, items, discountIds: priced.discountIds, lines, rows, check };
}

/**
 * Takes the order's stock (products.inventory.ts `reserve`: all of it or 422
 * `insufficient_stock`), from the rows it was priced on; the rows as reserved must still be what
 * it was priced and its lines snapshotted on (else `StaleLines`: the transaction starts over).
 */
export async function takeStock(
  trx: Db,
  built: Built,
  now: number,
  dialect: DialectName,
): Promise<inventory.Reservation> {
  const { order, lines, rows, check } = built;
  const reservation = await inventory.reserve(trx, order.tenant_id, lines, now, check, dialect, rows);
  for (const line of lines) {
    if (
      !samePricing(
        [rows.products.get(line.product_id), rows.variants.get(line.variant_id)],
        [reservation.products.get(line.product_id), reservation.variants.get(line.variant_id)],
      )
    ) {
      throw new StaleLines();
    }
  }
  return reservation;
}

/** What an order takes from a line's product and variant (not stock): its rules and its price. */
export const PRICED_PRODUCT_FIELDS = ['name', 'category', 'currency', 'status', 'variant_count'] as const;
export const PRICED_VARIANT_FIELDS = [
  'price',
  'title',
  'sku',
  'weight_grams',
  'requires_shipping',
  'taxable',
] as const;

/** Whether a line's product and variant agree in all an order takes from them (not stock). */
function samePricing(
  [product, variant]: [ProductRow | undefined, VariantRow | undefined],
  [reservedProduct, reservedVariant]: [ProductRow | undefined, VariantRow | undefined],
): boolean {
  if (!product || !variant || !reservedProduct || !reservedVariant) return false;
  return (
    PRICED_PRODUCT_FIELDS.every((field) => product[field] === reservedProduct[field]) &&
    PRICED_VARIANT_FIELDS.every((field) => variant[field] === reservedVariant[field])
  );
}

/**
 * The body's rules that need no database (one way to name the customer, a valid address), and the
 * body as the order is made from it: its shipping address as stored and matched against the tax
 * rates (src/lib/addresses.ts).
 */
export function checkCreate(input: CreateOrderBody): CreateOrderBody {
  if (input.customer === undefined && input.customer_id === undefined) {
    throw validationError('customer', 'is required: give the customer’s email as customer, or customer_id');
  }
  if (input.customer !== undefined && input.customer_id !== undefined) {
    throw validationError('customer_id', 'give customer_id or customer, not both');
  }
  if (input.shipping_address === undefined) return input;
  const [address] = normaliseAddresses([input.shipping_address], 'shipping_address', true);
  return { ...input, shipping_address: address };
}

function tooLarge(total: number): AppError {
  return validationError(
    'items',
    `bring the order total to ${total}; an order may total at most ${MAX_AMOUNT} minor units`,
  );
}
