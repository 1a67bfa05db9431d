import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import { contentDigest } from './audit.chain.js';
import { countEntries } from './audit.repository.js';

const T0 = Date.parse('2026-12-01T00:00:00.000Z');

/** An entry's hash as 0050 and 0057 chained it: over its `changes` themselves. */
function hashBefore0059(previous: string, row: Record<string, unknown>): string {
  const fields = ['id', 'tenant_id', 'seq', 'created', 'actor_type', 'actor_id', 'actor_name', 'action']
    .concat(['resource_type', 'resource_id', 'changes', 'request_id', 'ip', 'livemode'])
    .map((name) => row[name]);
  return createHash('sha256').update(previous).update('\n').update(JSON.stringify(fields)).digest('hex');
}

/**
 * Migration 0059 on a store whose audit log holds two tenants' chains and an entry not sealed yet:
 * every sealed entry gets the digest of its changes and the chain is re-chained over the digests
 * (the same entries, in the same order), so it verifies; the unsealed one is chained after them,
 * with its digest; none is marked redacted. Then 0066 counts the sealed entries by action, and the
 * count by action is exact with the one the sealer chains after.
 */
for (const dialect of DIALECTS) {
  describe(`migrations 0059 and 0066: audit content digests and counts on a store with entries (${dialect})`, () => {
    it('re-chains every tenant over the digests, keeps the entries, and chains the unsealed after', async () => {
      const store = await upgradeFrom(dialect, '0058_request_log_filters', async (old) => {
        for (const tenant of ['ten_a', 'ten_b']) {
          await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                  VALUES (${tenant}, 'T', 'free', 'USD', '2027-01-20', ${T0}, ${T0})`.execute(old);
          let hash = '';
          for (const seq of [1, 2, 3]) {
            const row = {
              id: `aud_${tenant}_${seq}`,
              tenant_id: tenant,
              seq,
              created: T0 + seq,
              actor_type: 'system',
              actor_id: null,
              actor_name: null,
              action: 'settings.updated',
              resource_type: 'settings',
              resource_id: tenant,
              changes: JSON.stringify({ name: { from: `N${seq - 1}`, to: `N${seq}` } }),
              request_id: null,
              ip: null,
              livemode: 1,
            };
            hash = hashBefore0059(hash, row);
            await sql`INSERT INTO audit_entries (id, tenant_id, seq, created, actor_type, actor_id, actor_name,
                    action, resource_type, resource_id, changes, snapshot, request_id, ip, livemode, hash)
                  VALUES (${row.id}, ${tenant}, ${seq}, ${row.created}, 'system', NULL, NULL, ${row.action},
                    'settings', ${tenant}, ${row.changes}, ${JSON.stringify({ name: `N${seq}` })}, NULL, NULL, 1,
                    ${hash})`.execute(old);
          }
          await sql`INSERT INTO audit_chains (tenant_id, seq, last_hash) VALUES (${tenant}, 3, ${hash})`.execute(
            old,
          );
        }
        // Written by a change whose entry the sealer had not chained yet when the server stopped.
        await sql`INSERT INTO audit_entries (id, tenant_id, seq, created, actor_type, actor_id, actor_name,
                action, resource_type, resource_id, changes, snapshot, request_id, ip, livemode, hash)
              VALUES ('aud_ten_a_4', 'ten_a', NULL, ${T0 + 4}, 'system', NULL, NULL, 'settings.updated',
                'settings', 'ten_a', NULL, ${JSON.stringify({ name: 'N4' })}, NULL, NULL, 1, NULL)`.execute(
          old,
        );
      });
      try {
        const db = store.deps.store.db;
        const sealed = await db
          .selectFrom('audit_entries')
          .select(['id', 'seq', 'changes', 'content_digest', 'redacted'])
          .where('seq', 'is not', null)
          .orderBy('id')
          .execute();
        assert.equal(sealed.length, 6);
        for (const row of sealed) {
          assert.equal(row.content_digest, contentDigest(row.changes ?? ''), row.id);
          assert.equal(Number(row.redacted), 0);
        }
        for (const tenant of ['ten_a', 'ten_b']) {
          const report = await store.deps.auditLog.verify(tenant);
          assert.equal(report.ok, true, JSON.stringify(report.broken));
        }
        assert.equal((await store.deps.auditLog.verify('ten_a')).checked, 4);
        assert.equal((await store.deps.auditLog.verify('ten_b')).checked, 3);
        // Migration 0066 counted the sealed entries by action; the sealer counted ten_a's fourth.
        const kept = await db
          .selectFrom('list_counts')
          .select(['tenant_id', 'n'])
          .where('list', '=', 'audit:action')
          .where('key', '=', 'settings.updated')
          .orderBy('tenant_id')
          .execute();
        assert.deepEqual(
          kept.map((row) => [row.tenant_id, Number(row.n)]),
          [
            ['ten_a', 3],
            ['ten_b', 3],
          ],
        );
        for (const [tenant, n] of [
          ['ten_a', 4],
          ['ten_b', 3],
        ] as const) {
          assert.equal(await countEntries(db, tenant, { action: 'settings.updated' }), n, tenant);
        }
        const fourth = await db
          .selectFrom('audit_entries')
          .select(['seq', 'changes', 'content_digest'])
          .where('id', '=', 'aud_ten_a_4')
          .executeTakeFirstOrThrow();
        assert.equal(Number(fourth.seq), 4);
        assert.deepEqual(JSON.parse(fourth.changes ?? '{}'), { name: { from: 'N3', to: 'N4' } });
        assert.equal(fourth.content_digest, contentDigest(fourth.changes ?? ''));
        // An edited entry still breaks the chain.
        await sql`UPDATE audit_entries SET changes = '{}' WHERE id = 'aud_ten_b_2'`.execute(db);
        const broken = await store.deps.auditLog.verify('ten_b');
        assert.deepEqual([broken.ok, broken.broken?.seq], [false, 2]);
      } finally {
        await store.close();
      }
    });
  });
}
