import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { type Kysely, sql } from 'kysely';
import * as migration from '../../db/migrations/0010_analytics.js';
import * as customerKeys from '../../db/migrations/0021_analytics_customers.js';
import * as analyticsPricing from '../../db/migrations/0025_analytics_pricing.js';
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
import { flushQueue } from './analytics.queue.js';

/**
 * Random order histories (orders at any instant and on UTC day edges, priced with a discount,
 * shipping and tax or not, paid at once or later or declined, shipped, delivered, cancelled before
 * or after payment, refunded in part (an amount, a unit, the shipping) or in full), played through
 * the API in time order or interleaved out of order, then every figure of GET /analytics and of
 * the three reports for random periods is compared with a brute-force computation over the raw
 * orders, order lines and refunds; the rollups the listener kept must equal a rebuild from scratch.
 */

const DAY = 24 * 3600 * 1000;
const BASE = Date.UTC(2026, 2, 1); // Sunday 1 March 2026
const WINDOW_DAYS = 14;

type Interval = 'day' | 'week' | 'month';
type Currency = 'USD' | 'EUR';
type Action =
  | 'pay'
  | 'pay_declined'
  | 'ship'
  | 'deliver'
  | 'cancel'
  | 'refund'
  | 'refund_amount'
  | 'refund_unit'
  | 'refund_shipping';
type When = { kind: 'after'; ms: number } | { kind: 'end_of_day' } | { kind: 'start_of_next_day' };

interface OrderSpec {
  currency: Currency;
  products: number[];
  quantities: number[];
  customer: number;
  name: number | null;
  created: number;
  /** With a shipping address in California (shipping and tax) and the 10% discount code. */
  priced: boolean;
  payment: 'none' | 'visa' | 'declined';
  /** `share`: the part of what is left an amount refund returns, or which line gives a unit back. */
  actions: { action: Action; when: When; share: number }[];
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
const US_CA = { line1: '1 Main St', city: 'Los Angeles', state: 'CA', country: 'US' };
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
  priced: fc.boolean(),
  payment: fc.constantFrom('none' as const, 'visa' as const, 'visa' as const, 'declined' as const),
  actions: fc.array(
    fc.record({
      action: fc.constantFrom<Action>(
        'pay',
        'pay_declined',
        'ship',
        'deliver',
        'cancel',
        'refund',
        'refund_amount',
        'refund_amount',
        'refund_unit',
        'refund_unit',
        'refund_shipping',
      ),
      when: whenArbitrary,
      share: fc.integer({ min: 1, max: 99 }),
    }),
    { maxLength: 5 },
  ),
});

/** A history as release v2.4 could make it: no pricing, no partial refund. */
const v24OrderArbitrary = orderArbitrary.map((spec) => ({
  ...spec,
  priced: false,
  actions: spec.actions.filter(
    (a) => !['refund_amount', 'refund_unit', 'refund_shipping'].includes(a.action),
  ),
}));

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
  discount_total: number;
  shipping_total: number;
  tax_total: number;
  shipping_paid: number;
  customer_email: string;
  customer_name: string | null;
  created: number;
  paid_at: number | null;
  cancelled_at: number | null;
  refunded_at: number | null;
}

interface RawLine {
  order_id: string;
  position: number;
  product_id: string;
  variant_id: string;
  name: string;
  category: string | null;
  quantity: number;
  paid: number;
}

interface RawRefund {
  order_id: string;
  amount: number;
  shipping: number;
  items: { variant_id: string; quantity: number; amount: number }[];
  created: number;
}

interface Raw {
  orders: RawOrder[];
  lines: RawLine[];
  refunds: RawRefund[];
}

const num = (value: unknown) => (value === null ? null : Number(value));

async function loadRaw(db: Db, tenantId: string): Promise<Raw> {
  const orders = await db
    .selectFrom('orders')
    .select([
      'id',
      'currency',
      'status',
      'total',
      'discount_total',
      'shipping_total',
      'tax_total',
      'shipping_paid',
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
    .select(['order_id', 'position', 'product_id', 'variant_id', 'name', 'category', 'quantity', 'paid'])
    .where('tenant_id', '=', tenantId)
    .execute();
  const refunds = await db
    .selectFrom('refunds')
    .select(['order_id', 'amount', 'shipping', 'items', 'created'])
    .where('tenant_id', '=', tenantId)
    .execute();
  return {
    orders: orders.map((o) => ({
      ...o,
      total: Number(o.total),
      discount_total: Number(o.discount_total),
      shipping_total: Number(o.shipping_total),
      tax_total: Number(o.tax_total),
      shipping_paid: Number(o.shipping_paid),
      created: Number(o.created),
      paid_at: num(o.paid_at),
      cancelled_at: num(o.cancelled_at),
      refunded_at: num(o.refunded_at),
    })),
    lines: lines.map((l) => ({
      ...l,
      position: Number(l.position),
      quantity: Number(l.quantity),
      paid: Number(l.paid),
    })),
    refunds: refunds.map((r) => ({
      order_id: r.order_id,
      amount: Number(r.amount),
      shipping: Number(r.shipping),
      items: (JSON.parse(r.items) as RawRefund['items']).map((i) => ({
        variant_id: i.variant_id,
        quantity: Number(i.quantity),
        amount: Number(i.amount),
      })),
      created: Number(r.created),
    })),
  };
}

/** Integer shares of `total` by `weights`, the leftover units to the largest remainders (ties: first). */
/**
 * An answer without the `livemode` it carries (on the report or on each of its rows), each one
 * checked: a live store's, here.
 */
function unmoded(answer: unknown): unknown {
  assert.ok(typeof answer === 'object' && answer !== null);
  const { livemode, ...rest } = answer as Record<string, unknown>;
  assert.ok(livemode === undefined || livemode === true);
  if (!Array.isArray(rest.data)) return rest;
  return {
    ...rest,
    data: rest.data.map((row: Record<string, unknown>) => {
      const { livemode: rowMode, ...fields } = row;
      assert.ok(rowMode === true || (rowMode === undefined && livemode === true));
      return fields;
    }),
  };
}

function largestRemainder(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum === 0) return weights.map(() => 0);
  const exact = weights.map((w) => (total * w) / sum);
  const shares = exact.map(Math.floor);
  let left = total - shares.reduce((a, b) => a + b, 0);
  const byRemainder = exact
    .map((x, i) => ({ r: (total * (weights[i] as number)) % sum, i, x }))
    .sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left-- <= 0) break;
    shares[i] = (shares[i] as number) + 1;
  }
  return shares;
}

/**
 * What a refund takes from each line (docs/analytics.md): what it lists (items, and shipping as one
 * more line of no product), then anything it returns beyond that pro rata over what the buyer
 * paid for each line and the shipping; a refund listing more than it returns spreads its amount
 * over what it lists.
 */
function referenceShares(lines: RawLine[], shippingPaid: number, refund: RawRefund) {
  const sorted = [...lines].sort((a, b) => a.position - b.position);
  const claims = [
    ...sorted.map((l) => sum(refund.items.filter((i) => i.variant_id === l.variant_id).map((i) => i.amount))),
    refund.shipping,
  ];
  const units = sorted.map((l) =>
    sum(refund.items.filter((i) => i.variant_id === l.variant_id).map((i) => i.quantity)),
  );
  const claimed = sum(claims);
  const taken =
    claimed >= refund.amount
      ? largestRemainder(refund.amount, claims)
      : largestRemainder(refund.amount - claimed, [...sorted.map((l) => l.paid), shippingPaid]).map(
          (x, i) => x + (claims[i] as number),
        );
  return sorted.map((line, i) => ({ line, units: units[i] as number, revenue: taken[i] as number }));
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

function reference(raw: Raw, q: Range & { interval: Interval; currency: string }) {
  const orders = raw.orders.filter((o) => o.currency === q.currency);
  const linesOf = new Map<string, RawLine[]>();
  for (const line of raw.lines) linesOf.set(line.order_id, [...(linesOf.get(line.order_id) ?? []), line]);
  // Money moves: the capture, and each refund of a captured order (partial, whole, or a cancel
  // after payment), by its own amount and units, on its own day.
  interface Move {
    at: number;
    sign: 1 | -1;
    order: RawOrder;
    amount: number;
    units: number;
    lines: { line: RawLine; units: number; revenue: number }[];
  }
  const moves: Move[] = [];
  for (const o of orders) {
    if (o.paid_at === null) continue;
    const lines = linesOf.get(o.id) ?? [];
    moves.push({
      at: o.paid_at,
      sign: 1,
      order: o,
      amount: o.total,
      units: sum(lines.map((l) => l.quantity)),
      lines: lines.map((line) => ({ line, units: line.quantity, revenue: line.paid })),
    });
    for (const refund of raw.refunds.filter((r) => r.order_id === o.id)) {
      const shares = referenceShares(lines, o.shipping_paid, refund);
      moves.push({
        at: refund.created,
        sign: -1,
        order: o,
        amount: refund.amount,
        units: sum(shares.map((share) => share.units)),
        lines: shares.filter((share) => share.units !== 0 || share.revenue !== 0),
      });
    }
  }
  const within = (t: number, r: Range) => dayOf(t) >= r.from && dayOf(t) <= r.to;

  function summary(r: Range) {
    const created = orders.filter((o) => within(o.created, r));
    const paid = created.filter((o) => o.paid_at !== null);
    const inRange = moves.filter((m) => within(m.at, r));
    const captures = inRange.filter((m) => m.sign === 1);
    const captured = sum(captures.map((m) => m.amount));
    const refunded = sum(inRange.filter((m) => m.sign === -1).map((m) => m.amount));
    return {
      revenue: captured - refunded,
      orders: created.length,
      paid_orders: paid.length,
      average_order_value: paid.length === 0 ? 0 : Math.round(sum(paid.map((o) => o.total)) / paid.length),
      units_sold: sum(inRange.map((m) => m.sign * m.units)),
      refunded_amount: refunded,
      customers: new Set(created.map((o) => o.customer_email)).size,
      discount_total: sum(captures.map((m) => m.order.discount_total)),
      shipping_total: sum(captures.map((m) => m.order.shipping_total)),
      tax_total: sum(captures.map((m) => m.order.tax_total)),
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
    for (const { line, units, revenue } of m.lines) {
      for (const [map, key] of [
        [products, line.product_id],
        [categories, line.category ?? ''],
      ] as const) {
        const acc = map.get(key) ?? { units: 0, revenue: 0 };
        acc.units += m.sign * units;
        acc.revenue += m.sign * revenue;
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
    acc.revenue += m.sign * m.amount;
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

/** A 10% code, shipping to the US in both currencies, and an added California tax on both. */
async function pricingRules(api: Client): Promise<void> {
  const rules: [string, Record<string, unknown>][] = [
    ['/v1/discounts', { code: 'SAVE10', type: 'percentage', value: 1000 }],
    ['/v1/shipping-rates', { name: 'Ground', countries: ['US'], price: 700, currency: 'USD' }],
    ['/v1/shipping-rates', { name: 'Ground EUR', countries: ['US'], price: 650, currency: 'EUR' }],
    [
      '/v1/tax-rates',
      {
        name: 'California',
        country: 'US',
        state: 'CA',
        rate_bps: 725,
        inclusive: false,
        shipping_taxable: true,
      },
    ],
  ];
  for (const [path, body] of rules) {
    const res = await api('POST', path, { body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }
}

/**
 * The path and body of an order action. Partial refunds are decided when they run, from the
 * order as it is then: `share`% of what is left, one unit of a line, or the shipping left.
 */
async function actionRequest(
  api: Client,
  orderId: string,
  action: Action,
  share: number,
): Promise<[string, Record<string, unknown>]> {
  if (action === 'pay') return ['pay', { payment_method: 'pm_card_mastercard' }];
  if (action === 'pay_declined') return ['pay', { payment_method: 'pm_card_insufficient_funds' }];
  if (action === 'refund_shipping') return ['refunds', { shipping: true }];
  if (action !== 'refund_amount' && action !== 'refund_unit') return [action, {}];
  const order = (
    await api<{ refundable_amount: number; items: { variant_id: string }[] }>('GET', `/v1/orders/${orderId}`)
  ).body;
  if (action === 'refund_amount') {
    return ['refunds', { amount: Math.max(1, Math.floor((order.refundable_amount * share) / 100)) }];
  }
  const item = order.items[share % order.items.length] as { variant_id: string };
  return ['refunds', { items: [{ variant_id: item.variant_id, quantity: 1 }] }];
}

for (const dialect of DIALECTS) {
  describe(`analytics against brute force over random order histories (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock(BASE);

    /** What the random histories did, across runs. */
    const played = { partialRefunds: 0, pricedCaptures: 0 };

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
      await pricingRules(api);
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
          ...(spec.priced ? { shipping_address: US_CA, discount_codes: ['SAVE10'] } : {}),
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
        for (const { action, when, share } of spec.actions) {
          at =
            when.kind === 'after'
              ? at + when.ms
              : when.kind === 'end_of_day'
                ? Math.max(at + 1, dayOf(at) + DAY - 1)
                : dayOf(at) + DAY;
          steps.push({
            order: index,
            at,
            run: async () => {
              const [path, actionBody] = await actionRequest(api, holder.id, action, share);
              const res = await api('POST', `/v1/orders/${holder.id}/${path}`, { body: actionBody });
              // Moves the lifecycle forbids, and refunds of more than is left (400 naming the field,
              // or 422), are refused and change nothing.
              const refused = path === 'refunds' ? [400, 409, 422] : [409, 422];
              assert.ok(
                [200, 201, ...refused].includes(res.status),
                `${action}: ${res.status} ${JSON.stringify(res.body)}`,
              );
              if (res.status === 201) played.partialRefunds += 1;
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
            played.pricedCaptures += raw.orders.filter((o) => o.paid_at !== null && o.tax_total > 0).length;

            for (const q of queries) {
              const from = BASE + q.from * DAY;
              const to = from + (q.length - 1) * DAY;
              const expected = reference(raw, { from, to, interval: q.interval, currency: q.currency });
              const params = `from=${dateOf(from)}&to=${dateOf(to)}&interval=${q.interval}&currency=${q.currency}`;
              const res = await api('GET', `/v1/analytics?${params}`);
              assert.equal(res.status, 200, JSON.stringify(res.body));
              assert.deepEqual(res.body, { ...expected.analytics, livemode: true });

              const report = await api<{ data: Record<string, unknown>[] }>(
                'GET',
                `/v1/analytics/reports/${q.report}?${params}&limit=100`,
              );
              assert.equal(report.status, 200, JSON.stringify(report.body));
              assert.deepEqual(unmoded(report.body), expected[q.report]);

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
      // The histories did what they are for: partial refunds passed, priced orders were captured.
      assert.ok(played.partialRefunds > 0, 'no partial refund passed');
      assert.ok(played.pricedCaptures > 0, 'no priced order was captured');
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
          // Partial refunds race each other and a shipment: all of them pass.
          return Promise.all([
            act(id, 'ship'),
            act(id, 'refunds', { amount: 100 }),
            act(id, 'refunds', { amount: 7 }),
          ]);
        }),
      );
      results.forEach((pair, i) => {
        const statuses = pair.map((res) => res.status);
        assert.ok(
          statuses.every((status) => [200, 201, 409].includes(status)),
          JSON.stringify(statuses),
        );
        const passed = statuses.filter((status) => status === 200 || status === 201).length;
        // Pay then cancel may both pass; cancel first refuses the payment.
        if (i % 4 === 3) assert.ok(passed >= 1, `order ${i}: ${statuses}`);
        else if (i % 4 === 2) assert.equal(passed, 3, `order ${i}: ${statuses}`);
        else assert.equal(passed, 1, `order ${i}: ${statuses}`);
      });

      const raw = await loadRaw(ctx.deps.store.db, tenant.tenant.id);
      const expected = reference(raw, { from: BASE, to: BASE + 9 * DAY, interval: 'day', currency: 'USD' });
      const res = await api('GET', `/v1/analytics?from=${dateOf(BASE)}&to=${dateOf(BASE + 9 * DAY)}`);
      assert.deepEqual(res.body, { ...expected.analytics, livemode: true });
      assert.equal((res.body as { summary: { orders: number } }).summary.orders, 24);
      const customers = await api(
        'GET',
        `/v1/analytics/reports/customers?from=${dateOf(BASE)}&to=${dateOf(BASE + 9 * DAY)}&limit=100`,
      );
      assert.deepEqual(unmoded(customers.body), expected.customers);

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
      assert.deepEqual(res.body, {
        ...reference(raw, { from, to, interval: 'week', currency: 'USD' }).analytics,
        livemode: true,
      });
      const kept = await rollupSnapshot(ctx.deps.store.db, tenant.tenant.id);
      await ctx.deps.analytics.rebuild(tenant.tenant.id);
      assert.deepEqual(await rollupSnapshot(ctx.deps.store.db, tenant.tenant.id), kept);
    });

    it('rolls up the orders that exist when the migration runs', async () => {
      const tenant = await createTenant(ctx);
      const api = client(ctx.app, tenant.apiKey.key);
      // Orders as release v2.4 made them: migration 0010's frozen SQL knows no pricing or partial refund.
      const specs = fc.sample(v24OrderArbitrary, { numRuns: 12, seed: 8 });
      await playHistory(api, specs, true, []);
      await flushQueue(ctx.deps.store, ctx.deps.logger);
      const kept = await rollupSnapshot(ctx.deps.store.db, tenant.tenant.id);
      assert.ok((kept.analytics_orders?.length ?? 0) === 12);
      const db = ctx.deps.store.db as unknown as Kysely<unknown>;
      await migration.down(db);
      await migration.up(db);
      // 0010 rolls up by email, as it was written; 0021 rekeys the customer rows by customer; 0025
      // adds the pricing figures.
      await customerKeys.up(db);
      await analyticsPricing.up(db);
      assert.deepEqual(await rollupSnapshot(ctx.deps.store.db, tenant.tenant.id), kept);
    });
  });
}
