import { AppError, validationError } from '../../lib/errors.js';
import { calculatePricing, type LineInput, type Pricing } from './pricing.calculate.js';
import { chooseDiscountsListing, chooseTaxRate, fittingRates, shippingChoice } from './pricing.choose.js';
import { nextDiscountChange } from './pricing.rules.js';
import { type DiscountContext, type RatesContext, toShippingInput, toTaxInput } from './pricing.service.js';

/**
 * A checkout priced, pure: the one function an order (`POST /orders`, `POST /orders/preview`) and a
 * cart (`/store/carts`) are priced by, from the rows pricing.service.ts loads. Which discounts
 * apply (pricing.choose.ts), which shipping rate (the one named, else the cheapest for the
 * address's country and the parcel's weight), the address's tax rate, and the arithmetic of
 * pricing.calculate.ts. It never throws for what the buyer asked and cannot have: each refusal
 * (a typed code that does not apply, no rate for the address, a rate that does not serve it) is
 * listed, and the checkout priced without it. An order refuses the first (its 4xx, as before); a
 * cart lists them all as its `problems`.
 *
 * Without a shipping address there is no shipping and no tax. A tenant with no shipping rate in
 * the currency charges no shipping; one with rates but none for the country refuses it. Only the
 * lines that require shipping weigh and need a rate: a checkout of none has no shipping (a rate
 * named for it is not charged).
 */

export interface CheckoutLine extends LineInput {
  /** One unit's weight (0 when unknown): the parcel's weight is what picks a rate's band. */
  weight_grams: number;
  /** False: not sent (a download, a service): it neither weighs nor needs a rate. Absent: sent. */
  requires_shipping?: boolean;
}

export interface CheckoutInput {
  /** In the order they are shown; quantities of at least 1. */
  lines: readonly CheckoutLine[];
  currency: string;
  now: number;
  /** The discount codes as the buyer typed them. */
  codes: readonly string[];
  discounts: DiscountContext;
  /** Where it ships: its country and state, in their stored form (src/lib/addresses.ts). */
  address?: { country: string; state?: string | null | undefined } | undefined;
  /** The rates for the address (`loadRates`); unused without one. */
  rates: RatesContext;
  /** The rate the buyer chose, if any. */
  shippingRateId?: string | undefined;
}

/** What the buyer asked for and cannot have: a discount code, or shipping. */
export interface CheckoutRefusal {
  kind: 'discount' | 'shipping';
  /** `422 discount_invalid` (with `reason`), `422 shipping_unavailable`, or a 400 naming the field. */
  error: AppError;
}

export interface CheckoutPricing {
  pricing: Pricing;
  /** The discounts applied, whose uses an order takes. */
  discountIds: string[];
  /** In the order an order would meet them: the codes as typed, then shipping. */
  refusals: CheckoutRefusal[];
  /** The rates the buyer may choose, cheapest first, each with what it costs this checkout. */
  shippingOptions: { id: string; name: string; amount: number }[];
  /**
   * The first instant after `now` at which the same rows would price otherwise (a discount starts
   * or ends; Infinity when none will): a priced checkout kept until then stays true to its rows.
   */
  changesAt: number;
}

/** No address: no rates read. */
export const NO_RATES: RatesContext = { shipping: [], tax: [] };

export function priceCheckout(input: CheckoutInput): CheckoutPricing {
  const { lines, currency } = input;
  const chosen = chooseDiscountsListing({
    codes: input.codes,
    found: input.discounts.found,
    automatic: input.discounts.automatic,
    lines,
    currency,
    customerUses: input.discounts.customerUses,
    now: input.now,
  });
  const discounts = chosen.discounts;
  const refusals: CheckoutRefusal[] = chosen.refusals.map((error) => ({ kind: 'discount', error }));
  let shipping = null;
  let tax = null;
  let shippingOptions: CheckoutPricing['shippingOptions'] = [];

  const address = input.address;
  if (address === undefined) {
    if (input.shippingRateId !== undefined) {
      refusals.push({
        kind: 'shipping',
        error: validationError('shipping_address', 'is required with shipping_rate_id: rates are by country'),
      });
    }
  } else {
    const { rates } = input;
    const shipped = lines.filter((line) => line.requires_shipping !== false);
    if (shipped.length > 0 && (rates.shipping.length > 0 || input.shippingRateId !== undefined)) {
      // What the lines come to after their discounts: the rates' `free_over` is compared with it.
      const goods = calculatePricing({ lines, discounts, shipping: null, tax: null });
      const choice = {
        country: address.country,
        weight_grams: shipped.reduce((sum, line) => sum + line.weight_grams * line.quantity, 0),
        discounted_subtotal: goods.subtotal - goods.discount_total,
        currency,
        rate_id: input.shippingRateId,
      };
      shippingOptions = fittingRates(rates.shipping, choice).map(({ rate, cost }) => ({
        id: rate.id,
        name: rate.name,
        amount: cost,
      }));
      const rate = shippingChoice(rates.shipping, choice);
      if (rate instanceof AppError) refusals.push({ kind: 'shipping', error: rate });
      else shipping = toShippingInput(rate);
    }
    const taxRate = chooseTaxRate(rates.tax, { country: address.country, state: address.state ?? null });
    tax = taxRate === null ? null : toTaxInput(taxRate);
  }
  return {
    pricing: calculatePricing({ lines, discounts, shipping, tax }),
    discountIds: discounts.map((discount) => discount.id),
    refusals,
    shippingOptions,
    changesAt: nextDiscountChange([...input.discounts.found, ...input.discounts.automatic], input.now),
  };
}
