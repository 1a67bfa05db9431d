import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import pg from 'pg';
import { runAdmin } from '../src/cli/admin.js';
import { type Config, loadConfig } from '../src/config.js';
import { createDeps, type Deps } from '../src/deps.js';
import { randomBase62 } from '../src/lib/ids.js';
import {
  type PrivatePostgres,
  type PrivateRedis,
  privatePostgresMissing,
  privateRedisMissing,
  startPrivatePostgres,
  startPrivateRedis,
} from './helpers/private-services.js';
import { type ServerProcess, spawnServer } from './helpers/process.js';
import { eventually } from './helpers/webhook-receiver.js';

/**
 * Faults, on private servers this file starts and stops itself (never the machine's shared
 * PostgreSQL and Redis, which other suites use at the same time):
 * - PostgreSQL stopped (fast shutdown, then a crash) and started again under write load: requests
 *   get 503 service_unavailable while it is gone, no process dies, every acknowledged write is there
 *   afterwards and the invariants hold (ledger, stock, outbox).
 * - Redis stopped: each process falls back to its own counters (limits still enforced from what
 *   Redis had counted, no 5xx) and returns to the shared counters once Redis is back, empty, with
 *   the hour's window carried over (src/modules/limits/limits.shared.ts).
 * - SIGTERM with 100 requests in flight: each finishes or gets 503, exit code 0, no partial writes.
 */

const PG_MISSING = privatePostgresMissing();
const REDIS_MISSING = privateRedisMissing();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Env {
  env: Record<string, string>;
  config: Config;
  dataDir: string;
}

/** A fresh schema in the private PostgreSQL (or SQLite when `postgres` is undefined). */
async function privateStore(
  postgres: PrivatePostgres | undefined,
  extra: Record<string, string> = {},
): Promise<Env> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-fault-'));
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    TLS: 'off',
    DEMO_DATA: 'off',
    LOG_LEVEL: 'warn',
    WEBHOOK_WORKER_IN_PROCESS: 'false',
    ...extra,
  };
  if (postgres) {
    const schema = `f_${randomBase62(10).toLowerCase()}`;
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.end();
    env.DATABASE_URL = postgres.url;
    env.DATABASE_SCHEMA = schema;
  }
  return { env, config: loadConfig({ ...env, LOG_LEVEL: 'silent' }), dataDir };
}

async function withDeps<T>(config: Config, fn: (deps: Deps) => Promise<T>): Promise<T> {
  const deps = await createDeps(config);
  try {
    return await fn(deps);
  } finally {
    await deps.close();
  }
}

interface Answer {
  status: number;
  code?: string;
  id?: string;
  retryAfter?: string | null;
}

async function send(
  url: string,
  key: string,
  method: string,
  route: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  try {
    const res = await fetch(`${url}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const parsed = (await res.json()) as { code?: string; id?: string };
    return {
      status: res.status,
      code: parsed.code,
      id: parsed.id,
      retryAfter: res.headers.get('retry-after'),
    };
  } catch (error) {
    // A refused or broken connection: never expected from a live process.
    return {
      status: 0,
      code: error instanceof Error ? `${error.message} ${String(error.cause)}` : String(error),
    };
  }
}

/** Neither a crash nor an unhandled rejection in a process's output. */
function assertHealthy(server: ServerProcess): void {
  assert.equal(server.child.exitCode, null, `process exited:\n${server.output()}`);
  assert.doesNotMatch(
    server.output(),
    /Unhandled 'error' event|UnhandledPromiseRejection|uncaughtException|"level":[56]0/,
    server.output(),
  );
}

describe('PostgreSQL restarted under load', { skip: PG_MISSING ?? false }, () => {
  let postgres: PrivatePostgres;
  let store: Env;
  const servers: ServerProcess[] = [];
  let key = '';
  let destination = '';
  let stocked: string[] = [];
  let soldOut = '';
  const INITIAL_STOCK = 100_000;

  before(async () => {
    postgres = await startPrivatePostgres();
    store = await privateStore(postgres);
    await withDeps(store.config, async (deps) => {
      const payer = await deps.tenants.create({
        name: 'Payer',
        email: 'payer@example.com',
        plan: 'enterprise',
      });
      const payee = await deps.tenants.create({ name: 'Payee', email: 'payee@example.com' });
      key = payer.apiKey.key;
      await deps.wallet.credit(payer.tenant.id, { amount: 10_000_000, currency: 'USD' });
      destination = (await deps.wallet.balance(payee.tenant)).wallet_id;
      stocked = [];
      for (let i = 0; i < 4; i++) {
        const product = await deps.products.create(payer.tenant, {
          name: `Stocked ${i}`,
          price: 990,
          currency: 'USD',
          stock: INITIAL_STOCK,
          status: 'active',
        });
        stocked.push(product.id);
      }
      // Orders for it are refused (422), and that answer is recorded for its Idempotency-Key too.
      soldOut = (
        await deps.products.create(payer.tenant, { name: 'Sold out', price: 500, stock: 0, status: 'active' })
      ).id;
    });
    servers.push(...(await Promise.all([spawnServer(store.env), spawnServer(store.env)])));
  });

  after(async () => {
    await Promise.allSettled(servers.map((server) => server.stop()));
    await postgres?.destroy();
    if (store) fs.rmSync(store.dataDir, { recursive: true, force: true });
  });

  it('answers 503 while the database is gone, keeps running, and loses no acknowledged write', async () => {
    type Kind = 'product' | 'order' | 'transfer' | 'refused';
    const answers: (Answer & { kind: Kind; at: number })[] = [];
    const readiness: number[] = [];
    let stopped = false;
    let seq = 0;

    async function loop(worker: number): Promise<void> {
      while (!stopped) {
        const i = seq++;
        const server = servers[(worker + i) % servers.length];
        assert.ok(server);
        const kind: Kind = (['product', 'order', 'transfer', 'refused'] as const)[i % 4] ?? 'product';
        const idempotency = { 'idempotency-key': `fault-${i}` };
        const answer =
          kind === 'product'
            ? await send(
                server.url,
                key,
                'POST',
                '/v1/products',
                { name: `P${i}`, price: 100 + i, sku: `F-${i}` },
                idempotency,
              )
            : kind === 'order' || kind === 'refused'
              ? await send(
                  server.url,
                  key,
                  'POST',
                  '/v1/orders',
                  {
                    items: [
                      {
                        product_id: kind === 'refused' ? soldOut : stocked[i % stocked.length],
                        quantity: 1 + (i % 3),
                      },
                    ],
                    customer: { email: `c${i}@example.com` },
                    payment_method: 'pm_card_visa',
                  },
                  idempotency,
                )
              : await send(
                  server.url,
                  key,
                  'POST',
                  '/v1/wallet/transfer',
                  { amount: 1 + (i % 50), currency: 'USD', destination_wallet_id: destination },
                  idempotency,
                );
        answers.push({ ...answer, kind, at: Date.now() });
        if (answer.status !== 201) await sleep(20);
      }
    }

    const summary = (list: Answer[]) => {
      const counts = new Map<string, number>();
      for (const a of list)
        counts.set(`${a.status} ${a.code ?? ''}`, (counts.get(`${a.status} ${a.code ?? ''}`) ?? 0) + 1);
      return JSON.stringify([...counts]);
    };
    const ok = () => answers.filter((a) => a.status === 201).length;
    const refused = () => answers.filter((a) => a.status === 503).length;
    const loops = Array.from({ length: 8 }, (_, w) => loop(w));
    try {
      await eventually(() => ok() >= 30, 30_000, '30 writes before the outage');
      for (const mode of ['fast', 'immediate'] as const) {
        const before503 = refused();
        const stoppedAt = answers.length;
        await postgres.stop(mode);
        await eventually(
          () => refused() >= before503 + 10,
          30_000,
          `503s while PostgreSQL is down (${mode})`,
        ).catch((error: unknown) => {
          throw new Error(
            `${String(error)}; answers since the stop: ${summary(answers.slice(stoppedAt))}\n${servers.map((s) => s.output()).join('\n')}`,
          );
        });
        for (const server of servers) {
          const res = await fetch(`${server.url}/readyz`);
          readiness.push(res.status);
        }
        await sleep(500);
        await postgres.start();
        const before201 = ok();
        await eventually(
          () => ok() >= before201 + 30,
          60_000,
          `writes succeed again after the ${mode} restart`,
        );
      }
    } finally {
      stopped = true;
      await Promise.all(loops);
    }

    // Only these answers: the write (or the refusal) happened, or 503 while the store was gone.
    const unexpected = answers.filter(
      (a) =>
        !(a.status === 503 && a.code === 'service_unavailable') &&
        (a.kind === 'refused' ? !(a.status === 422 && a.code === 'insufficient_stock') : a.status !== 201),
    );
    assert.deepEqual(unexpected.slice(0, 5), [], `${unexpected.length} unexpected answers`);
    assert.ok(
      answers.filter((a) => a.status === 503).every((a) => a.retryAfter === '1'),
      '503 carries Retry-After',
    );
    assert.deepEqual([...new Set(readiness)], [503], '/readyz says 503 while the database is gone');
    for (const server of servers) {
      assertHealthy(server);
      assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
    }

    // Every acknowledged write is in the store; the invariants hold.
    await withDeps(store.config, async (deps) => {
      const db = deps.store.db;
      const acknowledged = (kind: Kind) =>
        answers.filter((a) => a.kind === kind && a.status === 201).map((a) => a.id ?? '');
      const count = async (table: 'products' | 'orders' | 'wallet_transfers', ids: string[]) =>
        ids.length === 0
          ? 0
          : Number(
              (
                await db
                  .selectFrom(table)
                  .select((eb) => eb.fn.countAll<number>().as('n'))
                  .where('id', 'in', ids)
                  .executeTakeFirstOrThrow()
              ).n,
            );
      for (const [kind, table] of [
        ['product', 'products'],
        ['order', 'orders'],
        ['transfer', 'wallet_transfers'],
      ] as const) {
        const ids = acknowledged(kind);
        assert.ok(ids.length > 0, `some ${kind}s were acknowledged`);
        assert.equal(await count(table, ids), ids.length, `every acknowledged ${kind} is stored`);
      }

      // Stock: what the stored orders took, exactly, and each order has its order.created event.
      const items = await db
        .selectFrom('order_items')
        .select(['product_id', (eb) => eb.fn.sum<number>('quantity').as('sold')])
        .where('product_id', 'in', stocked)
        .groupBy('product_id')
        .execute();
      const products = await db
        .selectFrom('products')
        .select(['id', 'stock'])
        .where('id', 'in', stocked)
        .execute();
      for (const product of products) {
        const sold = Number(items.find((row) => row.product_id === product.id)?.sold ?? 0);
        assert.equal(product.stock, INITIAL_STOCK - sold, `stock of ${product.id}`);
      }
      const orders = await db.selectFrom('orders').select('id').execute();
      const created = await db
        .selectFrom('events')
        .select('object_id')
        .where('type', '=', 'order.created')
        .execute();
      assert.deepEqual(
        created.map((e) => e.object_id).sort(),
        orders.map((o) => o.id).sort(),
        'one order.created event per stored order (transactional outbox)',
      );
    });
    const verify = await runAdmin(['ledger:verify', '--json'], store.config);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
  });
});

describe('Redis stopped and started again', { skip: REDIS_MISSING ?? false }, () => {
  let redis: PrivateRedis;
  let store: Env;
  let server: ServerProcess;
  let key = '';
  const prefix = `fault:${randomBase62(8)}:`;
  const HOURLY = 30;

  before(async () => {
    redis = await startPrivateRedis();
    store = await privateStore(undefined, { REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix });
    await withDeps(store.config, async (deps) => {
      const tenant = await deps.tenants.create({ name: 'Limited', email: 'limited@example.com' });
      await deps.tenants.setLimits(tenant.tenant.id, { hourly: HOURLY });
      key = tenant.apiKey.key;
    });
    server = await spawnServer(store.env);
  });

  after(async () => {
    await server?.stop();
    await redis?.destroy();
    if (store) fs.rmSync(store.dataDir, { recursive: true, force: true });
  });

  async function burst(count: number): Promise<Answer[]> {
    return Promise.all(Array.from({ length: count }, () => send(server.url, key, 'GET', '/v1/users/me')));
  }

  async function sharedKeys(): Promise<string[]> {
    const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return await client.keys(`${prefix}rl:*`);
    } catch {
      return [];
    } finally {
      client.disconnect();
    }
  }

  it('falls back to per-process counters (limits still enforced, no 5xx) and back to Redis', async () => {
    // Up: the shared counters in Redis count.
    const up = await burst(10);
    assert.deepEqual([...new Set(up.map((a) => a.status))], [200]);
    assert.ok((await sharedKeys()).length > 0, 'the counters live in Redis');

    // Down: this process enforces the hourly limit with its own counters, from the 10 Redis counted.
    await redis.stop();
    const down = await burst(HOURLY + 15);
    const statuses = down.map((a) => `${a.status}${a.code ? ` ${a.code}` : ''}`);
    assert.equal(statuses.filter((s) => s === '200').length, HOURLY - 10, statuses.join(', '));
    assert.equal(statuses.filter((s) => s === '429 rate_limited').length, 25);
    assert.match(server.output(), /Redis is unreachable/);
    assertHealthy(server);

    // Back: the process returns to the shared counters by itself (a new, empty Redis), which carry
    // the hour's window over: it is still full.
    await redis.start();
    await eventually(
      async () => /Redis is reachable again/.test(server.output()),
      30_000,
      'the process to use Redis again',
    );
    const back = await send(server.url, key, 'GET', '/v1/users/me');
    assert.equal(`${back.status} ${back.code}`, '429 rate_limited');
    assert.ok((await sharedKeys()).length > 0, 'the counters live in Redis again');
    assertHealthy(server);
  });
});

describe('SIGTERM with 100 requests in flight', { skip: PG_MISSING ?? false }, () => {
  let postgres: PrivatePostgres;
  let store: Env;
  let stub: http.Server;
  let stubUrl = '';
  const held: (() => void)[] = [];
  const AI_REQUESTS = 90;
  const LATE_REQUESTS = 10;
  const tenants: { key: string; products: string[] }[] = [];

  before(async () => {
    postgres = await startPrivatePostgres();
    // An OpenAI-compatible server that holds every completion until the test lets it go.
    stub = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        held.push(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              model: 'stub-1',
              choices: [
                {
                  index: 0,
                  finish_reason: 'stop',
                  message: { role: 'assistant', content: `Text ${held.length}.` },
                },
              ],
              usage: { prompt_tokens: 10, completion_tokens: 3 },
            }),
          );
        });
      });
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    stubUrl = `http://127.0.0.1:${(stub.address() as net.AddressInfo).port}/v1`;
    store = await privateStore(postgres, {
      AI_PROVIDER: 'openai',
      AI_BASE_URL: stubUrl,
      AI_API_KEY: 'test',
      AI_TIMEOUT_MS: '60000',
      SHUTDOWN_TIMEOUT_MS: '30000',
    });
    await withDeps(store.config, async (deps) => {
      // Two tenants: the AI limit is 60 requests a minute per tenant.
      for (let t = 0; t < 2; t++) {
        const tenant = await deps.tenants.create({ name: `Shop ${t}`, email: `shop${t}@example.com` });
        const products: string[] = [];
        for (let i = 0; i < AI_REQUESTS / 2 + LATE_REQUESTS; i++) {
          const product = await deps.products.create(tenant.tenant, {
            name: `Item ${t}-${i}`,
            price: 500,
            stock: 10,
            status: 'active',
          });
          products.push(product.id);
        }
        tenants.push({ key: tenant.apiKey.key, products });
      }
    });
  });

  after(async () => {
    for (const release of held.splice(0)) release();
    await new Promise((resolve) => stub?.close(resolve));
    await postgres?.destroy();
    if (store) fs.rmSync(store.dataDir, { recursive: true, force: true });
  });

  /** A request whose connection is open and whose headers are half sent: it is in flight. */
  async function halfSent(url: string, key: string, body: string) {
    const { hostname, port } = new URL(url);
    const socket = net.connect(Number(port), hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(`POST /v1/orders HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${key}\r\n`);
    return {
      async finish(): Promise<Answer> {
        socket.write(
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
        await closed;
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
        const json = received.slice(received.indexOf('\r\n\r\n') + 4);
        const code = /"code":"(\w+)"/.exec(json)?.[1];
        return { status, code };
      },
    };
  }

  it('finishes every request or answers 503, exits 0, and leaves no partial write', async () => {
    const server = await spawnServer(store.env);
    const requests: Promise<Answer & { product: string }>[] = [];
    for (const [t, tenant] of tenants.entries()) {
      for (let i = 0; i < AI_REQUESTS / 2; i++) {
        const product = tenant.products[i] ?? '';
        requests.push(
          send(
            server.url,
            tenant.key,
            'POST',
            '/v1/ai/generate-description',
            { product_id: product, save: true },
            {
              'idempotency-key': `ai-${t}-${i}`,
            },
          ).then((answer) => ({ ...answer, product })),
        );
      }
    }
    const late = await Promise.all(
      Array.from({ length: LATE_REQUESTS }, (_, i) => {
        const tenant = tenants[i % tenants.length];
        assert.ok(tenant);
        const body = JSON.stringify({
          items: [{ product_id: tenant.products.at(-1 - i) ?? '', quantity: 1 }],
          customer: { email: `late${i}@example.com` },
        });
        return halfSent(server.url, tenant.key, body);
      }),
    );
    await eventually(
      () => held.length === AI_REQUESTS,
      60_000,
      `${AI_REQUESTS} completions held at the AI stub`,
    );

    // 90 requests are inside their handlers and 10 are half sent: 100 in flight. Stop.
    server.child.kill('SIGTERM');
    await sleep(300);
    const lateAnswers = await Promise.all(late.map((request) => request.finish()));
    for (const release of held.splice(0)) release();
    const answers = await Promise.all(requests);
    const code = await server.exited;

    assert.equal(code, 0, server.output());
    assert.deepEqual(
      lateAnswers.map((a) => `${a.status} ${a.code}`),
      Array.from({ length: LATE_REQUESTS }, () => '503 service_unavailable'),
      'requests that arrive while draining get 503',
    );
    assert.deepEqual(
      [...new Set(answers.map((a) => a.status))],
      [201],
      `in-flight requests finish: ${answers.map((a) => `${a.status} ${a.code ?? ''}`).join(', ')}`,
    );

    // The store holds exactly what was answered: every saved text with its event, and no order.
    await withDeps(store.config, async (deps) => {
      const db = deps.store.db;
      const saved = answers.map((a) => a.product);
      const described = await db
        .selectFrom('products')
        .select(['id', 'description'])
        .where('description', 'is not', null)
        .execute();
      assert.deepEqual(described.map((p) => p.id).sort(), [...saved].sort());
      const generations = await db.selectFrom('ai_generations').select('id').execute();
      assert.equal(generations.length, AI_REQUESTS);
      const updates = await db
        .selectFrom('events')
        .select('object_id')
        .where('type', '=', 'product.updated')
        .execute();
      assert.deepEqual(updates.map((e) => e.object_id).sort(), [...saved].sort());
      const orders = await db.selectFrom('orders').select('id').execute();
      assert.equal(orders.length, 0, 'no order from a request refused while draining');
      const stock = await db.selectFrom('products').select('stock').where('stock', '!=', 10).execute();
      assert.equal(stock.length, 0, 'no stock reserved by a refused request');
      const keys = await db.selectFrom('idempotency_keys').select(['state']).execute();
      assert.deepEqual(
        [...new Set(keys.map((k) => k.state))],
        ['completed'],
        'every idempotency key holds its stored response',
      );
      assert.equal(keys.length, AI_REQUESTS);
    });
  });
});
