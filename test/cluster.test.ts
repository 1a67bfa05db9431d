import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { runAdmin } from '../src/cli/admin.js';
import { type Config, loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { randomBase62 } from '../src/lib/ids.js';
import type { OrderObject } from '../src/modules/orders/orders.schemas.js';
import type { ProductObject } from '../src/modules/products/products.schemas.js';
import type { BalanceObject, TransferObject } from '../src/modules/wallet/wallet.schemas.js';
import { migratedStore, TEST_REDIS_URL, type TestStore } from './helpers/context.js';
import { type ServerProcess, spawnServer, WORKER_READY } from './helpers/process.js';
import { dropRedisKeys, redisTestPrefix } from './helpers/redis.js';
import type { OrProblem, Page } from './helpers/responses.js';
import { eventually, type Receiver, startReceiver } from './helpers/webhook-receiver.js';

/**
 * The scale-out deployment for real: 3 API processes and 2 delivery workers over one PostgreSQL
 * schema and one Redis, under concurrent orders (with payments), wallet transfers, rate-limited
 * bursts and webhook deliveries (some refused once, so retries run too). Afterwards: money is
 * conserved (`ledger:verify`, and the wallet balances add up to what came in), nothing was oversold,
 * the limits held exactly across the processes, every subscribed event reached the receiver, and
 * no delivery was ever in flight twice at once.
 */

const SKIP =
  process.env.TEST_DATABASE_URL && TEST_REDIS_URL
    ? false
    : 'needs TEST_DATABASE_URL and TEST_REDIS_URL (PostgreSQL and Redis shared by several processes)';

const API_PROCESSES = 3;
const WORKERS = 2;
const STOCK = 20;
const PRICE = 1_250;
const FUNDING = 50_000;
const ORDERS = 150;
const TRANSFERS_EACH = 40;
const HOURLY_LIMIT = 40;
const MONTHLY_LIMIT = 25;
const IN_FLIGHT = 48;

interface Party {
  name: string;
  tenantId: string;
  key: string;
  walletId: string;
  hook: { id: string; secret: string; created: string; path: string };
}

interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

describe('cluster: 3 API processes and 2 workers on PostgreSQL and Redis', { skip: SKIP }, () => {
  let store: TestStore;
  let config: Config;
  let prefix: string;
  let receiver: Receiver;
  const apis: ServerProcess[] = [];
  const workers: ServerProcess[] = [];
  const parties: Party[] = [];
  let limited: { hourly: Omit<Party, 'walletId' | 'hook'>; monthly: Omit<Party, 'walletId' | 'hook'> };
  let products: { id: string }[] = [];
  /** Arrivals per webhook-id, and the ids the receiver accepted (2xx). */
  const arrivals = new Map<string, number>();
  const accepted = new Map<string, number>();
  let next = 0;

  /** One request, to the API processes in turn. */
  async function call<T = Record<string, unknown>>(
    key: string,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer<T>> {
    const server = apis[next++ % apis.length];
    assert.ok(server);
    const res = await fetch(`${server.url}/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as T, headers: res.headers };
  }

  before(async () => {
    store = await migratedStore('postgres');
    prefix = redisTestPrefix();
    const env = {
      ...store.env,
      REDIS_URL: TEST_REDIS_URL ?? '',
      REDIS_KEY_PREFIX: prefix,
      LOG_LEVEL: 'warn',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1',
      WEBHOOK_TIMEOUT_MS: '5000',
    };
    config = loadConfig(env);

    // Refuses the first attempt of every third event, so retries (by either worker) are part of the run.
    let distinct = 0;
    receiver = await startReceiver((request) => {
      const count = (arrivals.get(request.id) ?? 0) + 1;
      arrivals.set(request.id, count);
      if (count === 1) distinct += 1;
      if (count === 1 && distinct % 3 === 0) return { status: 503, delayMs: 20 };
      accepted.set(request.id, (accepted.get(request.id) ?? 0) + 1);
      // Held a moment, so a second copy of the same attempt would overlap and be seen.
      return { status: 200, body: '{"ok":true}', delayMs: 40 };
    });

    // Tenants through the real service; migrations run here once, before the processes start.
    const deps = await createDeps(config);
    const created: Record<string, { tenantId: string; key: string }> = {};
    try {
      for (const name of ['merchant', 'alice', 'bob', 'carol', 'hourly', 'monthly']) {
        const tenant = await deps.tenants.create({
          name,
          email: `${name}-${randomBase62(6).toLowerCase()}@example.com`,
          currency: 'USD',
        });
        created[name] = { tenantId: tenant.tenant.id, key: tenant.apiKey.key };
      }
    } finally {
      await deps.close();
    }
    const admin = async (...argv: string[]) => {
      const result = await runAdmin([...argv, '--json'], config);
      assert.equal(result.code, 0, `${argv.join(' ')}: ${result.stderr}`);
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };
    const id = (name: string) => created[name]?.tenantId ?? '';
    await admin('tenant:set-limits', '--tenant', id('merchant'), '--plan', 'enterprise');
    await admin('tenant:set-limits', '--tenant', id('hourly'), '--hourly', String(HOURLY_LIMIT));
    await admin('tenant:set-limits', '--tenant', id('monthly'), '--monthly', String(MONTHLY_LIMIT));
    limited = {
      hourly: { name: 'hourly', ...(created.hourly ?? { tenantId: '', key: '' }) },
      monthly: { name: 'monthly', ...(created.monthly ?? { tenantId: '', key: '' }) },
    };

    const common = { ...env, WEBHOOK_WORKER_IN_PROCESS: 'false' };
    const started = await Promise.allSettled([
      ...Array.from({ length: API_PROCESSES }, () => spawnServer(common)),
      ...Array.from({ length: WORKERS }, () => spawnServer(common, 'src/worker.ts', { ready: WORKER_READY })),
    ]);
    for (const [i, outcome] of started.entries()) {
      if (outcome.status === 'fulfilled') (i < API_PROCESSES ? apis : workers).push(outcome.value);
    }
    const failed = started.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;

    // Each party: a webhook endpoint for every event first, then its wallet and its funding.
    for (const name of ['merchant', 'alice', 'bob', 'carol']) {
      const { tenantId, key } = created[name] ?? { tenantId: '', key: '' };
      const hook = await call<{ id: string; secret: string; created: string }>(key, 'POST', '/webhooks', {
        url: `${receiver.url}/${name}`,
        events: ['*'],
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      const balance = await call<BalanceObject>(key, 'GET', '/wallet/balance');
      assert.equal(balance.status, 200);
      parties.push({
        name,
        tenantId,
        key,
        walletId: balance.body.wallet_id,
        hook: { ...hook.body, path: `/${name}` },
      });
      if (name !== 'merchant') {
        await admin('wallet:credit', '--tenant', tenantId, '--amount', String(FUNDING), '--currency', 'USD');
      }
    }
    const merchant = parties[0];
    assert.ok(merchant);
    products = [];
    for (let i = 0; i < 3; i++) {
      const product = await call<ProductObject>(merchant.key, 'POST', '/products', {
        name: `Limited edition ${i}`,
        price: PRICE,
        currency: 'USD',
        stock: STOCK,
        status: 'active',
      });
      assert.equal(product.status, 201, JSON.stringify(product.body));
      products.push(product.body);
    }
  });

  after(async () => {
    if (process.env.CLUSTER_DEBUG) for (const p of [...apis, ...workers]) console.error(p.output());
    await Promise.allSettled([...apis, ...workers].map((p) => p.stop()));
    await receiver?.close();
    await dropRedisKeys(prefix);
    await store?.drop();
  });

  let orders: Answer<OrProblem<OrderObject>>[] = [];
  let transfers: Answer<OrProblem<TransferObject>>[] = [];
  let hourly: Answer<{ code?: string }>[] = [];
  let monthly: Answer<{ code?: string }>[] = [];

  it('serves concurrent orders, transfers and rate-limited bursts on every process', async () => {
    const [merchant, ...payers] = parties;
    assert.ok(merchant && payers.length === 3);
    const orderJobs = Array.from({ length: ORDERS }, (_, i) => {
      const product = products[i % products.length];
      assert.ok(product);
      return () =>
        call<OrProblem<OrderObject>>(
          merchant.key,
          'POST',
          '/orders',
          {
            items: [{ product_id: product.id, quantity: 1 + (i % 2) }],
            customer: { email: `buyer${i}@example.com` },
            payment_method: 'pm_card_visa',
          },
          { 'idempotency-key': `order-${i}` },
        );
    });
    const transferJobs = payers.flatMap((payer, p) =>
      Array.from({ length: TRANSFERS_EACH }, (_, i) => {
        const to = i % 4 === 0 ? merchant : payers[(p + 1 + (i % 2)) % payers.length];
        assert.ok(to);
        return () =>
          call<OrProblem<TransferObject>>(
            payer.key,
            'POST',
            '/wallet/transfer',
            { amount: 200 + 53 * i, currency: 'USD', destination_wallet_id: to.walletId },
            { 'idempotency-key': `transfer-${p}-${i}` },
          );
      }),
    );
    const burst = (key: string, count: number) =>
      Array.from({ length: count }, () => () => call<{ code?: string }>(key, 'GET', '/users/me'));

    // All four kinds interleaved, IN_FLIGHT requests at a time over the 3 processes: concurrent
    // enough to contend on every row and counter, without drowning a 2-core machine.
    orders = [];
    transfers = [];
    hourly = [];
    monthly = [];
    const into =
      <T>(answers: T[]) =>
      (job: () => Promise<T>, i: number) =>
      async () => {
        answers[i] = await job();
      };
    const groups: (() => Promise<void>)[][] = [
      orderJobs.map(into(orders)),
      transferJobs.map(into(transfers)),
      burst(limited.hourly.key, HOURLY_LIMIT * 3).map(into(hourly)),
      burst(limited.monthly.key, MONTHLY_LIMIT * 3).map(into(monthly)),
    ];
    const queue: (() => Promise<void>)[] = [];
    for (let i = 0; groups.some((group) => i < group.length); i++) {
      for (const job of groups.map((group) => group[i])) if (job) queue.push(job);
    }
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let job = queue.shift(); job; job = queue.shift()) await job();
      }),
    );

    const statuses = (answers: Answer<{ code?: string }>[]) =>
      answers.map((a) => `${a.status}${a.body.code ? ` ${a.body.code}` : ''}`);
    // 503 is the honest answer of an overloaded process (no pool connection within 5 s on a busy
    // machine). A client retries it with the same Idempotency-Key, as here once the load is over:
    // the retry must never do the work a second time (judged on what the store holds below).
    const unavailable = [...orders, ...transfers].filter((a) => a.status === 503).length;
    if (unavailable > 0) process.stderr.write(`cluster: ${unavailable} requests answered 503 under load\n`);
    const retry = async <T>(answers: Answer<T>[], jobs: (() => Promise<Answer<T>>)[]) => {
      for (const [i, job] of jobs.entries()) {
        for (let attempt = 0; answers[i]?.status === 503 && attempt < 20; attempt++) {
          await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
          answers[i] = await job();
        }
      }
    };
    await retry(orders, orderJobs);
    await retry(transfers, transferJobs);
    for (const status of new Set(statuses(orders))) {
      assert.ok(['201', '422 insufficient_stock'].includes(status), `order answered ${status}`);
    }
    for (const status of new Set(statuses(transfers))) {
      assert.ok(['201', '422 insufficient_funds'].includes(status), `transfer answered ${status}`);
    }
    assert.ok(
      orders.some((o) => o.status === 422),
      'demand exceeded the stock, so some orders were refused',
    );
    assert.ok(transfers.filter((t) => t.status === 201).length >= TRANSFERS_EACH, 'transfers went through');
  });

  /** The merchant's orders as stored (one page holds them all). */
  async function storedOrders(): Promise<OrderObject[]> {
    const merchant = parties[0];
    assert.ok(merchant);
    const listed = await call<Page<OrderObject>>(merchant.key, 'GET', '/orders?limit=100');
    assert.equal(listed.status, 200);
    assert.equal(listed.body.data.length, listed.body.total);
    return listed.body.data;
  }

  it('never oversells: units sold equal the stock taken, and no stock is negative', async () => {
    const merchant = parties[0];
    assert.ok(merchant);
    const stored = await storedOrders();
    // Exactly one stored order per acknowledged Idempotency-Key, none for a refused one, also where
    // the first answer was a 503 and the retry came later.
    const acknowledged = orders.filter((o) => o.status === 201);
    assert.deepEqual(
      stored.map((o) => o.id).sort(),
      acknowledged.map((o) => o.body.id).sort(),
      'the stored orders are exactly the acknowledged ones',
    );
    for (const order of acknowledged) {
      // `pending` when the charge's outcome could not be recorded under load (settled by the sweep).
      assert.ok(
        ['succeeded', 'pending'].includes(order.body.payment?.status ?? ''),
        JSON.stringify(order.body),
      );
    }
    const sold = new Map<string, number>();
    for (const order of stored) {
      for (const item of order.items) {
        sold.set(item.product_id, (sold.get(item.product_id) ?? 0) + item.quantity);
      }
    }
    for (const product of products) {
      const current = await call<ProductObject>(merchant.key, 'GET', `/products/${product.id}`);
      assert.equal(current.status, 200);
      assert.ok(current.body.stock >= 0, `stock of ${product.id} is ${current.body.stock}`);
      assert.equal(STOCK - current.body.stock, sold.get(product.id) ?? 0, `units sold of ${product.id}`);
      // Demand (75 units a product) far exceeds the stock: all of it was sold, to the last unit.
      assert.ok(current.body.stock <= 1, `stock of ${product.id} left at ${current.body.stock}`);
    }
  });

  it('conserves money: the ledger verifies and the balances add up to what came in', async () => {
    const verify = await runAdmin(['ledger:verify', '--json'], config);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    const paid = (await storedOrders())
      .filter((order) => order.payment?.status === 'succeeded')
      .reduce((sum, order) => sum + order.total, 0);
    let total = 0;
    for (const party of parties) {
      const balance = await call<BalanceObject>(party.key, 'GET', '/wallet/balance');
      assert.equal(balance.status, 200);
      assert.ok(balance.body.available >= 0, `${party.name}'s balance is ${balance.body.available}`);
      total += balance.body.available;
    }
    assert.equal(total, 3 * FUNDING + paid, 'funding plus captured payments, wherever it moved');
  });

  it('holds the hourly limit and the monthly quota exactly across the 3 processes', () => {
    const count = (answers: Answer<{ code?: string }>[], status: number, code?: string) =>
      answers.filter((a) => a.status === status && a.body.code === code).length;
    assert.equal(count(hourly, 200), HOURLY_LIMIT);
    assert.equal(count(hourly, 429, 'rate_limited'), HOURLY_LIMIT * 2);
    assert.equal(count(monthly, 200), MONTHLY_LIMIT);
    assert.equal(count(monthly, 429, 'quota_exceeded'), MONTHLY_LIMIT * 2);
    for (const answer of [...hourly, ...monthly].filter((a) => a.status === 429)) {
      assert.ok(Number(answer.headers.get('retry-after')) >= 1);
    }
  });

  it('delivers every subscribed event, signed, never two copies of an attempt at once', async () => {
    const expected = new Map<string, Party>();
    for (const party of parties) {
      let cursor: string | null = null;
      do {
        const page: Answer<{ data: { id: string; created: string }[]; next_cursor: string | null }> =
          await call(party.key, 'GET', `/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
        assert.equal(page.status, 200);
        for (const event of page.body.data) {
          if (event.created >= party.hook.created) expected.set(event.id, party);
        }
        cursor = page.body.next_cursor;
      } while (cursor);
    }
    const types = new Set<string>();
    assert.ok(expected.size > ORDERS, `${expected.size} events`);
    await eventually(
      () => [...expected.keys()].every((id) => accepted.has(id)),
      90_000,
      `all ${expected.size} events accepted (${[...expected.keys()].filter((id) => accepted.has(id)).length} so far)`,
    );
    for (const request of receiver.received) {
      const party = expected.get(request.id);
      assert.ok(party, `unexpected delivery ${request.id}`);
      assert.equal(request.path, party.hook.path, 'each event goes to its own tenant’s endpoint only');
      const payload = new Webhook(party.hook.secret).verify(request.body, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      }) as { type: string };
      types.add(payload.type);
    }
    for (const type of ['order.created', 'payment.received', 'order.paid', 'transfer.created']) {
      assert.ok(types.has(type), `${type} delivered`);
    }
    // On a failure, each copy of the overlapping ids: when it came, and the attempt's timestamp.
    const copies = receiver.overlapping.map((overlap) =>
      receiver.received
        .filter((request) => request.id === overlap.id)
        .map((request) => ({ at: request.at, timestamp: request.headers['webhook-timestamp'] })),
    );
    assert.equal(
      receiver.maxConcurrentPerId,
      1,
      `an attempt was in flight twice at once: ${JSON.stringify(copies)}`,
    );
    assert.ok(receiver.maxConcurrent > 1, 'deliveries ran in parallel');
    const twice = [...accepted].filter(([, n]) => n > 1);
    assert.deepEqual(twice, [], 'no event was accepted twice in a healthy cluster');
    const retried = [...arrivals.values()].filter((n) => n > 1).length;
    assert.ok(retried > 0, 'refused first attempts were retried');
  });

  it('kept every process up', () => {
    for (const process of [...apis, ...workers]) assert.equal(process.child.exitCode, null, process.output());
  });
});
