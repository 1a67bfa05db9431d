import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import type { Db } from '../../db/store.js';
import { contentDigest, entryHash } from './audit.chain.js';
import { countEntries, type AuditFilter, lastSnapshots, listEntries, pageQuery } from './audit.repository.js';
import type { AuditEntriesTable } from './audit.tables.js';

const T0 = Date.parse('2026-12-01T00:00:00.000Z');
const SEALED = 30;

/** Entry `n` of the store: actions, actors, resources and requests in turn. */
function entryOf(n: number, seq: number | null): AuditEntriesTable {
  return {
    id: `aud_${String(n).padStart(4, '0')}`,
    tenant_id: 'ten_a',
    seq,
    // Some entries of one millisecond (sorted by id), and entries not sealed yet among older ones.
    created: T0 + Math.floor(n / 2) * 1_000,
    actor_type: n % 3 === 0 ? 'system' : 'user',
    actor_id: n % 3 === 0 ? null : `usr_${n % 2}`,
    actor_name: null,
    action: ['product.updated', 'settings.updated', 'order.created'][n % 3] as string,
    resource_type: 'product',
    resource_id: `prod_${n % 4}`,
    changes: JSON.stringify({ price: { from: n, to: n + 1 } }),
    snapshot: JSON.stringify({ id: `prod_${n % 4}`, price: n + 1 }),
    request_id: `req_${n % 5}`,
    ip: null,
    livemode: 1,
    content_digest: null,
    redacted: 0,
    hash: null,
  };
}

async function insert(db: Db, row: AuditEntriesTable): Promise<void> {
  await db.insertInto('audit_entries').values(row).execute();
}

/** Every page of `filter` by cursor, `limit` at a time, and the page at `offset`. */
async function walk(db: Db, filter: AuditFilter, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let before: { created: number; id: string } | undefined;
  for (;;) {
    const rows = await listEntries(db, 'ten_a', filter, { limit, offset: 0, before });
    ids.push(...rows.slice(0, limit).map((row) => row.id));
    if (rows.length <= limit) return ids;
    const last = rows[limit - 1] as AuditEntriesTable;
    before = { created: Number(last.created), id: last.id };
  }
}

/**
 * Migration 0068 on a store whose audit log holds sealed entries and some not sealed yet: the
 * list's indexes hold the sealed ones only, and the list reads the others apart and merges them
 * in, so every page, cursor or offset, and every count are what they were; the chain seals the
 * rest after the old ones and verifies. The sealer's lookups seek their indexes.
 */
for (const dialect of DIALECTS) {
  describe(`migration 0068: the audit log's indexes of sealed entries, on a store with entries (${dialect})`, () => {
    it('keeps every page and count exact, sealed or not, and the sealer seeks', async () => {
      const unsealed = [3, 8, 17, 31, 32, 33];
      const store = await upgradeFrom(dialect, '0067_request_log_status_index', async (old) => {
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                VALUES ('ten_a', 'A', 'free', 'USD', '2027-01-20', ${T0}, ${T0})`.execute(old);
        let hash = '';
        let seq = 0;
        for (let n = 0; n < SEALED + 4; n++) {
          if (unsealed.includes(n)) continue;
          seq += 1;
          const row = {
            ...entryOf(n, seq),
            content_digest: contentDigest(entryOf(n, seq).changes as string),
          };
          hash = entryHash(hash, row);
          await insert(old, { ...row, hash });
        }
        // As the sealer counted them (audit.counts.ts).
        for (const [list, column] of [
          ['audit:action', 'action'],
          ['audit:actor', 'actor_id'],
        ] as const) {
          await sql`INSERT INTO list_counts (tenant_id, list, key, n)
            SELECT tenant_id, ${list}, ${sql.ref(column)}, COUNT(*) FROM audit_entries
            WHERE ${sql.ref(column)} IS NOT NULL GROUP BY tenant_id, ${sql.ref(column)}`.execute(old);
        }
        await sql`INSERT INTO audit_chains (tenant_id, seq, last_hash) VALUES ('ten_a', ${seq}, ${hash})`.execute(
          old,
        );
        // Written by changes whose entries the sealer had not chained when the server stopped.
        for (const n of unsealed) await insert(old, entryOf(n, null));
      });
      try {
        const db = store.deps.store.db;
        const all = Array.from({ length: SEALED + 4 }, (_, n) => entryOf(n, null));
        const newestFirst = (rows: AuditEntriesTable[]) =>
          [...rows]
            .sort((a, b) => Number(b.created) - Number(a.created) || (a.id < b.id ? 1 : -1))
            .map((row) => row.id);
        const filters: [AuditFilter, (row: AuditEntriesTable) => boolean][] = [
          [{}, () => true],
          [{ action: 'product.updated' }, (row) => row.action === 'product.updated'],
          [{ actorId: 'usr_1' }, (row) => row.actor_id === 'usr_1'],
          [{ resourceId: 'prod_2' }, (row) => row.resource_id === 'prod_2'],
          [{ requestId: 'req_3' }, (row) => row.request_id === 'req_3'],
          [
            { from: T0 + 4_000, to: T0 + 12_000 },
            (row) => row.created >= T0 + 4_000 && row.created <= T0 + 12_000,
          ],
          [
            { resourceId: 'prod_1', action: 'settings.updated' },
            (row) => row.resource_id === 'prod_1' && row.action === 'settings.updated',
          ],
        ];
        for (const stage of ['six unsealed', 'all sealed']) {
          for (const [filter, keep] of filters) {
            const expected = newestFirst(all.filter(keep));
            const label = `${stage} ${JSON.stringify(filter)}`;
            for (const limit of [1, 4, 100]) assert.deepEqual(await walk(db, filter, limit), expected, label);
            const page = await listEntries(db, 'ten_a', filter, { limit: 3, offset: 2, before: undefined });
            assert.deepEqual(
              page.map((row) => row.id),
              expected.slice(2, 6),
              `${label} offset`,
            );
            assert.equal(await countEntries(db, 'ten_a', filter), expected.length, `${label} count`);
          }
          if (stage === 'six unsealed')
            assert.equal(await store.deps.auditSealer.seal('ten_a'), unsealed.length);
        }
        const report = await store.deps.auditLog.verify('ten_a');
        assert.deepEqual([report.ok, report.checked], [true, SEALED + 4]);
        // The sealer's snapshot of a resource is its last sealed entry's.
        const known = await lastSnapshots(db, 'ten_a', ['prod_1', 'prod_9']);
        assert.deepEqual([...known], [['prod_1', entryOf(33, null).snapshot]]);

        // Each page's query seeks its own index, newest first, with no sort (SQLite's plan); the
        // indexes hold sealed entries only (both stores).
        const indexes: [AuditFilter, string][] = [
          [{}, 'audit_entries_tenant_created_idx'],
          [{ action: 'x' }, 'audit_entries_tenant_action_created_idx'],
          [{ actorId: 'x' }, 'audit_entries_tenant_actor_id_created_idx'],
          [{ resourceId: 'x' }, 'audit_entries_tenant_resource_id_created_idx'],
          [{ requestId: 'x' }, 'audit_entries_tenant_request_id_created_idx'],
        ];
        for (const [filter, index] of indexes) {
          if (dialect === 'sqlite') {
            const query = pageQuery(db, 'ten_a', filter, true, {
              limit: 20,
              offset: 0,
              before: undefined,
            }).compile();
            const plan = await db.executeQuery<{ detail: string }>(
              CompiledQuery.raw(`EXPLAIN QUERY PLAN ${query.sql}`, [...query.parameters]),
            );
            const details = plan.rows.map((row) => row.detail).join('\n');
            assert.match(details, new RegExp(`USING INDEX ${index} `), details);
            assert.doesNotMatch(details, /TEMP B-TREE/, details);
          } else {
            const found = await sql<{ indexdef: string }>`SELECT indexdef FROM pg_indexes
              WHERE schemaname = current_schema() AND tablename = 'audit_entries' AND indexname = ${index}`.execute(
              db,
            );
            assert.match(found.rows[0]?.indexdef ?? '', /WHERE \(seq IS NOT NULL\)$/, index);
          }
        }
        if (dialect === 'sqlite') {
          const plans = [
            [
              'SELECT max(seq) FROM audit_entries WHERE tenant_id = ? AND resource_id = ? AND seq IS NOT NULL',
              'audit_entries_tenant_resource_seq_idx',
            ],
            [
              'SELECT data FROM events WHERE tenant_id = ? AND object_id = ? AND created < ? ORDER BY created DESC, id DESC LIMIT 1',
              'events_tenant_object_created_idx',
            ],
          ] as const;
          for (const [text, index] of plans) {
            const parameters = ['ten_a', 'prod_1', T0].slice(0, text.split('?').length - 1);
            const plan = await db.executeQuery<{ detail: string }>(
              CompiledQuery.raw(`EXPLAIN QUERY PLAN ${text}`, parameters),
            );
            const details = plan.rows.map((row) => row.detail).join('\n');
            assert.match(details, new RegExp(`USING (COVERING )?INDEX ${index} `), details);
            assert.doesNotMatch(details, /TEMP B-TREE/, details);
          }
        }
      } finally {
        await store.close();
      }
    });
  });
}
