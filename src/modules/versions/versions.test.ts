import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Static } from 'typebox';
import {
  client,
  createTenant,
  createTestContext,
  LOGIC_ONLY,
  type TestContext,
} from '../../../test/helpers/context.js';
import { API_VERSIONS } from './changes/index.js';
import { walletBalanceToV20260601 } from './changes/v2026-11-21.js';
import { VersionRegistry } from './versions.registry.js';
import type { VersionListSchema } from './versions.schemas.js';

/** Three test versions; 2026-03-01 renamed `title` to `name` on the `probe` resource. */
const testRegistry = new VersionRegistry([
  { version: '2026-01-01', release: 'v1', changelog: ['first'], changes: [] },
  {
    version: '2026-03-01',
    release: 'v2',
    changelog: ['probe.title is now probe.name'],
    changes: [
      {
        description: 'probe.title is now probe.name',
        toPrevious: {
          probe: ({ name, ...rest }) => ({ ...rest, title: name }),
        },
      },
    ],
  },
  {
    version: '2026-05-01',
    release: 'v3',
    changelog: ['probe.count is now a string'],
    changes: [
      {
        description: 'probe.count is now a string',
        toPrevious: {
          probe: (probe) => ({ ...probe, count: Number(probe.count) }),
        },
      },
    ],
  },
]);

describe('version registry', () => {
  it('resolves a header date to the newest version on or before it', () => {
    assert.equal(testRegistry.resolve('2026-01-01'), '2026-01-01');
    assert.equal(testRegistry.resolve('2026-02-15'), '2026-01-01');
    assert.equal(testRegistry.resolve('2026-03-01'), '2026-03-01');
    assert.equal(testRegistry.resolve('2030-01-01'), '2026-05-01');
  });

  it('refuses malformed dates and dates before the oldest version', () => {
    for (const bad of ['2026-1-01', '2026-02-30', 'latest', '', '20260101', '2026-13-01']) {
      assert.throws(() => testRegistry.resolve(bad), { code: 'invalid_version' }, bad);
    }
    assert.throws(() => testRegistry.resolve('2025-12-31'), { code: 'invalid_version' });
  });

  it('renders through every step between the latest and the requested version', () => {
    const latest = { id: 'p1', name: 'Widget', count: '3' };
    assert.deepEqual(testRegistry.render('probe', latest, '2026-05-01'), latest);
    assert.deepEqual(testRegistry.render('probe', latest, '2026-03-01'), {
      id: 'p1',
      name: 'Widget',
      count: 3,
    });
    assert.deepEqual(testRegistry.render('probe', latest, '2026-01-01'), {
      id: 'p1',
      title: 'Widget',
      count: 3,
    });
    assert.deepEqual(testRegistry.render('other', latest, '2026-01-01'), latest);
  });

  it('knows the dated versions and the wallet balance difference', () => {
    assert.deepEqual(
      API_VERSIONS.map((v) => [v.version, v.release]),
      [
        ['2026-06-01', 'v2.3'],
        ['2026-11-21', 'v2.4'],
        ['2026-12-15', 'v2.5'],
        ['2027-01-20', 'v2.6'],
      ],
    );
    assert.deepEqual(
      walletBalanceToV20260601({ wallet_id: 'wal_1', available: 500, pending: 20, currency: 'USD' }),
      {
        wallet_id: 'wal_1',
        currency: 'USD',
        balance: 500,
      },
    );
  });
});

for (const dialect of LOGIC_ONLY) {
  describe(`versions over HTTP (${dialect})`, () => {
    let ctx: TestContext;
    let probeCtx: TestContext;

    before(async () => {
      ctx = await createTestContext(dialect);
      probeCtx = await createTestContext(dialect, {
        versions: testRegistry,
        extraRoutes: (app) => {
          app.register(
            async (v1) => {
              v1.get('/probe', { config: { auth: 'any_key', resource: 'probe' } }, async () => ({
                id: 'p1',
                name: 'Widget',
                count: '3',
              }));
            },
            { prefix: '/v1' },
          );
        },
      });
    });
    after(async () => {
      await ctx.close();
      await probeCtx.close();
    });

    it('uses the pinned version without a header and says which in X-Service-Version', async () => {
      const tenant = await createTenant(ctx);
      const res = await client(ctx.app, tenant.apiKey.key)<Static<typeof VersionListSchema>>(
        'GET',
        '/v1/versions',
      );
      assert.equal(res.status, 200);
      assert.equal(res.headers['x-service-version'], '2027-01-20');
      assert.equal(res.body.pinned, '2027-01-20');
      assert.deepEqual(
        res.body.data.map((v) => [v.version, v.release, v.latest]),
        [
          ['2026-06-01', 'v2.3', false],
          ['2026-11-21', 'v2.4', false],
          ['2026-12-15', 'v2.5', false],
          ['2027-01-20', 'v2.6', true],
        ],
      );
      const old = await createTenant(ctx, { apiVersion: '2026-06-01' });
      const pinned = await client(ctx.app, old.apiKey.key)('GET', '/v1/users/me');
      assert.equal(pinned.headers['x-service-version'], '2026-06-01');
    });

    it('resolves the header: exact, between two versions, before the oldest, malformed', async () => {
      const api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      const exact = await api('GET', '/v1/users/me', { headers: { 'x-service-version': '2026-06-01' } });
      assert.equal(exact.headers['x-service-version'], '2026-06-01');
      const between = await api('GET', '/v1/users/me', { headers: { 'x-service-version': '2026-09-30' } });
      assert.equal(between.headers['x-service-version'], '2026-06-01');
      const before = await api('GET', '/v1/users/me', { headers: { 'x-service-version': '2026-12-14' } });
      assert.equal(before.headers['x-service-version'], '2026-11-21');
      const future = await api('GET', '/v1/users/me', { headers: { 'x-service-version': '2027-01-01' } });
      assert.equal(future.headers['x-service-version'], '2026-12-15');
      const later = await api('GET', '/v1/users/me', { headers: { 'x-service-version': '2031-01-01' } });
      assert.equal(later.headers['x-service-version'], '2027-01-20');
      const pinnedOld = client(ctx.app, (await createTenant(ctx, { apiVersion: '2026-06-01' })).apiKey.key);
      for (const bad of ['2026-01-01', 'yesterday', '2026-02-31']) {
        const res = await pinnedOld('GET', '/v1/users/me', { headers: { 'x-service-version': bad } });
        assert.equal(res.status, 400, bad);
        assert.equal(res.body.code, 'invalid_version');
        assert.deepEqual(res.body.supported_versions, [
          '2026-06-01',
          '2026-11-21',
          '2026-12-15',
          '2027-01-20',
        ]);
        assert.equal(res.headers['x-service-version'], '2026-06-01', 'refused in the pinned version');
      }
    });

    it('says the version on error responses too: 401, 403, 404 and 429', async () => {
      const tenant = await createTenant(ctx, { apiVersion: '2026-06-01' });
      const anonymous = await client(ctx.app)('GET', '/v1/users/me');
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.headers['x-service-version'], '2027-01-20');
      const api = client(ctx.app, tenant.apiKey.key);
      const missing = await api('GET', '/v1/orders/ord_000000000000000000000000');
      assert.equal(missing.status, 404);
      assert.equal(missing.headers['x-service-version'], '2026-06-01');
      const key = await api<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'reader', permissions: ['read:products'] },
      });
      const forbidden = await client(ctx.app, key.body.key)('GET', '/v1/orders');
      assert.equal(forbidden.status, 403);
      assert.equal(forbidden.headers['x-service-version'], '2026-06-01');
      await ctx.deps.tenants.setLimits(tenant.tenant.id, { hourly: 1 });
      let limited = await api('GET', '/v1/users/me');
      for (let i = 0; i < 3 && limited.status !== 429; i++) limited = await api('GET', '/v1/users/me');
      assert.equal(limited.status, 429);
      assert.equal(limited.headers['x-service-version'], '2026-06-01');
    });

    it('says the version on responses no route gate answered: unknown paths, console refusals', async () => {
      const anonymous = client(ctx.app);
      const unknown = await anonymous('GET', '/v1/no-such-thing', {
        headers: { 'x-service-version': '2026-09-30' },
      });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.headers['x-service-version'], '2026-06-01', 'the requested version, resolved');
      // Without a key, a version that does not resolve is no reason to refuse: unknown paths stay
      // 404s, and health checks, the OpenAPI document and the docs answer, in the latest version.
      for (const bad of ['soon', '1999-01-01']) {
        const malformed = await anonymous('GET', '/v1/no-such-thing', {
          headers: { 'x-service-version': bad },
        });
        assert.equal(malformed.status, 404, bad);
        assert.equal(malformed.headers['x-service-version'], '2027-01-20');
        for (const url of ['/healthz', '/readyz', '/v1/openapi.json', '/docs/']) {
          const res = await anonymous('GET', url, { headers: { 'x-service-version': bad } });
          assert.equal(res.status, 200, `${url} with ${bad}`);
          assert.equal(res.headers['x-service-version'], '2027-01-20', url);
        }
      }
      // The console's session check runs before the route's gate: refused, still versioned.
      const console = await anonymous('GET', '/console/api/session');
      assert.equal(console.status, 401);
      assert.equal(console.headers['x-service-version'], '2027-01-20');
      // Unknown console paths: the app's own not-found page (or the 503 of an unbuilt console), and
      // a JSON 404 under its API.
      for (const url of ['/console/no-such-page', '/console/api/no-such-thing']) {
        const res = await anonymous('GET', url, { headers: { 'x-service-version': '2026-09-30' } });
        assert.ok([404, 503].includes(res.status), `${url}: ${res.status}`);
        assert.equal(res.headers['x-service-version'], '2026-06-01', url);
      }
    });

    it('upgrades the pinned version explicitly and refuses downgrades', async () => {
      const tenant = await createTenant(ctx, { apiVersion: '2026-06-01' });
      const api = client(ctx.app, tenant.apiKey.key);
      const upgraded = await api('POST', '/v1/versions/upgrade', { body: {} });
      assert.equal(upgraded.status, 200);
      assert.deepEqual(upgraded.body, { previous_version: '2026-06-01', api_version: '2027-01-20' });
      assert.equal((await api('GET', '/v1/users/me')).headers['x-service-version'], '2027-01-20');
      const down = await api('POST', '/v1/versions/upgrade', { body: { version: '2026-06-01' } });
      assert.equal(down.status, 400);
      const unknown = await api('POST', '/v1/versions/upgrade', { body: { version: '2026-07-01' } });
      assert.equal(unknown.status, 400);
    });

    it('transforms a response between adjacent versions through the registry', async () => {
      const latest = await createTenant(probeCtx, { apiVersion: '2026-05-01' });
      const oldest = await createTenant(probeCtx, { apiVersion: '2026-01-01' });
      assert.deepEqual((await client(probeCtx.app, latest.apiKey.key)('GET', '/v1/probe')).body, {
        id: 'p1',
        name: 'Widget',
        count: '3',
      });
      const pinnedOld = await client(probeCtx.app, oldest.apiKey.key)('GET', '/v1/probe');
      assert.deepEqual(pinnedOld.body, { id: 'p1', title: 'Widget', count: 3 });
      assert.equal(pinnedOld.headers['x-service-version'], '2026-01-01');
      const middle = await client(probeCtx.app, latest.apiKey.key)('GET', '/v1/probe', {
        headers: { 'x-service-version': '2026-04-01' },
      });
      assert.deepEqual(middle.body, { id: 'p1', name: 'Widget', count: 3 });
      assert.equal(middle.headers['x-service-version'], '2026-03-01');
    });
  });
}
