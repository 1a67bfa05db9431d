import type { Db } from '../../db/store.js';
import {
  type CheckoutLine,
  type CheckoutPricing,
  type Pricing,
  priceCheckout,
  pricingService as pricing,
} from '../pricing/index.js';
import type { ProductRow, StockLine, VariantRow } from '../products/index.js';
import type { Address } from '../customers/index.js';

/**
 * Prices an order's lines as a checkout does, for `POST /orders` and `POST /orders/preview` alike,
 * by the function a cart is priced by (src/modules/pricing/pricing.checkout.ts): the discounts its
 * codes name plus the automatic ones that apply, the shipping rate (the one named, else the one
 * costing this order least, for the address's country and the parcel's weight), the tax rate of
 * the address (its state's over its country's; the address is already in its stored form:
 * src/lib/addresses.ts). An order is refused for the first thing it asks and cannot have (a code
 * that does not apply: 422 `discount_invalid`; no rate for the address: 422
 * `shipping_unavailable`), where a cart lists them. Reads only: reserving the discounts' uses is
 * the order's (`reserveUses`, in its transaction).
 */
export interface OrderPricingInput {
  discount_codes?: readonly string[] | undefined;
  shipping_rate_id?: string | undefined;
  shipping_address?: Address | undefined;
}

export interface PricedOrder {
  pricing: Pricing;
  /** The discounts applied, whose uses the order takes. */
  discountIds: string[];
}

/** The checkout of `lines` (variants as read, each with its product) priced, refusals listed. */
export async function priceLines(
  trx: Db,
  tenantId: string,
  input: OrderPricingInput,
  order: {
    lines: readonly CheckoutLine[];
    currency: string;
    customerId: string | null;
    now: number;
  },
  known?: pricing.LoadedCheckout,
): Promise<CheckoutPricing> {
  const codes = input.discount_codes ?? [];
  const address = input.shipping_address;
  const { discounts, rates } = await pricing.loadCheckout(
    trx,
    tenantId,
    { codes, customerId: order.customerId, country: address?.country, currency: order.currency },
    known,
  );
  return priceCheckout({
    lines: order.lines,
    currency: order.currency,
    now: order.now,
    codes,
    discounts,
    address,
    rates,
    shippingRateId: input.shipping_rate_id,
  });
}

/**
 * A line as the checkout prices it: its variant's price, weight and whether it ships and is taxed,
 * its product's id and category.
 */
export function checkoutLine(product: ProductRow, variant: VariantRow, quantity: number): CheckoutLine {
  return {
    product_id: product.id,
    category: product.category,
    unit_price: variant.price,
    quantity,
    weight_grams: variant.weight_grams ?? 0,
    requires_shipping: variant.requires_shipping === 1,
    taxable: variant.taxable === 1,
  };
}

export async function priceOrder(
  trx: Db,
  tenantId: string,
  input: OrderPricingInput,
  order: {
    lines: readonly StockLine[];
    products: ReadonlyMap<string, ProductRow>;
    variants: ReadonlyMap<string, VariantRow>;
    currency: string;
    customerId: string;
    now: number;
  },
  /** The discounts and rates read already for this checkout in `trx` (a cart's completion). */
  known?: pricing.LoadedCheckout,
): Promise<PricedOrder> {
  const lines = order.lines.map((line) =>
    // checked by the reservation
    checkoutLine(
      order.products.get(line.product_id) as ProductRow,
      order.variants.get(line.variant_id) as VariantRow,
      line.quantity,
    ),
  );
  const priced = await priceLines(trx, tenantId, input, { ...order, lines }, known);
  const refused = priced.refusals[0];
  if (refused !== undefined) throw refused.error;
  return { pricing: priced.pricing, discountIds: priced.discountIds };
}
