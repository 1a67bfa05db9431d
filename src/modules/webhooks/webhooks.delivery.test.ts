import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
  type TestContextOptions,
} from '../../../test/helpers/context.js';
import type { DialectName } from '../../db/store.js';
import type { Page } from '../../../test/helpers/responses.js';
import { eventually, type Receiver, startReceiver } from '../../../test/helpers/webhook-receiver.js';
import { ManualClock } from '../../lib/clock.js';
import type { EventType } from '../../kernel/vocabulary.js';
import type { EventObject } from '../events/events.service.js';
import { VersionRegistry } from '../versions/versions.registry.js';
import type { DeliveryObject, WebhookObject } from './webhooks.presenter.js';

/**
 * Delivery against real local receivers: signatures a `standardwebhooks` receiver accepts, the
 * delivery log, statuses, retries, timeouts, redirects, rotation, fan-out, versions.
 */

/** An event as delivered; the schema leaves the object open, and the tests read its members. */
type Payload = Omit<EventObject, 'data'> & { data: { object: Record<string, unknown> } };

function helpers(ctx: () => TestContext) {
  return {
    async hook(
      api: Client,
      url: string,
      events: string[] = ['*'],
    ): Promise<WebhookObject & { secret: string }> {
      const res = await api<WebhookObject & { secret: string }>('POST', '/v1/webhooks', {
        body: { url, events },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    },
    async log(api: Client, hookId: string): Promise<DeliveryObject[]> {
      const res = await api<Page<DeliveryObject>>('GET', `/v1/webhooks/${hookId}/deliveries?limit=100`);
      assert.equal(res.status, 200);
      // Oldest attempt first, for readable assertions.
      return [...res.body.data].sort((a, b) => a.attempt - b.attempt);
    },
    async get(api: Client, hookId: string): Promise<WebhookObject> {
      return (await api<WebhookObject>('GET', `/v1/webhooks/${hookId}`)).body;
    },
    async emit(tenantId: string, type: EventType, object: Record<string, unknown> & { id: string }) {
      const { store, events } = ctx().deps;
      return store.transaction((trx) => events.emit(trx, { tenantId, type, objectType: 'product', object }));
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A test context with one tenant and its webhook worker running. */
async function withRunningWorker(dialect: DialectName, options: TestContextOptions) {
  const ctx = await createTestContext(dialect, options);
  const tenant = await createTenant(ctx);
  ctx.deps.webhookWorker.start();
  return { ctx, tenantId: tenant.tenant.id, api: client(ctx.app, tenant.apiKey.key) };
}

async function closeAll(ctx: TestContext, receivers: readonly Receiver[]): Promise<void> {
  await ctx.close();
  await Promise.all(receivers.map((r) => r.close()));
}

for (const dialect of DIALECTS) {
  describe(`webhook delivery (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let tenantId: string;
    const receivers: Receiver[] = [];
    const h = helpers(() => ctx);

    async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
      const started = await startReceiver(...args);
      receivers.push(started);
      return started;
    }

    before(async () => {
      ({ ctx, tenantId, api } = await withRunningWorker(dialect, {
        env: { WEBHOOK_RETRY_SCHEDULE: '0.3,0.3', WEBHOOK_TIMEOUT_MS: '700' },
      }));
    });
    after(() => closeAll(ctx, receivers));

    it('signs every delivery so a standardwebhooks receiver verifies it; tampering fails', async () => {
      const rx = await receiver();
      const hook = await h.hook(api, `${rx.url}/hooks/test`);
      const queued = (await api<DeliveryObject>('POST', `/v1/webhooks/${hook.id}/test`)).body;
      const [got] = await rx.waitFor(1);
      assert.ok(got);
      const verifier = new Webhook(hook.secret);
      const headers = {
        'webhook-id': String(got.headers['webhook-id']),
        'webhook-timestamp': String(got.headers['webhook-timestamp']),
        'webhook-signature': String(got.headers['webhook-signature']),
      };
      const payload = verifier.verify(got.body, headers) as Payload;
      assert.equal(headers['webhook-id'], queued.event_id);
      assert.equal(got.headers['content-type'], 'application/json');
      assert.equal(got.path, '/hooks/test');
      assert.ok(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000) < 30);
      assert.deepEqual(Object.keys(payload).sort(), [
        'api_version',
        'created',
        'data',
        'id',
        'livemode',
        'type',
      ]);
      assert.equal(payload.id, queued.event_id);
      assert.equal(payload.type, 'webhook.test');
      assert.equal(payload.api_version, hook.api_version);
      assert.equal(payload.data.object.id, hook.id);
      assert.equal(payload.data.object.secret, undefined);

      const tampered = got.body.replace('webhook.test', 'order.created');
      assert.throws(() => verifier.verify(tampered, headers), /signature/i);
      assert.throws(() => verifier.verify(got.body, { ...headers, 'webhook-id': 'evt_other' }), /signature/i);
      const stranger = new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
      assert.throws(() => stranger.verify(got.body, headers), /signature/i);
    });

    it('logs a 200 as "200 OK", keeps 1 KiB of the body and stays Active', async () => {
      const rx = await receiver(() => ({ status: 200, body: 'é'.repeat(3000) }));
      const hook = await h.hook(api, `${rx.url}/in`);
      await api('POST', `/v1/webhooks/${hook.id}/test`);
      const [entry] = await eventually(async () => {
        const log = await h.log(api, hook.id);
        return log[0]?.status === 'succeeded' ? log : undefined;
      });
      assert.ok(entry);
      assert.equal(entry.response, '200 OK');
      assert.equal(entry.response_status, 200);
      assert.equal(entry.attempt, 1);
      assert.equal(entry.next_retry_at, null);
      assert.equal(entry.endpoint, '/in');
      assert.ok(Number.isInteger(entry.duration) && (entry.duration ?? -1) >= 0);
      assert.ok(entry.time);
      assert.ok(Buffer.byteLength(entry.response_body ?? '', 'utf8') <= 1024 + 3);
      assert.ok((entry.response_body ?? '').startsWith('é'.repeat(500)));
      const after = await h.get(api, hook.id);
      assert.equal(after.status, 'Active');
      assert.equal(after.last_triggered, entry.time);
      assert.equal(rx.received.length, 1);
    });

    it('logs a slow 503 as failed with its duration, turns Degraded, retries on the schedule and recovers', async () => {
      const rx = await receiver((_req, index) =>
        index === 0 ? { status: 503, delayMs: 300, body: 'busy' } : { status: 204, delayMs: 500 },
      );
      const hook = await h.hook(api, `${rx.url}/slow`);
      await api('POST', `/v1/webhooks/${hook.id}/test`);
      const failed = await eventually(async () => {
        const log = await h.log(api, hook.id);
        return log[0]?.status === 'failed' ? log[0] : undefined;
      });
      assert.equal(failed.response, '503 Service Unavailable');
      assert.equal(failed.response_status, 503);
      assert.equal(failed.response_body, 'busy');
      assert.ok((failed.duration ?? 0) >= 290, `duration ${failed.duration}`);
      assert.ok(failed.next_retry_at);
      // Scheduled 0.3 s (+/- 10% jitter) after the attempt ended.
      const gap = Date.parse(failed.next_retry_at) - Date.parse(failed.time ?? '') - (failed.duration ?? 0);
      assert.ok(gap >= 265 && gap <= 345, `retry scheduled ${gap} ms after the attempt ended`);
      assert.equal((await h.get(api, hook.id)).status, 'Degraded');

      const [first, second] = await rx.waitFor(2);
      assert.ok(first && second);
      assert.equal(second.id, first.id, 'the same webhook-id on every attempt');
      assert.equal(second.body, first.body);
      assert.ok(
        second.at - first.at >= 300 + 250,
        `second attempt ${second.at - first.at} ms after the first`,
      );
      const log = await eventually(async () => {
        const entries = await h.log(api, hook.id);
        return entries[1]?.status === 'succeeded' ? entries : undefined;
      });
      assert.equal(log.length, 2);
      assert.equal(log[1]?.attempt, 2);
      assert.equal(log[1]?.response, '204 No Content');
      assert.equal((await h.get(api, hook.id)).status, 'Active');
    });

    it('gives up after the last scheduled retry, and a manual retry sends once more', async () => {
      let answer = 500;
      const rx = await receiver(() => ({ status: answer }));
      const hook = await h.hook(api, `${rx.url}/down`);
      await api('POST', `/v1/webhooks/${hook.id}/test`);
      const log = await eventually(async () => {
        const entries = await h.log(api, hook.id);
        return entries.length === 3 && entries.every((e) => e.status === 'failed') ? entries : undefined;
      });
      assert.deepEqual(
        log.map((e) => [e.attempt, e.response, e.next_retry_at === null]),
        [
          [1, '500 Internal Server Error', false],
          [2, '500 Internal Server Error', false],
          [3, '500 Internal Server Error', true],
        ],
      );
      // A failure's next attempt is written with its outcome, in one transaction: three failed
      // attempts and nothing pending is the whole queue, so nothing more can be sent.
      assert.equal(rx.received.length, 3, 'no attempt after the schedule ran out');

      answer = 200;
      const retried = await api<DeliveryObject>(
        'POST',
        `/v1/webhooks/${hook.id}/deliveries/${log[0]?.id}/retry`,
      );
      assert.equal(retried.status, 202);
      assert.equal(retried.body.status, 'pending');
      assert.equal(retried.body.attempt, 4);
      assert.equal(retried.body.event_id, log[0]?.event_id);
      await rx.waitFor(4);
      assert.equal(rx.received[3]?.id, rx.received[0]?.id);
      const done = await eventually(async () => {
        const entries = await h.log(api, hook.id);
        return entries[3]?.status === 'succeeded' ? entries : undefined;
      });
      assert.equal(done.length, 4);
      assert.equal((await h.get(api, hook.id)).status, 'Active');
    });

    it('times out a receiver that does not answer in WEBHOOK_TIMEOUT_MS', async () => {
      const rx = await receiver(() => ({ status: 200, delayMs: 3_000 }));
      const hook = await h.hook(api, `${rx.url}/never`);
      await api('POST', `/v1/webhooks/${hook.id}/test`);
      const entry = await eventually(async () => {
        const log = await h.log(api, hook.id);
        return log[0]?.status === 'failed' ? log[0] : undefined;
      });
      assert.equal(entry.response, 'Timeout after 700 ms');
      assert.equal(entry.response_status, null);
      // Not the receiver's 3 s. The timer counts from the event loop's time, which lags the real
      // time by as long as the loop was busy before the attempt started (a loaded machine): the
      // measured duration can fall short of 700 ms by that much.
      assert.ok((entry.duration ?? 0) >= 350 && (entry.duration ?? 0) < 2_000, `duration ${entry.duration}`);
      assert.equal((await h.get(api, hook.id)).status, 'Degraded');
    });

    it('never follows a redirect', async () => {
      const target = await receiver();
      const rx = await receiver(() => ({ status: 307, headers: { location: `${target.url}/elsewhere` } }));
      const hook = await h.hook(api, `${rx.url}/moved`);
      await api('POST', `/v1/webhooks/${hook.id}/test`);
      const log = await eventually(async () => {
        const entries = await h.log(api, hook.id);
        return entries.length >= 2 && entries[1]?.status === 'failed' ? entries : undefined;
      });
      assert.equal(log[0]?.response, '307 Temporary Redirect');
      assert.equal(log[0]?.status, 'failed');
      assert.equal(target.received.length, 0);
    });

    it('disables the endpoint on 410 and delivers nothing until it is re-enabled', async () => {
      let answer = 410;
      const rx = await receiver(() => ({ status: answer }));
      const hook = await h.hook(api, `${rx.url}/gone`, ['product.updated']);
      await h.emit(tenantId, 'product.updated', { id: 'prod_gone1' });
      const entry = await eventually(async () => {
        const log = await h.log(api, hook.id);
        return log[0]?.status === 'failed' ? log[0] : undefined;
      });
      assert.equal(entry.response, '410 Gone');
      assert.equal(entry.next_retry_at, null);
      assert.equal((await h.get(api, hook.id)).status, 'Disabled');

      await h.emit(tenantId, 'product.updated', { id: 'prod_gone2' });
      // Deliveries are queued in the event's transaction: none queued is none ever sent.
      assert.equal((await h.log(api, hook.id)).length, 1, 'no delivery queued for a disabled endpoint');
      assert.equal(rx.received.length, 1);

      answer = 200;
      const enabled = await api<WebhookObject>('PATCH', `/v1/webhooks/${hook.id}`, {
        body: { enabled: true },
      });
      assert.equal(enabled.body.status, 'Active');
      await h.emit(tenantId, 'product.updated', { id: 'prod_gone3' });
      await rx.waitFor(2);
      const payload = JSON.parse(rx.received[1]?.body ?? '{}') as Payload;
      assert.equal(payload.data.object.id, 'prod_gone3');
    });

    it('signs with both secrets for the rotation overlap', async () => {
      const rx = await receiver();
      const hook = await h.hook(api, `${rx.url}/rotating`);
      const rotated = await api<WebhookObject & { secret: string }>(
        'POST',
        `/v1/webhooks/${hook.id}/rotate-secret`,
      );
      await api('POST', `/v1/webhooks/${hook.id}/test`);
      const [got] = await rx.waitFor(1);
      assert.ok(got);
      const signatures = String(got.headers['webhook-signature']).split(' ');
      assert.equal(signatures.length, 2);
      assert.ok(signatures.every((s) => s.startsWith('v1,')));
      const headers = {
        'webhook-id': String(got.headers['webhook-id']),
        'webhook-timestamp': String(got.headers['webhook-timestamp']),
        'webhook-signature': String(got.headers['webhook-signature']),
      };
      assert.ok(new Webhook(rotated.body.secret).verify(got.body, headers));
      assert.ok(new Webhook(hook.secret).verify(got.body, headers));
      // Each secret verifies on its own signature alone.
      for (const [secret, signature] of [
        [rotated.body.secret, signatures[0]],
        [hook.secret, signatures[1]],
      ] as const) {
        assert.ok(
          new Webhook(secret).verify(got.body, { ...headers, 'webhook-signature': String(signature) }),
        );
      }
    });

    it('fans an event out to every subscribed, enabled endpoint of its tenant only, inside its transaction', async () => {
      const rx = await receiver();
      const tenant = await createTenant(ctx);
      const own = client(ctx.app, tenant.apiKey.key);
      const product = await h.hook(own, `${rx.url}/product`, ['product.updated', 'product.created']);
      const all = await h.hook(own, `${rx.url}/all`, ['*']);
      const orders = await h.hook(own, `${rx.url}/orders`, ['order.created']);
      const off = await h.hook(own, `${rx.url}/off`, ['*']);
      await own('PATCH', `/v1/webhooks/${off.id}`, { body: { enabled: false } });
      const stranger = await h.hook(api, `${rx.url}/stranger`, ['*']);

      // A rolled-back change leaves neither its event nor a delivery behind.
      await assert.rejects(
        ctx.deps.store.transaction(async (trx) => {
          await ctx.deps.events.emit(trx, {
            tenantId: tenant.tenant.id,
            type: 'product.updated',
            objectType: 'product',
            object: { id: 'prod_rolledback' },
          });
          throw new Error('the change failed');
        }),
        /the change failed/,
      );
      const event = await h.emit(tenant.tenant.id, 'product.updated', { id: 'prod_fan', name: 'Shoe' });
      await rx.waitFor(2);
      // The logs below, written in the event's transaction, show that no other endpoint got one.
      assert.deepEqual(rx.received.map((r) => r.path).sort(), ['/all', '/product']);
      assert.ok(rx.received.every((r) => r.id === event.id));
      for (const [hook, as, expected] of [
        [product, own, 1],
        [all, own, 1],
        [orders, own, 0],
        [off, own, 0],
        [stranger, api, 0],
      ] as const) {
        assert.equal((await h.log(as, hook.id)).length, expected, hook.url);
      }
    });

    it("serves another tenant's endpoint on the same host while a hanging one holds its 8 attempts", async () => {
      // Found by an audit: connections were shared per host, 8 of them, so 8 hanging attempts to
      // one endpoint made every other endpoint on that host wait, time out unsent and turn Degraded.
      const shared = await receiver((req) => (req.path === '/hang' ? { hang: true } : { status: 200 }));
      const a = await createTenant(ctx);
      const b = await createTenant(ctx);
      await h.hook(client(ctx.app, a.apiKey.key), `${shared.url}/hang`, ['order.created']);
      const apiB = client(ctx.app, b.apiKey.key);
      const healthy = await h.hook(apiB, `${shared.url}/ok`, ['product.updated']);
      for (let i = 0; i < 8; i++) await h.emit(a.tenant.id, 'order.created', { id: `ord_${i}` });
      await shared.waitFor(8, 5_000);
      await h.emit(b.tenant.id, 'product.updated', { id: 'prod_1' });
      await shared.waitFor(9, 650);
      const log = await eventually(async () => {
        const entries = (await apiB<Page<DeliveryObject>>('GET', `/v1/webhooks/${healthy.id}/deliveries`))
          .body.data;
        return entries.some((e) => e.status !== 'pending') ? entries : undefined;
      });
      assert.equal(log[0]?.status, 'succeeded', JSON.stringify(log[0]));
      assert.equal((await apiB<WebhookObject>('GET', `/v1/webhooks/${healthy.id}`)).body.status, 'Active');
    });
  });

  describe(`webhook delivery beside a receiver that holds every attempt (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let tenantId: string;
    const receivers: Receiver[] = [];
    const h = helpers(() => ctx);

    before(async () => {
      // Attempts time out only after a minute: the slow receiver's stay open until it lets them go.
      ({ ctx, tenantId, api } = await withRunningWorker(dialect, { env: { WEBHOOK_TIMEOUT_MS: '60000' } }));
    });
    after(() => closeAll(ctx, receivers));

    it('caps attempts per endpoint so a slow receiver does not hold up the others', async () => {
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      const slow = await startReceiver(async () => {
        await held;
        return { status: 200 };
      });
      const fast = await startReceiver();
      receivers.push(slow, fast);
      await h.hook(api, `${slow.url}/slow`, ['order.created']);
      await h.hook(api, `${fast.url}/fast`, ['product.updated']);
      for (let i = 0; i < 24; i++) await h.emit(tenantId, 'order.created', { id: `ord_${i}` });
      await slow.waitFor(4);
      for (let i = 0; i < 3; i++) await h.emit(tenantId, 'product.updated', { id: `prod_${i}` });
      // The slow receiver has answered nothing yet: the fast one is served beside its open attempts.
      await fast.waitFor(3);
      assert.ok(slow.received.length <= 8, `slow receiver got ${slow.received.length} attempts at once`);
      release();
      await slow.waitFor(24);
      assert.ok(slow.maxConcurrent <= 8, `slow receiver saw ${slow.maxConcurrent} at once`);
      assert.ok(slow.maxConcurrent >= 4, `slow receiver saw only ${slow.maxConcurrent} at once`);
    });
  });

  describe(`webhook delivery with a manual clock (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    const clock = new ManualClock(Date.now() - 10 * 60_000);
    const receivers: Receiver[] = [];
    const h = helpers(() => ctx);

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
      api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      ctx.deps.webhookWorker.start();
    });
    after(async () => {
      await ctx.close();
      await Promise.all(receivers.map((r) => r.close()));
    });

    it('stamps webhook-timestamp from the clock, so a stale delivery fails verification', async () => {
      const rx = await startReceiver();
      receivers.push(rx);
      const hook = await h.hook(api, `${rx.url}/stale`);
      await api('POST', `/v1/webhooks/${hook.id}/test`);
      const [got] = await rx.waitFor(1);
      assert.ok(got);
      assert.equal(Number(got.headers['webhook-timestamp']), Math.floor(clock.now() / 1000));
      assert.throws(
        () =>
          new Webhook(hook.secret).verify(got.body, {
            'webhook-id': String(got.headers['webhook-id']),
            'webhook-timestamp': String(got.headers['webhook-timestamp']),
            'webhook-signature': String(got.headers['webhook-signature']),
          }),
        /timestamp/i,
      );
    });

    it('stops signing with the old secret 24 hours after a rotation', async () => {
      const rx = await startReceiver();
      receivers.push(rx);
      const hook = await h.hook(api, `${rx.url}/overlap`);
      await api('POST', `/v1/webhooks/${hook.id}/rotate-secret`);
      clock.advance(23 * 3600_000);
      await api('POST', `/v1/webhooks/${hook.id}/test`);
      await rx.waitFor(1);
      clock.advance(3600_000 + 1_000);
      await api('POST', `/v1/webhooks/${hook.id}/test`);
      await rx.waitFor(2);
      assert.equal(String(rx.received[0]?.headers['webhook-signature']).split(' ').length, 2);
      assert.equal(String(rx.received[1]?.headers['webhook-signature']).split(' ').length, 1);
    });

    it('keeps every secret a rotation replaced signing for its own 24 hours, up to 10 at once', async () => {
      const rx = await startReceiver();
      receivers.push(rx);
      const hook = await h.hook(api, `${rx.url}/rotations`);
      const rotate = async () => {
        const res = await api<WebhookObject & { secret: string }>(
          'POST',
          `/v1/webhooks/${hook.id}/rotate-secret`,
        );
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body.secret;
      };
      /**
       * The secrets whose signatures the next delivery carries, by their index in `candidates`
       * (the Standard Webhooks HMAC computed here; the library's verify also checks the timestamp
       * against the real clock, which this suite's clock is not).
       */
      const signingNow = async (candidates: string[]) => {
        const before = rx.received.length;
        await api('POST', `/v1/webhooks/${hook.id}/test`);
        const got = (await rx.waitFor(before + 1)).at(-1);
        // Recorded before the clock moves on (else its lease would run out and it would go again).
        await eventually(async () => (await h.log(api, hook.id)).every((d) => d.status === 'succeeded'));
        assert.ok(got);
        const signed = `${String(got.headers['webhook-id'])}.${String(got.headers['webhook-timestamp'])}.${got.body}`;
        const expected = candidates.map(
          (secret) =>
            `v1,${createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
              .update(signed)
              .digest('base64')}`,
        );
        return String(got.headers['webhook-signature'])
          .split(' ')
          .map((signature) => {
            assert.ok(expected.includes(signature), `a signature no candidate made: ${signature}`);
            return expected.indexOf(signature);
          });
      };
      const s0 = hook.secret;
      const s1 = await rotate();
      clock.advance(12 * 3600_000);
      const s2 = await rotate();
      const all = [s0, s1, s2];
      assert.deepEqual(await signingNow(all), [2, 0, 1], 'the current secret first, then the replaced ones');
      clock.advance(12 * 3600_000 + 1_000);
      assert.deepEqual(await signingNow(all), [2, 1], 's0 stopped 24 hours after it was replaced');
      clock.advance(12 * 3600_000);
      assert.deepEqual(await signingNow(all), [2]);

      // At most 10 replaced secrets sign at once: an 11th rotation within the day is refused.
      for (let i = 0; i < 10; i++) await rotate();
      const refused = await api('POST', `/v1/webhooks/${hook.id}/rotate-secret`);
      assert.equal(refused.status, 422);
      assert.equal(refused.body.code, 'limit_exceeded');
      clock.advance(24 * 3600_000 + 1_000);
      await rotate();
    });

    it('disables an endpoint after 5 days of nothing but failures, and re-enabling resumes delivery', async () => {
      let answer = 500;
      const rx = await startReceiver(() => ({ status: answer }));
      receivers.push(rx);
      const hook = await h.hook(api, `${rx.url}/flaky`);
      await api('POST', `/v1/webhooks/${hook.id}/test`);
      await rx.waitFor(1);
      await eventually(async () => (await h.get(api, hook.id)).status === 'Degraded');
      // The 5 s retry comes due days later (the clock only moves when told).
      clock.advance(5 * 24 * 3600_000);
      await rx.waitFor(2);
      await eventually(async () => (await h.get(api, hook.id)).status === 'Disabled', 5_000, 'Disabled');
      const log = await h.log(api, hook.id);
      assert.equal(log.length, 3);
      assert.equal(log[2]?.status, 'pending', 'the next attempt waits for re-enabling');
      // Held out of the queue (migration 0018), in the transaction that disabled the endpoint.
      const held = async () =>
        (
          await ctx.deps.store.db
            .selectFrom('webhook_deliveries')
            .select('held')
            .where('id', '=', log[2]?.id ?? '')
            .executeTakeFirstOrThrow()
        ).held;
      assert.equal(await held(), 1);
      clock.advance(3600_000);
      // The worker has looked since the retry came due, and sent nothing.
      await ctx.deps.webhookWorker.drain();
      assert.equal(rx.received.length, 2, 'nothing is sent while disabled');

      answer = 200;
      await api('PATCH', `/v1/webhooks/${hook.id}`, { body: { enabled: true } });
      assert.equal(await held(), 0);
      await rx.waitFor(3);
      await eventually(async () => (await h.log(api, hook.id))[2]?.status === 'succeeded');
      assert.equal((await h.get(api, hook.id)).status, 'Active');
    });
  });

  describe(`webhook payload versions (${dialect})`, () => {
    let ctx: TestContext;
    const receivers: Receiver[] = [];
    const h = helpers(() => ctx);
    // A registry where 2026-11-21 renamed a product's `name` to `title`.
    const versions = new VersionRegistry([
      { version: '2026-06-01', release: 'v2.3', changelog: [], changes: [] },
      {
        version: '2026-11-21',
        release: 'v2.4',
        changelog: ['product.name is now title'],
        changes: [
          {
            description: 'product.name is now title',
            toPrevious: { product: ({ title, ...rest }) => ({ ...rest, name: title }) },
          },
        ],
      },
    ]);

    before(async () => {
      ctx = await createTestContext(dialect, { versions });
      ctx.deps.webhookWorker.start();
    });
    after(async () => {
      await ctx.close();
      await Promise.all(receivers.map((r) => r.close()));
    });

    it("renders payloads in the endpoint's api_version, fixed at its creation", async () => {
      const rx = await startReceiver();
      receivers.push(rx);
      const oldTenant = await createTenant(ctx, { apiVersion: '2026-06-01' });
      const newTenant = await createTenant(ctx);
      const oldApi = client(ctx.app, oldTenant.apiKey.key);
      const oldHook = await h.hook(oldApi, `${rx.url}/old`);
      const newHook = await h.hook(client(ctx.app, newTenant.apiKey.key), `${rx.url}/new`);
      assert.equal(oldHook.api_version, '2026-06-01');
      assert.equal(newHook.api_version, '2026-11-21');
      // A request's own version wins over the pin: the endpoint was created with it.
      const chosen = await client(ctx.app, newTenant.apiKey.key)<WebhookObject>('POST', '/v1/webhooks', {
        body: { url: `${rx.url}/chosen`, events: ['*'] },
        headers: { 'x-service-version': '2026-09-01' },
      });
      assert.equal(chosen.status, 201);
      assert.equal(chosen.headers['x-service-version'], '2026-06-01');
      assert.equal(chosen.body.api_version, '2026-06-01');
      // Upgrading the tenant later does not change what the existing endpoint receives.
      await ctx.deps.tenants.setApiVersion(oldTenant.tenant.id, '2026-11-21');

      await h.emit(oldTenant.tenant.id, 'product.updated', { id: 'prod_v1', title: 'Shoe' });
      await h.emit(newTenant.tenant.id, 'product.updated', { id: 'prod_v2', title: 'Boot' });
      await rx.waitFor(3);
      const byPath = Object.fromEntries(rx.received.map((r) => [r.path, JSON.parse(r.body) as Payload]));
      assert.equal(byPath['/chosen']?.api_version, '2026-06-01');
      assert.deepEqual(byPath['/chosen']?.data.object, { id: 'prod_v2', name: 'Boot' });
      assert.equal(byPath['/old']?.api_version, '2026-06-01');
      assert.deepEqual(byPath['/old']?.data.object, { id: 'prod_v1', name: 'Shoe' });
      assert.equal(byPath['/new']?.api_version, '2026-11-21');
      assert.deepEqual(byPath['/new']?.data.object, { id: 'prod_v2', title: 'Boot' });
    });
  });
}

/**
 * The suite's worker, started, polling once a minute and retrying after 0.4 s: whatever it sends
 * sooner, it sends because it woke up. `clock` replaces the real one.
 */
function minutePollSuite(dialect: DialectName, clock?: ManualClock) {
  const suite = { receivers: [] as Receiver[] } as {
    ctx: TestContext;
    api: Client;
    tenantId: string;
    receivers: Receiver[];
    h: ReturnType<typeof helpers>;
  };
  suite.h = helpers(() => suite.ctx);
  before(async () => {
    Object.assign(
      suite,
      await withRunningWorker(dialect, {
        ...(clock === undefined ? {} : { clock }),
        env: { WEBHOOK_RETRY_SCHEDULE: '0.4' },
        webhooks: { worker: { pollMs: 60_000 } },
      }),
    );
  });
  after(() => closeAll(suite.ctx, suite.receivers));
  return suite;
}

for (const dialect of DIALECTS) {
  describe(`webhook worker wake-ups (${dialect})`, () => {
    const s = minutePollSuite(dialect);

    it('sends a delivery once the change that made it commits, and its retry once that is due', async () => {
      const rx = await startReceiver((_req, index) => ({ status: index === 0 ? 500 : 200 }));
      s.receivers.push(rx);
      await s.h.hook(s.api, `${rx.url}/wake`, ['product.updated']);
      await s.ctx.deps.webhookWorker.drain(); // it has looked, found nothing, and waits for its next poll
      await s.h.emit(s.tenantId, 'product.updated', { id: 'prod_wake' });
      await rx.waitFor(1, 5_000);
      const first = Date.now();
      await rx.waitFor(2, 5_000);
      // The 0.4 s retry (±10%) counts from the end of the first attempt.
      assert.ok(Date.now() - first >= 350, `retried after ${Date.now() - first} ms`);
      assert.equal(rx.received[1]?.headers['webhook-id'], rx.received[0]?.headers['webhook-id']);
    });

    it('tells the worker once about the events of one turn, however many there are', async () => {
      const rx = await startReceiver(() => ({ status: 200 }));
      s.receivers.push(rx);
      await s.h.hook(s.api, `${rx.url}/burst`, ['product.updated']);
      let signals = 0;
      s.ctx.deps.webhooks.onDue(() => (signals += 1));
      const { store, events } = s.ctx.deps;
      await store.transaction(async (trx) => {
        for (let i = 0; i < 300; i++) {
          await events.emit(trx, {
            tenantId: s.tenantId,
            type: 'product.updated',
            objectType: 'product',
            object: { id: `prod_burst${i}` },
          });
        }
      });
      // A bound, not a speed: 300 deliveries took over 10 s on a machine loaded to 12 (CI, 2 cores).
      await rx.waitFor(300, 60_000);
      // One for the transaction's commit; a look at the queue each would have been 300.
      assert.equal(signals, 1);
    });

    it('sends a retry that waited for a disabled endpoint as soon as it is enabled again', async () => {
      let answer = () => {};
      const answered = new Promise<void>((resolve) => (answer = resolve));
      const rx = await startReceiver(async (_req, index) => {
        if (index > 0) return { status: 200 };
        await answered;
        return { status: 500 };
      });
      s.receivers.push(rx);
      const hook = await s.h.hook(s.api, `${rx.url}/paused`, ['product.updated']);
      await s.h.emit(s.tenantId, 'product.updated', { id: 'prod_paused' });
      await rx.waitFor(1, 5_000);
      // Disabled while the first attempt is in flight, so its retry is scheduled for a disabled
      // endpoint (disabled only after the receiver answered, a slow test could lose the race with
      // the retry's 0.4 s).
      await s.api('PATCH', `/v1/webhooks/${hook.id}`, { body: { enabled: false } });
      answer();
      await eventually(async () => (await s.h.log(s.api, hook.id)).length === 2, 5_000, 'the retry');
      // The retry comes due within 0.4 s; a look that begins after that sends nothing.
      await sleep(400);
      await s.ctx.deps.webhookWorker.drain();
      assert.equal(rx.received.length, 1, 'the retry came due but is not sent while disabled');
      await s.api('PATCH', `/v1/webhooks/${hook.id}`, { body: { enabled: true } });
      const received = await rx.waitFor(2, 5_000);
      assert.equal((JSON.parse(received[1]?.body ?? '{}') as Payload).data.object.id, 'prod_paused');
    });
  });
}

/** A manual clock that moves on by `ms` once it has been read, when told to: a look that took that long. */
class SlowLookClock extends ManualClock {
  private jump = 0;
  jumpAfterNextRead(ms: number): void {
    this.jump = ms;
  }
  override now(): number {
    const read = super.now();
    if (this.jump > 0) {
      this.advance(this.jump);
      this.jump = 0;
    }
    return read;
  }
}

for (const dialect of DIALECTS) {
  describe(`webhook worker after a slow look (${dialect})`, () => {
    // The clock moves only when the test moves it.
    const clock = new SlowLookClock(Date.now());
    const s = minutePollSuite(dialect, clock);

    it('sends a retry that came due while the look that found it ran, not a poll later', async () => {
      const rx = await startReceiver((_req, index) => ({ status: index === 0 ? 500 : 200 }));
      s.receivers.push(rx);
      const hook = await s.h.hook(s.api, `${rx.url}/slow-look`, ['product.updated']);
      await s.h.emit(s.tenantId, 'product.updated', { id: 'prod_slow_look' });
      await rx.waitFor(1, 5_000);
      await eventually(async () => (await s.h.log(s.api, hook.id)).length === 2, 5_000, 'the retry');
      // The retry is due 0.4 s on by the clock, which stands still: the worker waits for it.
      // A drain ends with the worker past its look and waiting in its timer: nothing reads the clock now.
      await s.ctx.deps.webhookWorker.drain();
      assert.equal(rx.received.length, 1);
      // The next look reads the time, then 2 s pass before it ends: the retry came due meanwhile.
      clock.jumpAfterNextRead(2_000);
      s.ctx.deps.webhookWorker.wake();
      const received = await rx.waitFor(2, 5_000);
      assert.equal(received[1]?.headers['webhook-id'], received[0]?.headers['webhook-id']);
    });
  });
}
