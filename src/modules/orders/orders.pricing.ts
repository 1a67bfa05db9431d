import type { Db } from '../../db/store.js';
import { validationError } from '../../lib/errors.js';
import {
  chooseDiscounts,
  chooseShippingRate,
  chooseTaxRate,
  calculatePricing,
  type LineInput,
  type Pricing,
  pricingService as pricing,
} from '../pricing/index.js';
import type { ProductRow, StockLine, VariantRow } from '../products/index.js';
import type { Address } from '../customers/index.js';

/**
 * Prices an order's lines as a checkout does, for `POST /orders` and `POST /orders/preview` alike:
 * the discounts its codes name plus the automatic ones that apply (src/modules/pricing/pricing.choose.ts),
 * the shipping rate (the one named, else the one costing this order least, for the address's
 * country and the parcel's weight), the tax rate of the address (its state's over its country's;
 * the address is already in its stored form: src/lib/addresses.ts), and the arithmetic of
 * src/modules/pricing/pricing.calculate.ts. Reads only: reserving the discounts' uses is the
 * order's (`reserveUses`, in its transaction).
 *
 * Without a shipping address there is no shipping and no tax. A tenant with no shipping rate in the
 * order's currency does not charge shipping; one with rates but none for the country refuses the
 * order (422 `shipping_unavailable`).
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
): Promise<PricedOrder> {
  const lines: LineInput[] = order.lines.map((line) => {
    const product = order.products.get(line.product_id) as ProductRow; // checked by the reservation
    const variant = order.variants.get(line.variant_id) as VariantRow;
    return {
      product_id: product.id,
      category: product.category,
      unit_price: variant.price,
      quantity: line.quantity,
    };
  });
  const codes = input.discount_codes ?? [];
  const context = await pricing.loadDiscountContext(trx, tenantId, codes, order.customerId);
  const discounts = chooseDiscounts({
    codes,
    found: context.found,
    automatic: context.automatic,
    lines,
    currency: order.currency,
    customerUses: context.customerUses,
    now: order.now,
  });

  const address = input.shipping_address;
  if (address === undefined && input.shipping_rate_id !== undefined) {
    throw validationError('shipping_address', 'is required with shipping_rate_id: rates are by country');
  }
  let shipping = null;
  let tax = null;
  if (address !== undefined) {
    const rates = await pricing.loadRates(trx, tenantId, address.country, order.currency);
    if (rates.shipping.length > 0 || input.shipping_rate_id !== undefined) {
      const weight = order.lines.reduce(
        (sum, line) => sum + (order.variants.get(line.variant_id)?.weight_grams ?? 0) * line.quantity,
        0,
      );
      // What the lines come to after their discounts: the rates' `free_over` is compared with it.
      const goods = calculatePricing({ lines, discounts, shipping: null, tax: null });
      const rate = chooseShippingRate(rates.shipping, {
        country: address.country,
        weight_grams: weight,
        discounted_subtotal: goods.subtotal - goods.discount_total,
        currency: order.currency,
        rate_id: input.shipping_rate_id,
      });
      shipping = pricing.toShippingInput(rate);
    }
    const taxRate = chooseTaxRate(rates.tax, { country: address.country, state: address.state ?? null });
    tax = taxRate === null ? null : pricing.toTaxInput(taxRate);
  }
  return {
    pricing: calculatePricing({ lines, discounts, shipping, tax }),
    discountIds: discounts.map((discount) => discount.id),
  };
}
