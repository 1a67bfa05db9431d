import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../lib/clock.js';
import { randomBase62 } from '../../lib/ids.js';
import type { ApiKey } from './api-keys.schemas.js';
import { KEY_FAILURES } from './api-keys.service.js';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
  whileResponsesAreRefused,
} from '../../../test/helpers/context.js';
import type { Page } from '../../../test/helpers/responses.js';

type KeyBody = ApiKey;
type KeyPage = Page<KeyBody>;

const HOUR = 3_600_000;

for (const dialect of DIALECTS) {
  describe(`API keys (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock();
    /** `GET /v1/users/me` with `key`, from the client address `address`. */
    const from = (address: string, key: string) =>
      ctx.app.inject({
        method: 'GET',
        url: '/v1/users/me',
        remoteAddress: address,
        headers: { authorization: `Bearer ${key}` },
      });
    let fullKey: string;
    let otherTenantKey: string;

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
      fullKey = (await createTenant(ctx)).apiKey.key;
      otherTenantKey = (await createTenant(ctx)).apiKey.key;
    });
    after(() => ctx.close());

    it('creates a key shown in full once, then only masked', async () => {
      const api = client(ctx.app, fullKey);
      const created = await api<KeyBody>('POST', '/v1/api-keys', {
        body: { name: 'Reporting', permissions: ['read:orders', 'read:analytics'] },
      });
      assert.equal(created.status, 201);
      assert.match(created.body.key, /^sk_live_[0-9A-Za-z]{40}$/);
      assert.match(created.body.id, /^key_/);
      assert.deepEqual(created.body.permissions, ['read:orders', 'read:analytics']);
      assert.equal(created.body.status, 'Active');
      assert.equal(created.body.expires_at, null);

      const masked = `sk_live_****_****_****_${created.body.key.slice(-4)}`;
      const listed = await api<KeyPage>('GET', '/v1/api-keys?limit=100');
      const entry = listed.body.data.find((k) => k.id === created.body.id);
      assert.equal(entry?.key, masked);
      assert.ok(!listed.raw.body.includes(created.body.key), 'the full key never appears in a listing');
      const one = await api<KeyBody>('GET', `/v1/api-keys/${created.body.id}`);
      assert.equal(one.body.key, masked);

      // The new key authenticates (403 for a permission it lacks, not 401).
      const works = await client(ctx.app, created.body.key)('GET', '/v1/api-keys');
      assert.equal(works.status, 403);
      assert.equal(works.body.required_permission, 'read:keys');
    });

    it('stores only a SHA-256 hash of the key', async () => {
      const created = await client(ctx.app, fullKey)<KeyBody>('POST', '/v1/api-keys', {
        body: { name: 'Hash check', permissions: ['read:users'] },
      });
      const row = await ctx.deps.store.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', created.body.id)
        .executeTakeFirstOrThrow();
      assert.match(row.key_hash, /^[0-9a-f]{64}$/);
      assert.ok(!JSON.stringify(row).includes(created.body.key.slice(8)));
    });

    it('marks a key expiring within 7 days as Expiring, and stops it when it expires', async () => {
      const api = client(ctx.app, fullKey);
      const soon = await api<KeyBody>('POST', '/v1/api-keys', {
        body: {
          name: 'Soon',
          permissions: ['read:users'],
          expires_at: new Date(clock.now() + 6 * 24 * HOUR).toISOString(),
        },
      });
      const later = await api<KeyBody>('POST', '/v1/api-keys', {
        body: {
          name: 'Later',
          permissions: ['read:users'],
          expires_at: new Date(clock.now() + 30 * 24 * HOUR).toISOString(),
        },
      });
      assert.equal(soon.body.status, 'Expiring');
      assert.equal(later.body.status, 'Active');
      const past = await api('POST', '/v1/api-keys', {
        body: {
          name: 'Past',
          permissions: ['read:users'],
          expires_at: new Date(clock.now() - 1000).toISOString(),
        },
      });
      assert.equal(past.status, 400);
      clock.advance(7 * 24 * HOUR);
      const expired = await client(ctx.app, soon.body.key)('GET', '/v1/users/me');
      assert.equal(expired.status, 401);
      assert.equal(expired.body.code, 'api_key_expired');
      const listed = await api<KeyPage>('GET', '/v1/api-keys?limit=100');
      assert.ok(!listed.body.data.some((k) => k.id === soon.body.id), 'expired keys are not listed');
      assert.equal(listed.body.data.find((k) => k.id === later.body.id)?.status, 'Active');
    });

    it('keeps last_used current without a write per request', async () => {
      const api = client(ctx.app, fullKey);
      const created = await api<KeyBody>('POST', '/v1/api-keys', {
        body: { name: 'Used', permissions: ['read:users'] },
      });
      assert.equal(created.body.last_used, null);
      clock.advance(1000);
      const usedAt = clock.now();
      for (let i = 0; i < 5; i++)
        assert.equal((await client(ctx.app, created.body.key)('GET', '/v1/users/me')).status, 200);
      const listed = await api<KeyPage>('GET', '/v1/api-keys?limit=100');
      assert.equal(
        listed.body.data.find((k) => k.id === created.body.id)?.last_used,
        new Date(usedAt).toISOString(),
      );
      const stored = async () =>
        (
          await ctx.deps.store.db
            .selectFrom('api_keys')
            .select('last_used')
            .where('id', '=', created.body.id)
            .executeTakeFirstOrThrow()
        ).last_used;
      assert.equal(await stored(), null, 'not written per request');
      await ctx.deps.apiKeys.flushLastUsed();
      assert.equal(await stored(), usedAt);
    });

    it('never mints or rolls a key more powerful than the caller', async () => {
      const api = client(ctx.app, fullKey);
      const limited = await api<KeyBody>('POST', '/v1/api-keys', {
        body: { name: 'Key manager', permissions: ['read:keys', 'write:keys', 'read:orders'] },
      });
      const limitedApi = client(ctx.app, limited.body.key);
      const escalate = await limitedApi('POST', '/v1/api-keys', {
        body: { name: 'Escalated', permissions: ['read:orders', 'write:wallet'] },
      });
      assert.equal(escalate.status, 403);
      assert.equal(escalate.body.code, 'insufficient_permissions');
      assert.equal(escalate.body.required_permission, 'write:wallet');
      const allowed = await limitedApi<KeyBody>('POST', '/v1/api-keys', {
        body: { name: 'Narrower', permissions: ['read:orders'] },
      });
      assert.equal(allowed.status, 201);

      const powerful = await api<KeyBody>('POST', '/v1/api-keys', {
        body: { name: 'Powerful', permissions: ['write:wallet'] },
      });
      const roll = await limitedApi('POST', `/v1/api-keys/${powerful.body.id}/roll`, { body: {} });
      assert.equal(roll.status, 403);
      assert.equal(roll.body.required_permission, 'write:wallet');
      // The refused roll left the powerful key working.
      assert.equal(
        (await client(ctx.app, powerful.body.key)('GET', '/v1/users/me')).body.code,
        'insufficient_permissions',
      );
    });

    it('never revokes a key holding a permission the caller lacks, and always itself', async () => {
      const owner = await createTenant(ctx);
      const api = client(ctx.app, owner.apiKey.key);
      const managerPermissions = ['read:keys', 'write:keys', 'read:users'];
      const manager = await api<KeyBody>('POST', '/v1/api-keys', {
        body: { name: 'Key manager', permissions: managerPermissions },
      });
      const managerApi = client(ctx.app, manager.body.key);
      const listed = async () =>
        (await api<KeyPage>('GET', '/v1/api-keys?limit=100')).body.data.map((k) => k.id).sort();
      const before = await listed();

      // The owner's full key: refused, naming the first permission the manager lacks.
      const refused = await managerApi('DELETE', `/v1/api-keys/${owner.apiKey.id}`);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'insufficient_permissions');
      assert.equal(
        refused.body.required_permission,
        owner.apiKey.permissions.find((p) => !managerPermissions.includes(p)),
      );
      // Nothing changed: the owner's key works, from memory and from the store alike.
      assert.deepEqual(await listed(), before);
      assert.equal((await api('GET', '/v1/users/me')).status, 200);
      clock.advance(10_000);
      assert.equal((await api('GET', '/v1/users/me')).status, 200);

      // One permission too many is enough to refuse.
      const wider = await api<KeyBody>('POST', '/v1/api-keys', {
        body: { name: 'Wider', permissions: ['read:users', 'write:wallet'] },
      });
      const widerRefused = await managerApi('DELETE', `/v1/api-keys/${wider.body.id}`);
      assert.equal(widerRefused.status, 403);
      assert.equal(widerRefused.body.required_permission, 'write:wallet');
      assert.equal((await client(ctx.app, wider.body.key)('GET', '/v1/users/me')).status, 200);

      // A key it could have made, it can revoke; and itself, always.
      const narrower = await api<KeyBody>('POST', '/v1/api-keys', {
        body: { name: 'Narrower', permissions: ['read:users'] },
      });
      assert.equal((await managerApi('DELETE', `/v1/api-keys/${narrower.body.id}`)).status, 204);
      assert.equal((await managerApi('DELETE', `/v1/api-keys/${manager.body.id}`)).status, 204);
      assert.equal((await managerApi('GET', '/v1/users/me')).body.code, 'invalid_api_key');

      // A key that expires cannot revoke one that outlives it, even with every permission.
      const temporary = await api<KeyBody>('POST', '/v1/api-keys', {
        body: {
          name: 'Temporary',
          permissions: owner.apiKey.permissions,
          expires_at: new Date(clock.now() + HOUR).toISOString(),
        },
      });
      const temporaryApi = client(ctx.app, temporary.body.key);
      const outlives = await temporaryApi('DELETE', `/v1/api-keys/${owner.apiKey.id}`);
      assert.equal(outlives.status, 403);
      assert.equal(outlives.body.code, 'insufficient_permissions');
      assert.equal((await api('GET', '/v1/users/me')).status, 200);
      assert.equal((await temporaryApi('DELETE', `/v1/api-keys/${temporary.body.id}`)).status, 204);
    });

    it('refuses an address that keeps presenting unknown keys, and still serves valid keys', async () => {
      const owner = await createTenant(ctx);
      const api = client(ctx.app, owner.apiKey.key);
      const { limit, windowMs } = KEY_FAILURES;
      const unknownKey = () => `sk_live_${randomBase62(40)}`;
      const attacker = '198.51.100.50';
      // A valid key this process knows, from the attacker's address (a shared NAT).
      assert.equal((await from(attacker, owner.apiKey.key)).statusCode, 200);
      const start = clock.now();
      for (let i = 0; i < limit; i++) {
        const res = await from(attacker, unknownKey());
        assert.equal(res.statusCode, 401, `unknown key ${i + 1}`);
        assert.equal(res.json<{ code: string }>().code, 'invalid_api_key');
        clock.advance(100);
      }
      const refused = await from(attacker, unknownKey());
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.json<{ code: string }>().code, 'rate_limited');
      assert.equal(
        refused.headers['retry-after'],
        String(Math.ceil((start + windowMs - clock.now()) / 1000)),
      );
      assert.match(String(refused.headers['content-type']), /application\/problem\+json/);
      // The valid key is served throughout: from memory, and once memory is stale, from the store.
      assert.equal((await from(attacker, owner.apiKey.key)).statusCode, 200);
      clock.advance(6_000);
      assert.equal((await from(attacker, owner.apiKey.key)).statusCode, 200);
      // A key this process has not seen valid is refused without being read, valid or not.
      const unseen = await api<KeyBody>('POST', '/v1/api-keys', {
        body: { name: 'Unseen', permissions: ['read:users'] },
      });
      assert.equal((await from(attacker, unseen.body.key)).statusCode, 429);
      // Other addresses are not affected.
      assert.equal((await from('198.51.100.51', unknownKey())).statusCode, 401);
      assert.equal((await from('198.51.100.51', unseen.body.key)).statusCode, 200);
      // Refusals are not counted: once the first failure is a window old, one more key is read.
      clock.advance(start + windowMs - clock.now());
      const reopened = await from(attacker, unknownKey());
      assert.equal(reopened.statusCode, 401);
      assert.equal((await from(attacker, unknownKey())).statusCode, 429);
    });

    it('counts revoked and expired keys as failures of the address presenting them', async () => {
      const owner = await createTenant(ctx);
      const api = client(ctx.app, owner.apiKey.key);
      const make = async (extra: Record<string, unknown> = {}) =>
        (
          await api<KeyBody>('POST', '/v1/api-keys', {
            body: { name: 'Doomed', permissions: ['read:users'], ...extra },
          })
        ).body;
      const revoked = await make();
      assert.equal((await api('DELETE', `/v1/api-keys/${revoked.id}`)).status, 204);
      const expiring = await make({ expires_at: new Date(clock.now() + 1000).toISOString() });
      assert.equal((await from('198.51.100.60', expiring.key)).statusCode, 200);
      clock.advance(2000);
      const half = Math.floor(KEY_FAILURES.limit / 2);
      for (let i = 0; i < KEY_FAILURES.limit; i++) {
        const res = await from('198.51.100.60', i < half ? revoked.key : expiring.key);
        assert.equal(res.json<{ code: string }>().code, i < half ? 'invalid_api_key' : 'api_key_expired');
      }
      assert.equal((await from('198.51.100.60', revoked.key)).statusCode, 429);
      assert.equal((await from('198.51.100.61', revoked.key)).statusCode, 401);
      clock.advance(KEY_FAILURES.windowMs);
    });

    it('never lets a key that expires make a key that outlives it', async () => {
      const api = client(ctx.app, fullKey);
      const expiresAt = new Date(clock.now() + HOUR).toISOString();
      const short = await api<KeyBody>('POST', '/v1/api-keys', {
        body: {
          name: 'Short',
          permissions: ['read:keys', 'write:keys', 'read:users'],
          expires_at: expiresAt,
        },
      });
      assert.equal(short.status, 201);
      const shortApi = client(ctx.app, short.body.key);

      // Without expires_at, its keys expire with it; a later expiry is refused, an earlier one is fine.
      const inherited = await shortApi<KeyBody>('POST', '/v1/api-keys', {
        body: { name: 'Child', permissions: ['read:users'] },
      });
      assert.equal(inherited.status, 201);
      assert.equal(inherited.body.expires_at, expiresAt);
      const later = await shortApi('POST', '/v1/api-keys', {
        body: {
          name: 'Longer',
          permissions: ['read:users'],
          expires_at: new Date(clock.now() + 2 * HOUR).toISOString(),
        },
      });
      assert.equal(later.status, 403);
      assert.equal(later.body.code, 'insufficient_permissions');
      const earlier = await shortApi<KeyBody>('POST', '/v1/api-keys', {
        body: {
          name: 'Shorter',
          permissions: ['read:users'],
          expires_at: new Date(clock.now() + HOUR / 2).toISOString(),
        },
      });
      assert.equal(earlier.status, 201);

      // Rolling keeps the key's expiry, and cannot turn a key that never expires into the caller's.
      const selfRolled = await shortApi<KeyBody>('POST', `/v1/api-keys/${short.body.id}/roll`, {
        body: { expires_in_seconds: 60 },
      });
      assert.equal(selfRolled.status, 201);
      assert.equal(selfRolled.body.expires_at, expiresAt);
      const permanent = await api<KeyBody>('POST', '/v1/api-keys', {
        body: { name: 'Permanent', permissions: ['read:users'] },
      });
      const rollPermanent = await shortApi('POST', `/v1/api-keys/${permanent.body.id}/roll`, { body: {} });
      assert.equal(rollPermanent.status, 403);
      assert.equal(rollPermanent.body.code, 'insufficient_permissions');
      assert.equal((await client(ctx.app, permanent.body.key)('GET', '/v1/users/me')).status, 200);
    });

    it('rolls a key: the new one works at once, the old one until the grace period ends', async () => {
      const api = client(ctx.app, fullKey);
      const old = await api<KeyBody>('POST', '/v1/api-keys', {
        body: { name: 'Rolling', permissions: ['read:users'] },
      });
      const rolled = await api<KeyBody>('POST', `/v1/api-keys/${old.body.id}/roll`, {
        body: { expires_in_seconds: 3600 },
      });
      assert.equal(rolled.status, 201);
      assert.notEqual(rolled.body.id, old.body.id);
      assert.match(rolled.body.key, /^sk_live_[0-9A-Za-z]{40}$/);
      assert.equal(rolled.body.name, 'Rolling');
      assert.deepEqual(rolled.body.permissions, ['read:users']);
      assert.equal((await client(ctx.app, rolled.body.key)('GET', '/v1/users/me')).status, 200);
      assert.equal((await client(ctx.app, old.body.key)('GET', '/v1/users/me')).status, 200);
      const listed = await api<KeyPage>('GET', '/v1/api-keys?limit=100');
      assert.equal(listed.body.data.find((k) => k.id === old.body.id)?.status, 'Expiring');
      clock.advance(3600 * 1000 + 1);
      const after = await client(ctx.app, old.body.key)('GET', '/v1/users/me');
      assert.equal(after.status, 401);
      assert.equal(after.body.code, 'api_key_expired');

      const immediate = await api<KeyBody>('POST', `/v1/api-keys/${rolled.body.id}/roll`);
      assert.equal(immediate.status, 201);
      assert.equal(
        (await client(ctx.app, rolled.body.key)('GET', '/v1/users/me')).body.code,
        'invalid_api_key',
      );

      const tooLong = await api('POST', `/v1/api-keys/${immediate.body.id}/roll`, {
        body: { expires_in_seconds: 7 * 24 * 3600 + 1 },
      });
      assert.equal(tooLong.status, 400);
      assert.equal((tooLong.body as { errors: { field: string }[] }).errors[0]?.field, 'expires_in_seconds');
    });

    it('revokes a key at once and no longer lists it', async () => {
      const api = client(ctx.app, fullKey);
      const created = await api<KeyBody>('POST', '/v1/api-keys', {
        body: { name: 'Temp', permissions: ['read:users'] },
      });
      assert.equal((await client(ctx.app, created.body.key)('GET', '/v1/users/me')).status, 200);
      assert.equal((await api('DELETE', `/v1/api-keys/${created.body.id}`)).status, 204);
      const after = await client(ctx.app, created.body.key)('GET', '/v1/users/me');
      assert.equal(after.status, 401);
      assert.equal(after.body.code, 'invalid_api_key');
      assert.equal((await api('DELETE', `/v1/api-keys/${created.body.id}`)).status, 404);
      const listed = await api<KeyPage>('GET', '/v1/api-keys?limit=100');
      assert.ok(!listed.body.data.some((k) => k.id === created.body.id));
    });

    it('lists keys in pages: the list envelope, offset, page and cursor, newest first', async () => {
      const api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      for (const name of ['k1', 'k2', 'k3', 'k4']) {
        clock.advance(1_000);
        const made = await api('POST', '/v1/api-keys', { body: { name, permissions: ['read:users'] } });
        assert.equal(made.status, 201);
      }
      const revoked = await api<KeyBody>('POST', '/v1/api-keys', {
        body: { name: 'gone', permissions: ['read:users'] },
      });
      assert.equal((await api('DELETE', `/v1/api-keys/${revoked.body.id}`)).status, 204);

      const first = await api<KeyPage>('GET', '/v1/api-keys?limit=2');
      assert.equal(first.status, 200);
      assert.deepEqual(
        { ...first.body, data: first.body.data.map((k) => k.name) },
        {
          data: ['k4', 'k3'],
          total: 5,
          page: 1,
          limit: 2,
          offset: 0,
          has_more: true,
          next_cursor: first.body.next_cursor,
        },
      );
      assert.ok(first.body.next_cursor);
      const second = await api<KeyPage>('GET', `/v1/api-keys?limit=2&cursor=${first.body.next_cursor}`);
      assert.deepEqual(
        second.body.data.map((k) => k.name),
        ['k2', 'k1'],
      );
      assert.equal(second.body.page, 2);
      const byPage = await api<KeyPage>('GET', '/v1/api-keys?limit=2&page=2');
      assert.deepEqual(byPage.body.data, second.body.data);
      const last = await api<KeyPage>('GET', `/v1/api-keys?limit=2&cursor=${second.body.next_cursor}`);
      assert.deepEqual(
        last.body.data.map((k) => k.name),
        ['Default key'],
      );
      assert.equal(last.body.has_more, false);
      assert.equal(last.body.next_cursor, null);
      assert.ok(
        last.body.data.every((k) => /^sk_live_(\*{4}_){3}\w{4}$/.test(k.key)),
        'masked',
      );

      for (const query of ['limit=101', 'limit=0', 'offset=-1', 'bogus=1', 'cursor=nonsense']) {
        const res = await api('GET', `/v1/api-keys?${query}`);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.code, 'validation_failed', query);
      }
    });

    it("answers another tenant's key with 404 and leaves it working", async () => {
      const theirs = await client(ctx.app, otherTenantKey)<KeyBody>('POST', '/v1/api-keys', {
        body: { name: 'Theirs', permissions: ['read:users'] },
      });
      const api = client(ctx.app, fullKey);
      for (const [method, url] of [
        ['GET', `/v1/api-keys/${theirs.body.id}`],
        ['DELETE', `/v1/api-keys/${theirs.body.id}`],
        ['POST', `/v1/api-keys/${theirs.body.id}/roll`],
      ] as const) {
        const res = await api(method, url);
        assert.equal(res.status, 404, `${method} ${url}`);
        assert.equal(res.body.code, 'not_found');
      }
      const listed = await api<KeyPage>('GET', '/v1/api-keys?limit=100');
      assert.ok(!listed.body.data.some((k) => k.id === theirs.body.id));
      assert.equal((await client(ctx.app, theirs.body.key)('GET', '/v1/users/me')).status, 200);
    });

    it('returns the current user with tenant and key', async () => {
      const created = await createTenant(ctx, {
        name: 'Me Co',
        ownerName: 'Ada',
        currency: 'EUR',
        plan: 'free',
      });
      const expected = {
        id: created.user.id,
        email: created.user.email,
        name: 'Ada',
        role: 'owner',
        created: new Date(created.tenant.created).toISOString(),
        tenant: {
          id: created.tenant.id,
          name: 'Me Co',
          plan: 'free',
          api_version: '2027-01-20',
          currency: 'EUR',
        },
        api_key: { id: created.apiKey.id, name: 'Default key', permissions: created.apiKey.permissions },
        livemode: true,
      };
      // The first answer reads the user from the store, the second from the cache. The body is
      // written with JSON.stringify from the service's object: exactly the schema's fields, in order.
      for (const attempt of ['uncached', 'cached']) {
        const res = await client(ctx.app, created.apiKey.key)('GET', '/v1/users/me');
        assert.equal(res.status, 200, attempt);
        assert.equal(res.headers['content-type'], 'application/json; charset=utf-8', attempt);
        assert.equal(res.raw.body, JSON.stringify(expected), attempt);
      }
      const narrow = await client(ctx.app, created.apiKey.key)<KeyBody>('POST', '/v1/api-keys', {
        body: { name: 'Profile only', permissions: ['read:users'] },
      });
      const me = await client(ctx.app, narrow.body.key)<{ api_key: unknown }>('GET', '/v1/users/me');
      assert.deepEqual(me.body.api_key, {
        id: narrow.body.id,
        name: 'Profile only',
        permissions: ['read:users'],
      });
    });

    it('shows a created or rolled key once: a replay answers it masked and nothing stores it', async () => {
      const api = client(ctx.app, fullKey);
      const create = () =>
        api<KeyBody>('POST', '/v1/api-keys', {
          body: { name: 'Replayed', permissions: ['read:orders'] },
          headers: { 'idempotency-key': 'replayed-key' },
        });
      const first = await create();
      assert.equal(first.status, 201);
      assert.match(first.body.key, /^sk_live_[0-9A-Za-z]{40}$/);
      const again = await create();
      assert.equal(again.status, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.body, {
        ...first.body,
        key: `sk_live_****_****_****_${first.body.key.slice(-4)}`,
      });

      const roll = () =>
        api<KeyBody>('POST', `/v1/api-keys/${first.body.id}/roll`, {
          body: { expires_in_seconds: 60 },
          headers: { 'idempotency-key': 'replayed-roll' },
        });
      const rolled = await roll();
      assert.equal(rolled.status, 201);
      const rolledAgain = await roll();
      assert.equal(rolledAgain.headers['idempotent-replayed'], 'true');
      assert.equal(rolledAgain.body.id, rolled.body.id);
      assert.equal(rolledAgain.body.key, `sk_live_****_****_****_${rolled.body.key.slice(-4)}`);

      const named = (await api<KeyPage>('GET', '/v1/api-keys')).body.data.filter(
        (k) => k.name === 'Replayed',
      );
      assert.deepEqual(
        named.map((k) => k.id).sort(),
        [first.body.id, rolled.body.id].sort(),
        'one create, one roll',
      );
      const stored = await ctx.deps.store.db.selectFrom('idempotency_keys').select('response_body').execute();
      for (const secret of [first.body.key, rolled.body.key]) {
        assert.ok(
          !stored.some((row) => row.response_body?.includes(secret)),
          'no stored response holds a key',
        );
      }
      // The new key works, and is shown in full only once.
      assert.equal((await client(ctx.app, rolled.body.key)('GET', '/v1/api-keys')).status, 403);
    });

    it('answers a retry whose first answer was lost with the key it created, masked, once', async () => {
      const api = client(ctx.app, fullKey);
      const send = () =>
        api<KeyBody>('POST', '/v1/api-keys', {
          body: { name: 'Lost answer', permissions: ['read:orders'] },
          headers: { 'idempotency-key': 'lost-answer' },
        });
      // The key commits, then storing the response fails: the client gets a 5xx.
      assert.ok((await whileResponsesAreRefused(ctx.deps.store.db, dialect, send)).status >= 500);
      const retried = await send();
      assert.equal(retried.status, 201, JSON.stringify(retried.body));
      assert.match(retried.body.key, /^sk_live_\*{4}_\*{4}_\*{4}_[0-9A-Za-z]{4}$/);
      const named = (await api<KeyPage>('GET', '/v1/api-keys')).body.data.filter(
        (k) => k.name === 'Lost answer',
      );
      assert.deepEqual(
        named.map((k) => k.id),
        [retried.body.id],
        'one key',
      );
      assert.equal((await send()).headers['idempotent-replayed'], 'true');

      const roll = () =>
        api<KeyBody>('POST', `/v1/api-keys/${retried.body.id}/roll`, {
          body: { expires_in_seconds: 60 },
          headers: { 'idempotency-key': 'lost-roll' },
        });
      assert.ok((await whileResponsesAreRefused(ctx.deps.store.db, dialect, roll)).status >= 500);
      const rolled = await roll();
      assert.equal(rolled.status, 201, JSON.stringify(rolled.body));
      assert.match(rolled.body.key, /^sk_live_\*{4}_\*{4}_\*{4}_[0-9A-Za-z]{4}$/);
      const afterRoll = (await api<KeyPage>('GET', '/v1/api-keys')).body.data.filter(
        (k) => k.name === 'Lost answer',
      );
      assert.deepEqual(
        afterRoll.map((k) => k.id).sort(),
        [retried.body.id, rolled.body.id].sort(),
        'the old key and one new key',
      );
    });
  });
}
