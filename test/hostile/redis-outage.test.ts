import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { runAdmin } from '../../src/cli/admin.js';
import { loadConfig } from '../../src/config.js';
import { createDeps, type Deps } from '../../src/deps.js';
import { client, createTenant, createTestContext, DIALECTS, type TestContext } from '../helpers/context.js';
import { type PrivateRedis, privateRedisMissing, startPrivateRedis } from '../helpers/private-services.js';
import { SKIP_IN_UNIT_RUN } from '../helpers/process.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/**
 * Redis outages, against two app instances (two limiters, as two server processes would have) on
 * one store and one redis-server of the test's own, without persistence: `kill -9` and a start
 * give an empty Redis. Each app reaches it through a TCP proxy of its own, which cuts it off while
 * Redis keeps its data. Throughout, `quota.used` (GET /v1/usage, which counts itself) equals the
 * calls made exactly, and the hourly limit admits no more than the limit across the outage.
 */

const REDIS_MISSING = privateRedisMissing();
const HOURLY = 12;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition` every 20 ms for up to 30 s. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await sleep(20);
  }
}

interface App {
  name: string;
  app: FastifyInstance;
  deps: Deps;
}

for (const dialect of DIALECTS) {
  describe(
    `Redis killed, restarted empty and cut off (${dialect})`,
    { skip: REDIS_MISSING ?? SKIP_IN_UNIT_RUN },
    () => {
      let redis: PrivateRedis;
      let proxies: TcpProxy[] = [];
      let admin: Redis;
      let ctx: TestContext;
      let second: App;
      let apps: [App, App];
      const lines: string[] = [];
      const said = (text: string) => lines.filter((line) => line.includes(text)).length;

      before(async () => {
        redis = await startPrivateRedis();
        proxies = [await startTcpProxy(new URL(redis.url)), await startTcpProxy(new URL(redis.url))];
        admin = new Redis(redis.url);
        admin.on('error', () => undefined);
        const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
        const env = (proxy: TcpProxy) => ({
          REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
          REDIS_KEY_PREFIX: 'outage:',
        });
        const [first, other] = proxies as [TcpProxy, TcpProxy];
        ctx = await createTestContext(dialect, { logger, env: env(first) });
        const config = loadConfig({ ...ctx.store.env, ...env(other) });
        const deps = await createDeps(config, { logger, poolSize: 4 });
        second = { name: 'B', app: await buildApp(deps), deps };
        apps = [{ name: 'A', app: ctx.app, deps: ctx.deps }, second];
        // As servers do: metered calls reach the store every second.
        for (const { deps: each } of apps) each.start();
      });

      after(async () => {
        await second?.app.close();
        await second?.deps.close();
        await ctx?.close();
        admin?.disconnect();
        for (const proxy of proxies) await proxy.close();
        await redis?.destroy();
      });

      const inUse = (app: App) => app.deps.rateLimiter.redisState()?.inUse === true;
      const allOnRedis = () => eventually(() => apps.every(inUse), 'both apps to use Redis');
      /** Until each app has been seen off Redis (they may be back already: a reconnection takes 200 ms). */
      const noneOnRedis = () => {
        const noticed = new Set<App>();
        return eventually(() => {
          for (const app of apps) if (!inUse(app)) noticed.add(app);
          return noticed.size === apps.length;
        }, 'both apps to notice Redis is gone');
      };

      /** A tenant, its per-app clients, and the calls made with its key (every one admitted). */
      async function tenantWith(hourly?: number) {
        const created = await createTenant(ctx);
        if (hourly !== undefined) {
          const set = await runAdmin(
            ['tenant:set-limits', '--tenant', created.tenant.id, '--hourly', String(hourly), '--json'],
            ctx.config,
          );
          assert.equal(set.code, 0, set.stderr);
        }
        const api = apps.map(({ app }) => client(app, created.apiKey.key));
        let made = 0;
        return {
          get made() {
            return made;
          },
          /** `count` calls on app `at` (0: A, 1: B); resolves to how many were admitted. */
          async calls(at: 0 | 1, count: number): Promise<number> {
            let admitted = 0;
            for (let i = 0; i < count; i++) {
              const res = await api[at]?.<{ code?: string }>('GET', '/v1/users/me');
              assert.ok(res);
              if (res.status === 200) admitted += 1;
              else assert.equal(`${res.status} ${res.body.code}`, '429 rate_limited');
            }
            made += admitted;
            return admitted;
          },
          async used(at: 0 | 1): Promise<number> {
            const res = await api[at]?.<{ quota: { used: number } }>('GET', '/v1/usage');
            assert.equal(res?.status, 200);
            made += 1;
            return res.body.quota.used;
          },
        };
      }

      it('counts every call once and keeps the hourly window through kill -9 and an empty restart', async () => {
        const quota = await tenantWith();
        const hourly = await tenantWith(HOURLY);
        // Each app connects with its first call, then learns that two processes share the limits.
        assert.equal(await quota.calls(0, 3), 3);
        assert.equal(await quota.calls(1, 3), 3);
        await eventually(
          () => apps.every((app) => app.deps.rateLimiter.redisState()?.processes === 2),
          'both apps to count two processes',
        );
        let admitted = 0;
        for (const at of [0, 1, 0, 1] as const) admitted += await hourly.calls(at, 1);
        assert.equal(admitted, 4);
        assert.equal(await quota.used(0), quota.made);

        await redis.crash();
        await noneOnRedis();
        assert.equal(await quota.calls(0, 4), 4);
        assert.equal(await quota.calls(1, 4), 4);
        // Each app admits half of what was left when it last heard from Redis: A heard 9, B 8.
        const duringA = await hourly.calls(0, 10);
        const duringB = await hourly.calls(1, 10);
        assert.deepEqual([duringA, duringB], [4, 4]);
        admitted += duringA + duringB;
        // Each app counts on its own meanwhile: never more than the calls made.
        assert.ok((await quota.used(1)) <= quota.made);

        // Both apps' calls are in the store (each flushes every second; here, now). Redis comes back
        // empty, and A reconciles first: the hourly level it last heard (3) is below B's (4), and B's
        // must still count in full. A then seeds the month counter from the store, which holds B's
        // calls too, so B's must not be added to it once B is back.
        // On SQLite the two apps are two connections to one file: a flush may meet the other app's
        // own (every second) and be told the file is busy; it keeps its counts, so flush again.
        for (const { deps } of apps) {
          let flushed = false;
          const deadline = Date.now() + 30_000;
          while (!flushed) {
            assert.ok(Date.now() < deadline, 'the usage rows could not be written');
            flushed = await deps.usageMeter.flush().then(
              () => true,
              () => false,
            );
          }
        }
        await proxies[1]?.pause();
        await redis.start();
        await eventually(() => inUse(apps[0]), 'A to use Redis');
        assert.equal(await quota.calls(0, 2), 2);
        await proxies[1]?.resume();
        await allOnRedis();
        assert.equal(await quota.calls(1, 2), 2);
        assert.equal(await quota.used(0), quota.made);
        assert.equal(await quota.used(1), quota.made);
        // The window did not reset with Redis: what both apps admitted is still in it.
        admitted += await hourly.calls(0, 5);
        admitted += await hourly.calls(1, 5);
        assert.equal(admitted, HOURLY);

        // A lost connection to a Redis that keeps its data hands nothing over again.
        await admin.call('CLIENT', 'KILL', 'TYPE', 'normal');
        await noneOnRedis();
        await allOnRedis();
        assert.equal(await quota.calls(0, 2), 2);
        assert.equal(await quota.used(0), quota.made);
        // Nor does one more empty restart, without calls in between.
        await redis.crash();
        await noneOnRedis();
        await redis.start();
        await allOnRedis();
        assert.equal(await quota.calls(0, 1), 1);
        assert.equal(await quota.used(0), quota.made);
        assert.equal(await hourly.calls(0, 1), 0);
      });

      it('applies a batch whose answer was lost once, and counts a call whose command timed out once', async () => {
        const quota = await tenantWith();
        assert.equal(await quota.calls(0, 2), 2);

        // Cut off while Redis keeps its data: A counts 3 calls that Redis has not seen.
        for (const proxy of proxies) await proxy.pause();
        await noneOnRedis();
        assert.equal(await quota.calls(0, 3), 3);
        // Redis holds every script until the pause ends: A's hand-over times out, and runs later.
        const failures = said('could not reconcile');
        await admin.call('CLIENT', 'PAUSE', 3_000, 'WRITE');
        for (const proxy of proxies) await proxy.resume();
        await eventually(() => said('could not reconcile') > failures, 'the hand-over to time out');
        await admin.set('outage:probe', '1'); // answers once the pause is over
        // A resends the same batch, which adds nothing now.
        assert.equal(await quota.calls(0, 1), 1);
        assert.equal(await quota.used(0), quota.made);

        // A request whose script times out is admitted locally; Redis counts it when the pause ends.
        await admin.call('CLIENT', 'PAUSE', 1_500, 'WRITE');
        assert.equal(await quota.calls(0, 1), 1);
        await admin.set('outage:probe', '2');
        assert.equal(await quota.calls(0, 1), 1);
        assert.equal(await quota.used(0), quota.made);
        assert.equal(await quota.used(1), quota.made);
      });
    },
  );
}
