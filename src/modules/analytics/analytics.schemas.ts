import { type Static, Type } from 'typebox';
import { EnvelopeSchema, PageQuery } from '../../http/pagination.js';
import { Currency, Nullable } from '../../http/schemas.js';
import {
  ANALYTICS_EXAMPLE,
  CUSTOMERS_REPORT_EXAMPLE,
  PRODUCTS_REPORT_EXAMPLE,
  REPORT_CSV_EXAMPLES,
  SALES_REPORT_EXAMPLE,
} from './analytics.examples.js';
import { EARLIEST_DAY, INTERVALS, type Interval, MAX_PERIOD_DAYS } from './analytics.periods.js';

const DateOnly = (description: string) =>
  Type.String({ format: 'date', description, examples: ['2026-11-01'] });

const Instant = (description: string) =>
  Type.String({ format: 'date-time', description, examples: ['2026-11-21T10:15:00.000Z'] });

/**
 * A day a query may name: 1970-01-01 or later. The bound is ajv-formats' `formatMinimum`, checked
 * with the other fields (a 400 lists every field at fault); the OpenAPI document, in plain JSON
 * Schema, leaves that keyword out (openapi-standard.ts), so the description says it.
 */
const QueryDay = (description: string) =>
  Type.String({ ...DateOnly(description), formatMinimum: EARLIEST_DAY });

const PeriodQuery = {
  from: Type.Optional(
    QueryDay(
      `First UTC day of the period, included: ${EARLIEST_DAY} or later. Default: 29 days before \`to\` (30 days in all), and not before ${EARLIEST_DAY}.`,
    ),
  ),
  to: Type.Optional(
    QueryDay(
      `Last UTC day of the period, included: ${EARLIEST_DAY} or later, and at most ${MAX_PERIOD_DAYS} days from \`from\`. Default: today.`,
    ),
  ),
  interval: Type.Optional(
    Type.Unsafe<Interval>({
      type: 'string',
      enum: [...INTERVALS],
      default: 'day',
      description:
        'Time buckets: `day` (default), `week` (ISO weeks, from Monday) or `month` (from the 1st).',
    }),
  ),
  currency: Type.Optional(
    Type.String({
      ...Currency,
      description: 'ISO 4217; only orders in this currency count. Default: the tenant’s currency.',
    }),
  ),
};

export const AnalyticsQuery = Type.Object(PeriodQuery, { additionalProperties: false });
export type AnalyticsQuery = Static<typeof AnalyticsQuery>;

export const ReportQuery = Type.Object(
  {
    ...PeriodQuery,
    ...PageQuery,
    format: Type.Optional(
      Type.Unsafe<'json' | 'csv'>({
        type: 'string',
        enum: ['json', 'csv'],
        default: 'json',
        description:
          '`csv`: every row of the report as `text/csv` (an attachment); paging parameters are refused with it (400).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ReportQuery = Static<typeof ReportQuery>;

const Money = (description: string) => Type.Integer({ description: `${description} Minor units.` });
const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const SummarySchema = Type.Object({
  revenue: Money('Captured payments minus refunds, each on the UTC day it happened and by its own amount.'),
  orders: Count('Orders created in the period, whatever their status.'),
  paid_orders: Count(
    'Orders created in the period whose payment was captured (also when refunded or cancelled later).',
  ),
  average_order_value: Type.Integer({
    minimum: 0,
    description:
      'Total of the paid orders divided by their number, rounded to the minor unit; 0 without any.',
  }),
  units_sold: Type.Integer({ description: 'Units captured minus units refunded, on the day it happened.' }),
  refunded_amount: Type.Integer({
    minimum: 0,
    description:
      'Refunds in the period, each by its amount on the UTC day it was made (a partial or whole refund, or the cancellation of a paid order). Minor units.',
  }),
  customers: Count('Distinct customers among the orders created in the period.'),
  discount_total: Type.Integer({
    minimum: 0,
    description:
      'Discounts of the orders whose payment was captured in the period, on the day of the capture (refunds do not change it). Minor units.',
  }),
  shipping_total: Type.Integer({
    minimum: 0,
    description:
      'Shipping charged (the rates’ prices, before free-shipping discounts) on the orders captured in the period, on the day of the capture. Minor units.',
  }),
  tax_total: Type.Integer({
    minimum: 0,
    description:
      'Tax of the orders captured in the period (added or contained in the prices), on the day of the capture. Minor units.',
  }),
});
export type Summary = Static<typeof SummarySchema>;

const ProductTotalsSchema = Type.Object({
  product_id: Type.String(),
  name: Nullable(Type.String({ description: 'As on its latest captured order line.' })),
  units_sold: Type.Integer(),
  revenue: Type.Integer({ description: 'Minor units.' }),
});
export type ProductTotals = Static<typeof ProductTotalsSchema>;

const CategoryTotalsSchema = Type.Object({
  category: Nullable(Type.String({ description: '`null` for products without a category.' })),
  revenue: Type.Integer({ description: 'Minor units.' }),
  units_sold: Type.Integer(),
});

const Common = {
  from: DateOnly('First day of the period.'),
  to: DateOnly('Last day of the period.'),
  interval: Type.String({ enum: [...INTERVALS] }),
  currency: Type.String({ examples: ['USD'] }),
};

export const AnalyticsSchema = Type.Object(
  {
    ...Common,
    summary: SummarySchema,
    previous_period: Type.Object(SummarySchema.properties, {
      description: 'The same figures for the period of the same length that ends the day before `from`.',
    }),
    timeseries: Type.Array(
      Type.Object({
        period_start: DateOnly(
          'The calendar start of the bucket (the day, the Monday, the 1st); the first bucket may start before `from` but counts only days from `from` on.',
        ),
        revenue: Type.Integer(),
        orders: Type.Integer({ minimum: 0 }),
        units_sold: Type.Integer(),
      }),
      { description: 'Every bucket of the period, oldest first, zero-filled.' },
    ),
    top_products: Type.Array(ProductTotalsSchema, {
      description: 'The 10 products with the highest revenue in the period (then by id).',
    }),
    sales_by_category: Type.Array(CategoryTotalsSchema, {
      description:
        'Every category with sales in the period, highest revenue first (line categories at order time).',
    }),
    orders_by_status: Type.Object(
      {
        pending: Type.Integer({ minimum: 0 }),
        paid: Type.Integer({ minimum: 0 }),
        shipped: Type.Integer({ minimum: 0 }),
        delivered: Type.Integer({ minimum: 0 }),
        cancelled: Type.Integer({ minimum: 0 }),
        refunded: Type.Integer({ minimum: 0 }),
      },
      { description: 'The current status of the orders created in the period.' },
    ),
  },
  { examples: [ANALYTICS_EXAMPLE] },
);
export type Analytics = Static<typeof AnalyticsSchema>;

export const SalesRowSchema = Type.Object({
  period_start: DateOnly('The calendar start of the bucket; the first may start before `from`.'),
  ...SummarySchema.properties,
});
export type SalesRow = Static<typeof SalesRowSchema>;

export const ProductRowSchema = ProductTotalsSchema;
export type ProductRow = ProductTotals;

export const CustomerRowSchema = Type.Object({
  email: Type.String({ description: 'The customer’s email as it is now.' }),
  name: Nullable(Type.String({ description: 'As on the customer’s latest order that gave one.' })),
  orders: Type.Integer({ minimum: 0, description: 'Orders the customer created in the period.' }),
  revenue: Type.Integer({ description: 'The customer’s captured payments minus refunds in the period.' }),
  first_order: Nullable(
    Instant('When the customer’s first order in the period was created; `null` when only money moved.'),
  ),
  last_order: Nullable(Instant('When the customer’s latest order in the period was created.')),
});
export type CustomerRow = Static<typeof CustomerRowSchema>;

/** The list envelope around report rows, with the period they cover. */
function ReportSchema<T extends Parameters<typeof EnvelopeSchema>[0]>(
  row: T,
  description: string,
  example: unknown,
) {
  return Type.Object({ ...Common, ...EnvelopeSchema(row).properties }, { description, examples: [example] });
}

export const SalesReportSchema = ReportSchema(
  SalesRowSchema,
  'One row per time bucket of the period, oldest first, zero-filled, with the summary figures of the bucket.',
  SALES_REPORT_EXAMPLE,
);
export const ProductsReportSchema = ReportSchema(
  ProductRowSchema,
  'One row per product with sales in the period, highest revenue first (then by id).',
  PRODUCTS_REPORT_EXAMPLE,
);
export const CustomersReportSchema = ReportSchema(
  CustomerRowSchema,
  'One row per customer with orders or money moved in the period, highest revenue first (then by email).',
  CUSTOMERS_REPORT_EXAMPLE,
);

/** A report with `format=csv`, with an example of its rows. */
export function CsvSchema(report: keyof typeof REPORT_CSV_EXAMPLES) {
  return Type.String({
    description: 'With `format=csv`: a header line and one line per row (RFC 4180), as an attachment.',
    examples: [REPORT_CSV_EXAMPLES[report]],
  });
}
