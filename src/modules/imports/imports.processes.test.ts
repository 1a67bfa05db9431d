import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../config.js';
import { createDeps, type Deps } from '../../deps.js';
import { DIALECTS, migratedStore, type TestStore } from '../../../test/helpers/context.js';
import {
  type ServerProcess,
  SKIP_IN_UNIT_RUN,
  spawnServer,
  WORKER_READY,
} from '../../../test/helpers/process.js';
import type { ImportObject } from './imports.schemas.js';

/**
 * Imports run in the background of real processes: inside the server by default, and in
 * `npm run worker` when the server is told not to run background work (WEBHOOK_WORKER_IN_PROCESS=false).
 */

const FILE = [
  'handle,name,sku,price,stock',
  ...Array.from({ length: 40 }, (_, i) => `p${i},Process ${i},PRC-${i},${100 + i},1`),
].join('\n');

async function until(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

for (const dialect of DIALECTS) {
  describe(`imports in server and worker processes (${dialect})`, { skip: SKIP_IN_UNIT_RUN }, () => {
    let store: TestStore;
    /** The store as the test reads it, beside the processes (it runs no background work itself). */
    let deps: Deps;
    let key = '';
    const started: ServerProcess[] = [];

    before(async () => {
      store = await migratedStore(dialect);
      deps = await createDeps(loadConfig(store.env), { poolSize: 2 });
      key = (await deps.tenants.create({ name: 'Processes', email: 'imports@example.com' })).apiKey.key;
    });
    after(async () => {
      for (const child of started) await child.stop();
      await deps?.close();
      await store?.drop();
    });

    /** An import's row: its status and the claims runners made of it. */
    const row = (id: string) =>
      deps.store.db
        .selectFrom('imports')
        .select(['status', 'attempts', 'started_at', 'created_count', 'unchanged_count'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();

    const send = async (server: ServerProcess, method: string, path: string, body?: string) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'text/csv' }),
        },
        ...(body === undefined ? {} : { body }),
      });
      return { status: res.status, body: (await res.json()) as ImportObject };
    };

    it('runs an import inside the server by default', async () => {
      const server = await spawnServer(store.env);
      started.push(server);
      const created = await send(server, 'POST', '/v1/imports?resource=products', FILE);
      assert.equal(created.status, 202);
      await until(
        async () => (await send(server, 'GET', `/v1/imports/${created.body.id}`)).body.status === 'succeeded',
      );
      const done = (await send(server, 'GET', `/v1/imports/${created.body.id}`)).body;
      assert.deepEqual([done.created_count, done.error_count], [40, 0]);
      assert.equal(await server.stop(), 0);
      started.pop();
    });

    it(
      'leaves imports to the worker when the server runs no background work',
      { skip: dialect === 'sqlite' ? 'a worker process beside the server: PostgreSQL' : false },
      async () => {
        const api = await spawnServer({ ...store.env, WEBHOOK_WORKER_IN_PROCESS: 'false' });
        started.push(api);
        const created = await send(
          api,
          'POST',
          '/v1/imports?resource=products',
          FILE.replaceAll('PRC-', 'WRK-'),
        );
        assert.equal(created.status, 202);
        // The whole life of the server, stopped as an operator stops it (a runner of its own would
        // have been woken by the import's commit, and would finish what it claimed before exiting):
        // it never claimed the import, which is as it was queued.
        assert.equal(await api.stop(), 0);
        started.pop();
        assert.deepEqual(await row(created.body.id), {
          status: 'queued',
          attempts: 0,
          started_at: null,
          created_count: 0,
          unchanged_count: 0,
        });
        const worker = await spawnServer(store.env, 'src/worker.ts', { ready: WORKER_READY });
        started.push(worker);
        await until(async () => (await row(created.body.id)).status === 'succeeded');
        const done = await row(created.body.id);
        assert.deepEqual([done.attempts, done.created_count, done.unchanged_count], [1, 40, 0]);
        assert.match(worker.output(), /Import runner imr_\w+ running/);
      },
    );
  });
}
