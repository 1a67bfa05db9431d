import { type Kysely, sql } from 'kysely';

/**
 * The audit log's indexes (release v2.6, issue 46):
 *
 * - The list's indexes hold sealed entries only: the chain's `(tenant_id, seq)`, the list's
 *   `(tenant_id, created, id)` and each filter's `(tenant_id, column, created, id)` become partial,
 *   `WHERE seq IS NOT NULL`. An audited change then writes its entry into the table, its id's index
 *   and the small index of unsealed entries only, three B-trees instead of nine: on SQLite an
 *   audited product PATCH's commit wrote 23.1 pages to the log instead of 13.6 without its entry,
 *   now 17.0. The sealer's UPDATE, which gives the entry its `seq`, adds it to them, a batch of
 *   entries per transaction about once a second. The list reads sealed entries on these indexes
 *   and the few unsealed ones on theirs, and merges them (audit.repository.ts).
 * - `(tenant_id, resource_id, seq)` of sealed entries: a resource's last sealed entry, which the
 *   sealer diffs the next one against, is a seek (the max of seq by resource walked the tenant's
 *   chain back from its head).
 * - Events by object gain `id`, `(tenant_id, object_id, created, id)`: an object's last event
 *   before a time, asked newest first by (created, id), for the first entry of an object the log
 *   has not seen, seeks it (SQLite walked the tenant's events back in time instead: 805 µs a
 *   lookup on a store with a few thousand orders, and growing).
 *
 * Frozen: plain SQL, no module code.
 */
const FILTERS = ['resource_id', 'actor_id', 'action', 'request_id'] as const;

const INDEXES: readonly (readonly [name: string, columns: string])[] = [
  ['audit_entries_tenant_created_idx', 'tenant_id, created, id'],
  ...FILTERS.map(
    (column) => [`audit_entries_tenant_${column}_created_idx`, `tenant_id, ${column}, created, id`] as const,
  ),
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX audit_entries_tenant_seq_idx`.execute(db);
  await sql`CREATE UNIQUE INDEX audit_entries_tenant_seq_idx ON audit_entries (tenant_id, seq)
    WHERE seq IS NOT NULL`.execute(db);
  for (const [name, columns] of INDEXES) {
    await sql`DROP INDEX ${sql.raw(name)}`.execute(db);
    await sql`CREATE INDEX ${sql.raw(name)} ON audit_entries (${sql.raw(columns)})
      WHERE seq IS NOT NULL`.execute(db);
  }
  await sql`CREATE INDEX audit_entries_tenant_resource_seq_idx ON audit_entries (tenant_id, resource_id, seq)
    WHERE seq IS NOT NULL`.execute(db);
  await sql`DROP INDEX events_tenant_object_created_idx`.execute(db);
  await sql`CREATE INDEX events_tenant_object_created_idx ON events (tenant_id, object_id, created, id)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX events_tenant_object_created_idx`.execute(db);
  await sql`CREATE INDEX events_tenant_object_created_idx ON events (tenant_id, object_id, created)`.execute(
    db,
  );
  await sql`DROP INDEX audit_entries_tenant_resource_seq_idx`.execute(db);
  await sql`DROP INDEX audit_entries_tenant_seq_idx`.execute(db);
  await sql`CREATE UNIQUE INDEX audit_entries_tenant_seq_idx ON audit_entries (tenant_id, seq)`.execute(db);
  for (const [name, columns] of INDEXES) {
    await sql`DROP INDEX ${sql.raw(name)}`.execute(db);
    await sql`CREATE INDEX ${sql.raw(name)} ON audit_entries (${sql.raw(columns)})`.execute(db);
  }
}
