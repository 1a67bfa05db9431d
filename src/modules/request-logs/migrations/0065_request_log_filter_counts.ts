import { type Kysely, sql } from 'kysely';

/**
 * Kept counts of the request log by each filter alone (release v2.6): lists `request_logs:status`,
 * `request_logs:method`, `request_logs:route` and `request_logs:key`, keyed by the value, so a page
 * filtered by one of them answers its `total` at any size (before, it counted the rows it matched:
 * a few hundred milliseconds for a filter matching a quarter of a million-row log). From here the
 * log's writer and its retention keep them; this counts the rows written before. Frozen: plain
 * SQL, no module code.
 */
const FILTERS = [
  ['request_logs:status', 'CAST(status AS TEXT)', 'status'],
  ['request_logs:method', 'method', 'method'],
  ['request_logs:route', 'route', 'route'],
  ['request_logs:key', 'key_id', 'key_id'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [list, value, column] of FILTERS) {
    await sql`INSERT INTO list_counts (tenant_id, list, key, n)
      SELECT tenant_id, ${list}, ${sql.raw(value)}, COUNT(*) FROM request_logs
      WHERE ${sql.ref(column)} IS NOT NULL
      GROUP BY tenant_id, ${sql.raw(value)}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [list] of FILTERS) {
    await sql`DELETE FROM list_counts WHERE list = ${list}`.execute(db);
    await sql`DELETE FROM list_count_deltas WHERE list = ${list}`.execute(db);
  }
}
