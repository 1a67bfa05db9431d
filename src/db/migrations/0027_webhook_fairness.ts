import { type Kysely, sql } from 'kysely';

/**
 * The delivery queue indexed per endpoint: `(endpoint_id, due_at, id)` over the rows waiting to be
 * sent (pending and not held). A worker's look at the queue hops from endpoint to endpoint along
 * it and reads only the first deliveries of each, so a tenant with a backlog of 100,000 (a bulk
 * import) costs the look one probe per endpoint, not a walk past every delivery of endpoints the
 * worker is already busy with. It replaces the queue's index in due order (migration 0018), which
 * nothing reads any more.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX webhook_deliveries_queue_idx ON webhook_deliveries (endpoint_id, due_at, id)
    WHERE status = 'pending' AND held = 0`.execute(db);
  await db.schema.dropIndex('webhook_deliveries_due_idx').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (due_at, id)
    WHERE status = 'pending' AND held = 0`.execute(db);
  await db.schema.dropIndex('webhook_deliveries_queue_idx').execute();
}
