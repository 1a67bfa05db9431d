import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { runAdmin } from '../../cli/admin.js';
import { ManualClock } from '../../lib/clock.js';
import { randomBase62 } from '../../lib/ids.js';
import type { TenantSummary } from '../../lib/principal.js';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  TEST_REDIS_URL,
  type TestContext,
} from '../../../test/helpers/context.js';
import { counterBackends, dropRedisKeys, redisTestPrefix } from '../../../test/helpers/redis.js';
import type { Problem } from '../../../test/helpers/responses.js';
import { startTcpProxy, type TcpProxy } from '../../../test/helpers/tcp-proxy.js';
import { AI_WINDOW_MS, HOUR_MS, type LimitDecision } from './limits.policy.js';
import { createRateLimiter } from './limits.limiter.js';
import { endpointName } from '../usage/usage.hooks.js';
import type { Usage } from '../usage/usage.schemas.js';
import { limitsOf, PLAN_LIMITS } from './limits.plans.js';

const AI_PROBE = '/v1/test/ai-probe';
const AI_WRITE_PROBE = '/v1/test/ai-write-probe';

async function setLimitsWithCli(ctx: TestContext, tenantId: string, ...args: string[]): Promise<void> {
  const result = await runAdmin(['tenant:set-limits', '--tenant', tenantId, ...args, '--json'], ctx.config);
  assert.equal(result.code, 0, result.stderr);
}

/** Polls `condition` every 20 ms for up to 10 s. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function countBy<T>(items: T[], key: (item: T) => string | number): Map<string | number, number> {
  const counts = new Map<string | number, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

for (const dialect of DIALECTS) {
  for (const backend of counterBackends()) {
    describe(`rate limits and monthly quota (${dialect}, ${backend.name})`, () => {
      let ctx: TestContext;
      const clock = new ManualClock();

      before(async () => {
        ctx = await createTestContext(dialect, {
          clock,
          env: backend.env,
          extraRoutes: (app) => {
            app.get(AI_PROBE, { config: { auth: 'any_key', rateLimit: 'ai' } }, async () => ({ ok: true }));
            app.get(AI_WRITE_PROBE, { config: { auth: 'write:ai', rateLimit: 'ai' } }, async () => ({
              ok: true,
            }));
          },
        });
        assert.equal(ctx.deps.rateLimiter.backend, backend.name);
      });
      after(async () => {
        await ctx.close();
        await backend.cleanup();
      });

      it('puts the limit headers on every authenticated response, and only there', async () => {
        clock.set('2026-11-21T10:00:00.000Z');
        const pro = await createTenant(ctx);
        const res = await client(ctx.app, pro.apiKey.key)('GET', '/v1/users/me');
        assert.equal(res.status, 200);
        assert.equal(
          res.headers['ratelimit-policy'],
          '"hourly";q=10000;w=3600, "monthly";q=100000;w=2592000',
        );
        // One request of 10,000/h: whole again in 0.36 s, rounded up.
        assert.equal(res.headers['ratelimit'], '"hourly";r=9999;t=1');
        assert.equal(res.headers['x-ratelimit-limit'], '10000');
        assert.equal(res.headers['x-ratelimit-remaining'], '9999');
        assert.equal(res.headers['x-ratelimit-reset'], String(Math.ceil((clock.now() + 360) / 1000)));

        const free = await createTenant(ctx, { plan: 'free' });
        const freeRes = await client(ctx.app, free.apiKey.key)('GET', '/v1/versions');
        assert.equal(
          freeRes.headers['ratelimit-policy'],
          '"hourly";q=1000;w=3600, "monthly";q=10000;w=2592000',
        );
        assert.equal(freeRes.headers['x-ratelimit-remaining'], '999');

        // Error responses of an authenticated caller carry them too.
        const missing = await client(ctx.app, pro.apiKey.key)('GET', '/v1/api-keys/key_nope');
        assert.equal(missing.status, 404);
        assert.equal(missing.headers['x-ratelimit-remaining'], '9998');

        const anonymous = await client(ctx.app)('GET', '/v1/users/me');
        assert.equal(anonymous.status, 401);
        for (const header of ['ratelimit', 'ratelimit-policy', 'x-ratelimit-limit', 'retry-after']) {
          assert.equal(anonymous.headers[header], undefined, header);
        }
        const health = await client(ctx.app)('GET', '/healthz');
        assert.equal(health.headers['ratelimit'], undefined);
      });

      it('admits exactly N of 200 concurrent requests; the others get 429 rate_limited with Retry-After', async () => {
        clock.set('2026-11-21T10:00:00.000Z');
        const tenant = await createTenant(ctx);
        // 37 does not divide an hour in whole milliseconds: the integer arithmetic must still be exact.
        await setLimitsWithCli(ctx, tenant.tenant.id, '--hourly', '37');
        const api = client(ctx.app, tenant.apiKey.key);
        const responses = await Promise.all(
          Array.from({ length: 200 }, () => api<Problem>('GET', '/v1/users/me')),
        );

        assert.deepEqual([...countBy(responses, (r) => r.status)].sort(), [
          [200, 37],
          [429, 163],
        ]);
        const admitted = responses.filter((r) => r.status === 200);
        assert.deepEqual(
          admitted.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((a, b) => a - b),
          Array.from({ length: 37 }, (_, i) => i),
          'every admitted request saw its own remaining count',
        );
        const resetAfterBurst = String(Math.ceil((clock.now() + HOUR_MS) / 1000));
        for (const res of responses.filter((r) => r.status === 429)) {
          assert.match(String(res.headers['content-type']), /application\/problem\+json/);
          assert.equal(res.body.code, 'rate_limited');
          assert.equal(res.body.status, 429);
          // One more request fits after 3600/37 s = 97.3 s.
          assert.equal(res.headers['retry-after'], '98');
          assert.equal(res.headers['ratelimit'], '"hourly";r=0;t=98');
          assert.equal(res.headers['ratelimit-policy'], '"hourly";q=37;w=3600, "monthly";q=100000;w=2592000');
          assert.equal(res.headers['x-ratelimit-limit'], '37');
          assert.equal(res.headers['x-ratelimit-remaining'], '0');
          assert.equal(res.headers['x-ratelimit-reset'], resetAfterBurst);
        }

        // Refused requests cost no quota; they are metered as errors.
        await ctx.deps.tenants.setLimits(tenant.tenant.id, { hourly: 1000 });
        const usage = await api<Usage>('GET', '/v1/usage');
        assert.equal(usage.status, 200);
        assert.equal(usage.body.quota.used, 38, '37 admitted calls and this one');
        assert.equal(usage.body.total_calls, 200);
        assert.equal(usage.body.total_errors, 163);
        assert.deepEqual(
          usage.body.top_endpoints.map((e) => [e.endpoint, e.calls, e.errors]),
          [['GET /users/me', 200, 163]],
        );
      });

      it('refuses with 429 quota_exceeded once the monthly quota is used up, until the month ends', async () => {
        clock.set('2026-11-21T10:00:00.000Z');
        const tenant = await createTenant(ctx);
        await setLimitsWithCli(ctx, tenant.tenant.id, '--monthly', '10');
        const api = client(ctx.app, tenant.apiKey.key);
        const responses = await Promise.all(
          Array.from({ length: 200 }, () => api<Problem>('GET', '/v1/versions')),
        );
        assert.equal(responses.filter((r) => r.status === 200).length, 10);
        const refused = responses.filter((r) => r.status === 429);
        assert.equal(refused.length, 190);
        // 2026-11-21T10:00Z to 2026-12-01T00:00Z.
        const untilDecember = 9 * 86_400 + 14 * 3_600;
        for (const res of refused) {
          assert.equal(res.body.code, 'quota_exceeded');
          assert.equal(res.headers['retry-after'], String(untilDecember));
          assert.equal(res.headers['ratelimit'], `"monthly";r=0;t=${untilDecember}`);
          assert.equal(res.headers['ratelimit-policy'], '"hourly";q=10000;w=3600, "monthly";q=10;w=2592000');
          // The hourly headers still describe the hourly window: refused requests took nothing.
          assert.equal(res.headers['x-ratelimit-remaining'], '9990');
        }
        const last = responses
          .filter((r) => r.status === 200)
          .find((r) => r.headers['ratelimit'] === `"monthly";r=0;t=${untilDecember}`);
        assert.ok(last, 'the tenth admitted call reports the monthly quota as the tighter one');

        // Raising the quota lets calls through again at once; the refused 190 were never counted.
        await ctx.deps.tenants.setLimits(tenant.tenant.id, { monthly: 12 });
        assert.equal((await api('GET', '/v1/versions')).status, 200);
        const usage = await api<Usage>('GET', '/v1/usage');
        assert.equal(usage.status, 200);
        assert.equal(usage.body.quota.used, 12);
        assert.equal(usage.body.quota.remaining, 0);
        assert.equal((await api<Problem>('GET', '/v1/versions')).body.code, 'quota_exceeded');
      });

      it('gives the hourly allowance back continuously and whole one hour after a burst', async () => {
        clock.set('2026-11-21T11:00:00.000Z');
        const tenant = await createTenant(ctx);
        await ctx.deps.tenants.setLimits(tenant.tenant.id, { hourly: 5 });
        const api = client(ctx.app, tenant.apiKey.key);
        const burst = async () => {
          for (let remaining = 4; remaining >= 0; remaining--) {
            const res = await api('GET', '/v1/users/me');
            assert.equal(res.status, 200);
            assert.equal(res.headers['x-ratelimit-remaining'], String(remaining));
          }
        };
        await burst();
        let res = await api<Problem>('GET', '/v1/users/me');
        assert.equal(res.status, 429);
        assert.equal(res.headers['retry-after'], '720', '3600 s / 5');
        assert.equal(res.headers['ratelimit'], '"hourly";r=0;t=720');
        assert.equal(res.headers['x-ratelimit-reset'], String(Math.ceil((clock.now() + HOUR_MS) / 1000)));

        clock.advance(719_000);
        res = await api<Problem>('GET', '/v1/users/me');
        assert.equal(res.status, 429);
        assert.equal(res.headers['retry-after'], '1');

        clock.advance(1_000);
        res = await api<Problem>('GET', '/v1/users/me');
        assert.equal(res.status, 200, 'one request came back after 720 s');
        assert.equal(res.headers['x-ratelimit-remaining'], '0');
        res = await api<Problem>('GET', '/v1/users/me');
        assert.equal(res.status, 429);
        assert.equal(res.headers['retry-after'], '720');

        clock.advance(HOUR_MS);
        await burst();
        assert.equal((await api('GET', '/v1/users/me')).status, 429);
      });

      it('limits and counts a valid key that lacks the permission (403), and lets 429 win over 403', async () => {
        clock.set('2026-11-21T14:00:00.000Z');
        const tenant = await createTenant(ctx);
        await ctx.deps.tenants.setLimits(tenant.tenant.id, { hourly: 3 });
        const created = await client(ctx.app, tenant.apiKey.key)<{ key: string }>('POST', '/v1/api-keys', {
          body: { name: 'usage only', permissions: ['read:usage'] },
        });
        assert.equal(created.status, 201);
        const usageOnly = client(ctx.app, created.body.key);
        const forbidden = await usageOnly<Problem>('GET', '/v1/users/me');
        assert.equal(forbidden.status, 403);
        assert.equal(forbidden.headers['x-ratelimit-remaining'], '1', 'the key creation and this call');
        const usage = await usageOnly<Usage>('GET', '/v1/usage');
        assert.equal(usage.body.quota.used, 3);
        assert.deepEqual(
          usage.body.top_endpoints.map((e) => [e.endpoint, e.calls, e.errors]),
          [
            ['GET /users/me', 1, 1],
            ['POST /api-keys', 1, 0],
          ],
        );
        const limited = await usageOnly<Problem>('GET', '/v1/users/me');
        assert.equal(limited.status, 429);
        assert.equal(limited.body.code, 'rate_limited');
      });

      it('applies the per-minute AI limit on routes that opt in, on top of the hourly limit', async () => {
        clock.set('2026-11-21T15:00:00.000Z');
        const tenant = await createTenant(ctx);
        const api = client(ctx.app, tenant.apiKey.key);
        const responses = await Promise.all(Array.from({ length: 61 }, () => api<Problem>('GET', AI_PROBE)));
        const ok = responses.filter((r) => r.status === 200);
        const refused = responses.filter((r) => r.status === 429);
        assert.equal(ok.length, 60);
        assert.equal(refused.length, 1);
        const [limited] = refused;
        assert.ok(limited);
        assert.equal(limited.body.code, 'rate_limited');
        assert.equal(limited.headers['retry-after'], '1', 'one AI request per second comes back');
        assert.equal(limited.headers['ratelimit'], '"ai";r=0;t=1');
        assert.equal(
          limited.headers['ratelimit-policy'],
          '"hourly";q=10000;w=3600, "monthly";q=100000;w=2592000, "ai";q=60;w=60',
        );
        assert.equal(limited.headers['x-ratelimit-remaining'], '9940', 'AI calls count against the hour');

        // Other routes are not held back by the AI limit, and do not advertise it.
        const other = await api('GET', '/v1/users/me');
        assert.equal(other.status, 200);
        assert.equal(
          other.headers['ratelimit-policy'],
          '"hourly";q=10000;w=3600, "monthly";q=100000;w=2592000',
        );
        assert.equal(other.headers['ratelimit'], '"hourly";r=9939;t=22');

        clock.advance(1_000);
        assert.equal((await api('GET', AI_PROBE)).status, 200);
        assert.equal((await api('GET', AI_PROBE)).status, 429);
        clock.advance(AI_WINDOW_MS);
        const again = await Promise.all(Array.from({ length: 61 }, () => api('GET', AI_PROBE)));
        assert.equal(again.filter((r) => r.status === 200).length, 60);
      });

      it('refuses a key without the AI permission with 403 without spending the AI allowance', async () => {
        clock.set('2026-11-21T16:00:00.000Z');
        const tenant = await createTenant(ctx);
        const full = client(ctx.app, tenant.apiKey.key);
        const created = await full<{ key: string }>('POST', '/v1/api-keys', {
          body: { name: 'usage only', permissions: ['read:usage'] },
        });
        const usageOnly = client(ctx.app, created.body.key);
        const refused = await Promise.all(
          Array.from({ length: 70 }, () => usageOnly<Problem>('GET', AI_WRITE_PROBE)),
        );
        assert.deepEqual([...countBy(refused, (r) => r.status)], [[403, 70]]);
        // The tenant's AI allowance is whole.
        const allowed = await Promise.all(Array.from({ length: 61 }, () => full('GET', AI_WRITE_PROBE)));
        assert.deepEqual([...countBy(allowed, (r) => r.status)].sort(), [
          [200, 60],
          [429, 1],
        ]);
      });

      it('starts a new quota at 00:00 UTC on the first of the month', async () => {
        clock.set('2026-11-30T23:59:30.000Z');
        const tenant = await createTenant(ctx);
        await ctx.deps.tenants.setLimits(tenant.tenant.id, { monthly: 3 });
        const api = client(ctx.app, tenant.apiKey.key);
        for (let i = 0; i < 3; i++) assert.equal((await api('GET', '/v1/users/me')).status, 200);
        const refused = await api<Problem>('GET', '/v1/users/me');
        assert.equal(refused.body.code, 'quota_exceeded');
        assert.equal(refused.headers['retry-after'], '30');

        clock.set('2026-12-01T00:00:00.000Z');
        const res = await api('GET', '/v1/users/me');
        assert.equal(res.status, 200);
        assert.equal(res.headers['ratelimit'], `"monthly";r=2;t=${31 * 86_400}`);
        const usage = await api<Usage>('GET', '/v1/usage');
        assert.equal(usage.body.quota.used, 2);
        assert.equal(usage.body.quota.resets_at, '2027-01-01T00:00:00.000Z');
        assert.equal(usage.body.period.from, '2026-12-01T00:00:00.000Z');
        assert.equal(usage.body.total_calls, 1, 'November calls are not in December');
      });
    });
  }

  describe(`rate limits while Redis is unreachable (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock();
    const lines: string[] = [];

    before(async () => {
      const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
      // Port 1: nothing listens, connections are refused at once.
      ctx = await createTestContext(dialect, { clock, logger, env: { REDIS_URL: 'redis://127.0.0.1:1' } });
    });
    after(() => ctx.close());

    it('falls back to this process’s own counters and says so once', async () => {
      const tenant = await createTenant(ctx);
      await ctx.deps.tenants.setLimits(tenant.tenant.id, { hourly: 3, monthly: 100 });
      const api = client(ctx.app, tenant.apiKey.key);
      const responses = await Promise.all(
        Array.from({ length: 10 }, () => api<Problem>('GET', '/v1/users/me')),
      );
      assert.equal(responses.filter((r) => r.status === 200).length, 3);
      assert.ok(responses.filter((r) => r.status === 429).every((r) => r.body.code === 'rate_limited'));
      clock.advance(HOUR_MS);
      const usage = await api<Usage>('GET', '/v1/usage');
      assert.equal(usage.status, 200);
      assert.equal(usage.body.quota.used, 4);
      const warnings = lines.filter((line) => line.includes('Redis is unreachable'));
      assert.equal(warnings.length, 1, lines.join('\n'));
    });
  });

  describe(
    `rate limits when Redis goes away and comes back (${dialect})`,
    { skip: TEST_REDIS_URL ? false : 'TEST_REDIS_URL is not set' },
    () => {
      let ctx: TestContext;
      let proxy: TcpProxy;
      const clock = new ManualClock();
      const lines: string[] = [];
      const prefix = redisTestPrefix();

      before(async () => {
        proxy = await startTcpProxy(new URL(TEST_REDIS_URL ?? ''));
        const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
        ctx = await createTestContext(dialect, {
          clock,
          logger,
          env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_KEY_PREFIX: prefix },
        });
      });
      after(async () => {
        await ctx.close();
        await proxy.close();
        await dropRedisKeys(prefix);
      });

      it('counts locally during the outage and hands those calls to Redis once, when it is back', async () => {
        const tenant = await createTenant(ctx);
        await ctx.deps.tenants.setLimits(tenant.tenant.id, { monthly: 40 });
        const api = client(ctx.app, tenant.apiKey.key);
        /** Calls once; the quota is the tighter policy, so `RateLimit` reports what is left of it. */
        const monthlyLeft = async () => {
          const res = await api('GET', '/v1/versions');
          assert.equal(res.status, 200);
          const match = /^"monthly";r=(\d+);/.exec(String(res.headers['ratelimit']));
          assert.ok(match?.[1], String(res.headers['ratelimit']));
          return Number(match[1]);
        };
        const said = (text: string) => lines.filter((line) => line.includes(text)).length;
        const inUse = () => ctx.deps.rateLimiter.redisState()?.inUse === true;

        assert.deepEqual([await monthlyLeft(), await monthlyLeft(), await monthlyLeft()], [39, 38, 37]);
        await proxy.pause();
        await eventually(() => !inUse(), 'the process to notice the lost connection');
        // Local counters, starting from the 3 calls Redis had counted, take over.
        assert.deepEqual([await monthlyLeft(), await monthlyLeft()], [36, 35]);
        assert.equal(said('Redis is unreachable'), 1);

        // Back (Redis kept its data): the process hands the 2 calls over by itself, before any request.
        await proxy.resume();
        await eventually(() => said('Redis is reachable again') === 1, 'the process to use Redis again');
        assert.equal(await monthlyLeft(), 34);

        // Another lost connection, without calls meanwhile: nothing is handed over a second time.
        await proxy.pause();
        await eventually(() => !inUse(), 'the process to notice the lost connection');
        await proxy.resume();
        await eventually(inUse, 'the process to use Redis again');
        assert.equal(await monthlyLeft(), 33);
      });
    },
  );
}

describe('limits and endpoint names', () => {
  it('uses the plan limits unless the tenant has its own', () => {
    const tenant = { plan: 'free' as const, hourly_limit: null, monthly_limit: null };
    assert.deepEqual(limitsOf(tenant), { hourly: 1_000, monthly: 10_000 });
    assert.deepEqual(limitsOf({ ...tenant, plan: 'enterprise' }), { hourly: 100_000, monthly: 10_000_000 });
    assert.deepEqual(limitsOf({ ...tenant, plan: 'pro', monthly_limit: 7 }), { hourly: 10_000, monthly: 7 });
    assert.deepEqual(PLAN_LIMITS.pro, { hourly: 10_000, monthly: 100_000 });
  });

  it('names an endpoint by method and route template without /v1', () => {
    assert.equal(endpointName('GET', '/v1/products'), 'GET /products');
    assert.equal(endpointName('POST', '/v1/orders/:id/pay'), 'POST /orders/{id}/pay');
    assert.equal(
      endpointName('GET', '/v1/webhooks/:id/deliveries/:delivery_id'),
      'GET /webhooks/{id}/deliveries/{delivery_id}',
    );
    assert.equal(endpointName('GET', '/v1'), 'GET /');
  });
});

/**
 * The limiter itself, on random request sequences: GCRA's bound holds (at most L + d·L/W admitted
 * in any d milliseconds), the quota counts exactly the admitted calls per calendar month, and the
 * Redis script decides exactly as the in-memory counters do.
 */
describe('limiter properties', () => {
  const AI_PER_MINUTE = 3;
  const opArb = fc.record({
    advance: fc.oneof(
      fc.constant(0),
      fc.integer({ min: 1, max: 5_000 }),
      fc.integer({ min: 0, max: HOUR_MS }),
    ),
    ai: fc.boolean(),
  });
  const caseArb = fc.record({
    hourly: fc.integer({ min: 1, max: 12 }),
    monthly: fc.integer({ min: 1, max: 40 }),
    ops: fc.array(opArb, { minLength: 1, maxLength: 60 }),
  });
  const silent = pino({ level: 'silent' });

  /** The store's answer: the calls admitted so far in the month starting at `from`. */
  function seedFrom(perMonth: Map<string, number>) {
    return async (_tenantId: string, from: number) =>
      perMonth.get(new Date(from).toISOString().slice(0, 7)) ?? 0;
  }

  function tenantWith(hourly: number, monthly: number): TenantSummary {
    return {
      id: `ten_${randomBase62(24)}`,
      name: 'property',
      plan: 'pro',
      currency: 'USD',
      api_version: '2026-11-21',
      hourly_limit: hourly,
      monthly_limit: monthly,
      livemode: true,
    };
  }

  it('admits at most L + d·L/W requests in any d ms and counts exactly the admitted ones per month', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async ({ hourly, monthly, ops }) => {
        // Near a month's end, so sequences cross into the next month.
        const clock = new ManualClock(Date.parse('2026-11-30T22:00:00.000Z'));
        const perMonth = new Map<string, number>();
        const limiter = createRateLimiter({
          clock,
          logger: silent,
          seedMonth: seedFrom(perMonth),
          aiPerMinute: AI_PER_MINUTE,
        });
        const tenant = tenantWith(hourly, monthly);
        const admittedAt: number[] = [];
        const aiAdmittedAt: number[] = [];
        for (const op of ops) {
          clock.advance(op.advance);
          const now = clock.now();
          const decision = await limiter.check(tenant, op.ai);
          const month = new Date(now).toISOString().slice(0, 7);
          if (decision.admitted) {
            admittedAt.push(now);
            if (op.ai) aiAdmittedAt.push(now);
            perMonth.set(month, (perMonth.get(month) ?? 0) + 1);
          } else {
            assert.ok(decision.refused && decision.refused.retryAt > now);
          }
          assert.equal(decision.monthly.used, perMonth.get(month) ?? 0);
          assert.ok(decision.monthly.used <= monthly);
          for (const [times, limit, window] of [
            [admittedAt, hourly, HOUR_MS],
            [aiAdmittedAt, AI_PER_MINUTE, AI_WINDOW_MS],
          ] as const) {
            for (let i = 0; i < times.length; i++) {
              const start = times[i] ?? 0;
              const inWindow = times.filter((t) => t >= start && t <= now).length;
              assert.ok(inWindow <= limit + Math.floor(((now - start) * limit) / window));
            }
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('gives the whole allowance back after an idle window', async () => {
    const clock = new ManualClock();
    const limiter = createRateLimiter({ clock, logger: silent, seedMonth: async () => 0 });
    const tenant = tenantWith(7, 1_000);
    const burst = async () => {
      const decisions: LimitDecision[] = [];
      for (let i = 0; i < 8; i++) decisions.push(await limiter.check(tenant, false));
      return decisions.map((d) => d.admitted);
    };
    assert.deepEqual(await burst(), [true, true, true, true, true, true, true, false]);
    clock.advance(HOUR_MS - 1);
    assert.equal((await limiter.peek(tenant)).hourly.remaining, 6);
    clock.advance(1);
    assert.deepEqual(await burst(), [true, true, true, true, true, true, true, false]);
  });

  it('seeds a month’s counter from the stored usage once, however many requests wait for it', async () => {
    const clock = new ManualClock();
    let reads = 0;
    const limiter = createRateLimiter({
      clock,
      logger: silent,
      seedMonth: async (_tenant, from, to) => {
        reads += 1;
        assert.equal(new Date(from).toISOString(), '2026-11-01T00:00:00.000Z');
        assert.equal(new Date(to).toISOString(), '2026-12-01T00:00:00.000Z');
        return 8;
      },
    });
    const tenant = tenantWith(100, 10);
    const decisions = await Promise.all(Array.from({ length: 5 }, () => limiter.check(tenant, false)));
    assert.equal(reads, 1);
    assert.deepEqual(
      decisions.map((d) => d.admitted),
      [true, true, false, false, false],
    );
  });

  if (TEST_REDIS_URL) {
    it('decides in Redis exactly as in memory', async () => {
      const prefix = redisTestPrefix();
      await fc.assert(
        fc.asyncProperty(caseArb, async ({ hourly, monthly, ops }) => {
          const start = Date.parse('2026-11-30T22:00:00.000Z');
          const clocks = [new ManualClock(start), new ManualClock(start)] as const;
          const counts = [new Map<string, number>(), new Map<string, number>()] as const;
          const options = { logger: silent, aiPerMinute: AI_PER_MINUTE };
          const memory = createRateLimiter({ ...options, clock: clocks[0], seedMonth: seedFrom(counts[0]) });
          const shared = createRateLimiter({
            ...options,
            clock: clocks[1],
            seedMonth: seedFrom(counts[1]),
            redisUrl: TEST_REDIS_URL,
            keyPrefix: prefix,
          });
          try {
            const tenant = tenantWith(hourly, monthly);
            for (const op of ops) {
              for (const clock of clocks) clock.advance(op.advance);
              const month = new Date(clocks[0].now()).toISOString().slice(0, 7);
              const inMemory = await memory.check(tenant, op.ai);
              const inRedis = await shared.check(tenant, op.ai);
              assert.deepEqual(inRedis, inMemory);
              for (const map of counts) if (inMemory.admitted) map.set(month, (map.get(month) ?? 0) + 1);
              assert.deepEqual(await shared.peek(tenant), await memory.peek(tenant));
            }
          } finally {
            await shared.close();
          }
        }),
        { numRuns: 60 },
      );
      await dropRedisKeys(prefix);
    });
  }
});
