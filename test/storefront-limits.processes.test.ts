import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { randomBase62 } from '../src/lib/ids.js';
import { DIALECTS, migratedStore, TEST_REDIS_URL, type TestStore } from './helpers/context.js';
import { dropRedisKeys, redisTestPrefix } from './helpers/redis.js';
import { type ServerProcess, spawnServer } from './helpers/process.js';

/**
 * Two real server processes over one store and one Redis: a buyer address's storefront allowance
 * (the store's `storefront.requests_per_minute`) is one allowance, whichever process serves it. The
 * servers use the system clock: a request of 10 a minute comes back every 6 s, so the count of
 * admitted requests may grow by one for every 6 s the burst took.
 */

interface Answer {
  status: number;
  code: string | undefined;
  retryAfter: string | null;
  policy: string | null;
}

const LIMIT = 10;

for (const dialect of DIALECTS) {
  describe(
    `storefront limits shared by two server processes through Redis (${dialect})`,
    { skip: TEST_REDIS_URL ? false : 'TEST_REDIS_URL is not set' },
    () => {
      let store: TestStore;
      let servers: ServerProcess[] = [];
      const prefix = redisTestPrefix();
      let secret = '';
      let publishable = '';

      before(async () => {
        store = await migratedStore(dialect);
        const env = { ...store.env, REDIS_URL: TEST_REDIS_URL ?? '', REDIS_KEY_PREFIX: prefix };
        const deps = await createDeps(loadConfig(env));
        try {
          const created = await deps.tenants.create({
            name: 'Two process shop',
            email: `shop-${randomBase62(6).toLowerCase()}@example.com`,
          });
          secret = created.apiKey.key;
        } finally {
          await deps.close();
        }
        servers = await Promise.all([spawnServer(env), spawnServer(env)]);
        const [first] = servers;
        assert.ok(first);
        const admin = (method: string, path: string, body: unknown) =>
          fetch(`${first.url}${path}`, {
            method,
            headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
        const key = await admin('POST', '/v1/api-keys', {
          type: 'publishable',
          name: 'Shop',
          allowed_origins: [],
        });
        assert.equal(key.status, 201);
        publishable = ((await key.json()) as { key: string }).key;
        const settings = await admin('PATCH', '/v1/settings', { storefront: { requests_per_minute: LIMIT } });
        assert.equal(settings.status, 200);
      });

      after(async () => {
        await Promise.all(servers.map((server) => server.stop()));
        await store?.drop();
        await dropRedisKeys(prefix);
      });

      it('admits one address its allowance once across both processes, and refuses the rest with 429', async () => {
        const started = Date.now();
        const answers: Answer[] = await Promise.all(
          Array.from({ length: 3 * LIMIT }, async (_, i) => {
            const server = servers[i % servers.length];
            assert.ok(server);
            const res = await fetch(`${server.url}/v1/store/products`, {
              headers: { authorization: `Bearer ${publishable}` },
            });
            const body = (await res.json()) as { code?: string };
            return {
              status: res.status,
              code: body.code,
              retryAfter: res.headers.get('retry-after'),
              policy: res.headers.get('ratelimit-policy'),
            };
          }),
        );
        const refills = Math.floor((Date.now() - started) / 6_000);
        const admitted = answers.filter((a) => a.status === 200).length;
        // Each process on its own would admit LIMIT: 2 * LIMIT in all.
        assert.ok(admitted >= LIMIT && admitted <= LIMIT + refills, `${admitted} admitted`);
        const refused = answers.filter((a) => a.status === 429);
        assert.equal(refused.length, 3 * LIMIT - admitted);
        for (const answer of refused) {
          assert.equal(answer.code, 'rate_limited');
          assert.equal(answer.policy, `"storefront";q=${LIMIT};w=60`);
          assert.ok(Number(answer.retryAfter) >= 1 && Number(answer.retryAfter) <= 6, `${answer.retryAfter}`);
        }
        for (const answer of answers.filter((a) => a.status === 200))
          assert.equal(answer.policy, `"storefront";q=${LIMIT};w=60`);

        // Another buyer (a server-rendered shop naming its shopper) has an allowance of its own.
        const [, second] = servers;
        assert.ok(second);
        const other = await fetch(`${second.url}/v1/store/products`, {
          headers: { authorization: `Bearer ${secret}`, 'x-buyer-ip': '203.0.113.40' },
        });
        assert.equal(other.status, 200);
      });
    },
  );
}
