import { type Kysely, sql } from 'kysely';

/**
 * Recovery points for idempotent requests. A use case whose work outlives one transaction (an
 * order that is created, then charged, then settled) names the resource it committed in the
 * `idempotency_keys` row, inside that same transaction. A retry after a lost or failed answer then
 * resumes that resource instead of doing the work again (src/http/idempotency.ts).
 *
 * Payments still `pending` past their lease are settled by a sweep; the partial index finds them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('resource_id', 'text').execute();
  await db.schema
    .createIndex('payments_pending_created_idx')
    .on('payments')
    .column('created')
    .where(sql.ref('status'), '=', 'pending')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('payments_pending_created_idx').execute();
  await db.schema.alterTable('idempotency_keys').dropColumn('resource_id').execute();
}
