/**
 * Which products and categories a refund takes its money and units from. The live rollups (a
 * `refund.created` at a time) and the rebuild (every refund of a store) both call `refundShares`,
 * so the two can only agree.
 *
 * A refund returns `amount`; it lists `items` (units of the order's lines, each with what the
 * buyer paid for them) and `shipping` (the part of the amount that returns shipping). Shipping is
 * treated as one more line that belongs to no product or category:
 *
 * - Each listed item takes its units, and its amount, from its line; `shipping` goes to shipping.
 * - Money the refund returns beyond what it lists (an amount of goodwill names no line) is spread
 *   like a discount on the whole order: pro rata over what the buyer paid for each line and for
 *   shipping (`order_items.paid`, `orders.shipping_paid`). No units move.
 * - A refund that lists more than it returns (all that is left of an order after goodwill) spreads
 *   its amount over what it lists, pro rata.
 *
 * Shares are integers by the largest remainder method (ties to the earlier line, shipping last),
 * so they add up to the refund exactly. The spread depends only on the order and the refund, never
 * on other refunds or on the order in which they arrive: a rebuild computes what the listener
 * kept, whatever the timing. The price of that: goodwill is spread by what each line was paid,
 * not by what is left of it, so an order refunded in full after goodwill can leave its products
 * and categories a remainder (one line's plus, another's or the shipping's minus). Revenue,
 * refunds, units and customers never depend on the spread. Refunds of items and shipping alone
 * return each line exactly what it was paid.
 */

/** A line of the refunded order, as `order_items` holds it. */
export interface RefundedLine {
  position: number;
  product_id: string;
  variant_id: string;
  category: string | null;
  /** What the buyer paid for the line (its share of discounts taken off, its tax included). */
  paid: number;
}

/** What a refund says it covers (the `refunds` row, or the object of `refund.created`). */
export interface RefundCover {
  amount: number;
  shipping: number;
  items: readonly { variant_id: string; quantity: number; amount: number }[];
}

/** The object of a `refund.created` event, as far as analytics reads it. */
export interface RefundEvent extends RefundCover {
  id: string;
  order_id: string;
  currency: string;
  /** ISO 8601: when the money went back. */
  created: string;
}

/** What a refund takes back from one line: units and money, both positive. */
export interface LineShare {
  line: RefundedLine;
  units: number;
  revenue: number;
}

/**
 * Splits `total` into integer shares proportional to `weights` (negative weights count as 0): each
 * gets the floor of its exact share, and the units left over go one each to the largest
 * fractional remainders (ties to the earlier weight). Shares add up to `total` whenever some
 * weight is positive; all are 0 otherwise. BigInt: amount times weight can pass 2^53.
 */
export function spread(total: number, weights: readonly number[]): number[] {
  const w = weights.map((weight) => BigInt(Math.max(0, weight)));
  const sum = w.reduce((a, b) => a + b, 0n);
  if (sum === 0n || total === 0) return weights.map(() => 0);
  const t = BigInt(total);
  const floors = w.map((weight) => (t * weight) / sum);
  const remainders = w.map((weight) => (t * weight) % sum);
  let left = Number(t - floors.reduce((a, b) => a + b, 0n));
  const order = remainders
    .map((remainder, index) => ({ remainder, index }))
    .sort((a, b) => (a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1));
  const shares = floors.map(Number);
  for (const { index } of order) {
    if (left <= 0) break;
    shares[index] = (shares[index] as number) + 1;
    left -= 1;
  }
  return shares;
}

/**
 * Each line's share of a refund, in line order, for the lines the refund moves (units or money).
 * `lines` are the order's lines; `shippingPaid` what its buyer paid for shipping.
 */
export function refundShares(
  lines: readonly RefundedLine[],
  shippingPaid: number,
  refund: RefundCover,
): LineShare[] {
  const sorted = [...lines].sort((a, b) => a.position - b.position);
  const units = sorted.map(() => 0);
  // What the refund lists for each line, then for shipping (the last bucket).
  const claims = [...sorted.map(() => 0), Math.max(0, refund.shipping)];
  for (const item of refund.items) {
    // One line per variant; an item naming none of them is money the refund does not place.
    const index = sorted.findIndex((line) => line.variant_id === item.variant_id);
    if (index === -1) continue;
    units[index] = (units[index] as number) + item.quantity;
    claims[index] = (claims[index] as number) + Math.max(0, item.amount);
  }
  const amount = Math.max(0, refund.amount);
  const claimed = claims.reduce((a, b) => a + b, 0);
  let taken: number[];
  if (claimed >= amount) {
    taken = spread(amount, claims);
  } else {
    const rest = spread(amount - claimed, [...sorted.map((line) => line.paid), shippingPaid]);
    taken = claims.map((claim, index) => claim + (rest[index] as number));
  }
  const shares: LineShare[] = [];
  sorted.forEach((line, index) => {
    const share = { line, units: units[index] as number, revenue: taken[index] as number };
    if (share.units !== 0 || share.revenue !== 0) shares.push(share);
  });
  return shares;
}
