/**
 * The checkout arithmetic, pure: what an order's lines, discounts, shipping and tax come to, in
 * integer minor units only. Which discounts apply, which shipping rate and which tax rate is the
 * caller's choice; this only computes, the same way for a preview and for an order.
 *
 * - A line's amount is its unit price times its quantity; the subtotal is their sum.
 * - Amount-off discounts apply one after the other, each to what the lines it targets still cost:
 *   a percentage (basis points) of that base, rounded half away from zero, or a fixed amount (at
 *   most the base). The amount is spread over those lines in proportion to what each still costs,
 *   the remainder by the largest-remainder method (ties to the earlier line), so the lines' shares
 *   add up to the discount exactly and no line goes below zero.
 * - Shipping costs the rate's price, nothing once the discounted subtotal reaches `free_over`; a
 *   free-shipping discount waives what is left of it.
 * - Tax is computed per line after its discounts (and on the shipping when it is taxable), rounded
 *   half away from zero: added on top when exclusive, extracted from the price when inclusive (the
 *   total is then what it would be without tax). A line that is not taxable gets none.
 * - The total is never negative: every discount is bounded by what it discounts.
 */

export interface LineInput {
  product_id: string;
  category: string | null;
  unit_price: number;
  quantity: number;
  /** False: the line gets no tax (its variant is not taxable). Absent: taxable. */
  taxable?: boolean;
}

export type DiscountType = 'percentage' | 'fixed_amount' | 'free_shipping';

export interface DiscountInput {
  id: string;
  code: string | null;
  type: DiscountType;
  /** Basis points (1-10000) for a percentage, minor units for a fixed amount, unused for free shipping. */
  value: number;
  /** The lines an amount off targets; null: every line. */
  applies_to: { product_ids?: readonly string[]; categories?: readonly string[] } | null;
}

export interface ShippingInput {
  rate_id: string;
  name: string;
  price: number;
  /** The discounted subtotal from which shipping is free; null: never. */
  free_over: number | null;
}

export interface TaxInput {
  rate_id: string;
  name: string;
  rate_bps: number;
  inclusive: boolean;
  shipping_taxable: boolean;
}

export interface PricingInput {
  lines: readonly LineInput[];
  /** In the order they apply. */
  discounts: readonly DiscountInput[];
  shipping: ShippingInput | null;
  tax: TaxInput | null;
}

export interface PricedLine {
  amount: number;
  discount: number;
  tax: number;
  /** What the line costs: its amount less its discount, plus its tax when exclusive. */
  total: number;
}

export interface Pricing {
  lines: PricedLine[];
  subtotal: number;
  discount_total: number;
  shipping_total: number;
  tax_total: number;
  total: number;
  discounts: { id: string; code: string | null; type: DiscountType; amount: number }[];
  shipping: { rate_id: string; name: string; amount: number } | null;
  taxes: { rate_id: string; name: string; rate_bps: number; inclusive: boolean; amount: number }[];
}

/** a × b / d rounded half away from zero, exactly (a product of two amounts passes 2^53). All ≥ 0, d > 0. */
export function mulDivRound(a: number, b: number, d: number): number {
  const product = BigInt(a) * BigInt(b);
  const divisor = BigInt(d);
  const quotient = product / divisor;
  const remainder = product % divisor;
  return Number(remainder * 2n >= divisor ? quotient + 1n : quotient);
}

/**
 * `amount` spread over `weights` in proportion, by the largest-remainder method: the shares add up
 * to `amount` exactly, and each is at most its weight when `amount` is at most their sum.
 */
export function spread(amount: number, weights: readonly number[]): number[] {
  const total = weights.reduce((sum, w) => sum + w, 0);
  if (total === 0 || amount === 0) return weights.map(() => 0);
  const big = BigInt(amount);
  const sum = BigInt(total);
  const shares = weights.map((w) => (big * BigInt(w)) / sum);
  const remainders = weights.map((w, index) => ({ index, rest: (big * BigInt(w)) % sum }));
  let left = amount - shares.reduce((n, share) => n + Number(share), 0);
  remainders.sort((x, y) => (x.rest === y.rest ? x.index - y.index : x.rest > y.rest ? -1 : 1));
  const out = shares.map(Number);
  for (const { index } of remainders) {
    if (left === 0) break;
    out[index] = (out[index] as number) + 1;
    left -= 1;
  }
  return out;
}

function targets(discount: DiscountInput, line: LineInput): boolean {
  const to = discount.applies_to;
  if (to === null) return true;
  return (
    (to.product_ids?.includes(line.product_id) ?? false) ||
    (line.category !== null && (to.categories?.includes(line.category) ?? false))
  );
}

/**
 * What a shipping rate costs an order whose subtotal after discounts is `discountedSubtotal`: its
 * price, nothing once that reaches `free_over` (before any free-shipping discount).
 */
export function shippingCost(
  rate: Pick<ShippingInput, 'price' | 'free_over'>,
  discountedSubtotal: number,
): number {
  return rate.free_over !== null && discountedSubtotal >= rate.free_over ? 0 : rate.price;
}

/** Tax on `net`: added (exclusive) or contained in it (inclusive). */
function taxOn(net: number, tax: TaxInput): number {
  if (!tax.inclusive) return mulDivRound(net, tax.rate_bps, 10_000);
  return net - mulDivRound(net, 10_000, 10_000 + tax.rate_bps);
}

export function calculatePricing(input: PricingInput): Pricing {
  const amounts = input.lines.map((line) => line.unit_price * line.quantity);
  const discounted = amounts.map(() => 0);
  const subtotal = amounts.reduce((sum, a) => sum + a, 0);
  const applied: Pricing['discounts'] = [];
  let waiver: DiscountInput | undefined;

  for (const discount of input.discounts) {
    if (discount.type === 'free_shipping') {
      waiver ??= discount;
      continue;
    }
    const chosen = input.lines
      .map((line, index) => (targets(discount, line) ? index : -1))
      .filter((i) => i >= 0);
    const remaining = chosen.map((index) => (amounts[index] as number) - (discounted[index] as number));
    const base = remaining.reduce((sum, r) => sum + r, 0);
    const off =
      discount.type === 'percentage'
        ? mulDivRound(base, discount.value, 10_000)
        : Math.min(discount.value, base);
    spread(off, remaining).forEach((share, k) => {
      const index = chosen[k] as number;
      discounted[index] = (discounted[index] as number) + share;
    });
    applied.push({ id: discount.id, code: discount.code, type: discount.type, amount: off });
  }

  const itemDiscounts = discounted.reduce((sum, d) => sum + d, 0);
  const rate = input.shipping;
  const shippingPrice = rate === null ? 0 : shippingCost(rate, subtotal - itemDiscounts);
  const waived = waiver === undefined ? 0 : shippingPrice;
  if (waiver !== undefined) {
    applied.push({ id: waiver.id, code: waiver.code, type: waiver.type, amount: waived });
  }
  const shippingNet = shippingPrice - waived;

  const tax = input.tax;
  const lines: PricedLine[] = amounts.map((amount, index) => {
    const net = amount - (discounted[index] as number);
    const lineTax = tax === null || input.lines[index]?.taxable === false ? 0 : taxOn(net, tax);
    return {
      amount,
      discount: discounted[index] as number,
      tax: lineTax,
      total: net + (tax !== null && !tax.inclusive ? lineTax : 0),
    };
  });
  const shippingTax = tax !== null && tax.shipping_taxable ? taxOn(shippingNet, tax) : 0;
  const taxTotal = lines.reduce((sum, line) => sum + line.tax, 0) + shippingTax;
  const exclusiveTax = tax !== null && !tax.inclusive ? taxTotal : 0;

  return {
    lines,
    subtotal,
    discount_total: itemDiscounts + waived,
    shipping_total: shippingPrice,
    tax_total: taxTotal,
    total: subtotal - itemDiscounts + shippingNet + exclusiveTax,
    discounts: applied,
    shipping: rate === null ? null : { rate_id: rate.rate_id, name: rate.name, amount: shippingPrice },
    taxes:
      tax === null
        ? []
        : [
            {
              rate_id: tax.rate_id,
              name: tax.name,
              rate_bps: tax.rate_bps,
              inclusive: tax.inclusive,
              amount: taxTotal,
            },
          ],
  };
}
