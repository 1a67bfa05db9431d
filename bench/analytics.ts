import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import type { OrderStatus, PaymentsTable, RefundsTable } from '../src/db/schema.js';
import { createDeps, type Deps } from '../src/deps.js';
import { newId } from '../src/lib/ids.js';
import type * as orders from '../src/modules/orders/orders.repository.js';
import * as products from '../src/modules/products/products.repository.js';
import {
  benchEnv,
  type BenchServer,
  formatTable,
  machine,
  measureEach,
  type Measurement,
  serverEntry,
  startProcess,
  tempDataDir,
  unlimitedTenant,
} from './lib.js';

/**
 * GET /v1/analytics over one year at 1,000 and at 1,000,000 orders, against the server in a child
 * process. The orders (with their lines and payments, in every state of the lifecycle, spread over
 * the last 365 days) are bulk-inserted through Kysely in big transactions; the rollups are then
 * built by `analytics.rebuild`, the backfill the analytics tests prove equal to what the order
 * events' listener keeps. Before measuring, the figures are checked against the raw tables.
 */

export interface AnalyticsBenchOptions {
  /** Orders for the large measurement (default 1,000,000). */
  total?: number;
  /** Orders for the small measurement (default 1,000). */
  small?: number;
  durationSeconds?: number;
  connections?: number;
}

const DAY = 24 * 3600 * 1000;
const PRODUCTS = 200;
const CATEGORIES = 20;
const ORDERS_PER_TRANSACTION = 20_000;
// SQLite binds at most 32,766 parameters per statement.
const ORDERS_PER_INSERT = 1_000;
const ITEMS_PER_INSERT = 3_000;
const PAYMENTS_PER_INSERT = 2_000;
const REFUNDS_PER_INSERT = 2_000;

/** Where an order's story ends, with its weight out of 100. */
const FATES: [OrderStatus | 'cancelled_paid', number][] = [
  ['pending', 8],
  ['cancelled', 5],
  ['cancelled_paid', 3],
  ['paid', 22],
  ['shipped', 20],
  ['delivered', 36],
  ['refunded', 6],
];

/** A small deterministic generator (mulberry32), so every run loads the same store. */
function random(seed: number) {
  let state = seed >>> 0;
  return (n: number): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

function fateOf(roll: number): OrderStatus | 'cancelled_paid' {
  let acc = 0;
  for (const [fate, weight] of FATES) {
    acc += weight;
    if (roll < acc) return fate;
  }
  return 'delivered';
}

interface Catalog {
  ids: string[];
  prices: number[];
}

export async function loadCatalog(deps: Deps, tenantId: string, now: number): Promise<Catalog> {
  const rows: products.NewProductRow[] = [];
  for (let i = 0; i < PRODUCTS; i++) {
    rows.push({
      id: newId('prod'),
      tenant_id: tenantId,
      name: `Product ${i}`,
      description: null,
      sku: `BENCH-${i}`,
      price: 500 + ((i * 7919) % 20_000),
      currency: 'USD',
      category: `cat-${i % CATEGORIES}`,
      stock: 1_000_000_000,
      status: 'active',
      images: '[]',
      attributes: '{}',
      tags: '[]',
      created: now - 400 * DAY,
      updated: now - 400 * DAY,
    } as products.NewProductRow);
  }
  await deps.store.transaction(async (trx) => {
    await products.insertProducts(trx, rows);
    await products.adjustCounts(
      trx,
      tenantId,
      rows.map((row) => ({ ...products.bucketOf(row), delta: 1 })),
    );
  });
  return { ids: rows.map((row) => row.id), prices: rows.map((row) => row.price) };
}

/** Inserts orders `from` (inclusive) to `to` (exclusive) over the 365 days before `now`. */
export async function bulkLoad(
  deps: Deps,
  tenantId: string,
  catalog: Catalog,
  from: number,
  to: number,
  now: number,
): Promise<void> {
  const rand = random(from + 1);
  const customers = Math.max(100, Math.floor(to / 20));
  for (let start = from; start < to; start += ORDERS_PER_TRANSACTION) {
    const end = Math.min(to, start + ORDERS_PER_TRANSACTION);
    const orderRows: orders.OrderRow[] = [];
    const itemRows: orders.OrderItemRow[] = [];
    const paymentRows: PaymentsTable[] = [];
    const refundRows: RefundsTable[] = [];
    for (let i = start; i < end; i++) {
      const created = now - 365 * DAY + rand(365 * DAY - 3_600_000);
      const id = newId('ord');
      const firstItem = itemRows.length;
      let subtotal = 0;
      const lines = 1 + rand(3);
      const first = rand(PRODUCTS);
      for (let position = 0; position < lines; position++) {
        const p = (first + position * 37) % PRODUCTS;
        const quantity = 1 + rand(3);
        const price = catalog.prices[p] ?? 0;
        subtotal += price * quantity;
        itemRows.push({
          order_id: id,
          position,
          tenant_id: tenantId,
          product_id: catalog.ids[p] ?? '',
          variant_id: `var_${(catalog.ids[p] ?? '').slice(5)}`,
          variant_title: 'Default',
          name: `Product ${p}`,
          sku: `BENCH-${p}`,
          category: `cat-${p % CATEGORIES}`,
          quantity,
          unit_price: price,
          total: price * quantity,
          discount: 0,
          tax: 0,
          paid: price * quantity,
          refunded_quantity: 0,
          fulfilled_quantity: 0,
          released_quantity: 0,
          returned_quantity: 0,
        });
      }
      const fate = fateOf(rand(100));
      const paid = fate !== 'pending' && fate !== 'cancelled';
      const paidAt = paid ? created + 60_000 + rand(600_000) : null;
      const later = (after: number) => Math.min(now - 1, after + rand(10 * DAY));
      const shippedAt = ['shipped', 'delivered', 'refunded'].includes(fate) ? later(paidAt ?? created) : null;
      const deliveredAt = ['delivered', 'refunded'].includes(fate) ? later(shippedAt ?? created) : null;
      const refundedAt = fate === 'refunded' ? later(deliveredAt ?? created) : null;
      const cancelledAt = fate === 'cancelled' || fate === 'cancelled_paid' ? later(paidAt ?? created) : null;
      const status: OrderStatus = fate === 'cancelled_paid' ? 'cancelled' : fate;
      const paymentId = paid ? newId('pay') : null;
      const customer = rand(customers);
      const refundAt = refundedAt ?? (fate === 'cancelled_paid' ? cancelledAt : null);
      orderRows.push({
        id,
        tenant_id: tenantId,
        status,
        currency: 'USD',
        subtotal,
        total: subtotal,
        discount_total: 0,
        shipping_total: 0,
        tax_total: 0,
        shipping_paid: 0,
        pricing: null,
        refunded_amount: paymentId !== null && refundAt !== null ? subtotal : 0,
        customer_email: `customer${customer}@example.com`,
        customer_name: `Customer ${customer}`,
        // The analytics rollups read only the email; the customers themselves are not seeded.
        customer_id: `cus_bench${customer}`,
        shipping_address: null,
        metadata: '{}',
        payment_id: paymentId,
        carrier: null,
        tracking_number: null,
        restocked: status === 'cancelled' ? 1 : 0,
        created,
        updated: Math.max(
          created,
          paidAt ?? 0,
          shippedAt ?? 0,
          deliveredAt ?? 0,
          refundedAt ?? 0,
          cancelledAt ?? 0,
        ),
        paid_at: paidAt,
        shipped_at: shippedAt,
        delivered_at: deliveredAt,
        cancelled_at: cancelledAt,
        cancel_reason: cancelledAt === null ? null : 'requested',
        refunded_at: refundedAt,
        source: 'api',
        cart_id: null,
        fulfillment_count: 0,
      });
      if (paymentId !== null && refundAt !== null) {
        // The money went back: one refund of the whole order, which the rollups' rebuild reads.
        const lines = itemRows.slice(firstItem);
        for (const line of lines) line.refunded_quantity = line.quantity;
        refundRows.push({
          id: `re_${id.slice('ord_'.length)}`,
          tenant_id: tenantId,
          order_id: id,
          payment_id: paymentId,
          amount: subtotal,
          currency: 'USD',
          items: JSON.stringify(
            lines.map((line) => ({
              variant_id: line.variant_id,
              quantity: line.quantity,
              amount: line.paid,
            })),
          ),
          shipping: 0,
          restocked: status === 'cancelled' ? 1 : 0,
          reason: null,
          status: 'succeeded',
          due_at: null,
          provider_reference: null,
          created: refundAt,
        });
      }
      if (paymentId !== null && paidAt !== null) {
        paymentRows.push({
          id: paymentId,
          tenant_id: tenantId,
          order_id: id,
          provider: 'sandbox',
          method: 'pm_card_visa',
          amount: subtotal,
          currency: 'USD',
          status: status === 'refunded' || status === 'cancelled' ? 'refunded' : 'succeeded',
          failure_code: null,
          failure_message: null,
          provider_reference: `sandbox_${paymentId}`,
          refund_due_at: null,
          created: paidAt,
          updated: refundedAt ?? cancelledAt ?? paidAt,
        });
      }
    }
    await deps.store.transaction(async (trx) => {
      for (let i = 0; i < orderRows.length; i += ORDERS_PER_INSERT) {
        await trx
          .insertInto('orders')
          .values(orderRows.slice(i, i + ORDERS_PER_INSERT))
          .execute();
      }
      for (let i = 0; i < itemRows.length; i += ITEMS_PER_INSERT) {
        await trx
          .insertInto('order_items')
          .values(itemRows.slice(i, i + ITEMS_PER_INSERT))
          .execute();
      }
      for (let i = 0; i < paymentRows.length; i += PAYMENTS_PER_INSERT) {
        await trx
          .insertInto('payments')
          .values(paymentRows.slice(i, i + PAYMENTS_PER_INSERT))
          .execute();
      }
      for (let i = 0; i < refundRows.length; i += REFUNDS_PER_INSERT) {
        await trx
          .insertInto('refunds')
          .values(refundRows.slice(i, i + REFUNDS_PER_INSERT))
          .execute();
      }
    });
  }
}

const dateOf = (instant: number) => new Date(instant).toISOString().slice(0, 10);

/** The year's order count and net revenue straight from the raw tables, to check the rollups. */
async function rawFigures(deps: Deps, tenantId: string, from: number, to: number) {
  const db = deps.store.db;
  const { n } = await db
    .selectFrom('orders')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('created', '>=', from)
    .where('created', '<', to + DAY)
    .executeTakeFirstOrThrow();
  const money = async (column: 'paid_at' | 'refunded_at' | 'cancelled_at') => {
    const row = await db
      .selectFrom('orders')
      .select((eb) => eb.fn.sum<number>('total').as('total'))
      .where('tenant_id', '=', tenantId)
      .where('paid_at', 'is not', null)
      .where(column, '>=', from)
      .where(column, '<', to + DAY)
      .executeTakeFirstOrThrow();
    return Number(row.total ?? 0);
  };
  const revenue = (await money('paid_at')) - (await money('refunded_at')) - (await money('cancelled_at'));
  return { orders: Number(n), revenue };
}

async function measure(
  server: BenchServer,
  deps: Deps,
  tenantId: string,
  key: string,
  count: number,
  options: AnalyticsBenchOptions,
): Promise<Measurement[]> {
  const headers = { authorization: `Bearer ${key}` };
  const now = deps.clock.now();
  const to = now - (now % DAY);
  const from = to - 365 * DAY;
  const period = `from=${dateOf(from)}&to=${dateOf(to)}`;
  const base = `${server.url}/v1/analytics?${period}`;
  // A pooled keep-alive connection may have timed out during a long load: retry once on a new one.
  const check = await fetch(base, { headers }).catch(() => fetch(base, { headers }));
  const body = (await check.json()) as { summary?: { orders: number; revenue: number } };
  const expected = await rawFigures(deps, tenantId, from, to);
  if (
    check.status !== 200 ||
    body.summary?.orders !== expected.orders ||
    body.summary.revenue !== expected.revenue
  ) {
    throw new Error(
      `unexpected analytics (status ${check.status}, ${JSON.stringify(body.summary)}, expected ${JSON.stringify(expected)}); is dist/ stale? npm run build`,
    );
  }
  const label =
    count >= 1_000_000 ? `${count / 1_000_000}M` : count >= 1000 ? `${count / 1000}k` : String(count);
  const scenarios: [string, string][] = [
    [`GET /v1/analytics 1 year by day @ ${label} orders`, base],
    [`GET /v1/analytics 1 year by month @ ${label} orders`, `${base}&interval=month`],
    [
      `GET /v1/analytics/reports/products 1 year @ ${label} orders`,
      `${server.url}/v1/analytics/reports/products?${period}`,
    ],
  ];
  return measureEach(server, headers, scenarios, {
    durationSeconds: options.durationSeconds,
    connections: options.connections ?? 8,
  });
}

export async function run(options: AnalyticsBenchOptions = {}): Promise<Measurement[]> {
  const total = options.total ?? 1_000_000;
  const small = options.small ?? 1_000;
  const dataDir = tempDataDir();
  const env = benchEnv(dataDir);
  const deps = await createDeps(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
  let server: BenchServer | undefined;
  try {
    const tenant = await unlimitedTenant(deps);
    const tenantId = tenant.tenant.id;
    const now = deps.clock.now();
    // The loader's own page cache (256 MiB): random-key index inserts into a million-row table.
    if (deps.store.dialect === 'sqlite') await sql`PRAGMA cache_size = -262144`.execute(deps.store.db);
    const catalog = await loadCatalog(deps, tenantId, now);

    await bulkLoad(deps, tenantId, catalog, 0, small, now);
    await deps.analytics.rebuild(tenantId);
    server = await startProcess(serverEntry(), env);
    const rows = await measure(server, deps, tenantId, tenant.apiKey.key, small, options);

    let started = Date.now();
    await bulkLoad(deps, tenantId, catalog, small, total, now);
    process.stderr.write(
      `loaded ${total - small} orders in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
    started = Date.now();
    await deps.analytics.rebuild(tenantId);
    process.stderr.write(
      `rebuilt the rollups of ${total} orders in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
    rows.push(...(await measure(server, deps, tenantId, tenant.apiKey.key, total, options)));
    return rows;
  } finally {
    await server?.stop();
    await deps.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await run();
  process.stdout.write(`${formatTable(rows)}\n\nMachine: ${machine()}\n`);
}
