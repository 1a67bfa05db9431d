import { type Kysely, sql } from 'kysely';

/**
 * A refund is committed on our side (order and payment refunded, wallet debited) before the
 * payment provider is told. `refund_due_at` records, in that same transaction, that the provider
 * still owes its confirmation: it is cleared when the provider confirms, and a sweep retries the
 * refunds whose time has come (a crash or a provider error in between), so no refund is forgotten.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('payments').addColumn('refund_due_at', 'bigint').execute();
  await db.schema
    .createIndex('payments_refund_due_idx')
    .on('payments')
    .column('refund_due_at')
    .where(sql.ref('refund_due_at'), 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('payments_refund_due_idx').execute();
  await db.schema.alterTable('payments').dropColumn('refund_due_at').execute();
}
