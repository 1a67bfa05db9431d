import { iso } from '../../lib/clock.js';
import type { Address, CustomerRow } from '../customers/index.js';
import type { OrderObject } from '../orders/index.js';
import type { StoreCustomer, StoreOrder } from './shoppers.schemas.js';

/**
 * What a shopper sees of their own data: named members only, so a member the admin API gains
 * later (an order's `metadata`, a customer's `note` and `tags`: the store's own words about them)
 * never reaches a shopper unless it is added here.
 */

export function presentStoreCustomer(row: CustomerRow): StoreCustomer {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    phone: row.phone,
    addresses: JSON.parse(row.addresses) as Address[],
    marketing_consent: row.marketing_consent === 1,
    created: iso(row.created),
    updated: iso(row.updated),
  };
}

/** An order as its shopper sees it: no metadata, internal ids of rules and rates, or refund reasons. */
export function presentStoreOrder(order: OrderObject): StoreOrder {
  return {
    id: order.id,
    status: order.status,
    items: order.items.map((item) => ({
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
    currency: order.currency,
    discounts: order.discounts.map((discount) => ({
      code: discount.code,
      type: discount.type,
      amount: discount.amount,
    })),
    shipping: order.shipping === null ? null : { name: order.shipping.name, amount: order.shipping.amount },
    taxes: order.taxes.map((tax) => ({
      name: tax.name,
      rate_bps: tax.rate_bps,
      inclusive: tax.inclusive,
      amount: tax.amount,
    })),
    shipping_address: order.shipping_address,
    payment: order.payment === null ? null : { status: order.payment.status, method: order.payment.method },
    carrier: order.carrier,
    tracking_number: order.tracking_number,
    created: order.created,
    paid_at: order.paid_at,
    shipped_at: order.shipped_at,
    delivered_at: order.delivered_at,
    cancelled_at: order.cancelled_at,
    refunded_at: order.refunded_at,
    refunded_amount: order.refunded_amount,
  };
}
