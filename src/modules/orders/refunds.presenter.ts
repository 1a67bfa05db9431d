import { iso } from '../../lib/clock.js';
import type { RefundRow } from './refunds.repository.js';
import type { RefundItem, RefundObject } from './refunds.schemas.js';

/** A refund as the API and its `refund.created` event show it. */
export function presentRefund(row: RefundRow): RefundObject {
  return {
    id: row.id,
    order_id: row.order_id,
    amount: row.amount,
    currency: row.currency,
    items: (JSON.parse(row.items) as RefundItem[]).map((item) => ({
      variant_id: item.variant_id,
      quantity: Number(item.quantity),
      amount: Number(item.amount),
    })),
    shipping: row.shipping,
    restocked: row.restocked === 1,
    reason: row.reason,
    status: row.status,
    created: iso(row.created),
  };
}
