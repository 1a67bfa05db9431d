import type { Db } from '../../db/store.js';
import { iso } from '../../lib/clock.js';
import * as payments from '../payments/payments.repository.js';
import * as repo from './orders.repository.js';
import type { Address, OrderObject } from './orders.schemas.js';

/** An order as the API shows it: its row, its lines and the summary of its current payment. */
export function presentOrder(
  order: repo.OrderRow,
  items: readonly repo.OrderItemRow[],
  payment: payments.PaymentRow | undefined,
): OrderObject {
  return {
    id: order.id,
    status: order.status,
    items: items.map((item) => ({
      product_id: item.product_id,
      variant_id: item.variant_id,
      name: item.name,
      variant_title: item.variant_title,
      sku: item.sku,
      quantity: item.quantity,
      unit_price: item.unit_price,
      total: item.total,
    })),
    subtotal: order.subtotal,
    total: order.total,
    currency: order.currency,
    customer: { id: order.customer_id, email: order.customer_email, name: order.customer_name },
    shipping_address:
      order.shipping_address === null ? null : (JSON.parse(order.shipping_address) as Address),
    payment: payment
      ? {
          id: payment.id,
          status: payment.status,
          method: payment.method,
          ...(payment.failure_code === null ? {} : { failure_code: payment.failure_code }),
        }
      : null,
    metadata: JSON.parse(order.metadata) as Record<string, string>,
    carrier: order.carrier,
    tracking_number: order.tracking_number,
    restocked: order.restocked === 1,
    created: iso(order.created),
    updated: iso(order.updated),
    paid_at: iso(order.paid_at),
    shipped_at: iso(order.shipped_at),
    delivered_at: iso(order.delivered_at),
    cancelled_at: iso(order.cancelled_at),
    refunded_at: iso(order.refunded_at),
  };
}

/** One order presented, with its lines and payment read from `db`. */
export async function loadOrder(db: Db, order: repo.OrderRow): Promise<OrderObject> {
  const [items, payment] = await Promise.all([
    repo.findItems(db, [order.id]),
    order.payment_id === null ? undefined : payments.findPayment(db, order.payment_id),
  ]);
  return presentOrder(order, items, payment);
}

/** Presents the orders of one page: their lines and payments are read in two queries, up front. */
export async function pagePresenter(
  db: Db,
  page: readonly repo.OrderRow[],
): Promise<(order: repo.OrderRow) => OrderObject> {
  const [items, paymentRows] = await Promise.all([
    repo.findItems(
      db,
      page.map((order) => order.id),
    ),
    payments.findPayments(
      db,
      page.flatMap((order) => (order.payment_id === null ? [] : [order.payment_id])),
    ),
  ]);
  const itemsByOrder = new Map<string, repo.OrderItemRow[]>();
  for (const item of items) {
    const list = itemsByOrder.get(item.order_id) ?? [];
    list.push(item);
    itemsByOrder.set(item.order_id, list);
  }
  const paymentById = new Map(paymentRows.map((payment) => [payment.id, payment]));
  return (order) =>
    presentOrder(
      order,
      itemsByOrder.get(order.id) ?? [],
      order.payment_id === null ? undefined : paymentById.get(order.payment_id),
    );
}
