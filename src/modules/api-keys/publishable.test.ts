import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../lib/clock.js';
import type { ApiKey } from './api-keys.schemas.js';
import { allowedOrigins, normaliseOrigin, requestOrigin } from './api-keys.origins.js';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  LOGIC_ONLY,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';

type KeyPage = Page<ApiKey>;

const PK = /^pk_live_[0-9A-Za-z]{40}$/;

describe('allowed origins, form by form', () => {
  it('normalises the origins a key may list', () => {
    for (const [given, origin] of [
      ['https://shop.example.com', 'https://shop.example.com'],
      ['https://Shop.Example.COM/', 'https://shop.example.com'],
      ['HTTPS://shop.example.com:443', 'https://shop.example.com'],
      ['https://shop.example.com:8443', 'https://shop.example.com:8443'],
      ['https://127.0.0.1:9000', 'https://127.0.0.1:9000'],
      ['https://[::1]:9000', 'https://[::1]:9000'],
      ['https://bücher.example', 'https://xn--bcher-kva.example'],
      ['http://localhost:5173', 'http://localhost:5173'],
      ['http://LOCALHOST:5173/', 'http://localhost:5173'],
      ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
      ['http://localhost', 'http://localhost'],
    ]) {
      assert.deepEqual(normaliseOrigin(given as string), { origin }, given);
    }
  });

  it('refuses anything that is not such an origin, saying why', () => {
    for (const given of [
      '',
      '*',
      'null',
      'shop.example.com',
      '//shop.example.com',
      'https://',
      'https://shop.example.com/path',
      'https://shop.example.com/?q=1',
      'https://shop.example.com#top',
      'https://user:pass@shop.example.com',
      'https://*.example.com',
      'https://shop example.com',
      'ftp://shop.example.com',
      'ws://localhost:3000',
      'https://shop.example.com:99999',
    ]) {
      const result = normaliseOrigin(given);
      assert.ok('problem' in result, `${given} -> ${JSON.stringify(result)}`);
      assert.match(result.problem, /must be an origin/);
    }
    for (const given of ['http://shop.example.com', 'http://10.0.0.1:3000', 'http://localhost.example.com']) {
      const result = normaliseOrigin(given);
      assert.ok('problem' in result, given);
      assert.match(result.problem, /must use https:\/\//);
    }
  });

  it('names each bad origin by its index, drops repeats, and keeps at most 20', () => {
    assert.deepEqual(allowedOrigins(['https://a.example', 'https://A.example/', 'http://localhost:3000']), [
      'https://a.example',
      'http://localhost:3000',
    ]);
    assert.throws(
      () => allowedOrigins(['https://a.example', 'http://b.example', 'https://c.example/x']),
      (error: { code: string; errors: { field: string }[] }) =>
        error.code === 'validation_failed' &&
        error.errors.map((e) => e.field).join() === 'allowed_origins[1],allowed_origins[2]',
    );
    const many = Array.from({ length: 21 }, (_, i) => `https://s${i}.example`);
    assert.throws(
      () => allowedOrigins(many),
      (error: { errors: { field: string }[] }) => error.errors[0]?.field === 'allowed_origins',
    );
    // Twenty-one spellings of twenty origins are twenty origins.
    assert.equal(allowedOrigins([...many.slice(0, 20), 'HTTPS://s0.example']).length, 20);
  });

  it('takes an Origin header only in the form a browser sends it', () => {
    assert.equal(requestOrigin('https://shop.example.com'), 'https://shop.example.com');
    assert.equal(requestOrigin('http://localhost:5173'), 'http://localhost:5173');
    for (const header of [
      undefined,
      'null',
      'https://Shop.example.com',
      'https://shop.example.com/',
      'https://shop.example.com:443',
      'http://shop.example.com',
      `https://${'a'.repeat(300)}.example`,
    ]) {
      assert.equal(requestOrigin(header), undefined, String(header));
    }
  });
});

for (const dialect of DIALECTS) {
  describe(`publishable keys (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock();
    let owner: string;

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
      owner = (await createTenant(ctx)).apiKey.key;
    });
    after(() => ctx.close());

    it('makes a pk_live_ key without permissions, shown in full by every read', async () => {
      const api = client(ctx.app, owner);
      const created = await api<ApiKey>('POST', '/v1/api-keys', {
        body: {
          type: 'publishable',
          name: 'Web shop',
          allowed_origins: ['https://Shop.Example.com/', 'http://localhost:5173', 'https://shop.example.com'],
        },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.match(created.body.key, PK);
      assert.equal(created.body.type, 'publishable');
      assert.deepEqual(created.body.permissions, []);
      assert.deepEqual(created.body.allowed_origins, ['https://shop.example.com', 'http://localhost:5173']);

      const one = await api<ApiKey>('GET', `/v1/api-keys/${created.body.id}`);
      assert.equal(one.body.key, created.body.key);
      assert.deepEqual(one.body, created.body);
      const listed = await api<KeyPage>('GET', '/v1/api-keys?limit=100');
      const entry = listed.body.data.find((k) => k.id === created.body.id);
      assert.equal(entry?.key, created.body.key);
      // Secret keys beside it: masked, `type: "secret"`, no origins.
      const secret = listed.body.data.find((k) => k.id !== created.body.id);
      assert.equal(secret?.type, 'secret');
      assert.deepEqual(secret?.allowed_origins, []);
      assert.match(String(secret?.key), /^sk_live_\*{4}_/);

      // A secret key made now has the same members.
      const made = await api<ApiKey>('POST', '/v1/api-keys', {
        body: { name: 'Reports', permissions: ['read:orders'] },
      });
      assert.equal(made.body.type, 'secret');
      assert.deepEqual(made.body.allowed_origins, []);
      const explicit = await api<ApiKey>('POST', '/v1/api-keys', {
        body: { name: 'Reports', type: 'secret', permissions: ['read:orders'] },
      });
      assert.equal(explicit.status, 201);
      assert.equal(explicit.body.type, 'secret');
    });

    it('refuses a body that does not fit its type, naming the member', async () => {
      const api = client(ctx.app, owner);
      const cases: [Record<string, unknown>, string][] = [
        [
          { type: 'publishable', name: 'x', permissions: ['read:products'], allowed_origins: [] },
          'permissions',
        ],
        [{ type: 'publishable', name: 'x' }, 'allowed_origins'],
        [
          { name: 'x', permissions: ['read:products'], allowed_origins: ['https://a.example'] },
          'allowed_origins',
        ],
        [{ name: 'x' }, 'permissions'],
        [{ type: 'secret', name: 'x' }, 'permissions'],
        [{ type: 'public', name: 'x', allowed_origins: [] }, 'type'],
        [
          { type: 'publishable', name: 'x', allowed_origins: ['http://shop.example.com'] },
          'allowed_origins[0]',
        ],
        [
          { type: 'publishable', name: 'x', allowed_origins: ['https://a.example', 'https://a.example/x'] },
          'allowed_origins[1]',
        ],
        [
          {
            type: 'publishable',
            name: 'x',
            allowed_origins: Array.from({ length: 21 }, (_, i) => `https://s${i}.example`),
          },
          'allowed_origins',
        ],
        [{ type: 'publishable', name: 'x', allowed_origins: [42] }, 'allowed_origins[0]'],
      ];
      for (const [body, field] of cases) {
        const res = await api<Problem>('POST', '/v1/api-keys', { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.code, 'validation_failed');
        assert.ok(
          res.body.errors?.some((e) => e.field === field),
          `${JSON.stringify(body)} -> ${JSON.stringify(res.body.errors)}`,
        );
      }
      // Nothing was made.
      const listed = await api<KeyPage>('GET', '/v1/api-keys?limit=100');
      assert.ok(!listed.body.data.some((k) => k.name === 'x'));
    });

    it('lets a publishable key with no origins be made: only callers without an Origin can use it', async () => {
      const created = await client(ctx.app, owner)<ApiKey>('POST', '/v1/api-keys', {
        body: { type: 'publishable', name: 'App', allowed_origins: [] },
      });
      assert.equal(created.status, 201);
      assert.deepEqual(created.body.allowed_origins, []);
    });

    it('answers a replay with the key in full (it is public) and stores it with its origins', async () => {
      const api = client(ctx.app, owner);
      const body = { type: 'publishable', name: 'Replay', allowed_origins: ['https://replay.example'] };
      const headers = { 'idempotency-key': `pk-${Date.now()}` };
      const first = await api<ApiKey>('POST', '/v1/api-keys', { body, headers });
      const again = await api<ApiKey>('POST', '/v1/api-keys', { body, headers });
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body.key, first.body.key);
      const row = await ctx.deps.store.db
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', first.body.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.type, 'publishable');
      assert.equal(row.public_key, first.body.key);
      assert.equal(row.key_hash.length, 64);
      const indexed = await ctx.deps.store.db
        .selectFrom('api_key_origins')
        .selectAll()
        .where('key_id', '=', first.body.id)
        .execute();
      assert.deepEqual(
        indexed.map((r) => r.origin),
        ['https://replay.example'],
      );
    });

    it('rolls a publishable key into one with the same origins; the old one stops after the grace', async () => {
      const api = client(ctx.app, owner);
      const created = await api<ApiKey>('POST', '/v1/api-keys', {
        body: { type: 'publishable', name: 'Rolled', allowed_origins: ['https://rolled.example'] },
      });
      const rolled = await api<ApiKey>('POST', `/v1/api-keys/${created.body.id}/roll`, {
        body: { expires_in_seconds: 60 },
      });
      assert.equal(rolled.status, 201);
      assert.match(rolled.body.key, PK);
      assert.notEqual(rolled.body.key, created.body.key);
      assert.equal(rolled.body.type, 'publishable');
      assert.deepEqual(rolled.body.allowed_origins, ['https://rolled.example']);
      assert.deepEqual(rolled.body.permissions, []);
      // Both work during the grace; the old one is in full while it lasts, and then not at all.
      const old = await api<ApiKey>('GET', `/v1/api-keys/${created.body.id}`);
      assert.equal(old.body.key, created.body.key);
      assert.equal(await ctx.deps.apiKeys.originAllowed('https://rolled.example'), true);
      clock.advance(61_000);
      assert.equal((await api('GET', `/v1/api-keys/${created.body.id}`)).status, 404);
      const stillAllowed = await ctx.deps.apiKeys.originAllowed('https://rolled.example');
      assert.equal(stillAllowed, true, 'the new key lists the origin');
    });

    it('answers a preflight origin only while some live key lists it', async () => {
      const api = client(ctx.app, owner);
      const origin = 'https://revoked.example';
      assert.equal(await ctx.deps.apiKeys.originAllowed(origin), false);
      const created = await api<ApiKey>('POST', '/v1/api-keys', {
        body: { type: 'publishable', name: 'Revoked', allowed_origins: [origin] },
      });
      // The earlier "no" is forgotten once a key lists the origin.
      assert.equal(await ctx.deps.apiKeys.originAllowed(origin), true);
      // Another tenant's key for the same origin keeps it answered after this one goes.
      const other = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      const second = await other<ApiKey>('POST', '/v1/api-keys', {
        body: { type: 'publishable', name: 'Other', allowed_origins: [origin] },
      });
      assert.equal((await api('DELETE', `/v1/api-keys/${created.body.id}`)).status, 204);
      assert.equal(await ctx.deps.apiKeys.originAllowed(origin), true);
      assert.equal((await other('DELETE', `/v1/api-keys/${second.body.id}`)).status, 204);
      assert.equal(await ctx.deps.apiKeys.originAllowed(origin), false);
      // A key that expired lists nothing either.
      const expiring = await api<ApiKey>('POST', '/v1/api-keys', {
        body: {
          type: 'publishable',
          name: 'Expiring',
          allowed_origins: ['https://expiring.example'],
          expires_at: new Date(clock.now() + 3_600_000).toISOString(),
        },
      });
      assert.equal(expiring.status, 201);
      assert.equal(await ctx.deps.apiKeys.originAllowed('https://expiring.example'), true);
      clock.advance(3_600_000 + 10_000);
      assert.equal(await ctx.deps.apiKeys.originAllowed('https://expiring.example'), false);
    });
  });
}

for (const dialect of LOGIC_ONLY) {
  describe(`API keys in version 2026-12-15 (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    it('shows a tenant pinned to 2026-12-15 its keys without type or allowed_origins', async () => {
      const tenant = await createTenant(ctx, { apiVersion: '2026-12-15' });
      const api = client(ctx.app, tenant.apiKey.key);
      const created = await api<Record<string, unknown>>('POST', '/v1/api-keys', {
        body: { name: 'Old', permissions: ['read:orders'] },
      });
      assert.equal(created.status, 201);
      assert.equal(created.headers['x-service-version'], '2026-12-15');
      const shape = ['created', 'expires_at', 'id', 'key', 'last_used', 'name', 'permissions', 'status'];
      assert.deepEqual(Object.keys(created.body).sort(), shape);
      const one = await api<Record<string, unknown>>('GET', `/v1/api-keys/${String(created.body.id)}`);
      assert.deepEqual(Object.keys(one.body).sort(), shape);
      const listed = await api<Page<Record<string, unknown>>>('GET', '/v1/api-keys');
      for (const key of listed.body.data) assert.deepEqual(Object.keys(key).sort(), shape);
      const rolled = await api<Record<string, unknown>>(
        'POST',
        `/v1/api-keys/${String(created.body.id)}/roll`,
        {
          body: {},
        },
      );
      assert.deepEqual(Object.keys(rolled.body).sort(), shape);
      // The same key in the latest version has both.
      const latest = await api<ApiKey>('GET', `/v1/api-keys/${String(rolled.body.id)}`, {
        headers: { 'x-service-version': '2027-01-20' },
      });
      assert.equal(latest.body.type, 'secret');
      assert.deepEqual(latest.body.allowed_origins, []);
    });
  });
}
