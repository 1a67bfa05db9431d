import { type Kysely, sql } from 'kysely';

/**
 * Publishable keys (`pk_live_...`), which a shopper's browser holds to call `/v1/store/*`:
 *
 * - `api_keys.type`: `secret` (every key made before) or `publishable`;
 * - `api_keys.allowed_origins`: the browser origins a publishable key answers (JSON array, `[]`
 *   for secret keys);
 * - `api_keys.public_key`: a publishable key in full (it is public and shown at every read), null
 *   for secret keys, which only their SHA-256 hash identifies;
 * - `api_key_origins (origin, key_id, tenant_id)`: each allowed origin of each publishable key, so
 *   a CORS preflight (which carries no key) finds by its `Origin` whether any key allows it.
 *
 * Existing keys become secret keys with no origins: they work exactly as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('type', 'text', (c) => c.notNull().defaultTo('secret'))
    .execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('allowed_origins', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema.alterTable('api_keys').addColumn('public_key', 'text').execute();
  await db.schema
    .createTable('api_key_origins')
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id'))
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('api_key_origins_pk', ['origin', 'key_id'])
    .execute();
  await db.schema.createIndex('api_key_origins_key_idx').on('api_key_origins').column('key_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('api_key_origins').execute();
  // The earlier release would take a publishable key for a secret key without permissions.
  await sql`DELETE FROM api_keys WHERE type = 'publishable'`.execute(db);
  for (const column of ['public_key', 'allowed_origins', 'type']) {
    await db.schema.alterTable('api_keys').dropColumn(column).execute();
  }
}
