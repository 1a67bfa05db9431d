import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type ApiResponse,
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
  whileResponsesAreRefused,
} from '../../../test/helpers/context.js';
import type { OrProblem, Page, Problem } from '../../../test/helpers/responses.js';
import * as repo from './webhooks.repository.js';
import type { DeliveryObject, WebhookObject } from './webhooks.presenter.js';
import { DISABLE_AFTER_MS } from './webhooks.outcomes.js';

/** The endpoints API: shapes, validation, limits, state changes and tenant isolation. */

/** The secrets in an endpoint's `retired_secrets`, oldest first. */
function retiredOf(json: string): string[] {
  return (JSON.parse(json) as { secret: string }[]).map((r) => r.secret);
}

for (const dialect of DIALECTS) {
  describe(`webhook endpoints API (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let other: Client;
    let readOnly: Client;
    let tenantVersion: string;

    before(async () => {
      ctx = await createTestContext(dialect);
      const tenant = await createTenant(ctx, { apiVersion: '2026-06-01' });
      tenantVersion = tenant.tenant.api_version;
      api = client(ctx.app, tenant.apiKey.key);
      other = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      const key = await api<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'reader', permissions: ['read:webhooks'] },
      });
      readOnly = client(ctx.app, key.body.key);
    });
    after(() => ctx.close());

    async function create(
      as: Client,
      body: Record<string, unknown> = {},
    ): Promise<ApiResponse<OrProblem<WebhookObject>>> {
      return as<OrProblem<WebhookObject>>('POST', '/v1/webhooks', {
        body: { url: 'https://example.com/hooks/orders', events: ['order.created'], ...body },
      });
    }

    it('creates an endpoint and shows its secret once', async () => {
      const res = await create(api, { description: 'Orders feed', events: ['order.created', 'order.paid'] });
      assert.equal(res.status, 201);
      const hook = res.body;
      assert.match(hook.id, /^wh_[0-9A-Za-z]{24}$/);
      assert.equal(hook.url, 'https://example.com/hooks/orders');
      assert.deepEqual(hook.events, ['order.created', 'order.paid']);
      assert.equal(hook.description, 'Orders feed');
      assert.equal(hook.status, 'Active');
      assert.equal(hook.api_version, tenantVersion);
      assert.equal(hook.last_triggered, null);
      assert.equal(hook.created, hook.updated);
      assert.match(hook.secret ?? '', /^whsec_[A-Za-z0-9+/]+=*$/);
      const raw = Buffer.from((hook.secret ?? '').slice('whsec_'.length), 'base64');
      assert.ok(raw.length >= 24 && raw.length <= 64, `secret has ${raw.length} bytes`);
      assert.deepEqual(Object.keys(hook).sort(), [
        'api_version',
        'created',
        'description',
        'events',
        'id',
        'last_triggered',
        'secret',
        'status',
        'updated',
        'url',
      ]);

      const got = await api<WebhookObject>('GET', `/v1/webhooks/${hook.id}`);
      assert.equal(got.status, 200);
      assert.equal(got.body.secret, undefined);
      const { secret: _secret, ...shown } = hook;
      assert.deepEqual(got.body, shown);

      const list = await readOnly<Page<WebhookObject>>('GET', '/v1/webhooks');
      assert.equal(list.status, 200);
      const listed = list.body.data.find((w) => w.id === hook.id);
      assert.ok(listed);
      assert.equal(listed.secret, undefined);
      assert.ok(list.body.data.every((w) => !('secret' in w)));
    });

    it('accepts ["*"] and normalises the URL', async () => {
      const res = await create(api, { url: 'HTTPS://Example.COM:443/a/../b?x=1', events: ['*'] });
      assert.equal(res.status, 201);
      assert.equal(res.body.url, 'https://example.com/b?x=1');
      assert.deepEqual(res.body.events, ['*']);
      assert.equal(res.body.description, null);
    });

    it('keeps accepting an empty description, as clients of every version could send it', async () => {
      const res = await create(api, { description: '' });
      assert.equal(res.status, 201);
      assert.equal(res.body.description, '');
    });

    it('validates the body', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ events: [] }, 'events'],
        [{ events: ['order.exploded'] }, 'events[0]'],
        [{ events: ['*', 'order.created'] }, 'events'],
        [{ events: ['order.created', 'order.created'] }, 'events'],
        [{ url: 42 }, 'url'],
        [{ secret: 'whsec_mine' }, 'secret'],
        [{ status: 'Active' }, 'status'],
        [{ description: 'x'.repeat(501) }, 'description'],
        [{ description: 'line\nbreak' }, 'description'],
        [{ description: 'escape \u001b[31m' }, 'description'],
      ];
      for (const [body, field] of cases) {
        const res = await create(api, body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.code, 'validation_failed');
        assert.ok(
          res.body.errors?.some((e) => e.field === field),
          `${JSON.stringify(body)} -> ${JSON.stringify(res.body.errors)}`,
        );
      }
      const missing = await api<Problem>('POST', '/v1/webhooks', { body: { events: ['*'] } });
      assert.equal(missing.status, 400);
      assert.ok(missing.body.errors?.some((e) => e.field === 'url'));
      const notUrl = await create(api, { url: 'not a url' });
      assert.equal(notUrl.status, 422);
      assert.equal(notUrl.body.code, 'invalid_webhook_url');
    });

    it('allows at most 20 endpoints per tenant, also under concurrent creation', async () => {
      const tenant = await createTenant(ctx);
      const own = client(ctx.app, tenant.apiKey.key);
      const results = await Promise.all(Array.from({ length: 25 }, () => create(own)));
      const statuses = results.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 201).length, 20, statuses.join(','));
      for (const refused of results.filter((r) => r.status !== 201)) {
        assert.equal(refused.status, 422);
        assert.equal(refused.body.code, 'limit_exceeded');
      }
      const list = await own<Page<WebhookObject>>('GET', '/v1/webhooks?limit=100');
      assert.equal(list.body.total, 20);
      // Deleting one makes room for one.
      const victim = list.body.data[0]?.id;
      assert.equal((await own('DELETE', `/v1/webhooks/${victim}`)).status, 204);
      assert.equal((await create(own)).status, 201);
      assert.equal((await create(own)).status, 422);
    });

    it('pages the list with offset and cursor, newest first', async () => {
      const tenant = await createTenant(ctx);
      const own = client(ctx.app, tenant.apiKey.key);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await create(own, { description: `n${i}` })).body.id);
      const first = await own<Page<WebhookObject>>('GET', '/v1/webhooks?limit=2');
      assert.equal(first.body.total, 5);
      assert.equal(first.body.has_more, true);
      assert.equal(first.body.data.length, 2);
      const cursor = first.body.next_cursor;
      assert.ok(cursor);
      const second = await own<Page<WebhookObject>>('GET', `/v1/webhooks?limit=2&cursor=${cursor}`);
      const third = await own<Page<WebhookObject>>('GET', '/v1/webhooks?limit=2&offset=4');
      assert.equal(second.body.page, 2);
      assert.equal(third.body.data.length, 1);
      assert.equal(third.body.has_more, false);
      const seen = [...first.body.data, ...second.body.data, ...third.body.data].map((w) => w.id);
      assert.deepEqual(new Set(seen), new Set(ids));
      assert.equal((await own('GET', '/v1/webhooks?limit=101')).status, 400);
    });

    it('updates url, events and description, and disables and re-enables', async () => {
      const hook = (await create(api)).body;
      const patched = await api<WebhookObject>('PATCH', `/v1/webhooks/${hook.id}`, {
        body: { url: 'https://example.org/new', events: ['*'], description: 'changed' },
      });
      assert.equal(patched.status, 200);
      assert.equal(patched.body.url, 'https://example.org/new');
      assert.deepEqual(patched.body.events, ['*']);
      assert.equal(patched.body.description, 'changed');
      assert.equal(patched.body.secret, undefined);

      const cleared = await api<WebhookObject>('PATCH', `/v1/webhooks/${hook.id}`, {
        body: { description: null },
      });
      assert.equal(cleared.body.description, null);

      const disabled = await api<WebhookObject>('PATCH', `/v1/webhooks/${hook.id}`, {
        body: { enabled: false },
      });
      assert.equal(disabled.body.status, 'Disabled');
      const test = await api<Problem>('POST', `/v1/webhooks/${hook.id}/test`);
      assert.equal(test.status, 409);
      assert.equal(test.body.code, 'invalid_state_transition');
      const enabled = await api<WebhookObject>('PATCH', `/v1/webhooks/${hook.id}`, {
        body: { enabled: true },
      });
      assert.equal(enabled.body.status, 'Active');

      for (const body of [{}, { status: 'Active' }, { events: [] }, { enabled: 'yes' }]) {
        const res = await api<Problem>('PATCH', `/v1/webhooks/${hook.id}`, { body });
        assert.equal(res.status, 400, JSON.stringify(body));
      }
      const badUrl = await api<Problem>('PATCH', `/v1/webhooks/${hook.id}`, {
        body: { url: 'ftp://example.com/x' },
      });
      assert.equal(badUrl.status, 422);
      assert.equal(badUrl.body.code, 'invalid_webhook_url');
    });

    it('rotates the secret and shows the new one once', async () => {
      const hook = (await create(api)).body;
      const rotated = await api<WebhookObject>('POST', `/v1/webhooks/${hook.id}/rotate-secret`);
      assert.equal(rotated.status, 200);
      assert.match(rotated.body.secret ?? '', /^whsec_/);
      assert.notEqual(rotated.body.secret, hook.secret);
      assert.equal((await api<WebhookObject>('GET', `/v1/webhooks/${hook.id}`)).body.secret, undefined);
    });

    it('loses no secret to concurrent rotations: each replaced one is kept signing', async () => {
      const hook = (await create(api)).body;
      const rotations = await Promise.all(
        Array.from({ length: 5 }, () => api<WebhookObject>('POST', `/v1/webhooks/${hook.id}/rotate-secret`)),
      );
      assert.deepEqual(
        rotations.map((r) => r.status),
        [200, 200, 200, 200, 200],
      );
      const row = await ctx.deps.store.db
        .selectFrom('webhook_endpoints')
        .select(['secret', 'retired_secrets'])
        .where('id', '=', hook.id)
        .executeTakeFirstOrThrow();
      const signing = [row.secret, ...retiredOf(row.retired_secrets)];
      assert.deepEqual(
        [...signing].sort(),
        [hook.secret, ...rotations.map((r) => r.body.secret)].sort(),
        'the original and every new secret, once each',
      );
    });

    it('queues a test delivery and lists it in the delivery log', async () => {
      const hook = (await create(api, { url: 'https://example.com/hooks/test?x=1' })).body;
      const queued = await api<DeliveryObject>('POST', `/v1/webhooks/${hook.id}/test`);
      assert.equal(queued.status, 202);
      assert.match(queued.body.id, /^del_/);
      assert.equal(queued.body.status, 'pending');
      assert.equal(queued.body.event, 'webhook.test');
      assert.equal(queued.body.endpoint, '/hooks/test');
      assert.equal(queued.body.url, 'https://example.com/hooks/test?x=1');
      assert.equal(queued.body.attempt, 1);
      assert.equal(queued.body.time, null);
      assert.ok(queued.body.next_retry_at);
      const event = await api<{ id: string; type: string; data: { object: { id: string } } }>(
        'GET',
        `/v1/events/${queued.body.event_id}`,
      );
      assert.equal(event.status, 200);
      assert.equal(event.body.type, 'webhook.test');
      assert.equal(event.body.data.object.id, hook.id);

      const log = await readOnly<Page<DeliveryObject>>('GET', `/v1/webhooks/${hook.id}/deliveries`);
      assert.equal(log.status, 200);
      assert.equal(log.body.total, 1);
      assert.deepEqual(log.body.data[0], queued.body);
      const pending = await api<Page<DeliveryObject>>(
        'GET',
        `/v1/webhooks/${hook.id}/deliveries?status=pending`,
      );
      assert.equal(pending.body.total, 1);
      const failed = await api<Page<DeliveryObject>>(
        'GET',
        `/v1/webhooks/${hook.id}/deliveries?status=failed`,
      );
      assert.equal(failed.body.total, 0);
      // A retry while the attempt is still pending returns that attempt, not a second one.
      const retried = await api<DeliveryObject>(
        'POST',
        `/v1/webhooks/${hook.id}/deliveries/${queued.body.id}/retry`,
      );
      assert.equal(retried.status, 202);
      assert.equal(retried.body.id, queued.body.id);
      assert.equal(
        (await api<Page<DeliveryObject>>('GET', `/v1/webhooks/${hook.id}/deliveries`)).body.total,
        1,
      );
    });

    it('deletes an endpoint with its log', async () => {
      const hook = (await create(api)).body;
      assert.equal((await api('POST', `/v1/webhooks/${hook.id}/test`)).status, 202);
      assert.equal((await api('DELETE', `/v1/webhooks/${hook.id}`)).status, 204);
      assert.equal((await api('GET', `/v1/webhooks/${hook.id}`)).status, 404);
      assert.equal((await api('GET', `/v1/webhooks/${hook.id}/deliveries`)).status, 404);
      assert.equal((await api('DELETE', `/v1/webhooks/${hook.id}`)).status, 404);
      const rows = await ctx.deps.store.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', '=', hook.id)
        .execute();
      assert.equal(rows.length, 0);
    });

    it("answers 404 for another tenant's endpoints and deliveries", async () => {
      const hook = (await create(api)).body;
      const delivery = (await api<DeliveryObject>('POST', `/v1/webhooks/${hook.id}/test`)).body;
      const probes: [Parameters<Client>[0], string, Record<string, unknown>?][] = [
        ['GET', `/v1/webhooks/${hook.id}`],
        ['PATCH', `/v1/webhooks/${hook.id}`, { description: 'mine now' }],
        // A URL the endpoint could not take is still a 404 first: nothing is looked up for it.
        ['PATCH', `/v1/webhooks/${hook.id}`, { url: 'ftp://example.com/in' }],
        ['PATCH', '/v1/webhooks/wh_doesnotexist', { url: 'ftp://example.com/in' }],
        ['DELETE', `/v1/webhooks/${hook.id}`],
        ['POST', `/v1/webhooks/${hook.id}/rotate-secret`],
        ['POST', `/v1/webhooks/${hook.id}/test`],
        ['GET', `/v1/webhooks/${hook.id}/deliveries`],
        ['POST', `/v1/webhooks/${hook.id}/deliveries/${delivery.id}/retry`],
      ];
      for (const [method, url, body] of probes) {
        const res = await other<Problem>(method, url, body ? { body } : {});
        assert.equal(res.status, 404, `${method} ${url}`);
        assert.equal(res.body.code, 'not_found');
      }
      assert.ok(
        !(await other<Page<WebhookObject>>('GET', '/v1/webhooks')).body.data.some((w) => w.id === hook.id),
      );
      // Untouched.
      const still = await api<WebhookObject>('GET', `/v1/webhooks/${hook.id}`);
      assert.equal(still.body.description, null);
      // A delivery id of another endpoint is not found under this one.
      const second = (await create(api)).body;
      const res = await api<Problem>('POST', `/v1/webhooks/${second.id}/deliveries/${delivery.id}/retry`);
      assert.equal(res.status, 404);
    });

    it('derives the status from attempt outcomes (the worker writes them in batches)', async () => {
      const hook = (await create(api)).body;
      const day = 24 * 3600_000;
      const t0 = Date.parse('2026-11-01T00:00:00.000Z');
      const record = (outcome: repo.EndpointOutcome) =>
        repo.recordEndpointOutcome(ctx.deps.store.db, hook.id, outcome, DISABLE_AFTER_MS);
      const state = () =>
        ctx.deps.store.db
          .selectFrom('webhook_endpoints')
          .select(['status', 'failing_since', 'last_triggered'])
          .where('id', '=', hook.id)
          .executeTakeFirstOrThrow();
      const fail = (at: number, from = at, succeeded = false) => ({
        at,
        ok: false,
        gone: false,
        failingFrom: from,
        succeeded,
      });

      await record(fail(t0));
      assert.deepEqual(await state(), { status: 'Degraded', failing_since: t0, last_triggered: t0 });
      await record(fail(t0 + 4 * day));
      assert.deepEqual(await state(), {
        status: 'Degraded',
        failing_since: t0,
        last_triggered: t0 + 4 * day,
      });
      // A batch with a success and then a failure: the run of failures starts again.
      await record(fail(t0 + 5 * day, t0 + 5 * day, true));
      assert.deepEqual(await state(), {
        status: 'Degraded',
        failing_since: t0 + 5 * day,
        last_triggered: t0 + 5 * day,
      });
      await record({ at: t0 + 6 * day, ok: true, gone: false, failingFrom: null, succeeded: true });
      assert.deepEqual(await state(), {
        status: 'Active',
        failing_since: null,
        last_triggered: t0 + 6 * day,
      });
      await record(fail(t0 + 7 * day));
      await record(fail(t0 + 12 * day - 1, t0 + 12 * day - 1));
      assert.equal((await state()).status, 'Degraded');
      await record(fail(t0 + 12 * day));
      assert.equal((await state()).status, 'Disabled', '5 days of nothing but failures');
      // Disabled stays Disabled whatever comes in, until re-enabled.
      await record({ at: t0 + 13 * day, ok: true, gone: false, failingFrom: null, succeeded: true });
      assert.equal((await state()).status, 'Disabled');
      await api('PATCH', `/v1/webhooks/${hook.id}`, { body: { enabled: true } });
      assert.deepEqual(await state(), {
        status: 'Active',
        failing_since: null,
        last_triggered: t0 + 13 * day,
      });
      // A 410 anywhere in a batch disables, even if a later attempt succeeded.
      await record({ at: t0 + 14 * day, ok: true, gone: true, failingFrom: null, succeeded: true });
      assert.equal((await state()).status, 'Disabled');
    });

    it('needs write:webhooks to change anything', async () => {
      const res = await create(readOnly);
      assert.equal(res.status, 403);
      assert.equal(res.body.code, 'insufficient_permissions');
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`webhook endpoints with Idempotency-Key (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;

    before(async () => {
      ctx = await createTestContext(dialect);
      api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
    });
    after(() => ctx.close());

    const storedBodies = async () =>
      (await ctx.deps.store.db.selectFrom('idempotency_keys').select('response_body').execute()).map(
        (row) => row.response_body ?? '',
      );

    it('shows a signing secret once: a replay answers the endpoint without it and nothing stores it', async () => {
      const create = () =>
        api<WebhookObject & { secret?: string }>('POST', '/v1/webhooks', {
          body: { url: 'https://example.com/hooks/replayed', events: ['*'] },
          headers: { 'idempotency-key': 'replayed-endpoint' },
        });
      const first = await create();
      assert.equal(first.status, 201);
      const { secret, ...rest } = first.body;
      assert.match(secret ?? '', /^whsec_/);
      const again = await create();
      assert.equal(again.status, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.body, rest);

      const rotate = () =>
        api<WebhookObject & { secret?: string }>('POST', `/v1/webhooks/${first.body.id}/rotate-secret`, {
          headers: { 'idempotency-key': 'replayed-rotation' },
        });
      const rotated = await rotate();
      assert.equal(rotated.status, 200);
      assert.match(rotated.body.secret ?? '', /^whsec_/);
      const rotatedAgain = await rotate();
      assert.equal(rotatedAgain.headers['idempotent-replayed'], 'true');
      assert.equal(rotatedAgain.body.secret, undefined);
      const endpoints = await ctx.deps.store.db
        .selectFrom('webhook_endpoints')
        .select(['secret', 'retired_secrets'])
        .where('id', '=', first.body.id)
        .execute();
      assert.deepEqual(
        endpoints.map((e) => ({ secret: e.secret, retired: retiredOf(e.retired_secrets) })),
        [{ secret: rotated.body.secret, retired: [secret] }],
        'rotated once',
      );
      for (const shown of [secret ?? '', rotated.body.secret ?? '']) {
        assert.ok(
          !(await storedBodies()).some((body) => body.includes(shown)),
          'no stored response holds a secret',
        );
      }
    });

    it('answers retries whose first answer was lost with what the first attempt committed, once', async () => {
      const db = ctx.deps.store.db;
      const create = () =>
        api<WebhookObject & { secret?: string }>('POST', '/v1/webhooks', {
          body: { url: 'https://example.com/hooks/lost', events: ['*'] },
          headers: { 'idempotency-key': 'lost-endpoint' },
        });
      assert.ok((await whileResponsesAreRefused(db, dialect, create)).status >= 500);
      const created = await create();
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.secret, undefined, 'the secret is not shown again');
      const endpoints = await db
        .selectFrom('webhook_endpoints')
        .select('id')
        .where('url', '=', 'https://example.com/hooks/lost')
        .execute();
      assert.deepEqual(endpoints, [{ id: created.body.id }], 'one endpoint');

      const test = () =>
        api<DeliveryObject>('POST', `/v1/webhooks/${created.body.id}/test`, {
          headers: { 'idempotency-key': 'lost-test' },
        });
      assert.ok((await whileResponsesAreRefused(db, dialect, test)).status >= 500);
      const delivered = await test();
      assert.equal(delivered.status, 202, JSON.stringify(delivered.body));
      const deliveries = await db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', '=', created.body.id)
        .execute();
      assert.deepEqual(deliveries, [{ id: delivered.body.id }], 'one test event, one delivery');

      // A retry of a finished delivery queues one more attempt, once.
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'failed' })
        .where('id', '=', delivered.body.id)
        .execute();
      const retry = () =>
        api<DeliveryObject>('POST', `/v1/webhooks/${created.body.id}/deliveries/${delivered.body.id}/retry`, {
          headers: { 'idempotency-key': 'lost-retry' },
        });
      assert.ok((await whileResponsesAreRefused(db, dialect, retry)).status >= 500);
      const retried = await retry();
      assert.equal(retried.status, 202, JSON.stringify(retried.body));
      assert.notEqual(retried.body.id, delivered.body.id);
      const attempts = await db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', '=', created.body.id)
        .orderBy('attempt')
        .execute();
      assert.deepEqual(attempts, [{ id: delivered.body.id }, { id: retried.body.id }], 'one more attempt');

      // A rotation whose answer was lost is not rotated again by the retry.
      const secretOf = () =>
        db
          .selectFrom('webhook_endpoints')
          .select(['secret', 'retired_secrets'])
          .where('id', '=', created.body.id)
          .executeTakeFirstOrThrow();
      const original = (await secretOf()).secret;
      const rotate = () =>
        api<WebhookObject & { secret?: string }>('POST', `/v1/webhooks/${created.body.id}/rotate-secret`, {
          headers: { 'idempotency-key': 'lost-rotation' },
        });
      assert.ok((await whileResponsesAreRefused(db, dialect, rotate)).status >= 500);
      const rotated = await rotate();
      assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
      assert.equal(rotated.body.secret, undefined, 'the new secret is not shown again');
      const after = await secretOf();
      assert.deepEqual(retiredOf(after.retired_secrets), [original], 'rotated once');
      assert.notEqual(after.secret, original);
    });
  });
}
