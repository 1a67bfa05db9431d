import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runAdmin } from '../src/cli/admin.js';
import { type Config, loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { randomBase62 } from '../src/lib/ids.js';
import { DIALECTS, migratedStore, TEST_REDIS_URL, type TestStore } from './helpers/context.js';
import { dropRedisKeys, redisTestPrefix } from './helpers/redis.js';
import { type ServerProcess, spawnServer } from './helpers/process.js';

/**
 * Two real server processes over one store and one Redis: the hourly limit and the monthly quota
 * hold exactly across both, and /usage shows the calls both served. The servers use the system
 * clock, so the limits are chosen to give nothing back during the test.
 */

interface Answer {
  status: number;
  code: string | undefined;
  retryAfter: string | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const dialect of DIALECTS) {
  describe(
    `limits shared by two server processes through Redis (${dialect})`,
    { skip: TEST_REDIS_URL ? false : 'TEST_REDIS_URL is not set' },
    () => {
      let store: TestStore;
      let config: Config;
      let servers: ServerProcess[] = [];
      const prefix = redisTestPrefix();
      const keys: Record<'hourly' | 'monthly' | 'plain', { tenantId: string; key: string }> = {
        hourly: { tenantId: '', key: '' },
        monthly: { tenantId: '', key: '' },
        plain: { tenantId: '', key: '' },
      };

      before(async () => {
        store = await migratedStore(dialect);
        const env = {
          ...store.env,
          REDIS_URL: TEST_REDIS_URL ?? '',
          REDIS_KEY_PREFIX: prefix,
        };
        config = loadConfig(env);
        const deps = await createDeps(config);
        try {
          for (const name of Object.keys(keys) as (keyof typeof keys)[]) {
            const created = await deps.tenants.create({
              name,
              email: `${name}-${randomBase62(6).toLowerCase()}@example.com`,
            });
            keys[name] = { tenantId: created.tenant.id, key: created.apiKey.key };
          }
        } finally {
          await deps.close();
        }
        for (const [name, flag, value] of [
          ['hourly', '--hourly', '50'],
          ['monthly', '--monthly', '30'],
        ] as const) {
          const result = await runAdmin(
            ['tenant:set-limits', '--tenant', keys[name].tenantId, flag, value, '--json'],
            config,
          );
          assert.equal(result.code, 0, result.stderr);
        }
        servers = await Promise.all([spawnServer(env), spawnServer(env)]);
      });

      after(async () => {
        await Promise.all(servers.map((server) => server.stop()));
        await store?.drop();
        await dropRedisKeys(prefix);
      });

      /** `count` requests at once, alternating between the two servers. */
      async function burst(key: string, count: number): Promise<Answer[]> {
        return Promise.all(
          Array.from({ length: count }, async (_, i) => {
            const server = servers[i % servers.length];
            assert.ok(server);
            const res = await fetch(`${server.url}/v1/users/me`, {
              headers: { authorization: `Bearer ${key}` },
            });
            const body = (await res.json()) as { code?: string };
            return { status: res.status, code: body.code, retryAfter: res.headers.get('retry-after') };
          }),
        );
      }

      it('admits exactly the hourly limit across both processes', async () => {
        const started = Date.now();
        const answers = await burst(keys.hourly.key, 200);
        // The next request is admitted 3600 s / 50 = 72 s after the burst's first; a refusal made
        // later in the burst (a loaded machine may take a few seconds) waits that much less.
        const burstSeconds = Math.ceil((Date.now() - started) / 1000);
        assert.equal(answers.filter((a) => a.status === 200).length, 50);
        const refused = answers.filter((a) => a.status === 429);
        assert.equal(refused.length, 150);
        for (const answer of refused) {
          assert.equal(answer.code, 'rate_limited');
          const wait = Number(answer.retryAfter);
          assert.ok(wait <= 72 && wait >= 72 - burstSeconds, `Retry-After ${answer.retryAfter}: 3600 s / 50`);
        }

        // Both processes metered their share; the stored rows hold all 200 within 2 seconds.
        await sleep(2_000);
        const deps = await createDeps(config);
        try {
          const rows = await deps.store.db
            .selectFrom('usage_daily')
            .selectAll()
            .where('tenant_id', '=', keys.hourly.tenantId)
            .execute();
          const sum = (field: 'calls' | 'errors' | 'rejected') =>
            rows.reduce((total, row) => total + Number(row[field]), 0);
          assert.deepEqual([sum('calls'), sum('errors'), sum('rejected')], [200, 150, 150]);
        } finally {
          await deps.close();
        }
      });

      it('exhausts the monthly quota exactly across both processes', async () => {
        const answers = await burst(keys.monthly.key, 100);
        assert.equal(answers.filter((a) => a.status === 200).length, 30);
        const refused = answers.filter((a) => a.status === 429);
        assert.equal(refused.length, 70);
        assert.ok(refused.every((a) => a.code === 'quota_exceeded' && Number(a.retryAfter) > 0));
      });

      it('shows the calls of both processes in /usage within 2 seconds', async () => {
        const answers = await burst(keys.plain.key, 40);
        assert.ok(answers.every((a) => a.status === 200));
        await sleep(2_000);
        const [first] = servers;
        assert.ok(first);
        const res = await fetch(`${first.url}/v1/usage`, {
          headers: { authorization: `Bearer ${keys.plain.key}` },
        });
        assert.equal(res.status, 200);
        const usage = (await res.json()) as {
          total_calls: number;
          quota: { used: number };
          top_endpoints: { endpoint: string; calls: number }[];
        };
        assert.equal(usage.total_calls, 40);
        assert.equal(usage.quota.used, 41);
        assert.deepEqual(
          usage.top_endpoints.map((e) => [e.endpoint, e.calls]),
          [['GET /users/me', 40]],
        );
      });
    },
  );
}
