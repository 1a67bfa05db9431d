import { type Kysely, sql } from 'kysely';

/**
 * Pending deliveries of a Disabled endpoint are held: out of the queue's partial index, so the
 * worker's every look at the queue no longer walks them (an endpoint disabled after days of
 * failures can hold hundreds of thousands). Disabling an endpoint holds its pending deliveries,
 * re-enabling it releases them, in the transaction that changes its status.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('webhook_deliveries')
    .addColumn('held', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE webhook_deliveries SET held = 1 WHERE status = 'pending' AND endpoint_id IN
    (SELECT id FROM webhook_endpoints WHERE status = 'Disabled')`.execute(db);
  await db.schema.dropIndex('webhook_deliveries_due_idx').execute();
  await sql`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (due_at, id)
    WHERE status = 'pending' AND held = 0`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_due_idx').execute();
  await sql`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (due_at, id)
    WHERE status = 'pending'`.execute(db);
  await db.schema.alterTable('webhook_deliveries').dropColumn('held').execute();
}
