import type { Kysely } from 'kysely';

/**
 * The first-party apps' own storage, kept apart from the platform's tables as a third-party app
 * keeps its own database: the installation token each app received in `app.installed` (encrypted
 * with a key derived from the app's signing secret; only the app reads it back), and the marks an
 * app leaves for itself (the Sold-out hider remembers which products it set to draft, so it only
 * reactivates those).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('app_runtime_tokens')
    .addColumn('installation_id', 'text', (c) => c.primaryKey())
    .addColumn('plugin_id', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('token_ciphertext', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('app_runtime_tokens_tenant_idx')
    .on('app_runtime_tokens')
    .columns(['plugin_id', 'tenant_id'])
    .execute();
  await db.schema
    .createTable('app_runtime_marks')
    .addColumn('plugin_id', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('mark', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_runtime_marks_pk', ['plugin_id', 'tenant_id', 'mark'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('app_runtime_marks').execute();
  await db.schema.dropTable('app_runtime_tokens').execute();
}
