import { type Kysely, sql } from 'kysely';

/**
 * Kept counts of the audit log by action and by actor (release v2.6): lists `audit:action` and
 * `audit:actor`, keyed by the value, so a page filtered by one alone answers its `total` at any
 * size (before, it counted the entries it matched: some 200 ms for an action of a quarter of a
 * million-entry log on PostgreSQL). From here the sealer counts each entry as it seals it; this
 * counts the entries sealed before (the unsealed are counted as they are read). Frozen: plain SQL,
 * no module code.
 */
const FILTERS = [
  ['audit:action', 'action'],
  ['audit:actor', 'actor_id'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [list, column] of FILTERS) {
    await sql`INSERT INTO list_counts (tenant_id, list, key, n)
      SELECT tenant_id, ${list}, ${sql.ref(column)}, COUNT(*) FROM audit_entries
      WHERE seq IS NOT NULL AND ${sql.ref(column)} IS NOT NULL
      GROUP BY tenant_id, ${sql.ref(column)}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [list] of FILTERS) {
    await sql`DELETE FROM list_counts WHERE list = ${list}`.execute(db);
    await sql`DELETE FROM list_count_deltas WHERE list = ${list}`.execute(db);
  }
}
