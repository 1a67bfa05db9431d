import { type Kysely, sql } from 'kysely';

/**
 * Refunds of orders owe the provider's confirmation on their own row (`refunds.due_at`) from
 * migration 0022 on, which copied what `payments.refund_due_at` owed into the refunds it carried
 * over. Those payments stop owing it themselves, so the sweep sends each such refund once, from its
 * refund row. `payments.refund_due_at` now only marks a charge given back because its order was
 * cancelled while it ran (no refund of the order: it never was paid).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE payments SET refund_due_at = NULL
    WHERE refund_due_at IS NOT NULL AND id IN (SELECT payment_id FROM refunds)`.execute(db);
}

/** Each carried refund still owed puts its due time back on its payment, where release v2.4 looks. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE payments SET refund_due_at = (
      SELECT MIN(r.due_at) FROM refunds r WHERE r.payment_id = payments.id AND r.due_at IS NOT NULL)
    WHERE refund_due_at IS NULL AND id IN (SELECT payment_id FROM refunds WHERE due_at IS NOT NULL)`.execute(
    db,
  );
}
