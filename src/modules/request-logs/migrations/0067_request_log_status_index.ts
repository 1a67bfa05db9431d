import type { Kysely } from 'kysely';

/**
 * The request log's filter by status seeks (release v2.6): an index of (tenant_id, status_class,
 * created, id) serves a status class's page newest first, and an exact status's within its class.
 * Before, the filter walked the tenant's time index and skipped other statuses: cheap when the
 * status is common, but a store's few errors (`status=5xx`) among a million successes meant a
 * walk of the whole log. It costs each logged request one more index entry, written by the log's
 * own thread. Frozen: plain SQL, no module code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('request_logs_tenant_status_class_created_idx')
    .ifNotExists()
    .on('request_logs')
    .columns(['tenant_id', 'status_class', 'created', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('request_logs_tenant_status_class_created_idx').ifExists().execute();
}
