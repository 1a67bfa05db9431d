import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type autocannon from 'autocannon';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { randomBase62 } from '../src/lib/ids.js';
import {
  benchEnv,
  type BenchServer,
  formatTable,
  load,
  machine,
  type Measurement,
  serverEntry,
  startProcess,
  tempDataDir,
  unlimitedTenant,
} from './lib.js';
import { pgbenchAvailable, pgbenchDatabase, postgresCpuMicros } from './pgbench.js';
import { call, middle } from './rounds.js';
import { postgresStore, seed as seedWallets, spread as transfers, verify as verifyLedger } from './wallet.js';

/**
 * Selling: paid orders (`POST /v1/orders` of one unit with `payment_method: "pm_card_visa"` and an
 * `Idempotency-Key`, as a careful client sends it) at 50 connections, each measured in the same run
 * as a baseline of the same shape, the two back to back in rounds (`BENCH_ORDERS_ROUNDS`, 2), each
 * round the other first; a row's ratio is the median of its rounds':
 *
 * - `spread`: PostgreSQL, orders of 50 products, against pgbench's TPC-B-like transaction at scale
 *   50 (spread over 50 branches), 50 clients;
 * - `hot`: PostgreSQL, every order of one product, against pgbench at scale 1 (one branch row every
 *   transaction updates), 50 clients;
 * - `wallet`: PostgreSQL, `POST /v1/wallet/transfer` between 200 wallets (bench/wallet.ts's), against
 *   pgbench at scale 50; the ledger is verified afterwards;
 * - `sqlite`: SQLite, orders of 50 products, against bare Fastify writing the rows a paid order of
 *   ours leaves in one better-sqlite3 transaction (bench/orders-bare-server.ts, on a copy of the
 *   seeded store).
 *
 * Orders come from the store's 1,000 customers in turn (made before the measurement). pgbench runs
 * in databases of its own the bench creates (`pgbench -i -s 50` and `-s 1`) and drops; the server
 * runs as `npm start` runs it (bench/lib.ts). `BENCH_ORDERS_ONLY=spread,hot,wallet,sqlite` picks
 * pairs; the PostgreSQL pairs need `BENCH_DATABASE_URL` or `TEST_DATABASE_URL` and `/usr/bin/pgbench`.
 * `BENCH_ORDERS_CONNECTIONS` (50) sets both sides' connections. With PostgreSQL on this machine, a
 * PostgreSQL pair also prints (to stderr) what each side cost PostgreSQL's processes a request: CPU
 * the server's own figure does not show.
 */

export interface OrdersBenchOptions {
  rounds?: number;
  durationSeconds?: number;
  connections?: number;
  databaseUrl?: string | undefined;
}

const PRODUCTS = 50;
const CUSTOMERS = 1_000;

interface Shop {
  server: BenchServer;
  key: string;
  productIds: string[];
  stop(): Promise<void>;
}

async function databaseAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A server on a fresh PostgreSQL schema, a tenant without limits and `PRODUCTS` products. */
async function postgresShop(url: string): Promise<Shop> {
  const dataDir = tempDataDir();
  const schema = `bench_orders_${randomBase62(10).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const env = benchEnv(dataDir, { DATABASE_URL: url, DATABASE_SCHEMA: schema });
  const drop = async () => {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    return await shopOn(env, drop);
  } catch (error) {
    await drop();
    throw error;
  }
}

/**
 * A server on a fresh SQLite store like `postgresShop`'s, and the bare baseline's copy of that store
 * (bench/orders-bare-server.ts) made once it is seeded (the store's first payment made, which
 * opens its clearing account).
 */
async function sqliteShops(): Promise<{ shop: Shop; bare: BenchServer; dropBare: () => void }> {
  const dataDir = tempDataDir();
  const env = benchEnv(dataDir);
  const seeded = await shopOn(env, async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  await call(seeded.server, seeded.key, 'POST', '/v1/orders', {
    customer: { email: 'shopper-0@example.com' },
    items: [{ product_id: seeded.productIds[0], quantity: 1 }],
    payment_method: 'pm_card_visa',
  });
  await seeded.server.stop();
  const bareDir = tempDataDir();
  fs.copyFileSync(path.join(dataDir, 'store.sqlite'), path.join(bareDir, 'store.sqlite'));
  const server = await startProcess(serverEntry(), env);
  const bare = await startProcess('bench/orders-bare-server.ts', { DATA_DIR: bareDir });
  const shop: Shop = {
    ...seeded,
    server,
    async stop() {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return { shop, bare, dropBare: () => fs.rmSync(bareDir, { recursive: true, force: true }) };
}

async function shopOn(env: Record<string, string>, drop: () => Promise<void>): Promise<Shop> {
  const deps = await createDeps(loadConfig({ ...env, LOG_LEVEL: 'warn' }));
  let key: string;
  try {
    key = (await unlimitedTenant(deps, { currency: 'USD' })).apiKey.key;
  } finally {
    await deps.close();
  }
  const server = await startProcess(serverEntry(), env);
  try {
    const productIds: string[] = [];
    for (let i = 0; i < PRODUCTS; i++) {
      const made = await call<{ id: string }>(server, key, 'POST', '/v1/products', {
        name: `Bench Mug ${i}`,
        price: 1_200 + i,
        currency: 'USD',
        category: `cat-${i % 5}`,
        stock: 1_000_000_000,
      });
      productIds.push(made.id);
    }
    // The store's returning customers: the orders measure selling, not signing customers up.
    for (let i = 0; i < CUSTOMERS; i++) {
      await call(server, key, 'POST', '/v1/customers', { email: `shopper-${i}@example.com` });
    }
    return {
      server,
      key,
      productIds,
      async stop() {
        await server.stop();
        await drop();
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** Paid orders of one unit: `product(n)` picks the product of the n-th, customers in turn. */
function orders(shop: Shop, product: (n: number) => string): autocannon.Request[] {
  let n = 0;
  const tag = randomBase62(8);
  return [
    {
      method: 'POST',
      path: '/v1/orders',
      setupRequest: (request) => {
        const i = n++;
        return {
          ...request,
          headers: {
            authorization: `Bearer ${shop.key}`,
            'content-type': 'application/json',
            'idempotency-key': `bench-${tag}-${i}`,
          },
          body: JSON.stringify({
            customer: { email: `shopper-${i % CUSTOMERS}@example.com` },
            items: [{ product_id: product(i), quantity: 1 }],
            payment_method: 'pm_card_visa',
          }),
        };
      },
    },
  ];
}

interface Pair {
  name: string;
  baseline: () => Promise<Measurement>;
  ours: () => Promise<Measurement>;
  /** Both sides run on PostgreSQL: what each cost its processes is printed after the table. */
  postgres?: boolean;
  durationSeconds: number;
}

/** Each pair's two measured back to back in rounds (each round the other first); medians and ratio. */
async function inPairs(pairs: readonly Pair[], rounds: number): Promise<Measurement[]> {
  const rows: Measurement[] = [];
  for (const pair of pairs) {
    const base: Measurement[] = [];
    const ours: Measurement[] = [];
    const database = { base: [] as number[], ours: [] as number[] };
    // Each side's measurement, with what it cost PostgreSQL a request when it runs on this machine.
    const side = async (which: 'base' | 'ours') => {
      const before = pair.postgres ? postgresCpuMicros() : undefined;
      const measured = await (which === 'base' ? pair.baseline() : pair.ours());
      const after = pair.postgres ? postgresCpuMicros() : undefined;
      if (before !== undefined && after !== undefined) {
        const requests = Math.max(1, measured.requestsPerSecond * pair.durationSeconds);
        database[which].push(Math.round((after - before) / requests));
      }
      (which === 'base' ? base : ours).push(measured);
    };
    for (let round = 0; round < rounds; round++) {
      for (const which of round % 2 === 0 ? (['base', 'ours'] as const) : (['ours', 'base'] as const)) {
        await side(which);
      }
    }
    if (database.ours.length > 0) {
      process.stderr.write(
        `${pair.name}: PostgreSQL's CPU ${Math.round(middle(database.ours))} µs a request, its baseline's ${Math.round(middle(database.base))} µs a transaction\n`,
      );
    }
    const ratios = ours.map((m, i) => m.requestsPerSecond / Math.max(1, base[i]?.requestsPerSecond ?? 0));
    const range =
      ratios.length > 1 ? `, ratios ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}` : '';
    const of = (list: Measurement[], pick: (m: Measurement) => number | undefined) =>
      middle(list.map(pick).filter((v): v is number => v !== undefined));
    const summary = (list: Measurement[], scenario: string): Measurement => ({
      scenario,
      requestsPerSecond: Math.round(of(list, (m) => m.requestsPerSecond)),
      p50: of(list, (m) => m.p50),
      p99: of(list, (m) => m.p99),
      errors: list.reduce((sum, m) => sum + m.errors, 0),
      cpuMicrosPerRequest: list.some((m) => m.cpuMicrosPerRequest !== undefined)
        ? Math.round(of(list, (m) => m.cpuMicrosPerRequest))
        : undefined,
      peakRssMiB: list.some((m) => m.peakRssMiB !== undefined)
        ? Math.max(...list.map((m) => m.peakRssMiB ?? 0))
        : undefined,
    });
    // `paired`: the ratio is to the baseline of the row above, not to bench/run.ts's bare Fastify.
    rows.push({ ...summary(base, `${base[0]?.scenario ?? ''} (baseline of the next row)`), paired: true });
    rows.push({
      ...summary(ours, pair.name),
      scenario: `${pair.name}: ${middle(ratios).toFixed(2)} × the baseline (median of ${ratios.length} rounds${range})`,
      ratio: middle(ratios),
      paired: true,
    });
  }
  return rows;
}

async function measured(
  scenario: string,
  shop: Shop,
  requests: autocannon.Request[],
  connections: number,
  durationSeconds: number,
): Promise<Measurement> {
  const result = await load(
    scenario,
    { url: shop.server.url, requests, connections, durationSeconds },
    shop.server,
  );
  if (result.errors > 0) throw new Error(`${scenario}: ${result.errors} non-2xx responses or errors`);
  return result;
}

/** Which pairs run: `BENCH_ORDERS_ONLY=spread,hot,wallet,sqlite` (all by default). */
function selected(): Set<string> {
  const only = process.env.BENCH_ORDERS_ONLY?.split(',').map((name) => name.trim());
  return new Set(only && only[0] !== '' ? only : ['spread', 'hot', 'wallet', 'sqlite']);
}

/** The PostgreSQL pairs: orders spread and hot against pgbench at scale 50 and 1, transfers at 50. */
async function postgresPairs(
  url: string,
  which: Set<string>,
  settings: { rounds: number; durationSeconds: number; connections: number },
): Promise<Measurement[]> {
  const { rounds, durationSeconds, connections } = settings;
  const spreadBase = which.has('spread') || which.has('wallet') ? await pgbenchDatabase(url, 50) : undefined;
  const hotBase = which.has('hot') ? await pgbenchDatabase(url, 1) : undefined;
  let shop: Shop | undefined;
  let wallets: Awaited<ReturnType<typeof postgresStore>> | undefined;
  let walletServer: BenchServer | undefined;
  try {
    const pairs: Pair[] = [];
    if (which.has('spread') || which.has('hot')) {
      shop = await postgresShop(url);
      const current = shop;
      const spread = () =>
        current.productIds[Math.floor(Math.random() * current.productIds.length)] as string;
      const hot = () => current.productIds[0] as string;
      await load('warm-up', {
        url: shop.server.url,
        requests: orders(shop, spread),
        connections,
        durationSeconds: 3,
      });
      if (spreadBase && which.has('spread')) {
        pairs.push({
          name: `POST /v1/orders paid, PostgreSQL, ${PRODUCTS} products, ${connections} connections`,
          baseline: () => spreadBase.run(connections, durationSeconds),
          postgres: true,
          durationSeconds,
          ours: () => measured('spread', current, orders(current, spread), connections, durationSeconds),
        });
      }
      if (hotBase) {
        pairs.push({
          name: `POST /v1/orders paid, PostgreSQL, one product, ${connections} connections`,
          baseline: () => hotBase.run(connections, durationSeconds),
          postgres: true,
          durationSeconds,
          ours: () => measured('hot', current, orders(current, hot), connections, durationSeconds),
        });
      }
    }
    if (spreadBase && which.has('wallet')) {
      wallets = await postgresStore(url);
      const store = wallets;
      store.parties = await seedWallets(store.env, 200);
      walletServer = await startProcess(serverEntry(), store.env);
      const server = walletServer;
      const target = { server, key: '', productIds: [], stop: async () => undefined };
      await load('warm-up', {
        url: server.url,
        requests: transfers(store.parties),
        connections,
        durationSeconds: 3,
      });
      pairs.push({
        name: `POST /v1/wallet/transfer, PostgreSQL, 200 wallets, ${connections} connections`,
        baseline: () => spreadBase.run(connections, durationSeconds),
        postgres: true,
        durationSeconds,
        ours: () => measured('wallet', target, transfers(store.parties), connections, durationSeconds),
      });
    }
    const rows = await inPairs(pairs, rounds);
    if (wallets) await verifyLedger(wallets.env);
    return rows;
  } finally {
    await shop?.stop();
    await walletServer?.stop();
    await wallets?.drop();
    await spreadBase?.drop();
    await hotBase?.drop();
  }
}

/** The SQLite pair: paid orders against bare Fastify writing the same rows in one transaction. */
async function sqlitePair(settings: {
  rounds: number;
  durationSeconds: number;
  connections: number;
}): Promise<Measurement[]> {
  const { rounds, durationSeconds, connections } = settings;
  const { shop, bare, dropBare } = await sqliteShops();
  try {
    const spread = () => shop.productIds[Math.floor(Math.random() * shop.productIds.length)] as string;
    const bareShop: Shop = { ...shop, server: bare };
    await load('warm-up', {
      url: shop.server.url,
      requests: orders(shop, spread),
      connections,
      durationSeconds: 3,
    });
    await load('warm-up', {
      url: bare.url,
      requests: orders(bareShop, spread),
      connections,
      durationSeconds: 3,
    });
    return await inPairs(
      [
        {
          name: `POST /v1/orders paid, SQLite, ${PRODUCTS} products, ${connections} connections`,
          baseline: async () => ({
            ...(await measured('bare', bareShop, orders(bareShop, spread), connections, durationSeconds)),
            scenario: "bare Fastify writing a paid order's rows in one better-sqlite3 transaction",
          }),
          ours: () => measured('sqlite', shop, orders(shop, spread), connections, durationSeconds),
          durationSeconds,
        },
      ],
      rounds,
    );
  } finally {
    await shop.stop();
    await bare.stop();
    dropBare();
  }
}

export async function run(options: OrdersBenchOptions = {}): Promise<Measurement[]> {
  const settings = {
    rounds: options.rounds ?? Number(process.env.BENCH_ORDERS_ROUNDS ?? 2),
    durationSeconds: options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 8),
    connections: options.connections ?? Number(process.env.BENCH_ORDERS_CONNECTIONS ?? 50),
  };
  const which = selected();
  const rows: Measurement[] = [];
  const url = options.databaseUrl ?? process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (['spread', 'hot', 'wallet'].some((name) => which.has(name))) {
    if (!url || !(await databaseAnswers(url))) {
      process.stderr.write(
        'orders: no PostgreSQL answered (BENCH_DATABASE_URL / TEST_DATABASE_URL): skipped.\n',
      );
    } else {
      if (!pgbenchAvailable()) throw new Error('orders: no pgbench at /usr/bin/pgbench (PGBENCH=...)');
      rows.push(...(await postgresPairs(url, which, settings)));
    }
  }
  if (which.has('sqlite')) rows.push(...(await sqlitePair(settings)));
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await run();
  process.stdout.write(`${formatTable(rows)}\n\nMachine: ${machine()}\n`);
}
