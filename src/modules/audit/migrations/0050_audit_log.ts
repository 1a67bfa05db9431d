import type { Kysely } from 'kysely';

/**
 * The audit log (release v2.6):
 *
 * - `audit_entries`: one per audited change, in the tenant's chain (`seq` 1, 2, ... with `hash`
 *   over the previous entry's hash and this entry);
 * - `audit_chains`: each tenant's chain head (last `seq` and `hash`), the row an audited
 *   transaction locks so two never take the same previous hash;
 * - an index of events by object, for the first audited change of an object changed before the log
 *   existed: its previous state is its last event's object.
 *
 * A store that already holds data starts with empty chains: nothing before this release is known
 * to the log. Frozen: plain SQL, no module code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_name', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('changes', 'text', (c) => c.notNull())
    .addColumn('snapshot', 'text')
    .addColumn('request_id', 'text')
    .addColumn('ip', 'text')
    .addColumn('livemode', 'integer', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .execute();
  // The chain, in order (verify), and the list newest first: seq follows creation.
  await db.schema
    .createIndex('audit_entries_tenant_seq_idx')
    .unique()
    .on('audit_entries')
    .columns(['tenant_id', 'seq'])
    .execute();
  // The list's filters, each a seek on its own index, newest first.
  for (const column of ['resource_id', 'actor_id', 'action', 'request_id']) {
    await db.schema
      .createIndex(`audit_entries_tenant_${column}_seq_idx`)
      .on('audit_entries')
      .columns(['tenant_id', column, 'seq'])
      .execute();
  }
  // `from` and `to` become a range of seq by one seek each.
  await db.schema
    .createIndex('audit_entries_tenant_created_idx')
    .on('audit_entries')
    .columns(['tenant_id', 'created', 'seq'])
    .execute();

  await db.schema
    .createTable('audit_chains')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('last_hash', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createIndex('events_tenant_object_created_idx')
    .on('events')
    .columns(['tenant_id', 'object_id', 'created'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('events_tenant_object_created_idx').execute();
  await db.schema.dropTable('audit_chains').execute();
  await db.schema.dropTable('audit_entries').execute();
}
