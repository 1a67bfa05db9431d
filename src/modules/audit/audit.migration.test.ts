import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import type { AuditEntry } from './audit.service.js';

const T0 = Date.parse('2027-01-10T00:00:00.000Z');

interface Page<T> {
  data: T[];
  total: number;
}

/**
 * A store of the release before (migrations up to 0049) holding a tenant, its owner and events;
 * then this release starts on it: migrations 0050 and 0051 add the audit and request logs, empty.
 * An object the log has never seen (made before it existed) is diffed against its last event: its
 * first audited change lists only what changed.
 */
for (const dialect of DIALECTS) {
  describe(`migrations 0050 and 0051: audit and request logs on a store with data (${dialect})`, () => {
    it('starts both logs empty, and audits the first change of an object made before the log', async () => {
      const store = await upgradeFrom(dialect, '0049_fulfillments', async (old) => {
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                VALUES ('ten_a', 'A', 'free', 'USD', '2027-01-20', ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
                VALUES ('usr_a', 'ten_a', 'o@example.com', 'O', 'owner', NULL, ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO events (id, tenant_id, type, object_type, object_id, data, extra, created)
                VALUES ('evt_old', 'ten_a', 'product.created', 'product', 'prod_gone',
                  ${JSON.stringify({ id: 'prod_gone', name: 'Old', price: 1 })}, NULL, ${T0})`.execute(old);
      });
      try {
        const api = await store.clientFor('ten_a', 'usr_a');
        const empty = await api<Page<AuditEntry>>('GET', '/v1/audit-log');
        assert.equal(empty.status, 200);
        assert.equal(empty.body.total, 0);
        assert.equal((await api<Page<unknown>>('GET', '/v1/request-logs')).body.total, 0);
        assert.equal((await store.deps.auditLog.verify('ten_a')).ok, true);

        const made = await api<{ id: string }>('POST', '/v1/products', {
          body: { name: 'Mug', price: 1200 },
        });
        assert.equal(made.status, 201);
        // As if it had been made before the log existed: the log knows nothing of it.
        await sql`DELETE FROM audit_entries WHERE tenant_id = 'ten_a'`.execute(store.deps.store.db);
        await sql`DELETE FROM audit_chains WHERE tenant_id = 'ten_a'`.execute(store.deps.store.db);
        const patched = await api('PATCH', `/v1/products/${made.body.id}`, { body: { price: 1300 } });
        assert.equal(patched.status, 200);
        await store.deps.auditSealer.seal('ten_a');
        const log = await api<Page<AuditEntry>>('GET', `/v1/audit-log?resource_id=${made.body.id}`);
        assert.equal(log.body.total, 1);
        // What the price moved (the product's price, its range, its one variant), nothing else.
        assert.deepEqual(Object.keys(log.body.data[0]?.changes ?? {}).sort(), [
          'price',
          'price_max',
          'variants',
        ]);
        assert.deepEqual(log.body.data[0]?.changes?.price, { from: 1200, to: 1300 });
        assert.equal((await store.deps.auditLog.verify('ten_a')).ok, true);
        await store.deps.requestLogWriter.flush();
        assert.ok((await api<Page<unknown>>('GET', '/v1/request-logs')).body.total >= 4);
      } finally {
        await store.close();
      }
    });
  });
}
