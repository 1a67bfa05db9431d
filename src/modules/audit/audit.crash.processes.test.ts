import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../config.js';
import { createDeps } from '../../deps.js';
import { openStore, type Store } from '../../db/store.js';
import { DIALECTS, migratedStore, type TestStore } from '../../../test/helpers/context.js';
import { type ServerProcess, SKIP_IN_UNIT_RUN, spawnServer } from '../../../test/helpers/process.js';
import { createAuditLog } from './audit.service.js';

/**
 * A real kill -9 under audited writes: a server process takes 60 product changes at once and is
 * killed with SIGKILL as soon as the first answers come back. Every change the client saw
 * acknowledged has its audit entry (same request id, the price it set), because the entry commits
 * in the change's own transaction; no entry exists for a change that did not commit; and the
 * tenant's hash chain still verifies.
 */

const WRITES = 60;

for (const dialect of DIALECTS) {
  describe(`audit entries across kill -9 (${dialect})`, { skip: SKIP_IN_UNIT_RUN }, () => {
    let store: TestStore;
    let reader: Store;
    let server: ServerProcess | undefined;

    before(async () => {
      store = await migratedStore(dialect);
      reader = openStore({ ...loadConfig(store.env), poolSize: 2 });
    });
    after(async () => {
      if (server && server.child.exitCode === null) await server.kill();
      await reader.close();
      await store.drop();
    });

    it(
      'keeps the entry of every acknowledged change, and the chain holds',
      { timeout: 120_000 },
      async () => {
        const deps = await createDeps(loadConfig(store.env));
        let key: string;
        let tenantId: string;
        try {
          const made = await deps.tenants.create({ name: 'Crash audit', email: 'crash-audit@example.com' });
          key = made.apiKey.key as string;
          tenantId = made.tenant.id;
        } finally {
          await deps.close();
        }
        server = await spawnServer(store.env);
        const base = server.url;
        const call = (method: string, url: string, body: unknown, requestId?: string) =>
          fetch(`${base}${url}`, {
            method,
            headers: {
              authorization: `Bearer ${key}`,
              'content-type': 'application/json',
              ...(requestId ? { 'x-request-id': requestId } : {}),
            },
            body: JSON.stringify(body),
          });
        const created = await call('POST', '/v1/products', { name: 'Crash mug', price: 100 });
        assert.equal(created.status, 201);
        const productId = ((await created.json()) as { id: string }).id;

        const acknowledged: { requestId: string; price: number }[] = [];
        let answered = 0;
        const running = server;
        const killed = new Promise<void>((resolve) => {
          const writes = Array.from({ length: WRITES }, (_, i) => {
            const requestId = `req-crash-${i}`;
            const price = 1000 + i;
            return call('PATCH', `/v1/products/${productId}`, { price }, requestId)
              .then((res) => {
                if (res.status === 200) acknowledged.push({ requestId, price });
                answered += 1;
                if (answered === 5) void running.kill().then(resolve);
              })
              .catch(() => undefined);
          });
          void Promise.all(writes).then(() => resolve());
        });
        await killed;
        assert.ok(acknowledged.length >= 1, 'some changes were acknowledged before the kill');

        // The killed server may have left entries unsealed: verify seals them (as a restart would).
        const report = await createAuditLog({ store: reader }).verify(tenantId);
        assert.equal(report.ok, true, JSON.stringify(report));
        const rows = await reader.db
          .selectFrom('audit_entries')
          .select(['request_id', 'changes'])
          .where('tenant_id', '=', tenantId)
          .where('action', '=', 'product.updated')
          .execute();
        const byRequest = new Map(
          rows.map((row) => [
            row.request_id,
            JSON.parse(row.changes ?? 'null') as { price?: { to: number } } | null,
          ]),
        );
        for (const { requestId, price } of acknowledged) {
          assert.equal(
            byRequest.get(requestId)?.price?.to,
            price,
            `${requestId} acknowledged, its entry is there`,
          );
        }
        assert.ok(rows.length <= WRITES);
      },
    );
  });
}
