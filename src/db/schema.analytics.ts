import type { OrderStatus } from './schema.commerce.js';

/** Table types of the analytics rollups (see schema.ts). */

/** Per tenant and currency: the row every analytics rollup write locks first; counts orders rolled up. */
export interface AnalyticsCurrenciesTable {
  tenant_id: string;
  currency: string;
  orders: number;
}

/** What the analytics rollups know of an order: its created day (00:00 UTC) and current status. */
export interface AnalyticsOrdersTable {
  order_id: string;
  tenant_id: string;
  currency: string;
  day: number;
  status: OrderStatus;
  /** The order's customer: analytics count customers, not the emails orders gave (migration 0021). */
  customer_id: string;
}

/** One UTC day of a tenant's orders in one currency. */
export interface AnalyticsDailyTable {
  tenant_id: string;
  currency: string;
  day: number;
  /** Orders created that day, those of them whose payment was captured, and their total value. */
  orders: number;
  paid_orders: number;
  paid_value: number;
  /** The current status of the orders created that day. */
  status_pending: number;
  status_paid: number;
  status_shipped: number;
  status_delivered: number;
  status_cancelled: number;
  status_refunded: number;
  /** Money captured and refunded that day, and units captured minus units refunded that day. */
  captured_amount: number;
  refunded_amount: number;
  units_sold: number;
  /** The discounts, shipping and tax of the orders captured that day (migration 0024). */
  discount_total: number;
  shipping_total: number;
  tax_total: number;
}

/** Running totals of a product or category through the end of `day`; a row only on days with sales. */
export interface AnalyticsRunningTable {
  tenant_id: string;
  currency: string;
  dimension: 'product' | 'category';
  member: string;
  day: number;
  units: number;
  revenue: number;
  /** Order lines captured or refunded: tells a net zero from no sales at all. */
  lines: number;
}

/** A product, category or customer the rollups know, with its display name and active days. */
export interface AnalyticsMembersTable {
  tenant_id: string;
  currency: string;
  dimension: 'product' | 'category' | 'customer';
  /** A product id, a category, or a customer id. */
  member: string;
  name: string | null;
  /** When `name` was seen (the capture or the order it comes from). */
  name_at: number | null;
  first_day: number;
  last_day: number;
}

/** One customer's UTC day: orders created and net revenue. */
export interface AnalyticsCustomerDaysTable {
  tenant_id: string;
  currency: string;
  customer_id: string;
  day: number;
  orders: number;
  revenue: number;
  first_order_at: number | null;
  last_order_at: number | null;
}

/**
 * Customers' first orders per day by the day of their previous order: `n` counts the customers
 * with an order on `day` whose previous order day (clamped to 366 days back) is at most `since`.
 */
export interface AnalyticsReachTable {
  tenant_id: string;
  currency: string;
  day: number;
  since: number;
  n: number;
}
