import { type Kysely, sql } from 'kysely';

/**
 * The delivery logs' indexes for how they are read now:
 * - an endpoint's log is ordered by attempt time, `COALESCE(time, due_at)` (when an attempt was
 *   made, or is due), newest first, and paged by cursor on (that, id): an index on the same
 *   expression walks a page without sorting the endpoint's whole log;
 * - an event's deliveries to every endpoint (`GET /events/{id}/deliveries`) are found by event id.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (endpoint_id, (COALESCE(time, due_at)), id)`.execute(
    db,
  );
  await db.schema
    .createIndex('webhook_deliveries_event_id_idx')
    .on('webhook_deliveries')
    .columns(['event_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_event_id_idx').execute();
  await db.schema.dropIndex('webhook_deliveries_log_idx').execute();
}
