import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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
import { cappedJson, cappedText, CUT_MARK, luhnValid, redactText } from '../../lib/redact.js';
import type { RequestLogEntry } from './request-logs.service.js';

interface Page {
  data: RequestLogEntry[];
  total: number;
  next_cursor: string | null;
}

const CARD = '4111 1111 1111 1111';

for (const dialect of DIALECTS) {
  describe(`request log (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock(Date.parse('2026-11-01T00:00:00Z'));

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
    });
    after(() => ctx.close());

    async function store(): Promise<{ api: Client; key: string; keyId: string }> {
      const created = await createTenant(ctx);
      return {
        api: client(ctx.app, created.apiKey.key as string),
        key: created.apiKey.key as string,
        keyId: created.apiKey.id,
      };
    }
    const flush = () => ctx.deps.requestLogWriter.flush();

    it('logs each request with its facts and its bodies, secrets and card numbers redacted', async () => {
      const { api, key, keyId } = await store();
      const made = await api<{ id: string }>('POST', '/v1/products', {
        body: { name: 'Card mug', price: 900, description: `paid with ${CARD}` },
        headers: { 'idempotency-key': 'idem-1', 'user-agent': 'probe/1.0', 'x-request-id': 'req-probe-1' },
      });
      assert.equal(made.status, 201);
      clock.advance(1);
      const newKey = await api<{ key: string; id: string }>('POST', '/v1/api-keys', {
        body: { name: 'second', permissions: ['read:products'] },
      });
      assert.equal(newKey.status, 201);
      clock.advance(1);
      const missing = await api('GET', '/v1/products/prod_nothere');
      assert.equal(missing.status, 404);
      // No key: nobody's request, not logged.
      await client(ctx.app)('GET', '/v1/products');
      await flush();

      const one = await api<RequestLogEntry>('GET', '/v1/request-logs/req-probe-1');
      assert.equal(one.status, 200, JSON.stringify(one.body));
      assert.equal(one.body.method, 'POST');
      assert.equal(one.body.path, '/v1/products');
      assert.equal(one.body.route, '/v1/products');
      assert.equal(one.body.status, 201);
      assert.ok(one.body.duration_ms >= 0);
      assert.equal(one.body.key?.id, keyId);
      assert.equal(one.body.key?.type, 'secret');
      assert.equal(one.body.idempotency_key, 'idem-1');
      assert.equal(one.body.user_agent, 'probe/1.0');
      assert.equal(one.body.ip, '127.0.0.1');
      assert.ok(one.body.api_version);
      assert.equal(one.body.error_code, null);
      assert.equal(JSON.parse(one.body.request_body ?? '{}').description, 'paid with [redacted]');
      assert.equal(JSON.parse(one.body.response_body ?? '{}').id, made.body.id);

      const list = await api<Page>('GET', '/v1/request-logs?limit=100');
      const text = JSON.stringify(list.body);
      assert.doesNotMatch(text, new RegExp(CARD));
      assert.ok(!text.includes(newKey.body.key), 'the new key is never logged');
      assert.ok(!text.includes(key), 'the caller’s key is never logged');
      const keyCall = list.body.data.find((e) => e.route === '/v1/api-keys' && e.method === 'POST');
      assert.equal(JSON.parse(keyCall?.response_body ?? '{}').key, '[redacted]');
      const notFound = list.body.data.find((e) => e.status === 404);
      assert.equal(notFound?.error_code, 'not_found');
      assert.equal(notFound?.route, '/v1/products/:id');
      // Newest first; the unauthenticated call is not there.
      assert.deepEqual(
        list.body.data.map((e) => e.status),
        [404, 201, 201],
      );
      assert.equal(list.body.total, 3);
    });

    it('filters by status class or code, method, route and key, and pages by cursor', async () => {
      const { api, keyId } = await store();
      for (let i = 0; i < 3; i++) await api('GET', '/v1/products');
      await api('GET', '/v1/products/prod_none');
      await api('POST', '/v1/products', { body: { name: '', price: -1 } });
      await flush();
      const pick = async (query: string) => (await api<Page>('GET', `/v1/request-logs?${query}`)).body;
      assert.equal((await pick('status=4xx')).total, 2);
      assert.equal((await pick('status=404')).total, 1);
      assert.equal((await pick('status=400')).data[0]?.error_code, 'validation_failed');
      assert.equal((await pick('status=2xx')).total, 3);
      assert.equal((await pick('method=POST')).total, 1);
      assert.equal((await pick('route=/v1/products')).total, 4);
      assert.equal((await pick(`key_id=${keyId}`)).total, 5);
      const first = await pick('limit=2');
      const second = await pick(`limit=2&cursor=${first.next_cursor}`);
      const third = await pick(`limit=2&cursor=${second.next_cursor}`);
      assert.deepEqual(
        [first.data.length, second.data.length, third.data.length, third.next_cursor],
        [2, 2, 1, null],
      );
      const bad = await api<Problem>('GET', '/v1/request-logs?status=6xx');
      assert.equal(bad.status, 400);
      assert.deepEqual(
        bad.body.errors?.map((e) => e.field),
        ['status'],
      );
      const none = await api<Problem>('GET', '/v1/request-logs/req_none');
      assert.equal(none.status, 404);
    });

    it('keeps 8 KiB of a body and writes no more of a large one', async () => {
      const { api } = await store();
      const images = [1, 2, 3].map((n) => `https://img.example.com/${String(n).repeat(1_500)}.png`);
      const res = await api('POST', '/v1/products', {
        body: { name: 'Long', price: 1, description: 'x'.repeat(5_000), images },
        headers: { 'x-request-id': 'req-long-1' },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      await flush();
      const entry = (await api<RequestLogEntry>('GET', '/v1/request-logs/req-long-1')).body;
      assert.ok((entry.request_body ?? '').length <= 8192);
      assert.ok((entry.request_body ?? '').endsWith(CUT_MARK));
      assert.ok((entry.response_body ?? '').length <= 8192);
      assert.ok((entry.response_body ?? '').endsWith(CUT_MARK));
    });

    it('drops requests older than REQUEST_LOG_DAYS, counts included', async () => {
      const { api, keyId } = await store();
      await api('GET', '/v1/products');
      await flush();
      clock.advance(29 * 86_400_000);
      await api('GET', '/v1/products');
      await flush();
      assert.equal((await api<Page>('GET', '/v1/request-logs')).body.total, 2);
      clock.advance(2 * 86_400_000);
      assert.ok((await ctx.deps.requestLogs.prune()) >= 1);
      const left = await api<Page>('GET', '/v1/request-logs');
      // The listing request itself was logged in between: the older one is gone.
      assert.equal(left.body.total, left.body.data.length);
      // So are its counts by each filter alone.
      for (const query of ['route=/v1/products', 'method=GET', 'status=200', `key_id=${keyId}`]) {
        const page = await api<Page>('GET', `/v1/request-logs?${query}`);
        assert.equal(page.body.total, page.body.data.length, query);
      }
      assert.ok(left.body.data.every((e) => Date.parse(e.time) >= clock.now() - 30 * 86_400_000));
    });

    it('writes what a full buffer hands over within a second, with no flush and no timer of its own', async () => {
      const { api } = await store();
      await flush();
      // 64 requests fill the buffer, which posts them to the thread to hold with the next ones; the
      // writer's timer is not started here (a process may end without it), so the thread's own does.
      for (let i = 0; i < 64; i++)
        await api('GET', '/v1/products', { headers: { 'x-request-id': `req-held-${i}` } });
      let found = 0;
      for (let i = 0; i < 50 && found !== 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        found = (await api('GET', '/v1/request-logs/req-held-63')).status;
      }
      assert.equal(found, 200);
    });

    it('writes within a second of the answer once started, and at stop', async () => {
      const { api } = await store();
      ctx.deps.requestLogWriter.start();
      await api('GET', '/v1/products', { headers: { 'x-request-id': 'req-timer-1' } });
      let found = 0;
      for (let i = 0; i < 40 && found !== 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        found = (await api('GET', '/v1/request-logs/req-timer-1')).status;
      }
      assert.equal(found, 200);
      await api('GET', '/v1/products', { headers: { 'x-request-id': 'req-stop-1' } });
      await ctx.deps.requestLogWriter.stop();
      assert.equal((await api('GET', '/v1/request-logs/req-stop-1')).status, 200);
    });

    it(
      'goes on answering when its writing thread dies, and writes the next batches with a new one',
      { timeout: 30_000 },
      async () => {
        // Here (SQLite, requests made in process) the writer's threads are all that hold the event
        // loop: one CI run ended this test's process with it still pending, cancelling the files
        // after it. Hold the loop for the test, so that a flush that never settled would fail this
        // test by its timeout rather than end the run (the cause is not found yet; issue 46's note).
        const hold = setInterval(() => undefined, 1_000);
        try {
          const { api } = await store();
          await api('GET', '/v1/products', { headers: { 'x-request-id': 'req-before-1' } });
          await flush();
          const writer = ctx.deps.requestLogWriter;
          await api('GET', '/v1/products', { headers: { 'x-request-id': 'req-lost-1' } });
          // The batch is handed over, then its thread ends before it answers: the flush still settles.
          const lost = writer.flush();
          await writer.abort();
          await lost;
          const after = await api('GET', '/v1/products', { headers: { 'x-request-id': 'req-after-1' } });
          assert.equal(after.status, 200);
          await flush();
          assert.equal((await api('GET', '/v1/request-logs/req-before-1')).status, 200);
          assert.equal((await api('GET', '/v1/request-logs/req-after-1')).status, 200);
        } finally {
          clearInterval(hold);
        }
      },
    );
  });
  describe(`request log, the benchmark's unbodied measure (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect, { requestLog: 'unbodied' });
    });
    after(() => ctx.close());

    it('writes each request without its bodies, the rest as the log keeps it', async () => {
      const created = await createTenant(ctx);
      const api = client(ctx.app, created.apiKey.key as string);
      const made = await api('POST', '/v1/products', {
        body: { name: 'Bodiless mug', price: 900 },
        headers: { 'x-request-id': 'req-unbodied-1' },
      });
      assert.equal(made.status, 201);
      await ctx.deps.requestLogWriter.flush();
      const one = await api<RequestLogEntry>('GET', '/v1/request-logs/req-unbodied-1');
      assert.equal(one.status, 200, JSON.stringify(one.body));
      assert.equal(one.body.status, 201);
      assert.equal(one.body.route, '/v1/products');
      assert.equal(one.body.request_body, null);
      assert.equal(one.body.response_body, null);
    });
  });
}

describe('redaction', () => {
  it('redacts by field name and Luhn-valid numbers, nothing else', () => {
    assert.equal(luhnValid('4111111111111111'), true);
    assert.equal(luhnValid('4111111111111112'), false);
    const body = {
      password: 'hunter2',
      newPassword: 'x',
      client_secret: 's',
      access_token: 't',
      card: { number: '4111111111111111', cvc: '123' },
      note: 'card 4111-1111-1111-1111 and order 1234567890123',
      price: 1200,
      key_prefix: 'sk_live_abc',
    };
    const out = JSON.parse(cappedJson(body, 8192)) as Record<string, unknown>;
    assert.deepEqual(out, {
      password: '[redacted]',
      newPassword: '[redacted]',
      client_secret: '[redacted]',
      access_token: '[redacted]',
      card: '[redacted]',
      note: 'card [redacted] and order 1234567890123',
      price: 1200,
      key_prefix: 'sk_live_abc',
    });
    assert.equal(
      redactText('{"password":"hunter2","token":"abc","ok":"4111111111111111","n":1'),
      '{"password":"[redacted]","token":"[redacted]","ok":"[redacted]","n":1',
    );
    assert.equal(cappedText('not json 4111111111111111', 100), 'not json [redacted]');
    // A response's text: a date's digits are no card, a split card number is one, a secret's
    // member is redacted without any digit near it, also when the body is cut.
    const dated = '{"created_at":"2026-12-05T03:00:00.000Z","order":"1234567890123"}';
    assert.equal(cappedText(dated, 8192), dated);
    assert.equal(cappedText('{"note":"4111 1111 1111 1111"}', 8192), '{"note":"[redacted]"}');
    assert.equal(
      cappedText(`{"client_secret":"abc","pad":"${'x'.repeat(200)}"}`, 64),
      `{"client_secret":"[redacted]","pad":"${'x'.repeat(64 - CUT_MARK.length - 30)}${CUT_MARK}`,
    );
  });
});
