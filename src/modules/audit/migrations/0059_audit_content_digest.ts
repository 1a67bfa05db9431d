import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

/**
 * Erasure reaches the audit log (release v2.6): the chain hashes a digest of each entry's changes
 * (`content_digest`, SHA-256 of its `changes` JSON) in place of the changes, so that a customer's
 * erasure can replace the person's values in an entry (marking it `redacted`) and leave the chain
 * whole.
 *
 * Adds `content_digest` (null until sealed) and `redacted` (0), then re-chains every tenant's
 * sealed entries in seq order with the new hash and moves its head: the log is of this unreleased
 * release, so no stored chain needs its old hashes. Frozen: plain SQL and the hash as it is
 * today, no module code.
 */

interface Row {
  id: string;
  tenant_id: string;
  seq: number | string;
  created: number | string;
  actor_type: string;
  actor_id: string | null;
  actor_name: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  changes: string | null;
  request_id: string | null;
  ip: string | null;
  livemode: number | string;
}

const BATCH = 1000;

function digestOf(changes: string): string {
  return createHash('sha256').update(changes).digest('hex');
}

function hashOf(previous: string, row: Row, digest: string): string {
  const fields = [
    row.id,
    row.tenant_id,
    Number(row.seq),
    Number(row.created),
    row.actor_type,
    row.actor_id,
    row.actor_name,
    row.action,
    row.resource_type,
    row.resource_id,
    digest,
    row.request_id,
    row.ip,
    Number(row.livemode),
  ];
  return createHash('sha256').update(previous).update('\n').update(JSON.stringify(fields)).digest('hex');
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_entries').addColumn('content_digest', 'text').execute();
  await db.schema
    .alterTable('audit_entries')
    .addColumn('redacted', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  const tenants = await sql<{
    tenant_id: string;
  }>`SELECT tenant_id FROM audit_chains ORDER BY tenant_id`.execute(db);
  for (const { tenant_id: tenantId } of tenants.rows) {
    let hash = '';
    let seq = 0;
    for (;;) {
      const rows = await sql<Row>`SELECT id, tenant_id, seq, created, actor_type, actor_id, actor_name,
            action, resource_type, resource_id, changes, request_id, ip, livemode
          FROM audit_entries WHERE tenant_id = ${tenantId} AND seq > ${seq}
          ORDER BY seq LIMIT ${BATCH}`.execute(db);
      for (const row of rows.rows) {
        const digest = digestOf(row.changes ?? '{}');
        hash = hashOf(hash, row, digest);
        seq = Number(row.seq);
        await sql`UPDATE audit_entries SET content_digest = ${digest}, hash = ${hash}
            WHERE id = ${row.id}`.execute(db);
      }
      if (rows.rows.length < BATCH) break;
    }
    await sql`UPDATE audit_chains SET last_hash = ${hash} WHERE tenant_id = ${tenantId}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_entries').dropColumn('redacted').execute();
  await db.schema.alterTable('audit_entries').dropColumn('content_digest').execute();
}
