import type { Kysely } from 'kysely';

/**
 * The developer console's accounts: server-side sessions, keyed by the SHA-256 of the session id
 * (the id itself lives only in the browser's cookie), and login/signup throttling counters, keyed
 * by a hash of the email or the client address.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('console_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('console_sessions_expires_idx')
    .on('console_sessions')
    .column('expires_at')
    .execute();
  await db.schema.createIndex('console_sessions_user_idx').on('console_sessions').column('user_id').execute();

  await db.schema
    .createTable('console_throttle')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addColumn('blocked_until', 'bigint')
    .execute();
  await db.schema
    .createIndex('console_throttle_window_idx')
    .on('console_throttle')
    .column('window_start')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['console_throttle', 'console_sessions']) {
    await db.schema.dropTable(table).execute();
  }
}
