/**
 * What the analytics routes answer, for the OpenAPI document: November 2026 of the store of the
 * other examples, by month, against October. Figures in minor units of USD.
 * src/http/openapi-document.test.ts checks each example against its schema.
 */

const PERIOD = { from: '2026-11-01', to: '2026-11-30', interval: 'month', currency: 'USD' };

const NOVEMBER = {
  revenue: 1842404,
  orders: 143,
  paid_orders: 131,
  average_order_value: 14394,
  units_sold: 268,
  refunded_amount: 43210,
  customers: 117,
  discount_total: 96420,
  shipping_total: 31137,
  tax_total: 121804,
};

const OCTOBER = {
  revenue: 1513204,
  orders: 121,
  paid_orders: 112,
  average_order_value: 13787,
  units_sold: 219,
  refunded_amount: 30940,
  customers: 98,
  discount_total: 70115,
  shipping_total: 27544,
  tax_total: 100212,
};

const TOP_PRODUCTS = [
  { product_id: 'prod_NUM03sM4JHrY5j5OPiOa7rZU', name: 'Trail Runner 3', units_sold: 84, revenue: 972316 },
  { product_id: 'prod_UJCge5s3ZsDvyd79x11NeKpp', name: 'Logo T-shirt', units_sold: 151, revenue: 364410 },
];

export const ANALYTICS_EXAMPLE = {
  ...PERIOD,
  summary: NOVEMBER,
  previous_period: OCTOBER,
  timeseries: [{ period_start: '2026-11-01', revenue: 1842404, orders: 143, units_sold: 268 }],
  top_products: TOP_PRODUCTS,
  sales_by_category: [
    { category: 'shoes', revenue: 1240880, units_sold: 103 },
    { category: 'apparel', revenue: 551470, units_sold: 158 },
    { category: null, revenue: 50054, units_sold: 7 },
  ],
  orders_by_status: { pending: 6, paid: 9, shipped: 14, delivered: 104, cancelled: 6, refunded: 4 },
};

const page = (total: number) => ({
  total,
  page: 1,
  limit: 20,
  offset: 0,
  has_more: false,
  next_cursor: null,
});

export const SALES_REPORT_EXAMPLE = {
  ...PERIOD,
  data: [{ period_start: '2026-11-01', ...NOVEMBER }],
  ...page(1),
};

export const PRODUCTS_REPORT_EXAMPLE = { ...PERIOD, data: TOP_PRODUCTS, ...page(2) };

export const CUSTOMERS_REPORT_EXAMPLE = {
  ...PERIOD,
  data: [
    {
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      orders: 1,
      revenue: 13995,
      first_order: '2026-11-21T10:15:00.000Z',
      last_order: '2026-11-21T10:15:00.000Z',
    },
  ],
  ...page(1),
};

/** The same reports with `format=csv`. */
export const REPORT_CSV_EXAMPLES = {
  sales:
    'period_start,revenue,orders,paid_orders,average_order_value,units_sold,refunded_amount,customers,discount_total,shipping_total,tax_total\r\n' +
    '2026-11-01,1842404,143,131,14394,268,43210,117,96420,31137,121804\r\n',
  products:
    'product_id,name,units_sold,revenue\r\n' +
    'prod_NUM03sM4JHrY5j5OPiOa7rZU,Trail Runner 3,84,972316\r\n' +
    'prod_UJCge5s3ZsDvyd79x11NeKpp,Logo T-shirt,151,364410\r\n',
  customers:
    'email,name,orders,revenue,first_order,last_order\r\n' +
    'ada@example.com,Ada Lovelace,1,13995,2026-11-21T10:15:00.000Z,2026-11-21T10:15:00.000Z\r\n',
};
