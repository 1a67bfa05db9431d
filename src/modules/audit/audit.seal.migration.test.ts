import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import { createHash } from 'node:crypto';
import type { AuditEntry } from './audit.service.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');

/** An entry's hash as 0050 chained it: over its `changes` themselves (0059 hashes their digest). */
function hashOf0050(previous: string, row: Record<string, unknown>): string {
  const fields = ['id', 'tenant_id', 'seq', 'created', 'actor_type', 'actor_id', 'actor_name', 'action']
    .concat(['resource_type', 'resource_id', 'changes', 'request_id', 'ip', 'livemode'])
    .map((name) => row[name]);
  return createHash('sha256').update(previous).update('\n').update(JSON.stringify(fields)).digest('hex');
}

interface Page<T> {
  data: T[];
  total: number;
}

/**
 * Migration 0057 on a store whose audit log already holds a chain (as 0050 wrote it: every entry
 * sealed in its change's transaction): the entries stay as they were, the chain still verifies
 * (0059 re-chains it over the entries' content digests),
 * and a new change's entry is written unsealed and then chained after them.
 */
for (const dialect of DIALECTS) {
  describe(`migration 0057: the audit log sealed after commit, on a store with entries (${dialect})`, () => {
    it('keeps the chain, and chains new entries after it', async () => {
      const store = await upgradeFrom(dialect, '0051_request_logs', async (old) => {
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                VALUES ('ten_a', 'A', 'free', 'USD', '2027-01-20', ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
                VALUES ('usr_a', 'ten_a', 'o@example.com', 'O', 'owner', NULL, ${T0}, ${T0})`.execute(old);
        let hash = '';
        for (const seq of [1, 2]) {
          const row = {
            id: `aud_old${seq}`,
            tenant_id: 'ten_a',
            seq,
            created: T0 + seq,
            actor_type: 'system',
            actor_id: null,
            actor_name: null,
            action: 'settings.updated',
            resource_type: 'settings',
            resource_id: 'ten_a',
            changes: JSON.stringify({ name: { from: `N${seq - 1}`, to: `N${seq}` } }),
            request_id: null,
            ip: null,
            livemode: 1,
          };
          hash = hashOf0050(hash, row);
          await sql`INSERT INTO audit_entries (id, tenant_id, seq, created, actor_type, actor_id, actor_name,
                  action, resource_type, resource_id, changes, snapshot, request_id, ip, livemode, hash)
                VALUES (${row.id}, 'ten_a', ${seq}, ${row.created}, 'system', NULL, NULL, ${row.action},
                  'settings', 'ten_a', ${row.changes}, NULL, NULL, NULL, 1, ${hash})`.execute(old);
        }
        await sql`INSERT INTO audit_chains (tenant_id, seq, last_hash) VALUES ('ten_a', 2, ${hash})`.execute(
          old,
        );
      });
      try {
        const api = await store.clientFor('ten_a', 'usr_a');
        const before = await api<Page<AuditEntry>>('GET', '/v1/audit-log');
        assert.equal(before.status, 200, JSON.stringify(before.body));
        assert.deepEqual(
          before.body.data.map((e) => [e.id, e.changes?.name?.to]),
          [
            ['aud_old2', 'N2'],
            ['aud_old1', 'N1'],
          ],
        );
        const made = await api<{ id: string }>('POST', '/v1/products', {
          body: { name: 'Mug', price: 1200 },
        });
        assert.equal(made.status, 201);
        const unsealed = await api<Page<AuditEntry>>('GET', '/v1/audit-log');
        assert.equal(unsealed.body.total, 3);
        assert.equal(unsealed.body.data[0]?.action, 'product.created');
        assert.equal(unsealed.body.data[0]?.hash, null);

        const report = await store.deps.auditLog.verify('ten_a');
        assert.deepEqual([report.ok, report.checked], [true, 3]);
        const { rows } = await sql<{ id: string; seq: number | string }>`
          SELECT id, seq FROM audit_entries WHERE tenant_id = 'ten_a' ORDER BY seq`.execute(
          store.deps.store.db,
        );
        assert.deepEqual(
          rows.map((row) => [row.id.startsWith('aud_old') ? row.id : 'new', Number(row.seq)]),
          [
            ['aud_old1', 1],
            ['aud_old2', 2],
            ['new', 3],
          ],
        );
      } finally {
        await store.close();
      }
    });
  });
}
