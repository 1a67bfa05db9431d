import { AppError, validationError } from '../../lib/errors.js';
import { MAX_AMOUNT } from '../../lib/money.js';
import type { StockLine } from '../products/index.js';
import type { RefundItem } from './refunds.schemas.js';
import { spread } from '../pricing/index.js';

/**
 * The arithmetic of a refund, free of storage: which units of which lines it covers, what they
 * were paid, the shipping, and the amount. A line's units are returned at their share of what the
 * buyer paid for the line (`paid`: discount and tax included), and the shares of refunding a
 * line's units one at a time add up to `paid` exactly (the last units take the remainder).
 */

/** A line as a refund sees it. */
export interface RefundableLine {
  position: number;
  product_id: string;
  variant_id: string;
  quantity: number;
  paid: number;
  refunded_quantity: number;
}

/** Units of one line a refund covers and what they return. */
export interface LinePart {
  position: number;
  product_id: string;
  variant_id: string;
  quantity: number;
  amount: number;
}

export interface RefundRequest {
  amount?: number | undefined;
  items?: readonly { variant_id: string; quantity: number }[] | undefined;
  shipping?: boolean | undefined;
  restock?: boolean | undefined;
}

/** What of an order is left to refund. */
export interface Refundable {
  /** What was captured less what was refunded. */
  amount: number;
  currency: string;
  /** `shipping_paid` less the shipping of the refunds so far. */
  shipping: number;
  lines: readonly RefundableLine[];
}

export interface Plan {
  parts: LinePart[];
  shipping: number;
  amount: number;
  /** A refund of all that was left (no amount, items or shipping asked for). */
  rest: boolean;
}

/**
 * What units `before + 1` to `before + units` of a line of `quantity` units paid `paid` return:
 * floor(paid × after / quantity) − floor(paid × before / quantity). In BigInt, so the products
 * are exact for any line, not only below 2^53 (10^12 × 1000 today).
 */
export function unitsAmount(paid: number, quantity: number, before: number, units: number): number {
  const share = (n: number) => (BigInt(paid) * BigInt(n)) / BigInt(quantity);
  return Number(share(before + units) - share(before));
}

/** The units of each line not refunded yet, every one of them. */
function restOf(lines: readonly RefundableLine[]): LinePart[] {
  return lines.flatMap((line) => {
    const units = line.quantity - line.refunded_quantity;
    if (units <= 0) return [];
    return [
      {
        position: line.position,
        product_id: line.product_id,
        variant_id: line.variant_id,
        quantity: units,
        amount: unitsAmount(line.paid, line.quantity, line.refunded_quantity, units),
      },
    ];
  });
}

/**
 * The units `items` ask for, line by line: a variant's units come from its lines in position order
 * (an order bought each variant on one line, but orders older than variants may repeat a product).
 * Each refusal is a 400 naming the item (`checkRequest` refused a variant named twice).
 */
function unitsOf(
  lines: readonly RefundableLine[],
  items: readonly { variant_id: string; quantity: number }[],
): LinePart[] {
  return items.flatMap((item, index) => {
    const ofVariant = lines.filter((line) => line.variant_id === item.variant_id);
    if (ofVariant.length === 0) {
      throw validationError(`items[${index}].variant_id`, 'is not a variant this order bought');
    }
    const left = ofVariant.reduce((sum, line) => sum + line.quantity - line.refunded_quantity, 0);
    if (item.quantity > left) {
      throw validationError(
        `items[${index}].quantity`,
        `is more than the ${left} unit(s) of ${item.variant_id} not refunded yet`,
      );
    }
    let wanted = item.quantity;
    const parts: LinePart[] = [];
    for (const line of ofVariant) {
      const units = Math.min(wanted, line.quantity - line.refunded_quantity);
      if (units <= 0) continue;
      parts.push({
        position: line.position,
        product_id: line.product_id,
        variant_id: line.variant_id,
        quantity: units,
        amount: unitsAmount(line.paid, line.quantity, line.refunded_quantity, units),
      });
      wanted -= units;
    }
    return parts;
  });
}

export function exceedsRefundable(amount: number, left: Refundable): AppError {
  return new AppError(
    'amount_exceeds_refundable',
    left.amount === 0
      ? 'Nothing of this order is left to refund.'
      : `A refund of ${amount} exceeds the ${left.amount} ${left.currency} left to refund on this order.`,
    { extra: { refundable_amount: left.amount } },
  );
}

/**
 * The refusals a request earns whatever the order: each a 400 naming the field. `planRefund`
 * makes them too; a caller makes them first so that bad input is a 400 before the order is looked at.
 */
export function checkRequest(request: RefundRequest): void {
  const { amount, items, shipping, restock } = request;
  if (amount !== undefined) {
    if (!Number.isSafeInteger(amount) || amount < 1 || amount > MAX_AMOUNT) {
      throw validationError('amount', `must be a whole number of minor units from 1 to ${MAX_AMOUNT}`);
    }
    if (items !== undefined) throw validationError('items', 'give items or amount, not both');
    if (shipping === true) {
      throw validationError('shipping', 'give shipping or amount, not both: an amount covers no shipping');
    }
    if (restock === true) {
      throw validationError('restock', 'puts refunded units back; an amount refunds none (give items)');
    }
  }
  if (restock === true && items === undefined && shipping === true) {
    throw validationError('restock', 'puts refunded units back; give the items to refund');
  }
  const seen = new Map<string, number>();
  items?.forEach((item, index) => {
    const earlier = seen.get(item.variant_id);
    if (earlier !== undefined) {
      throw validationError(
        `items[${index}].variant_id`,
        `names the variant of items[${earlier}] again; send one entry per variant`,
      );
    }
    seen.set(item.variant_id, index);
  });
}

/**
 * The refund `request` makes of what is left: an `amount` alone (no lines), `items` and/or
 * `shipping` (their amounts), or with none of those all that is left: every unit not refunded,
 * the shipping left, and any rest. When refunds of a bare amount came before, what is left is less
 * than those units and the shipping were paid, and their amounts are scaled down to it.
 * Refusals name the field (400), or are 422 `amount_exceeds_refundable`; nothing is written.
 */
export function planRefund(left: Refundable, request: RefundRequest): Plan {
  checkRequest(request);
  const { amount, items, shipping } = request;
  if (amount !== undefined) {
    if (amount > left.amount) throw exceedsRefundable(amount, left);
    return { parts: [], shipping: 0, amount, rest: false };
  }
  if (items !== undefined || shipping === true) {
    const parts = items === undefined ? [] : unitsOf(left.lines, items);
    if (shipping === true && left.shipping <= 0) {
      throw validationError('shipping', 'has nothing left to refund');
    }
    const shipped = shipping === true ? left.shipping : 0;
    const total = parts.reduce((sum, part) => sum + part.amount, shipped);
    if (total > left.amount) throw exceedsRefundable(total, left);
    return { parts, shipping: shipped, amount: total, rest: false };
  }
  const parts = restOf(left.lines);
  const shipped = Math.max(left.shipping, 0);
  const attributed = parts.reduce((sum, part) => sum + part.amount, shipped);
  if (attributed <= left.amount) return { parts, shipping: shipped, amount: left.amount, rest: true };
  const scaled = spread(left.amount, [...parts.map((part) => part.amount), shipped]);
  return {
    parts: parts.map((part, index) => ({ ...part, amount: scaled[index] ?? 0 })),
    shipping: scaled[parts.length] ?? 0,
    amount: left.amount,
    rest: true,
  };
}

/** The parts as a refund lists them: one entry per variant, in the order of the lines. */
export function refundItems(parts: readonly LinePart[]): RefundItem[] {
  const byVariant = new Map<string, RefundItem>();
  for (const part of parts) {
    const item = byVariant.get(part.variant_id);
    if (item) {
      item.quantity += part.quantity;
      item.amount += part.amount;
    } else {
      byVariant.set(part.variant_id, {
        variant_id: part.variant_id,
        quantity: part.quantity,
        amount: part.amount,
      });
    }
  }
  return [...byVariant.values()];
}

/**
 * The units of an order still out of stock: each variant's units less those a refund put back
 * (a cancel gives these back, so no unit goes back twice).
 */
export function unitsOut(
  lines: readonly Pick<RefundableLine, 'product_id' | 'variant_id' | 'quantity'>[],
  refunds: readonly { items: string; restocked: number }[],
): StockLine[] {
  const back = new Map<string, number>();
  for (const refund of refunds) {
    if (refund.restocked !== 1) continue;
    for (const item of JSON.parse(refund.items) as RefundItem[]) {
      back.set(item.variant_id, (back.get(item.variant_id) ?? 0) + Number(item.quantity));
    }
  }
  const out = new Map<string, StockLine>();
  for (const line of lines) {
    const entry = out.get(line.variant_id);
    if (entry) entry.quantity += line.quantity;
    else
      out.set(line.variant_id, {
        product_id: line.product_id,
        variant_id: line.variant_id,
        quantity: line.quantity,
      });
  }
  return [...out.values()].flatMap((line) => {
    const quantity = line.quantity - (back.get(line.variant_id) ?? 0);
    return quantity > 0 ? [{ ...line, quantity }] : [];
  });
}
