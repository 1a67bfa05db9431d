import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runAdmin } from '../../cli/admin.js';
import { type Config, loadConfig } from '../../config.js';
import { createDeps } from '../../deps.js';
import { randomBase62 } from '../../lib/ids.js';
import { migratedStore, TEST_REDIS_URL, type TestStore } from '../../../test/helpers/context.js';
import { caller, type ServerProcess, spawnServer, WORKER_READY } from '../../../test/helpers/process.js';
import { dropRedisKeys, redisTestPrefix } from '../../../test/helpers/redis.js';
import { eventually, type Receiver, startReceiver } from '../../../test/helpers/webhook-receiver.js';
import type { PluginObject } from './plugins.schemas.js';

const SKIP =
  process.env.TEST_DATABASE_URL && TEST_REDIS_URL
    ? false
    : 'needs TEST_DATABASE_URL and TEST_REDIS_URL (PostgreSQL and Redis shared by several processes)';

/**
 * Two API processes and a worker process on PostgreSQL and Redis. An installation token revoked
 * through one process is refused by the other on its very next request (tokens are never cached),
 * and the first-party apps run in the worker process, calling the API with their own token.
 */
describe('plugin installation tokens across processes (postgres, redis)', { skip: SKIP }, () => {
  let store: TestStore;
  let config: Config;
  let prefix: string;
  let rx: Receiver;
  const servers: ServerProcess[] = [];
  let worker: ServerProcess;
  let publisherKey: string;
  let storeKey: string;

  before(async () => {
    store = await migratedStore('postgres');
    prefix = redisTestPrefix();
    const env = {
      ...store.env,
      REDIS_URL: TEST_REDIS_URL ?? '',
      REDIS_KEY_PREFIX: prefix,
      LOG_LEVEL: 'warn',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1',
    };
    config = loadConfig(env);
    rx = await startReceiver();
    const deps = await createDeps(config);
    try {
      for (const name of ['publisher', 'store']) {
        const tenant = await deps.tenants.create({
          name,
          email: `${name}-${randomBase62(6).toLowerCase()}@example.com`,
        });
        if (name === 'publisher') publisherKey = tenant.apiKey.key;
        else storeKey = tenant.apiKey.key;
      }
    } finally {
      await deps.close();
    }
    const common = { ...env, WEBHOOK_WORKER_IN_PROCESS: 'false' };
    servers.push(await spawnServer(common), await spawnServer(common));
    worker = await spawnServer(common, 'src/worker.ts', { ready: WORKER_READY });
  });
  after(async () => {
    for (const server of [...servers, worker]) await server?.stop();
    await rx?.close();
    await dropRedisKeys(prefix);
    await store?.drop();
  });

  it('refuses a token uninstalled through another process on its very next request', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const publisher = caller(publisherKey);
    const shop = caller(storeKey);
    const created = await publisher<PluginObject>(a, 'POST', '/v1/plugins', {
      name: 'Two Process App',
      slug: 'two-process-app',
      description: 'Reads products.',
      category: 'inventory',
      permissions: ['read:products'],
      events: ['product.created'],
      webhook_url: `${rx.url}/hooks/two`,
    });
    assert.equal(created.status, 201);
    assert.equal((await publisher(b, 'POST', `/v1/plugins/${created.body.id}/submit`)).status, 200);
    const approved = await runAdmin(['plugin:approve', '--plugin', created.body.id], config);
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal((await shop(a, 'POST', `/v1/plugins/${created.body.id}/install`)).status, 201);
    const installed = await eventually(() =>
      rx.received
        .map((r) => JSON.parse(r.body) as { type: string; data: { object: { access_token?: string } } })
        .find((event) => event.type === 'app.installed'),
    );
    const token = String(installed.data.object.access_token);
    const app = caller(token);
    // Both processes serve it (and would have cached a key by now).
    for (const server of [a, b, a, b]) assert.equal((await app(server, 'GET', '/v1/products')).status, 200);
    assert.equal((await app(b, 'GET', '/v1/orders')).status, 403);
    assert.equal((await shop(a, 'DELETE', `/v1/plugins/${created.body.id}/install`)).status, 200);
    const next = await app<{ code: string }>(b, 'GET', '/v1/products');
    assert.equal(next.status, 401);
    assert.equal(next.body.code, 'invalid_api_key');
    assert.equal((await app(a, 'GET', '/v1/products')).status, 401);
  });

  it('runs the first-party apps in the worker process, through their own token', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const shop = caller(storeKey);
    assert.equal((await shop(a, 'POST', '/v1/plugins/sold-out-hider/install')).status, 201);
    const lamp = await shop<{ id: string; status: string }>(b, 'POST', '/v1/products', {
      name: 'Lamp',
      description: 'A lamp.',
      price: 1500,
      currency: 'USD',
      stock: 1,
    });
    assert.equal(lamp.status, 201);
    // The app may not have its token yet when the first events arrive: they are retried.
    assert.equal((await shop(a, 'PATCH', `/v1/products/${lamp.body.id}`, { stock: 0 })).status, 200);
    await eventually(
      async () =>
        (await shop<{ status: string }>(b, 'GET', `/v1/products/${lamp.body.id}`)).body.status === 'draft',
      30_000,
      'the sold-out product drafted',
    );
    // Its calls are metered in the worker process, which writes them every second.
    await eventually(
      async () => {
        const usage = await shop<{ apps: { name: string; calls: number }[] }>(a, 'GET', '/v1/usage');
        return (usage.body.apps.find((x) => x.name === 'Sold-out hider')?.calls ?? 0) >= 2;
      },
      30_000,
      "the app's calls under its name in /usage",
    );
  });
});
