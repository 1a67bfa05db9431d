import { type Kysely, SqliteAdapter } from 'kysely';

/**
 * Bulk imports and exports. `imports` holds each import's settings, progress and lease;
 * `import_errors` every error it found, numbered in the order found; `import_chunks` the uploaded
 * file in pieces of at most 1 MiB, in the database so that any API or worker process can run the
 * import (processes on PostgreSQL need not share a disk). Exports stream products and customers in
 * the order they were stored (`seq`), by a seek per tenant: the two indexes below serve it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('imports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('dry_run', 'integer', (c) => c.notNull())
    .addColumn('on_error', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('phase', 'text', (c) => c.notNull())
    .addColumn('position', 'bigint', (c) => c.notNull())
    .addColumn('rows_total', 'bigint', (c) => c.notNull())
    .addColumn('rows_processed', 'bigint', (c) => c.notNull())
    .addColumn('created_count', 'bigint', (c) => c.notNull())
    .addColumn('updated_count', 'bigint', (c) => c.notNull())
    .addColumn('unchanged_count', 'bigint', (c) => c.notNull())
    .addColumn('error_count', 'bigint', (c) => c.notNull())
    .addColumn('byte_size', 'bigint', (c) => c.notNull())
    .addColumn('chunk_count', 'integer', (c) => c.notNull())
    .addColumn('claimed_by', 'text')
    .addColumn('lease_until', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .addColumn('started_at', 'bigint')
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('imports_tenant_created_idx')
    .on('imports')
    .columns(['tenant_id', 'created', 'id'])
    .execute();
  // What runners look for: imports not finished, by age.
  await db.schema.createIndex('imports_status_idx').on('imports').columns(['status', 'created']).execute();

  await db.schema
    .createTable('import_errors')
    .addColumn('import_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('line', 'bigint', (c) => c.notNull())
    .addColumn('column_name', 'text')
    .addColumn('message', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('import_errors_pk', ['import_id', 'seq'])
    .execute();
  // Which lines of a batch already have errors (the writing pass skips them).
  await db.schema
    .createIndex('import_errors_line_idx')
    .on('import_errors')
    .columns(['import_id', 'line'])
    .execute();

  await db.schema
    .createTable('import_chunks')
    .addColumn('import_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', sqlite ? 'blob' : 'bytea', (c) => c.notNull())
    .addPrimaryKeyConstraint('import_chunks_pk', ['import_id', 'seq'])
    .execute();

  await db.schema
    .createIndex('products_tenant_seq_idx')
    .on('products')
    .columns(['tenant_id', 'seq'])
    .execute();
  await db.schema
    .createIndex('customers_tenant_seq_idx')
    .on('customers')
    .columns(['tenant_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('customers_tenant_seq_idx').execute();
  await db.schema.dropIndex('products_tenant_seq_idx').execute();
  await db.schema.dropTable('import_chunks').execute();
  await db.schema.dropTable('import_errors').execute();
  await db.schema.dropTable('imports').execute();
}
