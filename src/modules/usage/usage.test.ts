import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../app.js';
import { loadConfig } from '../../config.js';
import { createDeps } from '../../deps.js';
import { ManualClock } from '../../lib/clock.js';
import { randomBase62 } from '../../lib/ids.js';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  migratedStore,
  type TestContext,
} from '../../../test/helpers/context.js';
import { counterBackends } from '../../../test/helpers/redis.js';
import type { Problem } from '../../../test/helpers/responses.js';
import type { Usage } from './usage.schemas.js';

const endpoints = (usage: Usage) => usage.top_endpoints.map((e) => [e.endpoint, e.calls, e.errors]);
const days = (usage: Usage) => usage.daily_calls.map((d) => [d.date, d.calls, d.errors]);

async function storedRows(ctx: TestContext, tenantId: string) {
  return ctx.deps.store.db.selectFrom('usage_daily').selectAll().where('tenant_id', '=', tenantId).execute();
}

for (const dialect of DIALECTS) {
  for (const backend of counterBackends()) {
    describe(`usage metering and GET /usage (${dialect}, ${backend.name})`, () => {
      let ctx: TestContext;
      const clock = new ManualClock();

      before(async () => {
        ctx = await createTestContext(dialect, { clock, env: backend.env });
      });
      after(async () => {
        await ctx.close();
        await backend.cleanup();
      });

      it('reports exactly the calls made: totals, errors, endpoints and days, per period', async () => {
        const tenant = await createTenant(ctx);
        const api = client(ctx.app, tenant.apiKey.key);
        const call = async (method: 'GET' | 'POST', url: string, status: number, body?: unknown) => {
          const res = await api(method, url, body === undefined ? {} : { body });
          assert.equal(res.status, status, `${method} ${url}: ${JSON.stringify(res.body)}`);
        };
        clock.set('2026-10-25T12:00:00.000Z'); // in the last 30 days, not in November
        await call('GET', '/v1/users/me', 200);
        await call('GET', '/v1/users/me', 200);
        clock.set('2026-11-13T09:00:00.000Z'); // in November, not in the last 7 days
        await call('GET', '/v1/users/me', 200);
        await call('GET', '/v1/api-keys/key_unknown', 404);
        await call('GET', '/v1/api-keys/key_other', 404);
        clock.set('2026-11-18T23:59:59.999Z');
        await call('POST', '/v1/api-keys', 400, { name: 'no permissions' });
        await call('GET', '/v1/versions', 200);
        clock.set('2026-11-21T10:00:00.000Z');
        for (let i = 0; i < 3; i++) await call('GET', '/v1/users/me', 200);
        await call('GET', '/v1/versions', 200);

        const week = await api<Usage>('GET', '/v1/usage?period=7d');
        assert.equal(week.status, 200);
        assert.deepEqual(week.body.period, {
          from: '2026-11-15T00:00:00.000Z',
          to: '2026-11-21T10:00:00.000Z',
        });
        assert.equal(week.body.total_calls, 6);
        assert.equal(week.body.total_errors, 1);
        assert.deepEqual(endpoints(week.body), [
          ['GET /users/me', 3, 0],
          ['GET /versions', 2, 0],
          ['POST /api-keys', 1, 1],
        ]);
        const lastWeek = [
          ['2026-11-15', 0, 0],
          ['2026-11-16', 0, 0],
          ['2026-11-17', 0, 0],
          ['2026-11-18', 2, 1],
          ['2026-11-19', 0, 0],
          ['2026-11-20', 0, 0],
          ['2026-11-21', 4, 0],
        ];
        assert.deepEqual(days(week.body), lastWeek);

        const month = await api<Usage>('GET', '/v1/usage?period=month');
        assert.deepEqual(month.body.period, {
          from: '2026-11-01T00:00:00.000Z',
          to: '2026-11-21T10:00:00.000Z',
        });
        assert.equal(month.body.total_calls, 10, 'the 7d request above is a call too');
        assert.equal(month.body.total_errors, 3);
        assert.deepEqual(endpoints(month.body), [
          ['GET /users/me', 4, 0],
          ['GET /api-keys/{id}', 2, 2],
          ['GET /versions', 2, 0],
          ['GET /usage', 1, 0],
          ['POST /api-keys', 1, 1],
        ]);
        // daily_calls is always the last 7 days, whatever the period.
        assert.deepEqual(days(month.body), [...lastWeek.slice(0, 6), ['2026-11-21', 5, 0]]);
        assert.deepEqual(month.body.quota, {
          used: 11,
          limit: 100_000,
          remaining: 99_989,
          percent_used: 0,
          resets_at: '2026-12-01T00:00:00.000Z',
          warning: false,
        });
        assert.equal(month.body.rate_limit.limit, 10_000);
        assert.equal(month.body.rate_limit.remaining, 9_994, '6 calls this hour');

        // The averages are the stored sums of response times over the calls, in ms with one decimal.
        const rows = await storedRows(ctx, tenant.tenant.id);
        const november = rows.filter((row) => row.day >= Date.parse('2026-11-01'));
        const calls = november.reduce((sum, row) => sum + Number(row.calls), 0);
        const micros = november.reduce((sum, row) => sum + Number(row.duration_us), 0);
        assert.equal(calls, 10);
        assert.equal(month.body.average_response_time_ms, Math.round(micros / calls / 100) / 10);
        const users = november.filter((row) => row.endpoint === 'GET /users/me');
        const usersMicros = users.reduce((sum, row) => sum + Number(row.duration_us), 0);
        assert.equal(
          month.body.top_endpoints[0]?.average_response_time_ms,
          Math.round(usersMicros / 4 / 100) / 10,
        );

        const thirty = await api<Usage>('GET', '/v1/usage?period=30d');
        assert.equal(thirty.body.period.from, '2026-10-23T00:00:00.000Z');
        assert.equal(thirty.body.total_calls, 13);

        assert.equal(thirty.body.total_errors, 3);
        assert.deepEqual(endpoints(thirty.body)[0], ['GET /users/me', 6, 0]);
        assert.equal(thirty.body.quota.used, 12, 'the quota counts November only');

        const byDefault = await api<Usage>('GET', '/v1/usage');
        assert.equal(byDefault.body.period.from, '2026-11-01T00:00:00.000Z');
        assert.equal(byDefault.body.total_calls, 12);

        // `days` follows the period: every UTC day from its start to today, zero-filled.
        const periodDays = (usage: Usage) => usage.days.map((d) => [d.date, d.calls, d.errors]);
        assert.deepEqual(periodDays(week.body), lastWeek);
        assert.equal(month.body.days.length, 21);
        assert.deepEqual(month.body.days[0], { date: '2026-11-01', calls: 0, errors: 0 });
        assert.deepEqual(month.body.days[12], { date: '2026-11-13', calls: 3, errors: 2 });
        assert.deepEqual(month.body.days.at(-1), { date: '2026-11-21', calls: 5, errors: 0 });
        assert.equal(thirty.body.days.length, 30);
        assert.deepEqual(thirty.body.days[0], { date: '2026-10-23', calls: 0, errors: 0 });
        assert.deepEqual(thirty.body.days[2], { date: '2026-10-25', calls: 2, errors: 0 });
        for (const usage of [week.body, month.body, thirty.body]) {
          assert.equal(
            usage.days.reduce((sum, d) => sum + d.calls, 0),
            usage.total_calls,
            'the days add up to the period',
          );
        }
        // Versions before 2026-12-15 see the old shape, without `days`.
        for (const version of ['2026-11-21', '2026-06-01']) {
          const old = await api<Usage>('GET', '/v1/usage?period=30d', {
            headers: { 'x-service-version': version },
          });
          assert.equal(old.status, 200);
          assert.equal('days' in old.body, false, version);
          assert.equal(old.body.daily_calls.length, 7);
        }
      });

      it('shows each tenant only its own calls', async () => {
        clock.set('2026-11-21T10:00:00.000Z');
        const a = await createTenant(ctx);
        const b = await createTenant(ctx);
        for (let i = 0; i < 4; i++) await client(ctx.app, a.apiKey.key)('GET', '/v1/users/me');
        const usage = await client(ctx.app, b.apiKey.key)<Usage>('GET', '/v1/usage');
        assert.equal(usage.status, 200);
        assert.equal(usage.body.total_calls, 0);
        assert.deepEqual(usage.body.top_endpoints, []);
        assert.ok(usage.body.daily_calls.every((d) => d.calls === 0 && d.errors === 0));
        assert.equal(usage.body.average_response_time_ms, 0);
        assert.equal(usage.body.quota.used, 1);
        const own = await client(ctx.app, a.apiKey.key)<Usage>('GET', '/v1/usage');
        assert.equal(own.body.total_calls, 4);
      });

      it('warns from 80% of the quota', async () => {
        clock.set('2026-11-21T10:00:00.000Z');
        const tenant = await createTenant(ctx);
        await ctx.deps.tenants.setLimits(tenant.tenant.id, { monthly: 10 });
        const api = client(ctx.app, tenant.apiKey.key);
        for (let i = 0; i < 6; i++) assert.equal((await api('GET', '/v1/versions')).status, 200);
        const below = await api<Usage>('GET', '/v1/usage');
        assert.deepEqual(
          [
            below.body.quota.used,
            below.body.quota.remaining,
            below.body.quota.percent_used,
            below.body.quota.warning,
          ],
          [7, 3, 70, false],
        );
        const at = await api<Usage>('GET', '/v1/usage');
        assert.deepEqual(
          [at.body.quota.used, at.body.quota.remaining, at.body.quota.percent_used, at.body.quota.warning],
          [8, 2, 80, true],
        );
        // The body agrees with the headers of the same response.
        assert.equal(at.headers['ratelimit'], '"monthly";r=2;t=828000');
      });

      it('does not count against the quota a call the limiter failed to decide on', async () => {
        clock.set('2026-11-21T10:00:00.000Z');
        const tenant = await createTenant(ctx);
        const api = client(ctx.app, tenant.apiKey.key);
        // The quota counter of a tenant's month starts from the stored usage: while that cannot be
        // read, the limiter cannot decide, and the call is answered 5xx without being counted.
        const rename = (from: string, to: string) =>
          sql.raw(`ALTER TABLE ${from} RENAME TO ${to}`).execute(ctx.deps.store.db);
        await rename('usage_daily', 'usage_daily_away');
        try {
          const failed = await api('GET', '/v1/users/me');
          assert.ok(failed.status >= 500, `answered ${failed.status}`);
        } finally {
          await rename('usage_daily_away', 'usage_daily');
        }
        const usage = await api<Usage>('GET', '/v1/usage');
        assert.equal(usage.status, 200);
        assert.equal(usage.body.total_calls, 1, 'the failed call is a call, with its error');
        assert.equal(usage.body.total_errors, 1);
        assert.equal(usage.body.quota.used, 1, 'only this call counts against the quota');
      });

      it('meters each call once, HEAD apart from GET, and not unauthenticated ones', async () => {
        clock.set('2026-11-21T10:00:00.000Z');
        const tenant = await createTenant(ctx);
        const headers = { authorization: `Bearer ${tenant.apiKey.key}` };
        for (let i = 0; i < 2; i++) {
          const head = await ctx.app.inject({ method: 'HEAD', url: '/v1/users/me', headers });
          assert.equal(head.statusCode, 200);
          assert.equal(head.headers['x-ratelimit-remaining'], String(9_999 - i));
        }
        assert.equal((await ctx.app.inject({ method: 'GET', url: '/v1/users/me', headers })).statusCode, 200);
        assert.equal((await ctx.app.inject({ method: 'GET', url: '/v1/users/me' })).statusCode, 401);
        const usage = await client(ctx.app, tenant.apiKey.key)<Usage>('GET', '/v1/usage');
        assert.deepEqual(endpoints(usage.body), [
          ['HEAD /users/me', 2, 0],
          ['GET /users/me', 1, 0],
        ]);
        assert.equal(usage.body.quota.used, 4);
      });

      it('rejects an unknown period or parameter', async () => {
        const tenant = await createTenant(ctx);
        const api = client(ctx.app, tenant.apiKey.key);
        const bad = await api<Problem>('GET', '/v1/usage?period=year');
        assert.equal(bad.status, 400);
        assert.equal(bad.body.code, 'validation_failed');
        assert.deepEqual(bad.body.errors, [{ field: 'period', message: 'must be one of 7d, 30d, month' }]);
        const unknown = await api<Problem>('GET', '/v1/usage?from=2026-01-01');
        assert.equal(unknown.status, 400);
        assert.deepEqual(unknown.body.errors, [{ field: 'from', message: 'is not an accepted field' }]);
      });

      it('meters in memory and writes in batches, every second once started', async () => {
        clock.set('2026-11-21T10:00:00.000Z');
        const tenant = await createTenant(ctx);
        const api = client(ctx.app, tenant.apiKey.key);
        await Promise.all(Array.from({ length: 20 }, () => api('GET', '/v1/users/me')));
        assert.deepEqual(await storedRows(ctx, tenant.tenant.id), [], 'no write per request');
        await ctx.deps.usageMeter.flush();
        let rows = await storedRows(ctx, tenant.tenant.id);
        assert.deepEqual(
          rows.map((row) => [row.endpoint, Number(row.day), Number(row.calls), Number(row.errors)]),
          [['GET /users/me', Date.parse('2026-11-21'), 20, 0]],
        );

        ctx.deps.usageMeter.start();
        try {
          await api('GET', '/v1/users/me');
          const deadline = Date.now() + 2_000;
          while (Date.now() < deadline) {
            rows = await storedRows(ctx, tenant.tenant.id);
            if (Number(rows[0]?.calls) === 21) break;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          assert.equal(Number(rows[0]?.calls), 21, 'flushed by the timer within 2 s');
        } finally {
          await ctx.deps.usageMeter.stop();
        }
      });
    });

    describe(`usage across a restart (${dialect}, ${backend.name})`, () => {
      it('keeps the metered calls and the quota when the process restarts', async () => {
        const store = await migratedStore(dialect);
        const clock = new ManualClock();
        // With Redis, the second process gets another key prefix: its counter is missing, as after
        // a Redis flush, and must be seeded from the stored usage.
        const processEnv = () =>
          backend.name === 'redis'
            ? { ...backend.env, REDIS_KEY_PREFIX: `${backend.env.REDIS_KEY_PREFIX}${randomBase62(6)}:` }
            : backend.env;
        let deps = await createDeps(loadConfig({ ...store.env, ...processEnv() }), { clock, poolSize: 4 });
        let app = await buildApp(deps);
        try {
          const created = await deps.tenants.create({
            name: 'Restart',
            email: `restart-${randomBase62(6)}@example.com`,
          });
          await deps.tenants.setLimits(created.tenant.id, { monthly: 6 });
          const first = client(app, created.apiKey.key);
          assert.equal((await first('GET', '/v1/users/me')).status, 200);
          assert.equal((await first('GET', '/v1/users/me')).status, 200);
          assert.equal((await first('GET', '/v1/api-keys/key_gone')).status, 404);
          await app.close();
          await deps.close();

          deps = await createDeps(loadConfig({ ...store.env, ...processEnv() }), { clock, poolSize: 4 });
          app = await buildApp(deps);
          const second = client(app, created.apiKey.key);
          const usage = await second<Usage>('GET', '/v1/usage');
          assert.equal(usage.status, 200);
          assert.equal(usage.body.total_calls, 3);
          assert.equal(usage.body.total_errors, 1);
          assert.equal(usage.body.quota.used, 4);
          assert.equal((await second('GET', '/v1/users/me')).status, 200);
          assert.equal((await second('GET', '/v1/users/me')).status, 200);
          const refused = await second<Problem>('GET', '/v1/users/me');
          assert.equal(refused.status, 429);
          assert.equal(refused.body.code, 'quota_exceeded');
        } finally {
          await app.close();
          await deps.close();
          await store.drop();
          await backend.cleanup();
        }
      });
    });
  }
}
