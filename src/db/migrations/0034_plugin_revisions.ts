import type { Kysely } from 'kysely';

/**
 * A change to a published plugin is a revision awaiting the operator's approval, not a change
 * that goes live in every store at once. `plugin_revisions` holds a plugin's one revision: the
 * fields it changes (a JSON object of the new values), `pending` until the operator decides, or
 * `rejected` with the reason; an approved revision is applied to the plugin and its row deleted.
 *
 * An installation keeps the grant its store accepted. When an approved revision asks for more
 * permissions or events than an installation holds, the installation records what it asks for in
 * `pending_permissions` and `pending_events` (JSON arrays, both null when nothing waits) until the
 * store accepts it.
 *
 * Existing plugins have no revision and existing installations nothing pending: nothing to fill.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('plugin_revisions')
    .addColumn('plugin_id', 'text', (c) => c.primaryKey().references('plugins.id'))
    .addColumn('changes', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('rejection_reason', 'text')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('plugin_installations').addColumn('pending_permissions', 'text').execute();
  await db.schema.alterTable('plugin_installations').addColumn('pending_events', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('plugin_installations').dropColumn('pending_events').execute();
  await db.schema.alterTable('plugin_installations').dropColumn('pending_permissions').execute();
  await db.schema.dropTable('plugin_revisions').execute();
}
