import { type Kysely, SqliteAdapter } from 'kysely';

/**
 * The request log (release v2.6): `request_logs`, one row per API request of a tenant, written in
 * batches off the answer's path and kept `REQUEST_LOG_DAYS`; the list by time has an index that
 * serves it newest first (every index costs every logged request a write: the filters walk it), a
 * request is found by its id, and retention deletes by time. Its `total`s come from the kept counts (`list_counts`, list `request_logs`, keyed by status class), which its writer and its
 * retention keep. Nothing to carry over from before. Frozen: plain SQL, no module code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('request_logs')
    .addColumn('seq', sqlite ? 'integer' : 'bigserial', (col) =>
      sqlite ? col.primaryKey().autoIncrement() : col.primaryKey(),
    )
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('status_class', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'double precision', (c) => c.notNull())
    .addColumn('key_id', 'text')
    .addColumn('key_name', 'text')
    .addColumn('key_type', 'text')
    .addColumn('app', 'text')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('api_version', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('error_code', 'text')
    .addColumn('request_body', 'text')
    .addColumn('response_body', 'text')
    .execute();
  // The list newest first, whole and by each filter; one request by its id.
  await db.schema
    .createIndex('request_logs_tenant_created_idx')
    .on('request_logs')
    .columns(['tenant_id', 'created', 'id'])
    .execute();
  await db.schema
    .createIndex('request_logs_tenant_id_idx')
    .on('request_logs')
    .columns(['tenant_id', 'id'])
    .execute();
  // Retention: the oldest rows of every tenant.
  await db.schema
    .createIndex('request_logs_created_idx')
    .on('request_logs')
    .columns(['created', 'seq'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('request_logs').execute();
}
