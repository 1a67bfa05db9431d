import { type Kysely, sql } from 'kysely';

/**
 * Test mode: every store gets a paired test store, a tenant of its own.
 *
 * `tenants` gains `mode` (`live`, every existing store, or `test`) and `live_tenant_id` (a test
 * store's live store; null for a live one), unique, so a live store has at most one test store.
 * The test store itself is made when first needed, through the code that makes every store.
 * `api_keys` gains `mode` (`live` for every existing key): what its prefix says (`sk_test_`, ...),
 * always its store's mode, kept on the key so a masked key shows its prefix.
 *
 * Frozen: plain SQL, no module code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('tenants')
    .addColumn('mode', 'text', (c) => c.notNull().defaultTo('live'))
    .execute();
  await db.schema.alterTable('tenants').addColumn('live_tenant_id', 'text').execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('mode', 'text', (c) => c.notNull().defaultTo('live'))
    .execute();
  await sql`CREATE UNIQUE INDEX tenants_live_tenant_idx ON tenants (live_tenant_id) WHERE live_tenant_id IS NOT NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX tenants_live_tenant_idx`.execute(db);
  await db.schema.alterTable('api_keys').dropColumn('mode').execute();
  await db.schema.alterTable('tenants').dropColumn('live_tenant_id').execute();
  await db.schema.alterTable('tenants').dropColumn('mode').execute();
}
