import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { Static } from 'typebox';
import { ManualClock } from '../../lib/clock.js';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { Problem } from '../../../test/helpers/responses.js';
import type {
  Analytics,
  CustomersReportSchema,
  ProductsReportSchema,
  SalesReportSchema,
  Summary,
} from './analytics.schemas.js';

type SalesReport = Static<typeof SalesReportSchema>;
type CustomersReport = Static<typeof CustomersReportSchema>;
/** Any of the three reports, where a test walks them all. */
type Report = SalesReport | Static<typeof ProductsReportSchema> | CustomersReport;

const at = (instant: string) => Date.parse(instant);
/** The summary figures of checkout pricing, for orders without discounts, shipping or tax. */
const NO_PRICING = { discount_total: 0, shipping_total: 0, tax_total: 0 };
const ZERO: Summary = {
  revenue: 0,
  orders: 0,
  paid_orders: 0,
  average_order_value: 0,
  units_sold: 0,
  refunded_amount: 0,
  customers: 0,
  ...NO_PRICING,
};
const COLUMNS: Record<string, string[]> = {
  sales: [
    'period_start',
    'revenue',
    'orders',
    'paid_orders',
    'average_order_value',
    'units_sold',
    'refunded_amount',
    'customers',
    'discount_total',
    'shipping_total',
    'tax_total',
  ],
  products: ['product_id', 'name', 'units_sold', 'revenue'],
  customers: ['email', 'name', 'orders', 'revenue', 'first_order', 'last_order'],
};
const NO_STATUS = { pending: 0, paid: 0, shipped: 0, delivered: 0, cancelled: 0, refunded: 0 };

for (const dialect of DIALECTS) {
  describe(`analytics (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock(at('2026-03-09T08:00:00.000Z'));
    let api: Client;
    let other: Client;
    let mug: string;
    let tea: string;
    const ids: Record<string, string> = {};

    const product = async (as: Client, body: Record<string, unknown>) => {
      const res = await as<{ id: string }>('POST', '/v1/products', { body: { stock: 1000, ...body } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.id;
    };
    const order = async (when: string, body: Record<string, unknown>, as: Client = api) => {
      clock.set(when);
      const res = await as<{ id: string; status: string }>('POST', '/v1/orders', { body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.id;
    };
    const act = async (when: string, id: string, action: string, body: Record<string, unknown> = {}) => {
      clock.set(when);
      const res = await api('POST', `/v1/orders/${id}/${action}`, { body });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    };

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
      api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      other = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      mug = await product(api, { name: 'Mug', price: 1000, category: 'kitchen' });
      tea = await product(api, { name: 'Tea, "Earl Grey"', price: 250 });

      // Tuesday 10 March: two paid orders of Ana, a pending one of Ben, a declined one of Cy.
      const visa = { payment_method: 'pm_card_visa' };
      ids.o1 = await order('2026-03-10T10:00:00.000Z', {
        items: [
          { product_id: mug, quantity: 2 },
          { product_id: tea, quantity: 1 },
        ],
        customer: { email: 'ana@example.com', name: 'Ana' },
        ...visa,
      });
      ids.o2 = await order('2026-03-10T11:00:00.000Z', {
        items: [{ product_id: tea, quantity: 4 }],
        customer: { email: 'ben@example.com' },
      });
      ids.o3 = await order('2026-03-10T12:00:00.000Z', {
        items: [{ product_id: mug, quantity: 1 }],
        customer: { email: 'ana@example.com' },
        ...visa,
      });
      ids.o4 = await order('2026-03-10T13:00:00.000Z', {
        items: [{ product_id: mug, quantity: 1 }],
        customer: { email: 'cy@example.com' },
        payment_method: 'pm_card_declined',
      });
      // Wednesday: a paid order cancelled (money back), a late payment, a pending one cancelled, a shipment.
      await act('2026-03-11T09:00:00.000Z', ids.o3, 'cancel');
      await act('2026-03-11T10:00:00.000Z', ids.o2, 'pay', visa);
      await act('2026-03-11T11:00:00.000Z', ids.o4, 'cancel');
      await act('2026-03-11T12:00:00.000Z', ids.o1, 'ship');
      // Thursday: a refund of the shipped order and a new paid order of Ben, who now gives a name.
      await act('2026-03-12T09:00:00.000Z', ids.o1, 'refund', { restock: true });
      ids.o5 = await order('2026-03-12T10:00:00.000Z', {
        items: [{ product_id: tea, quantity: 2 }],
        customer: { email: 'ben@example.com', name: 'Ben, "B"' },
        ...visa,
      });
      clock.set('2026-03-20T15:00:00.000Z');
    });
    after(() => ctx.close());

    it('sums captures, refunds, cancellations and statuses of a period, by day', async () => {
      const res = await api<Analytics>('GET', '/v1/analytics?from=2026-03-10&to=2026-03-12');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body, {
        from: '2026-03-10',
        to: '2026-03-12',
        interval: 'day',
        currency: 'USD',
        summary: {
          // Captured 2250 + 1000 + 1000 + 500, refunded 1000 (cancel after payment) + 2250.
          revenue: 1500,
          orders: 5,
          // o1, o2, o3 and o5 were paid (o4's payment was declined): (2250 + 1000 + 1000 + 500) / 4.
          paid_orders: 4,
          average_order_value: 1188,
          units_sold: 6,
          refunded_amount: 3250,
          customers: 3,
          ...NO_PRICING,
        },
        previous_period: ZERO,
        timeseries: [
          { period_start: '2026-03-10', revenue: 3250, orders: 4, units_sold: 4 },
          { period_start: '2026-03-11', revenue: 0, orders: 0, units_sold: 3 },
          { period_start: '2026-03-12', revenue: -1750, orders: 1, units_sold: -1 },
        ],
        top_products: [
          { product_id: tea, name: 'Tea, "Earl Grey"', units_sold: 6, revenue: 1500 },
          { product_id: mug, name: 'Mug', units_sold: 0, revenue: 0 },
        ],
        sales_by_category: [
          { category: null, revenue: 1500, units_sold: 6 },
          { category: 'kitchen', revenue: 0, units_sold: 0 },
        ],
        orders_by_status: { pending: 0, paid: 2, shipped: 0, delivered: 0, cancelled: 2, refunded: 1 },
        livemode: true,
      });
    });

    it('places money on the day it moved and compares with the period before', async () => {
      const res = await api<Analytics>('GET', '/v1/analytics?from=2026-03-11&to=2026-03-12');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.summary, {
        revenue: -1750,
        orders: 1,
        paid_orders: 1,
        average_order_value: 500,
        units_sold: 2,
        refunded_amount: 3250,
        customers: 1,
        ...NO_PRICING,
      });
      // 9 and 10 March: o1..o4 created, o1..o3 eventually paid: (2250 + 1000 + 1000) / 3.
      assert.deepEqual(res.body.previous_period, {
        revenue: 3250,
        orders: 4,
        paid_orders: 3,
        average_order_value: 1417,
        units_sold: 4,
        refunded_amount: 0,
        customers: 3,
        ...NO_PRICING,
      });
      const wednesday = await api<Analytics>('GET', '/v1/analytics?from=2026-03-11&to=2026-03-11');
      assert.deepEqual(wednesday.body.top_products, [
        { product_id: tea, name: 'Tea, "Earl Grey"', units_sold: 4, revenue: 1000 },
        { product_id: mug, name: 'Mug', units_sold: -1, revenue: -1000 },
      ]);
      assert.deepEqual(wednesday.body.orders_by_status, NO_STATUS);
    });

    it('buckets by ISO week and by month, zero-filled, the first bucket starting before from', async () => {
      const weeks = await api<Analytics>('GET', '/v1/analytics?from=2026-03-04&to=2026-03-17&interval=week');
      assert.equal(weeks.status, 200);
      assert.deepEqual(weeks.body.timeseries, [
        { period_start: '2026-03-02', revenue: 0, orders: 0, units_sold: 0 },
        { period_start: '2026-03-09', revenue: 1500, orders: 5, units_sold: 6 },
        { period_start: '2026-03-16', revenue: 0, orders: 0, units_sold: 0 },
      ]);
      const months = await api<Analytics>(
        'GET',
        '/v1/analytics?from=2026-01-31&to=2026-03-10&interval=month',
      );
      assert.deepEqual(
        months.body.timeseries.map((bucket) => [bucket.period_start, bucket.orders, bucket.revenue]),
        [
          ['2026-01-01', 0, 0],
          ['2026-02-01', 0, 0],
          ['2026-03-01', 4, 3250],
        ],
      );
    });

    it('defaults to the last 30 days by day in the tenant’s currency, and answers empty periods with zeros', async () => {
      const euro = client(ctx.app, (await createTenant(ctx, { currency: 'EUR' })).apiKey.key);
      const res = await euro<Analytics>('GET', '/v1/analytics');
      assert.equal(res.status, 200);
      assert.equal(res.body.from, '2026-02-19');
      assert.equal(res.body.to, '2026-03-20');
      assert.equal(res.body.interval, 'day');
      assert.equal(res.body.currency, 'EUR');
      assert.equal(res.body.timeseries.length, 30);
      assert.equal(res.body.timeseries[0]?.period_start, '2026-02-19');
      assert.equal(res.body.timeseries[29]?.period_start, '2026-03-20');
      assert.ok(res.body.timeseries.every((b) => b.orders === 0 && b.revenue === 0 && b.units_sold === 0));
      assert.deepEqual(res.body.summary, ZERO);
      assert.deepEqual(res.body.previous_period, ZERO);
      assert.deepEqual(res.body.top_products, []);
      assert.deepEqual(res.body.sales_by_category, []);
      assert.deepEqual(res.body.orders_by_status, NO_STATUS);
      // Our own tenant's default window covers 10-12 March too; USD orders do not show in EUR.
      assert.equal((await api<Analytics>('GET', '/v1/analytics')).body.summary.orders, 5);
      assert.deepEqual((await api<Analytics>('GET', '/v1/analytics?currency=EUR')).body.summary, ZERO);
    });

    it('splits orders and money exactly at midnight UTC', async () => {
      const edge = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      const item = await product(edge, { name: 'Clock', price: 700 });
      const body = { items: [{ product_id: item, quantity: 1 }], customer: { email: 'night@example.com' } };
      const late = await order('2026-04-01T23:59:59.999Z', { ...body, payment_method: 'pm_card_visa' }, edge);
      await order('2026-04-02T00:00:00.000Z', { ...body, payment_method: 'pm_card_visa' }, edge);
      clock.set('2026-04-02T23:59:59.999Z');
      assert.equal((await edge('POST', `/v1/orders/${late}/refund`, { body: {} })).status, 200);
      clock.set('2026-04-03T00:00:00.000Z');

      const day = async (date: string) =>
        (await edge<Analytics>('GET', `/v1/analytics?from=${date}&to=${date}`)).body.summary;
      assert.deepEqual(await day('2026-04-01'), {
        revenue: 700,
        orders: 1,
        paid_orders: 1,
        average_order_value: 700,
        units_sold: 1,
        refunded_amount: 0,
        customers: 1,
        ...NO_PRICING,
      });
      assert.deepEqual(await day('2026-04-02'), {
        revenue: 0,
        orders: 1,
        paid_orders: 1,
        average_order_value: 700,
        units_sold: 0,
        refunded_amount: 700,
        customers: 1,
        ...NO_PRICING,
      });
      assert.deepEqual(await day('2026-04-03'), ZERO);
      // One customer on both days counts once over both.
      const both = await edge<Analytics>('GET', '/v1/analytics?from=2026-04-01&to=2026-04-02');
      assert.equal(both.body.summary.customers, 1);
      assert.equal(both.body.summary.revenue, 700);
    });

    it('reports sales per bucket, products and customers as pages', async () => {
      const range = 'from=2026-03-10&to=2026-03-12';
      const sales = await api<SalesReport>('GET', `/v1/analytics/reports/sales?${range}`);
      assert.equal(sales.status, 200, JSON.stringify(sales.body));
      assert.deepEqual(
        sales.body.data.map((row) => [row.period_start, row.revenue, row.orders, row.customers]),
        [
          ['2026-03-10', 3250, 4, 3],
          ['2026-03-11', 0, 0, 0],
          ['2026-03-12', -1750, 1, 1],
        ],
      );
      assert.deepEqual(sales.body.data[0], {
        period_start: '2026-03-10',
        revenue: 3250,
        orders: 4,
        paid_orders: 3,
        average_order_value: 1417,
        units_sold: 4,
        refunded_amount: 0,
        customers: 3,
        ...NO_PRICING,
        livemode: true,
      });
      assert.equal(sales.body.total, 3);

      const customers = await api<CustomersReport>('GET', `/v1/analytics/reports/customers?${range}`);
      assert.deepEqual(customers.body.data, [
        {
          email: 'ben@example.com',
          name: 'Ben, "B"',
          orders: 2,
          revenue: 1500,
          first_order: '2026-03-10T11:00:00.000Z',
          last_order: '2026-03-12T10:00:00.000Z',
        },
        {
          email: 'ana@example.com',
          name: 'Ana',
          orders: 2,
          revenue: 0,
          first_order: '2026-03-10T10:00:00.000Z',
          last_order: '2026-03-10T12:00:00.000Z',
        },
        {
          email: 'cy@example.com',
          name: null,
          orders: 1,
          revenue: 0,
          first_order: '2026-03-10T13:00:00.000Z',
          last_order: '2026-03-10T13:00:00.000Z',
        },
      ]);
      // Ben's payment on 11 March for his order of the 10th: money moved, no order created that day.
      const wednesday = await api<CustomersReport>(
        'GET',
        '/v1/analytics/reports/customers?from=2026-03-11&to=2026-03-11',
      );
      assert.deepEqual(
        wednesday.body.data.map((row) => [row.email, row.orders, row.revenue, row.first_order]),
        [
          ['ben@example.com', 0, 1000, null],
          ['ana@example.com', 0, -1000, null],
        ],
      );

      // Every report pages by cursor and by offset to the same rows.
      for (const name of ['sales', 'products', 'customers']) {
        const all = await api<Report>('GET', `/v1/analytics/reports/${name}?${range}`);
        const walked: unknown[] = [];
        let url = `/v1/analytics/reports/${name}?${range}&limit=1`;
        for (;;) {
          const page = await api<Report>('GET', url);
          assert.equal(page.status, 200, JSON.stringify(page.body));
          assert.equal(page.body.total, all.body.total);
          walked.push(...page.body.data);
          if (page.body.next_cursor === null) break;
          url = `/v1/analytics/reports/${name}?${range}&limit=1&cursor=${page.body.next_cursor}`;
        }
        assert.deepEqual(walked, all.body.data);
        const second = await api<Report>('GET', `/v1/analytics/reports/${name}?${range}&limit=1&offset=1`);
        assert.deepEqual(second.body.data, all.body.data.slice(1, 2));
        assert.equal(second.body.page, 2);
      }
    });

    it('exports every report as CSV that parses back to the JSON rows', async () => {
      const range = 'from=2026-03-10&to=2026-03-12&currency=USD';
      for (const name of ['sales', 'products', 'customers']) {
        const json = await api<Report>('GET', `/v1/analytics/reports/${name}?${range}`);
        const csv = await api<string>('GET', `/v1/analytics/reports/${name}?${range}&format=csv`);
        assert.equal(csv.status, 200);
        assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8');
        assert.equal(
          csv.headers['content-disposition'],
          `attachment; filename="${name}-2026-03-10-2026-03-12-USD.csv"`,
        );
        const rows = parse(csv.body, { columns: true }) as Record<string, string>[];
        assert.equal(rows.length, json.body.data.length);
        assert.deepEqual(
          rows,
          // Each row's columns: `livemode` says the answer's mode, not a column of the report.
          json.body.data.map((row) =>
            Object.fromEntries(
              Object.entries(row)
                .filter(([k]) => k !== 'livemode')
                .map(([k, v]) => [k, v === null ? '' : String(v)]),
            ),
          ),
        );
        // The header names every column, also when there are no rows.
        const empty = await api<string>(
          'GET',
          `/v1/analytics/reports/${name}?from=2020-01-01&to=2020-01-02&format=csv`,
        );
        // RFC 4180: every record ends in CRLF.
        assert.ok(empty.body.startsWith(`${COLUMNS[name]?.join(',')}\r\n`), empty.body);
        assert.doesNotMatch(empty.body, /[^\r]\n/);
        assert.equal(csv.body.split('\r\n').length, rows.length + 2, 'header, rows, and the final CRLF');
      }
      const customers = await api<string>('GET', `/v1/analytics/reports/customers?${range}&format=csv`);
      assert.match(customers.body, /^ben@example\.com,"Ben, ""B""",2,1500,/m);
    });

    it('exports text a spreadsheet would run as a formula escaped with a leading quote', async () => {
      const tenant = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      const evil = await product(tenant, { name: '=HYPERLINK("http://evil.example")', price: 500 });
      await order(
        '2026-03-10T12:00:00.000Z',
        {
          items: [{ product_id: evil, quantity: 1 }],
          customer: { email: 'formula@example.com', name: '+1 (555) 0100' },
          payment_method: 'pm_card_visa',
        },
        tenant,
      );
      const range = 'from=2026-03-10&to=2026-03-10';
      const products = await tenant<string>('GET', `/v1/analytics/reports/products?${range}&format=csv`);
      const customers = await tenant<string>('GET', `/v1/analytics/reports/customers?${range}&format=csv`);
      const cell = (csv: string, column: string) =>
        (parse(csv, { columns: true }) as Record<string, string>[])[0]?.[column];
      assert.equal(cell(products.body, 'name'), `'=HYPERLINK("http://evil.example")`);
      assert.equal(cell(customers.body, 'name'), "'+1 (555) 0100");
      // Numbers, negative ones included, stay numbers.
      assert.equal(cell(products.body, 'revenue'), '500');
    });

    it('rejects bad periods, intervals, currencies and parameters naming the field', async () => {
      const cases: [string, string][] = [
        ['from=2026-03-12&to=2026-03-10', 'from'],
        ['from=2025-01-01&to=2026-01-02', 'to'],
        ['to=2026-03-10&from=2025-03-09', 'to'],
        ['from=2020-01-01', 'from'],
        ['from=2026-02-30', 'from'],
        ['from=20260301', 'from'],
        ['to=yesterday', 'to'],
        ['interval=year', 'interval'],
        ['currency=usd', 'currency'],
        ['currency=XYZ', 'currency'],
        ['currency=US', 'currency'],
        ['period=7d', 'period'],
      ];
      for (const [query, field] of cases) {
        for (const path of ['/v1/analytics', '/v1/analytics/reports/sales']) {
          const res = await api<Problem>('GET', `${path}?${query}`);
          assert.equal(res.status, 400, `${path}?${query}: ${JSON.stringify(res.body)}`);
          assert.equal(res.body.code, 'validation_failed');
          assert.deepEqual(
            res.body.errors?.map((e) => e.field),
            [field],
            `${path}?${query}: ${JSON.stringify(res.body)}`,
          );
        }
      }
      // Every field that fails on its own is listed at once; rules between fields (from after
      // to, the longest period) are checked once each field is valid.
      const several: [string, string[]][] = [
        ['from=1969-12-31&to=nope&currency=XYZ', ['from', 'to', 'currency']],
        ['interval=year&currency=usd&from=2026-02-30', ['from', 'interval', 'currency']],
      ];
      for (const [query, fields] of several) {
        const res = await api<Problem>('GET', `/v1/analytics/reports/sales?${query}`);
        assert.equal(res.status, 400, query);
        assert.deepEqual(res.body.errors?.map((e) => e.field).sort(), [...fields].sort(), query);
      }
      // 366 days, both included, is the most.
      assert.equal((await api('GET', '/v1/analytics?from=2025-01-01&to=2026-01-01')).status, 200);
      // The default `from` never falls before the earliest day an explicit one may name.
      const early = await api<Analytics>('GET', '/v1/analytics?to=1970-01-05');
      assert.equal(early.status, 200);
      assert.equal(early.body.from, '1970-01-01');
      for (const [query, field] of [
        ['format=xml', 'format'],
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['cursor=bm9wZQ', 'cursor'],
        ['format=csv&cursor=abc', 'cursor'],
        ['format=csv&limit=20', 'limit'],
        ['format=csv&offset=0', 'offset'],
        ['format=csv&page=2', 'page'],
      ]) {
        const res = await api<Problem>('GET', `/v1/analytics/reports/products?${query}`);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.errors?.[0]?.field, field, query);
      }
      const unknown = await api<Problem>('GET', '/v1/analytics/reports/orders');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.code, 'not_found');
    });

    it('shows a tenant only its own orders, and needs read:analytics', async () => {
      const theirs = await other<Analytics>('GET', '/v1/analytics?from=2026-03-10&to=2026-03-12');
      assert.equal(theirs.status, 200);
      assert.deepEqual(theirs.body.summary, ZERO);
      assert.deepEqual(theirs.body.top_products, []);
      for (const name of ['sales', 'products', 'customers']) {
        const res = await other<Report>('GET', `/v1/analytics/reports/${name}?from=2026-03-10&to=2026-03-12`);
        assert.equal(res.status, 200);
        if (name === 'sales')
          assert.ok(res.body.data.every((row) => 'orders' in row && row.orders === 0 && row.revenue === 0));
        else assert.deepEqual(res.body.data, []);
      }
      // The other tenant's sales never reach ours either.
      const theirProduct = await product(other, { name: 'Other', price: 999 });
      await order(
        '2026-03-11T08:00:00.000Z',
        {
          items: [{ product_id: theirProduct, quantity: 1 }],
          customer: { email: 'ana@example.com' },
          payment_method: 'pm_card_visa',
        },
        other,
      );
      clock.set('2026-03-20T15:00:00.000Z');
      const ours = await api<Analytics>('GET', '/v1/analytics?from=2026-03-10&to=2026-03-12');
      assert.equal(ours.body.summary.orders, 5);
      assert.equal(ours.body.summary.revenue, 1500);

      const key = await api<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'orders only', permissions: ['read:orders'] },
      });
      const limited = client(ctx.app, key.body.key);
      for (const path of ['/v1/analytics', '/v1/analytics/reports/customers?format=csv']) {
        const res = await limited<Problem>('GET', path);
        assert.equal(res.status, 403);
        assert.equal(res.body.code, 'insufficient_permissions');
        assert.equal(res.body.required_permission, 'read:analytics');
      }
    });

    it('shows a tenant pinned to 2026-11-21 the summaries without the pricing figures', async () => {
      const pinned = await createTenant(ctx, { apiVersion: '2026-11-21' });
      const old = client(ctx.app, pinned.apiKey.key);
      const item = await product(old, { name: 'Lamp', price: 4200 });
      await order(
        '2026-03-11T10:00:00.000Z',
        {
          items: [{ product_id: item, quantity: 2 }],
          customer: { email: 'old@example.com' },
          payment_method: 'pm_card_visa',
        },
        old,
      );
      clock.set('2026-03-20T15:00:00.000Z');
      const latest = { headers: { 'x-service-version': '2026-12-15' } };
      const range = 'from=2026-03-10&to=2026-03-12';
      const pricing = Object.keys(NO_PRICING);
      const without = (row: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(row).filter(([key]) => !pricing.includes(key)));

      const now = await old<Analytics>('GET', `/v1/analytics?${range}`, latest);
      const then = await old<Analytics>('GET', `/v1/analytics?${range}`);
      assert.equal(then.status, 200, JSON.stringify(then.body));
      assert.equal(then.headers['x-service-version'], '2026-11-21');
      assert.deepEqual(Object.keys(now.body.summary).slice(-3), pricing);
      assert.equal(now.body.summary.revenue, 8400);
      assert.deepEqual(then.body, {
        ...now.body,
        summary: without(now.body.summary),
        previous_period: without(now.body.previous_period),
      });

      const rowsNow = await old<SalesReport>('GET', `/v1/analytics/reports/sales?${range}`, latest);
      const rowsThen = await old<SalesReport>('GET', `/v1/analytics/reports/sales?${range}`);
      assert.deepEqual(rowsThen.body, { ...rowsNow.body, data: rowsNow.body.data.map(without) });
      assert.deepEqual(
        Object.keys(rowsThen.body.data[0] ?? {}),
        COLUMNS.sales?.filter((c) => !pricing.includes(c)),
      );

      const csvNow = await old<string>('GET', `/v1/analytics/reports/sales?${range}&format=csv`, latest);
      const csvThen = await old<string>('GET', `/v1/analytics/reports/sales?${range}&format=csv`);
      assert.ok(csvNow.body.startsWith(`${COLUMNS.sales?.join(',')}\r\n`), csvNow.body);
      const parsed = parse(csvThen.body, { columns: true }) as Record<string, string>[];
      assert.deepEqual(
        parsed,
        (parse(csvNow.body, { columns: true }) as Record<string, string>[]).map(without),
      );
      assert.ok(csvThen.body.startsWith('period_start,revenue,orders,'), csvThen.body);
      assert.doesNotMatch(csvThen.body.split('\r\n')[0] ?? '', /discount_total|shipping_total|tax_total/);
      // Reports without new fields look the same in both versions.
      const products = await old('GET', `/v1/analytics/reports/products?${range}`);
      assert.deepEqual(
        products.body,
        (await old('GET', `/v1/analytics/reports/products?${range}`, latest)).body,
      );
    });

    it('documents the endpoints and the CSV media type in the OpenAPI document', async () => {
      const doc = await api<{ paths: Record<string, { get: Record<string, unknown> }> }>(
        'GET',
        '/v1/openapi.json',
      );
      const report = doc.body.paths['/v1/analytics/reports/customers']?.get as {
        responses: Record<string, { content: Record<string, unknown> }>;
        tags: string[];
      };
      assert.deepEqual(Object.keys(report.responses['200']?.content ?? {}).sort(), [
        'application/json',
        'text/csv',
      ]);
      assert.deepEqual(report.tags, ['Analytics']);
      assert.ok(doc.body.paths['/v1/analytics']?.get);
    });
  });
}
