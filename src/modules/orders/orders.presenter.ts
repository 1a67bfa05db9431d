import type { OrderStatus } from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import { iso } from '../../lib/clock.js';
import * as fulfillments from './fulfillments.repository.js';
import { presentFulfillment, presentReturn } from './fulfillments.presenter.js';
import * as payments from './payments.repository.js';
import { presentRefund } from './refunds.presenter.js';
import * as refunds from './refunds.repository.js';
import * as repo from './orders.repository.js';
import type { Address } from '../customers/index.js';
import type { OrderObject, StoredPricing } from './orders.schemas.js';

/** The statuses a refund may start from (`TRANSITIONS.refund.from`): paid, and not all of it refunded. */
const CAPTURED: readonly OrderStatus[] = ['paid', 'shipped', 'delivered'];

/** An order as the API shows it: its row, its lines, the summary of its current payment and its refunds. */
export function presentOrder(
  order: repo.OrderRow,
  items: readonly repo.OrderItemRow[],
  payment: payments.PaymentRow | undefined,
  refundRows: readonly refunds.RefundRow[] = [],
  fulfillmentRows: readonly fulfillments.FulfillmentRow[] = [],
  returnRows: readonly fulfillments.ReturnRow[] = [],
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
      discount: item.discount,
      tax: item.tax,
    })),
    subtotal: order.subtotal,
    discount_total: order.discount_total,
    shipping_total: order.shipping_total,
    tax_total: order.tax_total,
    total: order.total,
    ...pricingOf(order),
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
    source: order.source,
    cart_id: order.cart_id,
    carrier: order.carrier,
    tracking_number: order.tracking_number,
    restocked: order.restocked === 1,
    created: iso(order.created),
    updated: iso(order.updated),
    paid_at: iso(order.paid_at),
    shipped_at: iso(order.shipped_at),
    delivered_at: iso(order.delivered_at),
    cancelled_at: iso(order.cancelled_at),
    cancel_reason: order.cancel_reason,
    refunded_at: iso(order.refunded_at),
    refunded_amount: order.refunded_amount,
    refundable_amount: CAPTURED.includes(order.status) ? order.total - order.refunded_amount : 0,
    refunds: refundRows.map(presentRefund),
    fulfillment_status: fulfillmentStatusOf(items),
    fulfillments: fulfillmentRows.map(presentFulfillment),
    returns: returnRows.map(presentReturn),
  };
}

/**
 * `unfulfilled` while no unit shipped, `fulfilled` once none is left to ship (units refunded
 * before they shipped are not), `partial` between.
 */
export function fulfillmentStatusOf(
  items: readonly Pick<repo.OrderItemRow, 'quantity' | 'fulfilled_quantity' | 'released_quantity'>[],
): 'unfulfilled' | 'partial' | 'fulfilled' {
  const shipped = items.reduce((sum, item) => sum + item.fulfilled_quantity, 0);
  const left = items.reduce(
    (sum, item) => sum + Math.max(0, item.quantity - item.fulfilled_quantity - item.released_quantity),
    0,
  );
  if (shipped === 0) return 'unfulfilled';
  return left === 0 ? 'fulfilled' : 'partial';
}

/** Whether the order may have fulfilments or returns to read (an order never shipped from has none). */
function mayHaveFulfillments(order: repo.OrderRow): boolean {
  return order.fulfillment_count > 0 || order.shipped_at !== null;
}

/** The discounts, shipping and taxes an order applied; none for an order made before pricing. */
function pricingOf(order: repo.OrderRow): StoredPricing {
  if (order.pricing === null) return { discounts: [], shipping: null, taxes: [] };
  return JSON.parse(order.pricing) as StoredPricing;
}

/** One order presented, with its lines and payment read from `db`. */
export async function loadOrder(db: Db, order: repo.OrderRow): Promise<OrderObject> {
  const shipped = mayHaveFulfillments(order);
  const [items, payment, refundRows, fulfillmentRows, returnRows] = await Promise.all([
    repo.findItems(db, [order.id]),
    order.payment_id === null ? undefined : payments.findPayment(db, order.payment_id),
    refunds.listRefunds(db, [order.id]),
    shipped ? fulfillments.listFulfillments(db, [order.id]) : [],
    shipped ? fulfillments.listReturns(db, [order.id]) : [],
  ]);
  return presentOrder(order, items, payment, refundRows, fulfillmentRows, returnRows);
}

/** Presents the orders of one page: their lines, payments and refunds are read in three queries, up front. */
export async function pagePresenter(
  db: Db,
  page: readonly repo.OrderRow[],
): Promise<(order: repo.OrderRow) => OrderObject> {
  const shipped = page.filter(mayHaveFulfillments).map((order) => order.id);
  const [items, paymentRows, refundRows, fulfillmentRows, returnRows] = await Promise.all([
    repo.findItems(
      db,
      page.map((order) => order.id),
    ),
    payments.findPayments(
      db,
      page.flatMap((order) => (order.payment_id === null ? [] : [order.payment_id])),
    ),
    refunds.listRefunds(
      db,
      page.map((order) => order.id),
    ),
    fulfillments.listFulfillments(db, shipped),
    fulfillments.listReturns(db, shipped),
  ]);
  const itemsByOrder = new Map<string, repo.OrderItemRow[]>();
  for (const item of items) {
    const list = itemsByOrder.get(item.order_id) ?? [];
    list.push(item);
    itemsByOrder.set(item.order_id, list);
  }
  const paymentById = new Map(paymentRows.map((payment) => [payment.id, payment]));
  const refundsByOrder = new Map<string, refunds.RefundRow[]>();
  for (const refund of refundRows) {
    const list = refundsByOrder.get(refund.order_id) ?? [];
    list.push(refund);
    refundsByOrder.set(refund.order_id, list);
  }
  return (order) =>
    presentOrder(
      order,
      itemsByOrder.get(order.id) ?? [],
      order.payment_id === null ? undefined : paymentById.get(order.payment_id),
      refundsByOrder.get(order.id) ?? [],
      fulfillmentRows.filter((row) => row.order_id === order.id),
      returnRows.filter((row) => row.order_id === order.id),
    );
}
