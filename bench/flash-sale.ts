import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { randomBase62 } from '../src/lib/ids.js';
import {
  benchEnv,
  type BenchServer,
  formatTable,
  machine,
  type Measurement,
  serverEntry,
  startProcess,
  tempDataDir,
  unlimitedTenant,
} from './lib.js';
import { call } from './rounds.js';
import { databaseAnswers } from './wallet.js';

/**
 * A flash sale: two API processes on one PostgreSQL store and one Redis (the storefront's limits
 * are one allowance across both), a variant with `BENCH_SALE_STOCK` units (100), and
 * `BENCH_SALE_SHOPPERS` shoppers (1,000), at most `BENCH_SALE_CONCURRENCY` (100) at a time, each
 * from an address of its own (the servers trust a loopback proxy, `TRUST_PROXY=loopback`, and each
 * shopper's requests name its address in `X-Forwarded-For`), each making a cart of one unit with
 * the store's publishable key and completing it (`POST /v1/store/carts/{id}/complete`, paid with
 * `pm_card_visa`, with an `Idempotency-Key`), its calls spread over the two processes.
 *
 * What must hold, checked after the sale (any miss fails the bench): exactly `stock` completions
 * answered 201 and as many orders, every other completion 422 `cart_not_ready` (no 5xx, no
 * timeout), the variant's stock 0 and never below, no charge without its order (the sandbox's
 * journal of charges against the paid orders' payments), no cart left in the middle of a
 * completion. It prints completions per second and the completions' latency; the target is a p99
 * under 1 s.
 */

export interface FlashSaleOptions {
  shoppers?: number;
  stock?: number;
  concurrency?: number;
  databaseUrl?: string | undefined;
  redisUrl?: string | undefined;
}

interface Sale {
  servers: BenchServer[];
  publishable: string;
  variantId: string;
  productId: string;
  secret: string;
  tenantId: string;
  journal: string;
  env: Record<string, string>;
}

interface Answer {
  status: number;
  code: string | undefined;
  ms: number;
}

const dispatcher = new Agent({ connections: 256, pipelining: 1 });

async function post(
  server: BenchServer,
  key: string,
  pathname: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await request(`${server.url}${pathname}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    dispatcher,
    headersTimeout: 30_000,
  });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
}

/** One shopper: a cart of one unit, then its completion (timed). */
async function shop(sale: Sale, i: number): Promise<Answer> {
  const address = { 'x-forwarded-for': `10.88.${(i >> 8) & 255}.${i & 255}` };
  const server = sale.servers[i % sale.servers.length] as BenchServer;
  const cart = await post(
    server,
    sale.publishable,
    '/v1/store/carts',
    { email: `sale-${i}@example.com`, lines: [{ variant_id: sale.variantId, quantity: 1 }] },
    address,
  );
  if (cart.status !== 201) throw new Error(`shopper ${i}: cart ${cart.status} ${JSON.stringify(cart.body)}`);
  const other = sale.servers[(i + 1) % sale.servers.length] as BenchServer;
  const started = performance.now();
  const done = await post(
    other,
    sale.publishable,
    `/v1/store/carts/${String(cart.body.id)}/complete`,
    { payment_method: 'pm_card_visa', expected_total: cart.body.total },
    { ...address, 'idempotency-key': `sale-${i}` },
  );
  const code = typeof done.body.code === 'string' ? done.body.code : undefined;
  return { status: done.status, code, ms: performance.now() - started };
}

/** Runs `count` shoppers, at most `concurrency` at once; their completions' answers. */
async function shoppers(sale: Sale, count: number, concurrency: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) answers.push(await shop(sale, i));
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return answers;
}

/** The shop: a tenant without rate limits (the storefront's own limits stay), its secret key. */
async function prepare(env: Record<string, string>): Promise<{ secret: string; tenantId: string }> {
  const deps = await createDeps(loadConfig({ ...env, LOG_LEVEL: 'warn' }));
  try {
    const tenant = await unlimitedTenant(deps, { name: 'Flash Sale Shop', currency: 'USD' });
    return { secret: tenant.apiKey.key, tenantId: tenant.tenant.id };
  } finally {
    await deps.close();
  }
}

/** What the store holds after the sale: the orders, the variant's stock, carts mid-completion. */
async function outcome(sale: Sale) {
  const deps = await createDeps(loadConfig({ ...sale.env, LOG_LEVEL: 'warn' }));
  try {
    const db = deps.store.db;
    const orders = await db
      .selectFrom('orders')
      .innerJoin('order_items', 'order_items.order_id', 'orders.id')
      .select(['orders.id', 'orders.status', 'orders.payment_id', 'order_items.quantity'])
      .where('orders.tenant_id', '=', sale.tenantId)
      .execute();
    const variant = await db
      .selectFrom('product_variants')
      .select('stock')
      .where('id', '=', sale.variantId)
      .executeTakeFirstOrThrow();
    const midway = await db
      .selectFrom('carts')
      .select('id')
      .where('tenant_id', '=', sale.tenantId)
      .where('checkout', 'is not', null)
      .execute();
    const ledger = await deps.wallet.verify();
    return { orders, stock: Number(variant.stock), midway: midway.length, ledgerOk: ledger.ok };
  } finally {
    await deps.close();
  }
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

export async function run(options: FlashSaleOptions = {}): Promise<Measurement[]> {
  const count = options.shoppers ?? Number(process.env.BENCH_SALE_SHOPPERS ?? 1_000);
  const stock = options.stock ?? Number(process.env.BENCH_SALE_STOCK ?? 100);
  const concurrency = options.concurrency ?? Number(process.env.BENCH_SALE_CONCURRENCY ?? 100);
  const url = options.databaseUrl ?? process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const redisUrl =
    options.redisUrl ?? process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL ?? process.env.REDIS_URL;
  if (!url || !redisUrl || !(await databaseAnswers(url))) {
    process.stderr.write(
      'flash-sale: needs PostgreSQL and Redis (BENCH_DATABASE_URL, BENCH_REDIS_URL): skipped.\n',
    );
    return [];
  }
  const dataDir = tempDataDir();
  const schema = `bench_sale_${randomBase62(10).toLowerCase()}`;
  const prefix = `bench:${randomBase62(10)}:`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const journal = path.join(dataDir, 'provider-charges.jsonl');
  const env = benchEnv(dataDir, {
    DATABASE_URL: url,
    DATABASE_SCHEMA: schema,
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: prefix,
    TRUST_PROXY: 'loopback',
    PAYMENT_SANDBOX_JOURNAL: journal,
  });
  const servers: BenchServer[] = [];
  try {
    const seeded = await prepare(env);
    servers.push(await startProcess(serverEntry(), env), await startProcess(serverEntry(), env));
    const first = servers[0] as BenchServer;
    const { key: publishable } = await call<{ key: string }>(first, seeded.secret, 'POST', '/v1/api-keys', {
      type: 'publishable',
      name: 'Flash sale',
      allowed_origins: [],
    });
    const made = await call<{ id: string; variants: { id: string }[] }>(
      first,
      seeded.secret,
      'POST',
      '/v1/products',
      {
        name: 'Limited Edition Print',
        price: 4_900,
        currency: 'USD',
        stock,
      },
    );
    const sale: Sale = {
      ...seeded,
      servers,
      publishable,
      productId: made.id,
      variantId: made.variants[0]?.id ?? '',
      journal,
      env,
    };
    const began = performance.now();
    const answers = await shoppers(sale, count, concurrency);
    const seconds = (performance.now() - began) / 1000;
    const after = await outcome(sale);
    const charged = fs.existsSync(journal)
      ? fs
          .readFileSync(journal, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => (JSON.parse(line) as { payment_id: string }).payment_id)
      : [];
    const paid = new Set(after.orders.filter((o) => o.status === 'paid').map((o) => o.payment_id));
    const created = answers.filter((a) => a.status === 201).length;
    const refused = answers.filter((a) => a.status === 422 && a.code === 'cart_not_ready').length;
    const broken = [
      created === stock ? '' : `${created} completions answered 201, not ${stock}`,
      refused === count - stock
        ? ''
        : `${refused} completions refused 422 cart_not_ready, not ${count - stock}`,
      after.orders.length === stock ? '' : `${after.orders.length} orders, not ${stock}`,
      after.orders.reduce((sum, o) => sum + Number(o.quantity), 0) === stock
        ? ''
        : 'units sold differ from the stock',
      after.stock === 0 ? '' : `the variant's stock is ${after.stock}, not 0`,
      charged.length === stock && charged.every((id) => paid.has(id))
        ? ''
        : `${charged.length} charges for ${paid.size} paid orders`,
      after.midway === 0 ? '' : `${after.midway} carts left mid-completion`,
      after.ledgerOk ? '' : 'the ledger does not verify',
    ].filter((line) => line !== '');
    const others = answers.filter(
      (a) => a.status !== 201 && !(a.status === 422 && a.code === 'cart_not_ready'),
    );
    if (broken.length > 0 || others.length > 0) {
      throw new Error(
        `flash sale broke: ${broken.join('; ')}; other answers: ${JSON.stringify(others.slice(0, 5))}`,
      );
    }
    const latencies = answers.map((a) => a.ms).sort((a, b) => a - b);
    const sold = answers
      .filter((a) => a.status === 201)
      .map((a) => a.ms)
      .sort((a, b) => a - b);
    return [
      {
        scenario: `flash sale: ${count} shoppers (${concurrency} at a time) completing a cart of 1 of ${stock} units, 2 processes, PostgreSQL + Redis; completions/s, latency of every completion`,
        requestsPerSecond: Math.round(count / seconds),
        p50: Math.round(percentile(latencies, 50)),
        p99: Math.round(percentile(latencies, 99)),
        errors: 0,
        paired: true,
      },
      {
        scenario: `flash sale: the ${stock} completions that sold (201), latency`,
        requestsPerSecond: Math.round(stock / seconds),
        p50: Math.round(percentile(sold, 50)),
        p99: Math.round(percentile(sold, 99)),
        errors: 0,
        paired: true,
      },
    ];
  } finally {
    for (const server of servers) await server.stop();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
    const redis = new Redis(redisUrl);
    let cursor = '0';
    do {
      const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = nextCursor;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
    redis.disconnect();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await run();
  process.stdout.write(`${formatTable(rows)}\n\nMachine: ${machine()}\n`);
  await dispatcher.close();
}
