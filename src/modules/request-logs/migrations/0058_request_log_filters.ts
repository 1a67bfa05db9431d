import type { Kysely } from 'kysely';

/**
 * The request log's filters by key, route and method seek (release v2.6): each has an index of
 * (tenant_id, filter, created, id) that serves its page newest first, where before they walked the
 * tenant's time index and skipped the rows of other keys, routes or methods. The rows are written
 * by the log's own thread, so the writes these indexes add cost no answer. Frozen: plain SQL, no
 * module code.
 */
const FILTERS = ['key_id', 'route', 'method'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of FILTERS) {
    await db.schema
      .createIndex(`request_logs_tenant_${column}_created_idx`)
      .ifNotExists()
      .on('request_logs')
      .columns(['tenant_id', column, 'created', 'id'])
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of FILTERS) {
    await db.schema.dropIndex(`request_logs_tenant_${column}_created_idx`).ifExists().execute();
  }
}
