import { pipeline, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Store } from '../../db/store.js';
import { type CursorValue, type Envelope, envelope, type PageQuery, pageWindow } from '../../lib/paging.js';
import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { TenantSummary } from '../../lib/principal.js';
import {
  bucketsOf,
  DAY_MS,
  dateOf,
  type Period,
  type PeriodQuery,
  previousOf,
  resolvePeriod,
} from './analytics.periods.js';
import * as repo from './analytics.reads.js';
import { flushForRead, flushIn } from './analytics.queue.js';
import { rebuildRollups } from './analytics.rebuild.js';
import {
  type Analytics,
  CustomerRowSchema,
  type CustomerRow,
  type ProductRow,
  ProductRowSchema,
  type SalesRow,
  SalesRowSchema,
  type Summary,
} from './analytics.schemas.js';
import { type DailyCounts, EMPTY_DAILY } from './analytics.tables.js';

/**
 * Store analytics, read from the rollups that analytics.rollups.ts keeps from the events of every
 * order change (queued in the change's transaction by the module's effect, analytics.queue.ts);
 * every read first takes in what is queued, so it answers every change committed before it. A period of up to 366 days costs a bounded
 * number of rows and index seeks whatever the number of orders: at most 732 daily rows (the period
 * and the one before it), one seek per day with orders for distinct customers, and two seeks per
 * product and category with sales in the period. The customers report reads one row per customer
 * and day of the period.
 */

export const TOP_PRODUCTS = 10;
const CSV_PAGE = 1000;

export type ReportName = 'sales' | 'products' | 'customers';

export interface Report<Row> extends Envelope<Row> {
  from: string;
  to: string;
  interval: string;
  currency: string;
}

interface Range {
  from: number;
  to: number;
}

/** Totals of the daily rows (sorted by day) over each range, by prefix sums: one pass over the rows. */
function totalsOver(rows: readonly repo.DailyRow[], ranges: readonly Range[]): DailyCounts[] {
  const columns = Object.keys(EMPTY_DAILY) as (keyof DailyCounts)[];
  const prefix: DailyCounts[] = [{ ...EMPTY_DAILY }];
  for (const row of rows) {
    const next = { ...(prefix[prefix.length - 1] as DailyCounts) };
    for (const column of columns) next[column] += row[column];
    prefix.push(next);
  }
  /** How many rows have a day before `day`. */
  const before = (day: number) => {
    let lo = 0;
    let hi = rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((rows[mid] as repo.DailyRow).day < day) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return ranges.map((range) => {
    const start = prefix[before(range.from)] as DailyCounts;
    const end = prefix[before(range.to + DAY_MS)] as DailyCounts;
    const out = { ...EMPTY_DAILY };
    for (const column of columns) out[column] = end[column] - start[column];
    return out;
  });
}

function summaryOf(counts: DailyCounts, customers: number): Summary {
  return {
    revenue: counts.captured_amount - counts.refunded_amount,
    orders: counts.orders,
    paid_orders: counts.paid_orders,
    average_order_value: counts.paid_orders === 0 ? 0 : Math.round(counts.paid_value / counts.paid_orders),
    units_sold: counts.units_sold,
    refunded_amount: counts.refunded_amount,
    customers,
    discount_total: counts.discount_total,
    shipping_total: counts.shipping_total,
    tax_total: counts.tax_total,
  };
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Highest revenue first, then by product id. */
function productRows(totals: readonly repo.MemberTotals[]): ProductRow[] {
  return totals
    .map((row) => ({ product_id: row.member, name: row.name, units_sold: row.units, revenue: row.revenue }))
    .sort((a, b) => b.revenue - a.revenue || byText(a.product_id, b.product_id));
}

/** `pageWindow` has checked that the cursor seeks on a number (these lists' sorts all do). */
function numericCursor(after: [CursorValue, string]): [number, string] {
  return after as [number, string];
}

/** A page of rows computed in full (a bounded list), continued by offset or by cursor. */
function pageOf<T>(
  rows: readonly T[],
  query: PageQuery,
  sort: string,
  keyOf: (row: T) => [number, string],
  isAfter: (row: T, key: [number, string]) => boolean,
): Envelope<T> {
  const window = pageWindow(query, sort);
  let start = window.offset;
  if (window.cursor) {
    const key = numericCursor(window.cursor.after);
    const index = rows.findIndex((row) => isAfter(row, key));
    start = index === -1 ? rows.length : index;
  }
  return envelope(
    rows.slice(start, start + window.limit + 1),
    rows.length,
    window,
    sort,
    keyOf,
    (row) => row,
  );
}

function customerRow(row: repo.CustomerTotals): CustomerRow {
  return {
    email: row.email,
    name: row.name,
    orders: row.orders,
    revenue: row.revenue,
    first_order: iso(row.first_order_at),
    last_order: iso(row.last_order_at),
  };
}

const CSV_COLUMNS: Record<ReportName, string[]> = {
  sales: Object.keys(SalesRowSchema.properties),
  products: Object.keys(ProductRowSchema.properties),
  customers: Object.keys(CustomerRowSchema.properties),
};

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;

export function createAnalyticsService(deps: { store: Store; clock: Clock; logger: Logger }) {
  const { store, clock, logger } = deps;

  function periodOf(tenant: TenantSummary, query: PeriodQuery): Period {
    return resolvePeriod(query, clock.now(), tenant.currency);
  }

  function header(period: Period) {
    return {
      from: dateOf(period.from),
      to: dateOf(period.to),
      interval: period.interval,
      currency: period.currency,
    };
  }

  async function salesRows(tenantId: string, period: Period): Promise<SalesRow[]> {
    const buckets = bucketsOf(period.from, period.to, period.interval);
    const [rows, customers] = await Promise.all([
      repo.dailyRows(store.db, tenantId, period.currency, period.from, period.to),
      repo.reachCounts(store.db, tenantId, period.currency, buckets),
    ]);
    const totals = totalsOver(rows, buckets);
    return buckets.map((bucket, index) => ({
      period_start: dateOf(bucket.start),
      ...summaryOf(totals[index] as DailyCounts, customers[index] ?? 0),
    }));
  }

  async function allProducts(tenantId: string, period: Period): Promise<ProductRow[]> {
    const totals = await repo.runningTotals(
      store.db,
      tenantId,
      period.currency,
      'product',
      period.from,
      period.to,
    );
    return productRows(totals);
  }

  async function customersPage(
    tenantId: string,
    period: Period,
    query: PageQuery,
  ): Promise<Envelope<CustomerRow>> {
    const sort = 'customers:-revenue';
    const window = pageWindow(query, sort);
    const [rows, total] = await Promise.all([
      repo.customerTotals(store.db, tenantId, period.currency, period.from, period.to, {
        limit: window.limit + 1,
        offset: window.offset,
        after: window.cursor ? numericCursor(window.cursor.after) : undefined,
      }),
      repo.countCustomers(store.db, tenantId, period.currency, period.from, period.to),
    ]);
    return envelope(rows, total, window, sort, (row) => [row.revenue, row.email], customerRow);
  }

  /**
   * Every customer row, paged by (revenue, email). The first page is read before the response
   * starts, so a store that cannot answer is still a clean 503 rather than a cut-off 200.
   */
  async function allCustomers(tenantId: string, period: Period): Promise<AsyncIterable<CustomerRow>> {
    const page = (after: [number, string] | undefined) =>
      repo.customerTotals(store.db, tenantId, period.currency, period.from, period.to, {
        limit: CSV_PAGE,
        offset: 0,
        after,
      });
    const first = await page(undefined);
    return (async function* rest() {
      for (let rows = first; ;) {
        for (const row of rows) yield customerRow(row);
        const last = rows[rows.length - 1];
        if (rows.length < CSV_PAGE || last === undefined) return;
        rows = await page([last.revenue, last.email]);
      }
    })();
  }

  /** One row per time bucket, with the summary figures of the bucket. */
  async function salesReport(
    tenant: TenantSummary,
    query: PeriodQuery & PageQuery,
  ): Promise<Report<SalesRow>> {
    const period = periodOf(tenant, query);
    const rows = await salesRows(tenant.id, period);
    return {
      ...header(period),
      ...pageOf(
        rows,
        query,
        'sales:period_start',
        (row) => [Date.parse(row.period_start), row.period_start],
        (row, [start]) => Date.parse(row.period_start) > start,
      ),
    };
  }

  /** One row per product with sales in the period. */
  async function productsReport(
    tenant: TenantSummary,
    query: PeriodQuery & PageQuery,
  ): Promise<Report<ProductRow>> {
    const period = periodOf(tenant, query);
    const rows = await allProducts(tenant.id, period);
    return {
      ...header(period),
      ...pageOf(
        rows,
        query,
        'products:-revenue',
        (row) => [row.revenue, row.product_id],
        (row, [revenue, id]) => row.revenue < revenue || (row.revenue === revenue && row.product_id > id),
      ),
    };
  }

  /** One row per customer with orders or money moved in the period. */
  async function customersReport(
    tenant: TenantSummary,
    query: PeriodQuery & PageQuery,
  ): Promise<Report<CustomerRow>> {
    const period = periodOf(tenant, query);
    return { ...header(period), ...(await customersPage(tenant.id, period, query)) };
  }

  return {
    /** `GET /analytics`: the period's summary, the one before it, buckets, products, categories, statuses. */
    async overview(tenant: TenantSummary, query: PeriodQuery): Promise<Analytics> {
      const period = periodOf(tenant, query);
      await flushForRead(store, logger);
      const previous = previousOf(period);
      const { currency } = period;
      const buckets = bucketsOf(period.from, period.to, period.interval);
      const [rows, customers, products, categories] = await Promise.all([
        repo.dailyRows(store.db, tenant.id, currency, previous.from, period.to),
        repo.reachCounts(store.db, tenant.id, currency, [period, previous]),
        repo.runningTotals(store.db, tenant.id, currency, 'product', period.from, period.to),
        repo.runningTotals(store.db, tenant.id, currency, 'category', period.from, period.to),
      ]);
      const [current, before, ...perBucket] = totalsOver(rows, [period, previous, ...buckets]) as [
        DailyCounts,
        DailyCounts,
        ...DailyCounts[],
      ];
      return {
        ...header(period),
        summary: summaryOf(current, customers[0] ?? 0),
        previous_period: summaryOf(before, customers[1] ?? 0),
        timeseries: buckets.map((bucket, index) => {
          const counts = perBucket[index] as DailyCounts;
          return {
            period_start: dateOf(bucket.start),
            revenue: counts.captured_amount - counts.refunded_amount,
            orders: counts.orders,
            units_sold: counts.units_sold,
          };
        }),
        top_products: productRows(products).slice(0, TOP_PRODUCTS),
        sales_by_category: categories
          .map((row) => ({
            category: row.member === '' ? null : row.member,
            revenue: row.revenue,
            units_sold: row.units,
          }))
          .sort((a, b) => b.revenue - a.revenue || byText(a.category ?? '', b.category ?? '')),
        orders_by_status: {
          pending: current.status_pending,
          paid: current.status_paid,
          shipped: current.status_shipped,
          delivered: current.status_delivered,
          cancelled: current.status_cancelled,
          refunded: current.status_refunded,
        },
      };
    },

    /** A report as JSON: one page of its rows. */
    async report(
      name: ReportName,
      tenant: TenantSummary,
      query: PeriodQuery & PageQuery,
    ): Promise<Report<SalesRow> | Report<ProductRow> | Report<CustomerRow>> {
      await flushForRead(store, logger);
      if (name === 'sales') return salesReport(tenant, query);
      if (name === 'products') return productsReport(tenant, query);
      return customersReport(tenant, query);
    },

    /** The columns of a report's CSV: the fields of its rows. */
    csvColumns(name: ReportName): string[] {
      return [...CSV_COLUMNS[name]];
    },

    /**
     * Every row of a report as CSV (a header line, then the rows), streamed; `columns` (default:
     * every field of the rows) are those of the API version asked for.
     */
    async exportCsv(
      name: ReportName,
      tenant: TenantSummary,
      query: PeriodQuery,
      columns: readonly string[] = CSV_COLUMNS[name],
    ): Promise<{ filename: string; body: Readable }> {
      const period = periodOf(tenant, query);
      await flushForRead(store, logger);
      let rows: Iterable<object> | AsyncIterable<object>;
      if (name === 'sales') rows = await salesRows(tenant.id, period);
      else if (name === 'products') rows = await allProducts(tenant.id, period);
      else rows = await allCustomers(tenant.id, period);
      // RFC 4180: CRLF line ends. Text starting with = + - @ is escaped (a leading '), so a
      // spreadsheet never runs it as a formula.
      const csv = stringify({
        header: true,
        columns: [...columns],
        escape_formulas: true,
        record_delimiter: 'windows',
      });
      const body = pipeline(Readable.from(rows), csv, (error) => {
        if (error) logger.error({ err: error, report: name }, 'analytics CSV export failed');
      });
      return {
        filename: `${name}-${dateOf(period.from)}-${dateOf(period.to)}-${period.currency}.csv`,
        body,
      };
    },

    /**
     * Recomputes the rollups of one tenant (or all) from the orders and their lines: for orders
     * written without the rollup effect (bulk loads, a seeding event service of its own). What was
     * queued is taken in first, so the rebuild's rows replace every figure it moved.
     */
    async rebuild(tenantId?: string): Promise<void> {
      await store.transaction(async (trx) => {
        await flushIn(trx, store, logger);
        await rebuildRollups(trx, tenantId);
      });
    },
  };
}
