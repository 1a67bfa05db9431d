import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { type Kysely, sql } from 'kysely';
import * as migration from '../../db/migrations/0010_analytics.js';
import * as customerKeys from '../../db/migrations/0021_analytics_customers.js';
import { seedDemoCommerce } from '../orders/orders.demo.js';
import type { Db } from '../../db/store.js';
import { ManualClock } from '../../lib/clock.js';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';

/**
 * Random order histories (orders at any instant and on UTC day edges, paid at once or later or
 * declined, shipped, delivered, cancelled before or after payment, refunded), played through the
 * API in time order or interleaved out of order, then every figure of GET /analytics and of the
 * three reports for random periods is compared with a brute-force computation over the raw
 * orders and order lines; the rollups the listener kept must equal a rebuild from scratch.
 */

const DAY = 24 * 3600 * 1000;
const BASE = Date.UTC(2026, 2, 1); // Sunday 1 March 2026
const WINDOW_DAYS = 14;

type Interval = 'day' | 'week' | 'month';
type Currency = 'USD' | 'EUR';
type Action = 'pay' | 'pay_declined' | 'ship' | 'deliver' | 'cancel' | 'refund';
type When = { kind: 'after'; ms: number } | { kind: 'end_of_day' } | { kind: 'start_of_next_day' };

interface OrderSpec {
  currency: Currency;
  products: number[];
  quantities: number[];
  customer: number;
  name: number | null;
  created: number;
  payment: 'none' | 'visa' | 'declined';
  actions: { action: Action; when: When }[];
}

const PRODUCTS: Record<Currency, { name: string; price: number; category: string | null }[]> = {
  USD: [
    { name: 'Trail Boot, "Grip"', price: 12_999, category: 'shoes' },
    { name: 'Sneaker', price: 7_950, category: 'shoes' },
    { name: 'Gift card', price: 2_500, category: null },
  ],
  EUR: [
    { name: 'Beanie', price: 1_999, category: 'hats' },
    { name: 'Socks; wool', price: 899, category: null },
    { name: 'Sandal', price: 4_500, category: 'shoes' },
  ],
};
const EMAILS = ['ana@example.com', 'ben@example.com', 'cy@example.com', 'dee@example.com'];
// CSV must quote commas and quotes (names are one line of text: the API refuses line breaks in them).
const NAMES = ['Ana, A.', 'Ana "B"; second'];

const whenArbitrary: fc.Arbitrary<When> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.integer({ min: 1, max: 3 * DAY }).map((ms) => ({ kind: 'after' as const, ms })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'end_of_day' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'start_of_next_day' as const }) },
);

const orderArbitrary: fc.Arbitrary<OrderSpec> = fc.record({
  currency: fc.constantFrom<Currency>('USD', 'USD', 'EUR'),
  products: fc.uniqueArray(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 3 }),
  quantities: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 3, maxLength: 3 }),
  customer: fc.integer({ min: 0, max: EMAILS.length - 1 }),
  name: fc.constantFrom(null, 0, 1),
  created: fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0, max: WINDOW_DAYS * DAY - 1 }) },
    // The last and the first millisecond of a UTC day.
    { weight: 1, arbitrary: fc.integer({ min: 1, max: WINDOW_DAYS - 1 }).map((d) => d * DAY - 1) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: WINDOW_DAYS - 1 }).map((d) => d * DAY) },
  ),
  payment: fc.constantFrom('none' as const, 'visa' as const, 'visa' as const, 'declined' as const),
  actions: fc.array(
    fc.record({
      action: fc.constantFrom<Action>('pay', 'pay_declined', 'ship', 'deliver', 'cancel', 'refund', 'refund'),
      when: whenArbitrary,
    }),
    { maxLength: 4 },
  ),
});

interface QuerySpec {
  from: number;
  length: number;
  interval: Interval;
  currency: Currency;
  report: 'sales' | 'products' | 'customers';
}

const queryArbitrary: fc.Arbitrary<QuerySpec> = fc.record({
  from: fc.integer({ min: -4, max: WINDOW_DAYS + 2 }),
  length: fc.integer({ min: 1, max: 24 }),
  interval: fc.constantFrom<Interval>('day', 'week', 'month'),
  currency: fc.constantFrom<Currency>('USD', 'EUR'),
  report: fc.constantFrom('sales' as const, 'products' as const, 'customers' as const),
});

// ---------------------------------------------------------------------------------------------
// The brute-force reference, straight from the orders and order_items tables.

interface RawOrder {
  id: string;
  currency: string;
  status: string;
  total: number;
  customer_email: string;
  customer_name: string | null;
  created: number;
  paid_at: number | null;
  cancelled_at: number | null;
  refunded_at: number | null;
}

interface RawLine {
  order_id: string;
  product_id: string;
  name: string;
  category: string | null;
  quantity: number;
  total: number;
}

const num = (value: unknown) => (value === null ? null : Number(value));

async function loadRaw(db: Db, tenantId: string): Promise<{ orders: RawOrder[]; lines: RawLine[] }> {
  const orders = await db
    .selectFrom('orders')
    .select([
      'id',
      'currency',
      'status',
      'total',
      'customer_email',
      'customer_name',
      'created',
      'paid_at',
      'cancelled_at',
      'refunded_at',
    ])
    .where('tenant_id', '=', tenantId)
    .execute();
  const lines = await db
    .selectFrom('order_items')
    .select(['order_id', 'product_id', 'name', 'category', 'quantity', 'total'])
    .where('tenant_id', '=', tenantId)
    .execute();
  return {
    orders: orders.map((o) => ({
      ...o,
      total: Number(o.total),
      created: Number(o.created),
      paid_at: num(o.paid_at),
      cancelled_at: num(o.cancelled_at),
      refunded_at: num(o.refunded_at),
    })),
    lines: lines.map((l) => ({ ...l, quantity: Number(l.quantity), total: Number(l.total) })),
  };
}

const dayOf = (t: number) => Math.floor(t / DAY) * DAY;
const dateOf = (d: number) => new Date(d).toISOString().slice(0, 10);
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function bucketStartOf(day: number, interval: Interval): number {
  const date = new Date(day);
  if (interval === 'day') return day;
  if (interval === 'week') return day - ((date.getUTCDay() + 6) % 7) * DAY;
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

function bucketEndOf(start: number, interval: Interval): number {
  if (interval === 'day') return start;
  if (interval === 'week') return start + 6 * DAY;
  const date = new Date(start);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) - DAY;
}

interface Range {
  from: number;
  to: number;
}

function reference(
  raw: { orders: RawOrder[]; lines: RawLine[] },
  q: Range & { interval: Interval; currency: string },
) {
  const orders = raw.orders.filter((o) => o.currency === q.currency);
  const linesOf = new Map<string, RawLine[]>();
  for (const line of raw.lines) linesOf.set(line.order_id, [...(linesOf.get(line.order_id) ?? []), line]);
  // Money moves: the capture, and the refund of a captured order (refund, or cancel after payment).
  const moves: { at: number; sign: 1 | -1; order: RawOrder }[] = [];
  for (const o of orders) {
    if (o.paid_at === null) continue;
    moves.push({ at: o.paid_at, sign: 1, order: o });
    const back = o.status === 'refunded' ? o.refunded_at : o.status === 'cancelled' ? o.cancelled_at : null;
    if (back !== null) moves.push({ at: back, sign: -1, order: o });
  }
  const within = (t: number, r: Range) => dayOf(t) >= r.from && dayOf(t) <= r.to;
  const units = (o: RawOrder) => sum((linesOf.get(o.id) ?? []).map((l) => l.quantity));

  function summary(r: Range) {
    const created = orders.filter((o) => within(o.created, r));
    const paid = created.filter((o) => o.paid_at !== null);
    const inRange = moves.filter((m) => within(m.at, r));
    const captured = sum(inRange.filter((m) => m.sign === 1).map((m) => m.order.total));
    const refunded = sum(inRange.filter((m) => m.sign === -1).map((m) => m.order.total));
    return {
      revenue: captured - refunded,
      orders: created.length,
      paid_orders: paid.length,
      average_order_value: paid.length === 0 ? 0 : Math.round(sum(paid.map((o) => o.total)) / paid.length),
      units_sold: sum(inRange.map((m) => m.sign * units(m.order))),
      refunded_amount: refunded,
      customers: new Set(created.map((o) => o.customer_email)).size,
    };
  }

  const period = { from: q.from, to: q.to };
  const length = q.to - q.from + DAY;
  const previous = { from: q.from - length, to: q.from - DAY };
  const buckets: (Range & { start: number })[] = [];
  for (
    let start = bucketStartOf(q.from, q.interval);
    start <= q.to;
    start = bucketEndOf(start, q.interval) + DAY
  ) {
    buckets.push({
      start,
      from: Math.max(start, q.from),
      to: Math.min(bucketEndOf(start, q.interval), q.to),
    });
  }

  // Products: named as on their latest captured line (ties: the greater name), whatever the period.
  const productName = new Map<string, { name: string; at: number }>();
  for (const m of moves) {
    if (m.sign !== 1) continue;
    for (const line of linesOf.get(m.order.id) ?? []) {
      const seen = productName.get(line.product_id);
      if (!seen || m.at > seen.at || (m.at === seen.at && line.name > seen.name)) {
        productName.set(line.product_id, { name: line.name, at: m.at });
      }
    }
  }
  const products = new Map<string, { units: number; revenue: number }>();
  const categories = new Map<string, { units: number; revenue: number }>();
  for (const m of moves.filter((move) => within(move.at, period))) {
    for (const line of linesOf.get(m.order.id) ?? []) {
      for (const [map, key] of [
        [products, line.product_id],
        [categories, line.category ?? ''],
      ] as const) {
        const acc = map.get(key) ?? { units: 0, revenue: 0 };
        acc.units += m.sign * line.quantity;
        acc.revenue += m.sign * line.total;
        map.set(key, acc);
      }
    }
  }
  const productRows = [...products]
    .map(([id, acc]) => ({
      product_id: id,
      name: productName.get(id)?.name ?? null,
      units_sold: acc.units,
      revenue: acc.revenue,
    }))
    .sort((a, b) => b.revenue - a.revenue || cmp(a.product_id, b.product_id));

  const statuses = { pending: 0, paid: 0, shipped: 0, delivered: 0, cancelled: 0, refunded: 0 };
  for (const o of orders.filter((order) => within(order.created, period))) {
    statuses[o.status as keyof typeof statuses] += 1;
  }

  // Customers: anyone with an order created or money moved in the period.
  const customerName = new Map<string, { name: string; at: number }>();
  for (const o of orders) {
    if (o.customer_name === null) continue;
    const seen = customerName.get(o.customer_email);
    if (!seen || o.created > seen.at || (o.created === seen.at && o.customer_name > seen.name)) {
      customerName.set(o.customer_email, { name: o.customer_name, at: o.created });
    }
  }
  const customers = new Map<string, { orders: number[]; revenue: number }>();
  for (const o of orders.filter((order) => within(order.created, period))) {
    const acc = customers.get(o.customer_email) ?? { orders: [], revenue: 0 };
    acc.orders.push(o.created);
    customers.set(o.customer_email, acc);
  }
  for (const m of moves.filter((move) => within(move.at, period))) {
    const acc = customers.get(m.order.customer_email) ?? { orders: [], revenue: 0 };
    acc.revenue += m.sign * m.order.total;
    customers.set(m.order.customer_email, acc);
  }
  const customerRows = [...customers]
    .map(([email, acc]) => ({
      email,
      name: customerName.get(email)?.name ?? null,
      orders: acc.orders.length,
      revenue: acc.revenue,
      first_order: acc.orders.length === 0 ? null : new Date(Math.min(...acc.orders)).toISOString(),
      last_order: acc.orders.length === 0 ? null : new Date(Math.max(...acc.orders)).toISOString(),
    }))
    .sort((a, b) => b.revenue - a.revenue || cmp(a.email, b.email));

  const head = { from: dateOf(q.from), to: dateOf(q.to), interval: q.interval, currency: q.currency };
  const report = <T>(rows: T[]) => ({
    ...head,
    data: rows,
    total: rows.length,
    page: 1,
    limit: 100,
    offset: 0,
    has_more: false,
    next_cursor: null,
  });
  return {
    analytics: {
      ...head,
      summary: summary(period),
      previous_period: summary(previous),
      timeseries: buckets.map((b) => {
        const s = summary(b);
        return {
          period_start: dateOf(b.start),
          revenue: s.revenue,
          orders: s.orders,
          units_sold: s.units_sold,
        };
      }),
      top_products: productRows.slice(0, 10),
      sales_by_category: [...categories]
        .map(([category, acc]) => ({ category: category === '' ? null : category, ...acc }))
        .sort((a, b) => b.revenue - a.revenue || cmp(a.category ?? '', b.category ?? ''))
        .map((row) => ({ category: row.category, revenue: row.revenue, units_sold: row.units })),
      orders_by_status: statuses,
    },
    sales: report(buckets.map((b) => ({ period_start: dateOf(b.start), ...summary(b) }))),
    products: report(productRows),
    customers: report(customerRows),
  };
}

// ---------------------------------------------------------------------------------------------

/** Every rollup row of a tenant, in key order. */
async function rollupSnapshot(db: Db, tenantId: string): Promise<Record<string, unknown[]>> {
  const tables = [
    ['analytics_currencies', ['currency']],
    ['analytics_orders', ['order_id']],
    ['analytics_daily', ['currency', 'day']],
    ['analytics_running', ['currency', 'dimension', 'member', 'day']],
    ['analytics_members', ['currency', 'dimension', 'member']],
    ['analytics_customer_days', ['currency', 'customer_id', 'day']],
    ['analytics_reach', ['currency', 'day', 'since']],
  ] as const;
  const out: Record<string, unknown[]> = {};
  for (const [table, key] of tables) {
    const rows = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)}
      WHERE tenant_id = ${tenantId} ORDER BY ${sql.join(key.map((column) => sql.ref(column)))}`.execute(db);
    out[table] = rows.rows;
  }
  return out;
}

interface Step {
  order: number;
  at: number;
  run: () => Promise<unknown>;
}

for (const dialect of DIALECTS) {
  describe(`analytics against brute force over random order histories (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock(BASE);

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
    });
    after(() => ctx.close());

    async function playHistory(
      api: Client,
      specs: OrderSpec[],
      chronological: boolean,
      priorities: number[],
    ) {
      clock.set(BASE - DAY);
      const catalog: Record<Currency, string[]> = { USD: [], EUR: [] };
      for (const currency of ['USD', 'EUR'] as const) {
        for (const product of PRODUCTS[currency]) {
          const res = await api<{ id: string }>('POST', '/v1/products', {
            body: { ...product, currency, stock: 100_000 },
          });
          assert.equal(res.status, 201, JSON.stringify(res.body));
          catalog[currency].push(res.body.id);
        }
      }
      const steps: Step[] = [];
      specs.forEach((spec, index) => {
        const holder = { id: '' };
        let at = BASE + spec.created;
        const body = {
          items: spec.products.map((p, i) => ({
            product_id: catalog[spec.currency][p] as string,
            quantity: spec.quantities[i] ?? 1,
          })),
          customer: {
            email: EMAILS[spec.customer] as string,
            ...(spec.name === null ? {} : { name: NAMES[spec.name] as string }),
          },
          ...(spec.payment === 'none'
            ? {}
            : { payment_method: spec.payment === 'visa' ? 'pm_card_visa' : 'pm_card_declined' }),
        };
        steps.push({
          order: index,
          at,
          run: async () => {
            const res = await api<{ id: string }>('POST', '/v1/orders', { body });
            assert.equal(res.status, 201, JSON.stringify(res.body));
            holder.id = res.body.id;
          },
        });
        for (const { action, when } of spec.actions) {
          at =
            when.kind === 'after'
              ? at + when.ms
              : when.kind === 'end_of_day'
                ? Math.max(at + 1, dayOf(at) + DAY - 1)
                : dayOf(at) + DAY;
          const path = action === 'pay_declined' ? 'pay' : action;
          const actionBody =
            action === 'pay'
              ? { payment_method: 'pm_card_mastercard' }
              : action === 'pay_declined'
                ? { payment_method: 'pm_card_insufficient_funds' }
                : {};
          steps.push({
            order: index,
            at,
            run: async () => {
              const res = await api('POST', `/v1/orders/${holder.id}/${path}`, { body: actionBody });
              // Moves the lifecycle forbids are refused and change nothing.
              assert.ok(
                [200, 409, 422].includes(res.status),
                `${action}: ${res.status} ${JSON.stringify(res.body)}`,
              );
            },
          });
        }
      });
      let ordered: Step[];
      if (chronological) {
        ordered = [...steps].sort((a, b) => a.at - b.at);
      } else {
        // Any interleaving that keeps each order's own steps in sequence: the clock goes back and forth.
        const keyed = steps.map((step, i) => ({ step, key: priorities[i % priorities.length] ?? 0 }));
        const byOrder = new Map<number, number[]>();
        for (const { step, key } of keyed) byOrder.set(step.order, [...(byOrder.get(step.order) ?? []), key]);
        for (const keys of byOrder.values()) keys.sort((a, b) => a - b);
        ordered = keyed
          .map(({ step }) => ({ step, key: (byOrder.get(step.order) as number[]).shift() as number }))
          .sort((a, b) => a.key - b.key)
          .map(({ step }) => step);
      }
      for (const step of ordered) {
        clock.set(step.at);
        await step.run();
      }
      clock.set(BASE + 30 * DAY);
    }

    it('every figure equals the brute force, and the listener’s rollups equal a rebuild', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(orderArbitrary, { minLength: 1, maxLength: 9 }),
          fc.boolean(),
          fc.array(fc.integer({ min: 0, max: 1_000_000 }), { minLength: 50, maxLength: 50 }),
          fc.array(queryArbitrary, { minLength: 2, maxLength: 3 }),
          async (specs, chronological, priorities, queries) => {
            const tenant = await createTenant(ctx);
            const api = client(ctx.app, tenant.apiKey.key);
            await playHistory(api, specs, chronological, priorities);
            const raw = await loadRaw(ctx.deps.store.db, tenant.tenant.id);

            for (const q of queries) {
              const from = BASE + q.from * DAY;
              const to = from + (q.length - 1) * DAY;
              const expected = reference(raw, { from, to, interval: q.interval, currency: q.currency });
              const params = `from=${dateOf(from)}&to=${dateOf(to)}&interval=${q.interval}&currency=${q.currency}`;
              const res = await api('GET', `/v1/analytics?${params}`);
              assert.equal(res.status, 200, JSON.stringify(res.body));
              assert.deepEqual(res.body, expected.analytics);

              const report = await api<{ data: Record<string, unknown>[] }>(
                'GET',
                `/v1/analytics/reports/${q.report}?${params}&limit=100`,
              );
              assert.equal(report.status, 200, JSON.stringify(report.body));
              assert.deepEqual(report.body, expected[q.report]);

              // The CSV export holds the same rows.
              const csv = await api<string>('GET', `/v1/analytics/reports/${q.report}?${params}&format=csv`);
              assert.equal(csv.status, 200);
              const parsed = parse(csv.body, { columns: true }) as Record<string, string>[];
              const asText = (row: Record<string, unknown>) =>
                Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === null ? '' : String(v)]));
              assert.deepEqual(parsed, expected[q.report].data.map(asText));
            }

            const kept = await rollupSnapshot(ctx.deps.store.db, tenant.tenant.id);
            await ctx.deps.analytics.rebuild(tenant.tenant.id);
            assert.deepEqual(await rollupSnapshot(ctx.deps.store.db, tenant.tenant.id), kept);
          },
        ),
        { numRuns: 20 },
      );
    });

    it('keeps exact rollups under concurrent orders, payments, refunds and cancellations', async () => {
      const tenant = await createTenant(ctx);
      const api = client(ctx.app, tenant.apiKey.key);
      clock.set(BASE + 3 * DAY + 12 * 3600 * 1000);
      const catalog: string[] = [];
      for (const product of PRODUCTS.USD) {
        const res = await api<{ id: string }>('POST', '/v1/products', {
          body: { ...product, currency: 'USD', stock: 100_000 },
        });
        catalog.push(res.body.id);
      }
      const orders = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          api<{ id: string }>('POST', '/v1/orders', {
            body: {
              items: [
                { product_id: catalog[i % 3] as string, quantity: 1 + (i % 3) },
                ...(i % 2 === 0 ? [{ product_id: catalog[(i + 1) % 3] as string, quantity: 1 }] : []),
              ],
              customer: { email: EMAILS[i % 4] as string, name: NAMES[i % 2] as string },
              ...(i % 4 === 3 ? {} : { payment_method: 'pm_card_visa' }),
            },
          }),
        ),
      );
      assert.ok(orders.every((res) => res.status === 201));
      clock.advance(DAY);
      const act = (id: string, action: string, body: Record<string, unknown> = {}) =>
        api('POST', `/v1/orders/${id}/${action}`, { body });
      const results = await Promise.all(
        orders.map((res, i) => {
          const id = res.body.id;
          // Pending: pay and cancel race (either order is a valid history); paid: two refunds, or
          // cancel against ship, race; the lifecycle lets one of each pair through.
          if (i % 4 === 3)
            return Promise.all([act(id, 'pay', { payment_method: 'pm_card_visa' }), act(id, 'cancel')]);
          if (i % 4 === 0) return Promise.all([act(id, 'refund'), act(id, 'refund')]);
          if (i % 4 === 1) return Promise.all([act(id, 'cancel'), act(id, 'ship')]);
          return Promise.all([act(id, 'ship')]);
        }),
      );
      results.forEach((pair, i) => {
        const statuses = pair.map((res) => res.status);
        assert.ok(
          statuses.every((status) => [200, 409].includes(status)),
          JSON.stringify(statuses),
        );
        const passed = statuses.filter((status) => status === 200).length;
        // Pay then cancel may both pass; cancel first refuses the payment.
        if (i % 4 === 3) assert.ok(passed >= 1, `order ${i}: ${statuses}`);
        else assert.equal(passed, 1, `order ${i}: ${statuses}`);
      });

      const raw = await loadRaw(ctx.deps.store.db, tenant.tenant.id);
      const expected = reference(raw, { from: BASE, to: BASE + 9 * DAY, interval: 'day', currency: 'USD' });
      const res = await api('GET', `/v1/analytics?from=${dateOf(BASE)}&to=${dateOf(BASE + 9 * DAY)}`);
      assert.deepEqual(res.body, expected.analytics);
      assert.equal((res.body as { summary: { orders: number } }).summary.orders, 24);
      const customers = await api(
        'GET',
        `/v1/analytics/reports/customers?from=${dateOf(BASE)}&to=${dateOf(BASE + 9 * DAY)}&limit=100`,
      );
      assert.deepEqual(customers.body, expected.customers);

      const kept = await rollupSnapshot(ctx.deps.store.db, tenant.tenant.id);
      await ctx.deps.analytics.rebuild(tenant.tenant.id);
      assert.deepEqual(await rollupSnapshot(ctx.deps.store.db, tenant.tenant.id), kept);
    });

    it('rolls up the demo store as it is seeded, with its past timestamps', async () => {
      clock.set(BASE + 40 * DAY);
      const tenant = await createTenant(ctx);
      await seedDemoCommerce(ctx.deps, tenant, 60);
      const raw = await loadRaw(ctx.deps.store.db, tenant.tenant.id);
      assert.ok(raw.orders.length >= 30, `${raw.orders.length} demo orders`);
      const api = client(ctx.app, tenant.apiKey.key);
      const from = BASE + 5 * DAY;
      const to = BASE + 40 * DAY;
      const res = await api('GET', `/v1/analytics?from=${dateOf(from)}&to=${dateOf(to)}&interval=week`);
      assert.deepEqual(res.body, reference(raw, { from, to, interval: 'week', currency: 'USD' }).analytics);
      const kept = await rollupSnapshot(ctx.deps.store.db, tenant.tenant.id);
      await ctx.deps.analytics.rebuild(tenant.tenant.id);
      assert.deepEqual(await rollupSnapshot(ctx.deps.store.db, tenant.tenant.id), kept);
    });

    it('rolls up the orders that exist when the migration runs', async () => {
      const tenant = await createTenant(ctx);
      const api = client(ctx.app, tenant.apiKey.key);
      const specs = fc.sample(orderArbitrary, { numRuns: 12, seed: 8 });
      await playHistory(api, specs, true, []);
      const kept = await rollupSnapshot(ctx.deps.store.db, tenant.tenant.id);
      assert.ok((kept.analytics_orders?.length ?? 0) === 12);
      const db = ctx.deps.store.db as unknown as Kysely<unknown>;
      await migration.down(db);
      await migration.up(db);
      // 0010 rolls up by email, as it was written; 0021 rekeys the customer rows by customer.
      await customerKeys.up(db);
      assert.deepEqual(await rollupSnapshot(ctx.deps.store.db, tenant.tenant.id), kept);
    });
  });
}
