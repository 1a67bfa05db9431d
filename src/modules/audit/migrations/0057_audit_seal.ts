import { type Kysely, sql } from 'kysely';

/**
 * The audit log sealed after commit (issue 46 follow-up): an entry is written in its change's
 * transaction without a place in the chain (`seq` and `hash` null) and a sealer chains it shortly
 * after, so audited changes of one tenant no longer wait for each other on its chain's head.
 *
 * An entry whose previous state the change did not know (a change announced by an event) is
 * written with `changes` null too: the sealer works it out, in chain order, from the resource's
 * previous entry; no read of it on the change's path.
 *
 * `audit_entries` is rebuilt (SQLite cannot drop a NOT NULL) with `seq`, `hash` and `changes` nullable, its
 * rows copied as they are; the list and its filters page on `(tenant_id, ..., created, id)` (ids
 * of new entries sort in insertion order), and the sealer finds a tenant's unsealed entries on a
 * partial index. Frozen: plain SQL, no module code.
 */
const FILTERS = ['resource_id', 'actor_id', 'action', 'request_id'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_entries_0057')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_name', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('changes', 'text')
    .addColumn('snapshot', 'text')
    .addColumn('request_id', 'text')
    .addColumn('ip', 'text')
    .addColumn('livemode', 'integer', (c) => c.notNull())
    .addColumn('hash', 'text')
    .execute();
  await sql`INSERT INTO audit_entries_0057
      (id, tenant_id, seq, created, actor_type, actor_id, actor_name, action, resource_type,
       resource_id, changes, snapshot, request_id, ip, livemode, hash)
    SELECT id, tenant_id, seq, created, actor_type, actor_id, actor_name, action, resource_type,
       resource_id, changes, snapshot, request_id, ip, livemode, hash
    FROM audit_entries`.execute(db);
  await db.schema.dropTable('audit_entries').execute();
  await db.schema.alterTable('audit_entries_0057').renameTo('audit_entries').execute();

  // The chain in order (verify, export); NULLs (unsealed) are distinct on both stores.
  await db.schema
    .createIndex('audit_entries_tenant_seq_idx')
    .unique()
    .on('audit_entries')
    .columns(['tenant_id', 'seq'])
    .execute();
  // The list, newest first by (created, id), and its filters: each a seek on its own index.
  for (const column of FILTERS) {
    await db.schema
      .createIndex(`audit_entries_tenant_${column}_created_idx`)
      .on('audit_entries')
      .columns(['tenant_id', column, 'created', 'id'])
      .execute();
  }
  await db.schema
    .createIndex('audit_entries_tenant_created_idx')
    .on('audit_entries')
    .columns(['tenant_id', 'created', 'id'])
    .execute();
  // What the sealer has left to chain: small, and only the unsealed.
  await sql`CREATE INDEX audit_entries_unsealed_idx ON audit_entries (tenant_id, id) WHERE seq IS NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DELETE FROM audit_entries WHERE seq IS NULL`.execute(db);
  await sql`DROP INDEX audit_entries_unsealed_idx`.execute(db);
  for (const column of FILTERS)
    await db.schema.dropIndex(`audit_entries_tenant_${column}_created_idx`).execute();
}
