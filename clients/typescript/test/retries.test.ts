import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomBase62 } from '../../../src/lib/ids.js';
import { LOGIC_ONLY } from '../../../test/helpers/context.js';
import {
  backoffMs,
  CommerceApiError,
  type CommerceClient,
  CommerceConnectionError,
  MAX_RETRY_AFTER_MS,
  retryAfterMs,
} from '../src/index.js';
import type { ClientOptions } from '../src/options.js';
import { type FaultProxy, type Seen, startFaultProxy } from './helpers/fault-proxy.js';
import { type ApiServer, startApiServer } from './helpers/server.js';

/**
 * Retries and idempotency, through a real proxy in front of a real server that answers 429 and
 * 503 first, loses answers, drops connections or stalls, and then forwards: every attempt of a
 * call carries the same Idempotency-Key, and the server makes one object.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function problem(status: number, code: string) {
  return {
    type: 'about:blank',
    title: code,
    status,
    detail: `injected ${code}`,
    code,
    request_id: 'req_proxy',
  };
}

describe('the retry policy', () => {
  it('backs off exponentially with full jitter, capped', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5, 10].map((retry) => backoffMs(retry, () => 0.999999)),
      [499, 999, 1999, 3999, 7999, 7999, 7999],
    );
    assert.equal(
      backoffMs(3, () => 0),
      0,
    );
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    assert.equal(retryAfterMs('2'), 2000);
    assert.equal(
      retryAfterMs(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1)),
      30_000,
    );
    assert.equal(retryAfterMs(null), undefined);
    assert.equal(retryAfterMs('soon'), undefined);
    assert.equal(MAX_RETRY_AFTER_MS, 60_000);
  });
});

for (const dialect of LOGIC_ONLY) {
  describe(`retries and idempotency through a faulty proxy (${dialect})`, { timeout: 120_000 }, () => {
    let api: ApiServer;
    let proxy: FaultProxy;
    let key: string;
    let direct: CommerceClient;
    const tag = randomBase62(6).toUpperCase();

    const viaProxy = (options: ClientOptions = {}) => api.client(key, { baseUrl: proxy.url, ...options });
    const to =
      (method: string, path: string) =>
      (seenMethod: string, seenPath: string): boolean =>
        seenMethod === method && seenPath.split('?')[0] === path;
    /** The attempts the proxy saw of `method path` from index `from` on. */
    const attempts = (from: number, method: string, path: string): Seen[] =>
      proxy.seen.slice(from).filter((seen) => to(method, path)(seen.method, seen.path));

    before(async () => {
      api = await startApiServer(dialect);
      key = (await api.tenant()).apiKey.key;
      proxy = await startFaultProxy(api.server.url);
      direct = api.client(key);
    });
    after(async () => {
      await proxy?.close();
      await api?.close();
    });

    it('retries 429 after its Retry-After and 503, with one Idempotency-Key, and makes one product', async () => {
      const from = proxy.seen.length;
      const sku = `RETRY-${tag}`;
      proxy.plan(to('POST', '/v1/products'), [
        { answer: 429, headers: { 'retry-after': '1' }, body: problem(429, 'rate_limited') },
        { answer: 503, body: problem(503, 'service_unavailable') },
      ]);
      const started = Date.now();
      const product = await viaProxy({ maxRetries: 3 }).products.create({ name: 'Retried', sku, price: 100 });
      const tries = attempts(from, 'POST', '/v1/products');
      assert.equal(tries.length, 3);
      const keys = new Set(tries.map((seen) => seen.headers['idempotency-key']));
      assert.equal(keys.size, 1, 'every attempt sends the same Idempotency-Key');
      assert.match(String([...keys][0]), UUID);
      assert.ok(Date.now() - started >= 1000, 'the 429 was retried after its Retry-After: 1');
      assert.equal(tries[2]?.upstreamStatus, 201);
      assert.equal(product.sku, sku);
      assert.equal((await direct.products.list({ q: sku })).total, 1, 'one product');
    });

    it('retries an order whose answer was lost: the server replays it, and made one order', async () => {
      const product = await direct.products.create({
        name: 'Boot',
        sku: `LOST-${tag}`,
        price: 4000,
        stock: 10,
      });
      const email = `lost-${tag.toLowerCase()}@example.com`;
      const from = proxy.seen.length;
      proxy.plan(to('POST', '/v1/orders'), [{ forwardThenAnswer: 502 }, { reset: true }]);
      const order = await viaProxy({ maxRetries: 3 }).orders.create({
        items: [{ product_id: product.id, quantity: 2 }],
        customer: { email },
        payment_method: 'pm_card_visa',
      });
      const tries = attempts(from, 'POST', '/v1/orders');
      assert.equal(tries.length, 3);
      assert.equal(new Set(tries.map((seen) => seen.headers['idempotency-key'])).size, 1);
      assert.equal(tries[0]?.upstreamStatus, 201, 'the first attempt made the order');
      assert.equal(tries[2]?.replayed, true, 'the last attempt was answered from the stored response');
      assert.equal(order.status, 'paid');
      const orders = await direct.orders.list({ customer_email: email });
      assert.deepEqual(
        orders.data.map((o) => o.id),
        [order.id],
        'one order',
      );
      assert.equal((await direct.products.get(product.id)).stock, 8, 'stock reserved once');
    });

    it('waits out 409 idempotency_key_in_use, then gets the answer', async () => {
      const from = proxy.seen.length;
      proxy.plan(to('POST', '/v1/customers'), [
        { answer: 409, body: problem(409, 'idempotency_key_in_use') },
        { answer: 409, headers: { 'retry-after': '0' }, body: problem(409, 'idempotency_key_in_use') },
      ]);
      const customer = await viaProxy().customers.create({ email: `busy-${tag.toLowerCase()}@example.com` });
      const tries = attempts(from, 'POST', '/v1/customers');
      assert.equal(tries.length, 3);
      assert.equal(new Set(tries.map((seen) => seen.headers['idempotency-key'])).size, 1);
      assert.equal((await direct.customers.get(customer.id)).id, customer.id);
    });

    it('retries a GET after a 500 and after an attempt that timed out', async () => {
      const from = proxy.seen.length;
      proxy.plan(to('GET', '/v1/users/me'), [
        { answer: 500, body: problem(500, 'internal_error') },
        { stallMs: 5_000 },
      ]);
      const me = await viaProxy({ timeoutMs: 500, maxRetries: 2 }).users.getCurrent();
      assert.ok(me.email.endsWith('@example.com'));
      assert.equal(attempts(from, 'GET', '/v1/users/me').length, 3);
    });

    it('gives up after maxRetries and throws the last answer, or the connection error', async () => {
      let from = proxy.seen.length;
      proxy.plan(to('GET', '/v1/usage'), [
        { answer: 503, body: problem(503, 'service_unavailable') },
        { answer: 503, body: problem(503, 'service_unavailable') },
        {
          answer: 503,
          headers: { 'x-request-id': 'req_last_attempt' },
          body: problem(503, 'service_unavailable'),
        },
        { answer: 503, body: problem(503, 'service_unavailable') },
      ]);
      const error = await viaProxy({ maxRetries: 2 })
        .usage.get()
        .catch((reason: unknown) => reason);
      assert.ok(error instanceof CommerceApiError);
      assert.deepEqual(
        [error.status, error.code, error.requestId],
        [503, 'service_unavailable', 'req_last_attempt'],
      );
      assert.equal(attempts(from, 'GET', '/v1/usage').length, 3);

      from = proxy.seen.length;
      proxy.plan(to('GET', '/v1/versions'), [{ reset: true }, { reset: true }]);
      const dropped = await viaProxy({ maxRetries: 1 })
        .versions.list()
        .catch((reason: unknown) => reason);
      assert.ok(dropped instanceof CommerceConnectionError, String(dropped));
      assert.equal(dropped.attempts, 2);
      assert.equal(attempts(from, 'GET', '/v1/versions').length, 2);
    });

    it('does not wait out a Retry-After past a minute, nor retry other 4xx answers', async () => {
      let from = proxy.seen.length;
      proxy.plan(to('GET', '/v1/analytics'), [
        { answer: 429, headers: { 'retry-after': '3600' }, body: problem(429, 'quota_exceeded') },
      ]);
      // Waiting out the hour would outlast the test's own timeout: the answer comes first.
      const quota = await viaProxy()
        .analytics.get()
        .catch((reason: unknown) => reason);
      assert.ok(quota instanceof CommerceApiError);
      assert.equal(quota.code, 'quota_exceeded');
      assert.equal(quota.headers.get('retry-after'), '3600');
      assert.equal(attempts(from, 'GET', '/v1/analytics').length, 1);

      from = proxy.seen.length;
      const product = await direct.products.create({ name: 'Twice', sku: `TWICE-${tag}`, price: 100 });
      const duplicate = await viaProxy()
        .products.create({ name: 'Twice', sku: `TWICE-${tag}`, price: 100 })
        .catch((reason: unknown) => reason);
      assert.ok(duplicate instanceof CommerceApiError);
      assert.deepEqual([duplicate.status, duplicate.code], [409, 'duplicate_sku']);
      assert.equal(attempts(from, 'POST', '/v1/products').length, 1);
      assert.equal((await direct.products.get(product.id)).sku, `TWICE-${tag}`);
    });

    it("keeps the caller's own Idempotency-Key: the same key twice is one order", async () => {
      const product = await direct.products.create({ name: 'Key', sku: `KEY-${tag}`, price: 700, stock: 5 });
      const idempotencyKey = `client-test-${tag}`;
      const body = {
        items: [{ product_id: product.id, quantity: 1 }],
        customer: { email: 'key@example.com' },
      };
      const from = proxy.seen.length;
      const first = await viaProxy().orders.create(body, { idempotencyKey });
      const second = await viaProxy().orders.create(body, { idempotencyKey });
      assert.equal(second.id, first.id);
      const tries = attempts(from, 'POST', '/v1/orders');
      assert.deepEqual(
        tries.map((seen) => [seen.headers['idempotency-key'], seen.replayed]),
        [
          [idempotencyKey, false],
          [idempotencyKey, true],
        ],
      );
      assert.equal((await direct.products.get(product.id)).stock, 4);
    });
  });
}
