import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../config.js';
import { createDeps } from '../../deps.js';
import { openStore, type Store } from '../../db/store.js';
import { DIALECTS, migratedStore, type TestStore } from '../../../test/helpers/context.js';
import { type ServerProcess, SKIP_IN_UNIT_RUN, spawnServer } from '../../../test/helpers/process.js';
import { verifyRun } from './audit.chain.js';

/**
 * Two server processes on one store take concurrent changes of one tenant: no change waits on the
 * tenant's chain (entries are written unsealed), and both processes' sealers, each running about
 * every second, take turns on the chain's head; within a few seconds every entry is sealed, in one
 * unbroken chain, without any seal asked for by the test.
 */

const WRITES_PER_SERVER = 20;

for (const dialect of DIALECTS) {
  describe(`the audit chain under two server processes (${dialect})`, { skip: SKIP_IN_UNIT_RUN }, () => {
    let store: TestStore;
    let reader: Store;
    const servers: ServerProcess[] = [];

    before(async () => {
      store = await migratedStore(dialect);
      reader = openStore({ ...loadConfig(store.env), poolSize: 2 });
    });
    after(async () => {
      for (const server of servers) if (server.child.exitCode === null) await server.stop();
      await reader.close();
      await store.drop();
    });

    it('seals every entry of both processes into one chain', { timeout: 120_000 }, async () => {
      const deps = await createDeps(loadConfig(store.env));
      let key: string;
      let tenantId: string;
      try {
        const made = await deps.tenants.create({ name: 'Two audit', email: 'two-audit@example.com' });
        key = made.apiKey.key as string;
        tenantId = made.tenant.id;
      } finally {
        await deps.close();
      }
      servers.push(await spawnServer(store.env), await spawnServer(store.env));
      const call = (base: string, method: string, url: string, body: unknown) =>
        fetch(`${base}${url}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const [one, two] = servers.map((server) => server.url);
      assert.ok(one !== undefined && two !== undefined);
      const made = await call(one, 'POST', '/v1/products', { name: 'Shared mug', price: 100 });
      assert.equal(made.status, 201);
      const productId = ((await made.json()) as { id: string }).id;

      const answers = await Promise.all(
        [one, two].flatMap((base, server) =>
          Array.from({ length: WRITES_PER_SERVER }, (_, i) =>
            call(base, 'PATCH', `/v1/products/${productId}`, { price: 1000 + server * 100 + i }),
          ),
        ),
      );
      assert.deepEqual(new Set(answers.map((res) => res.status)), new Set([200]));
      const expected = 1 + 2 * WRITES_PER_SERVER;

      // The servers' own sealers chain them: wait for no entry left unsealed.
      let unsealed = -1;
      for (let attempt = 0; attempt < 100 && unsealed !== 0; attempt++) {
        await sleep(100);
        const row = await reader.db
          .selectFrom('audit_entries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('tenant_id', '=', tenantId)
          .where('seq', 'is', null)
          .executeTakeFirstOrThrow();
        unsealed = Number(row.n);
      }
      assert.equal(unsealed, 0, 'every entry sealed by the servers within 10 s');

      const rows = await reader.db
        .selectFrom('audit_entries')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('seq')
        .execute();
      assert.equal(rows.length, expected);
      const run = verifyRun({ hash: '', seq: 0 }, rows);
      assert.equal(run.ok, true, JSON.stringify(run));
      assert.deepEqual(
        rows.map((row) => Number(row.seq)),
        Array.from({ length: expected }, (_, i) => i + 1),
      );
      // Every change's diff was worked out at sealing, each against the entry chained before it.
      for (const [index, row] of rows.entries()) {
        if (index === 0) continue;
        const changes = JSON.parse(row.changes ?? 'null') as { price?: { from: number; to: number } };
        const previous = JSON.parse(rows[index - 1]?.snapshot ?? 'null') as { price: number };
        assert.equal(changes.price?.from, previous.price, `entry ${index + 1}`);
      }
    });
  });
}
