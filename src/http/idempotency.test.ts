import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../config.js';
import { createDeps } from '../deps.js';
import { ManualClock } from '../lib/clock.js';
import { keyMasked } from '../modules/api-keys/api-keys.service.js';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  migratedStore,
  type TestContext,
} from '../../test/helpers/context.js';
import { spawnServer } from '../../test/helpers/process.js';
import type { Page, Problem } from '../../test/helpers/responses.js';

const body = { name: 'Idempotent', permissions: ['read:users'] };

for (const dialect of DIALECTS) {
  describe(`Idempotency-Key (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock();
    let key: string;
    let release: () => void = () => undefined;
    let entered: Promise<void> = Promise.resolve();
    let flakyCalls = 0;

    before(async () => {
      ctx = await createTestContext(dialect, {
        clock,
        extraRoutes: (app) => {
          app.register(
            async (v1) => {
              v1.post('/slow', { config: { auth: 'any_key' } }, async (_request, reply) => {
                await new Promise<void>((resolve) => {
                  release = resolve;
                  enteredResolve();
                });
                return reply.code(201).send({ done: true });
              });
              v1.post('/flaky', { config: { auth: 'any_key' } }, async () => {
                flakyCalls += 1;
                if (flakyCalls === 1) throw new Error('transient failure');
                return { calls: flakyCalls };
              });
            },
            { prefix: '/v1' },
          );
        },
      });
      key = (await createTenant(ctx)).apiKey.key;
    });
    after(() => ctx.close());

    let enteredResolve: () => void = () => undefined;
    const countKeys = async (apiKey = key) =>
      (await client(ctx.app, apiKey)<Page<unknown>>('GET', '/v1/api-keys')).body.data.length;

    it('replays the stored response for the same key and request, without a second effect', async () => {
      const api = client(ctx.app, key);
      const before = await countKeys();
      const first = await api<{ id: string }>('POST', '/v1/api-keys', {
        body,
        headers: { 'idempotency-key': 'replay-1' },
      });
      assert.equal(first.status, 201);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      // Same body, keys in another order: the same request.
      const again = await api<{ id: string }>('POST', '/v1/api-keys', {
        body: { permissions: ['read:users'], name: 'Idempotent' },
        headers: { 'idempotency-key': 'replay-1' },
      });
      assert.equal(again.status, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      // The stored response, as the route keeps it: a new key's value is shown once, then masked.
      assert.equal(
        again.raw.body,
        JSON.stringify(keyMasked(JSON.parse(first.raw.body) as Record<string, unknown>)),
      );
      assert.equal(await countKeys(), before + 1);
    });

    it('answers 422 when the key is reused with another request', async () => {
      const api = client(ctx.app, key);
      await api('POST', '/v1/api-keys', { body, headers: { 'idempotency-key': 'reuse-1' } });
      const before = await countKeys();
      const other = await api('POST', '/v1/api-keys', {
        body: { ...body, name: 'Different' },
        headers: { 'idempotency-key': 'reuse-1' },
      });
      assert.equal(other.status, 422);
      assert.equal(other.body.code, 'idempotency_key_reused');
      const otherPath = await api('POST', '/v1/versions/upgrade', {
        body: {},
        headers: { 'idempotency-key': 'reuse-1' },
      });
      assert.equal(otherPath.status, 422);
      assert.equal(await countKeys(), before);
    });

    it('answers 409 while the first request is in flight, then replays it', async () => {
      const api = client(ctx.app, key);
      entered = new Promise<void>((resolve) => (enteredResolve = resolve));
      const first = api('POST', '/v1/slow', { body: {}, headers: { 'idempotency-key': 'slow-1' } });
      await entered;
      const concurrent = await api('POST', '/v1/slow', {
        body: {},
        headers: { 'idempotency-key': 'slow-1' },
      });
      assert.equal(concurrent.status, 409);
      assert.equal(concurrent.body.code, 'idempotency_key_in_use');
      release();
      assert.equal((await first).status, 201);
      const replay = await api('POST', '/v1/slow', { body: {}, headers: { 'idempotency-key': 'slow-1' } });
      assert.equal(replay.status, 201);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
    });

    it('does not store a 5xx, so the client can retry', async () => {
      const api = client(ctx.app, key);
      const failed = await api('POST', '/v1/flaky', { body: {}, headers: { 'idempotency-key': 'flaky-1' } });
      assert.equal(failed.status, 500);
      const retried = await api('POST', '/v1/flaky', { body: {}, headers: { 'idempotency-key': 'flaky-1' } });
      assert.equal(retried.status, 200);
      assert.equal(retried.headers['idempotent-replayed'], undefined);
      assert.deepEqual(retried.body, { calls: 2, livemode: true });
    });

    it('rejects malformed keys with 400 invalid_idempotency_key', async () => {
      const api = client(ctx.app, key);
      const before = await countKeys();
      for (const bad of ['x'.repeat(256), 'tab\there', 'ünïcode']) {
        const res = await ctx.app.inject({
          method: 'POST',
          url: '/v1/api-keys',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            'idempotency-key': bad,
          },
          payload: JSON.stringify(body),
        });
        assert.equal(res.statusCode, 400, JSON.stringify(bad));
        assert.equal(res.json<Problem>().code, 'invalid_idempotency_key');
      }
      const empty = await api('POST', '/v1/api-keys', { body, headers: { 'idempotency-key': '' } });
      assert.equal(empty.status, 400);
      assert.equal(await countKeys(), before);
    });

    it('scopes keys to the tenant and keeps them 24 hours', async () => {
      const other = (await createTenant(ctx)).apiKey.key;
      const mine = await client(ctx.app, key)<{ id: string }>('POST', '/v1/api-keys', {
        body,
        headers: { 'idempotency-key': 'shared-name' },
      });
      const theirs = await client(ctx.app, other)<{ id: string }>('POST', '/v1/api-keys', {
        body,
        headers: { 'idempotency-key': 'shared-name' },
      });
      assert.equal(theirs.status, 201);
      assert.equal(theirs.headers['idempotent-replayed'], undefined);
      assert.notEqual(theirs.body.id, mine.body.id);
      clock.advance(23 * 3_600_000);
      const stillStored = await client(ctx.app, key)('POST', '/v1/api-keys', {
        body: { ...body, name: 'changed' },
        headers: { 'idempotency-key': 'shared-name' },
      });
      assert.equal(stillStored.status, 422);
      clock.advance(2 * 3_600_000);
      const expired = await client(ctx.app, key)('POST', '/v1/api-keys', {
        body: { ...body, name: 'changed' },
        headers: { 'idempotency-key': 'shared-name' },
      });
      assert.equal(expired.status, 201);
    });

    it('scopes a publishable key’s keys to the shopper: one shopper never replays another’s cart', async () => {
      const publishable = await client(ctx.app, key)<{ key: string }>('POST', '/v1/api-keys', {
        body: { type: 'publishable', name: 'Shop', allowed_origins: [] },
      });
      assert.equal(publishable.status, 201);
      const newCart = (remoteAddress: string, token?: string) =>
        ctx.app.inject({
          method: 'POST',
          url: '/v1/store/carts',
          remoteAddress,
          headers: {
            authorization: `Bearer ${publishable.body.key}`,
            'content-type': 'application/json',
            'idempotency-key': 'cart-1',
            ...(token === undefined ? {} : { 'x-customer-token': token }),
          },
          payload: '{}',
        });
      const first = await newCart('203.0.113.1');
      const again = await newCart('203.0.113.1');
      const another = await newCart('203.0.113.2');
      assert.deepEqual([first.statusCode, again.statusCode, another.statusCode], [201, 201, 201]);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.json<{ id: string }>().id, first.json<{ id: string }>().id);
      assert.equal(another.headers['idempotent-replayed'], undefined);
      assert.notEqual(another.json<{ id: string }>().id, first.json<{ id: string }>().id);
      // A secret key's keys stay the tenant's, wherever its servers call from.
      const server = (remoteAddress: string) =>
        ctx.app.inject({
          method: 'POST',
          url: '/v1/store/carts',
          remoteAddress,
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            'idempotency-key': 'srv-1',
          },
          payload: '{}',
        });
      const fromOne = await server('10.0.0.1');
      const fromTwo = await server('10.0.0.2');
      assert.equal(fromTwo.headers['idempotent-replayed'], 'true');
      assert.equal(fromTwo.json<{ id: string }>().id, fromOne.json<{ id: string }>().id);
    });

    it('has exactly one effect for a burst of 20 concurrent identical requests', async () => {
      const api = client(ctx.app, key);
      const before = await countKeys();
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          api<{ id: string }>('POST', '/v1/api-keys', { body, headers: { 'idempotency-key': 'burst-1' } }),
        ),
      );
      const created = results.filter((r) => r.status === 201);
      assert.ok(created.length >= 1);
      assert.ok(
        results.every((r) => r.status === 201 || r.status === 409),
        results.map((r) => r.status).join(','),
      );
      assert.equal(new Set(created.map((r) => r.body.id)).size, 1);
      assert.equal(await countKeys(), before + 1);
    });
  });
}

describe(
  'Idempotency-Key across two server processes (postgres)',
  { skip: !process.env.TEST_DATABASE_URL },
  () => {
    it('has exactly one effect for 20 concurrent requests spread over two processes', async () => {
      const store = await migratedStore('postgres');
      const deps = await createDeps(loadConfig(store.env));
      const tenant = await deps.tenants.create({ name: 'Burst', email: 'burst@example.com' });
      await deps.close();
      const servers = await Promise.all([spawnServer(store.env), spawnServer(store.env)]);
      try {
        const send = (url: string) =>
          fetch(`${url}/v1/api-keys`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${tenant.apiKey.key}`,
              'content-type': 'application/json',
              'idempotency-key': 'cross-process',
            },
            body: JSON.stringify(body),
          });
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => send(servers[i % 2]?.url ?? '')),
        );
        const statuses = results.map((r) => r.status);
        assert.ok(
          statuses.every((s) => s === 201 || s === 409),
          statuses.join(','),
        );
        const ids = new Set<string>();
        for (const res of results) if (res.status === 201) ids.add(((await res.json()) as { id: string }).id);
        assert.equal(ids.size, 1);
        const listed = await fetch(`${servers[0]?.url}/v1/api-keys`, {
          headers: { authorization: `Bearer ${tenant.apiKey.key}` },
        });
        assert.equal(((await listed.json()) as Page<unknown>).data.length, 2);
      } finally {
        await Promise.all(servers.map((s) => s.stop()));
        await store.drop();
      }
    });
  },
);
