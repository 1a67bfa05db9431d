import type { AnalyticsDailyTable, AnalyticsRunningTable, OrderStatus } from '../../db/schema.js';

/**
 * Shapes of the analytics rollup tables (migration 0010), shared by their writes
 * (analytics.writes.ts), their reads (analytics.reads.ts) and the service.
 */

export type DailyCounts = Omit<AnalyticsDailyTable, 'tenant_id' | 'currency' | 'day'>;
export type Dimension = AnalyticsRunningTable['dimension'];

export const EMPTY_DAILY: DailyCounts = {
  orders: 0,
  paid_orders: 0,
  paid_value: 0,
  status_pending: 0,
  status_paid: 0,
  status_shipped: 0,
  status_delivered: 0,
  status_cancelled: 0,
  status_refunded: 0,
  captured_amount: 0,
  refunded_amount: 0,
  units_sold: 0,
  discount_total: 0,
  shipping_total: 0,
  tax_total: 0,
};
export const DAILY_COLUMNS = Object.keys(EMPTY_DAILY) as (keyof DailyCounts)[];

export function statusColumn(status: OrderStatus): keyof DailyCounts {
  return `status_${status}`;
}
