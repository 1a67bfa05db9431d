import type { Kysely } from 'kysely';

/**
 * Retention of events and the webhook delivery log (`EVENT_RETENTION_DAYS`): the purge finds
 * expired events by age across tenants, and their deliveries by event (also what the foreign key
 * from a delivery to its event checks when an event is deleted).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('events_created_idx').on('events').columns(['created', 'id']).execute();
  await db.schema
    .createIndex('webhook_deliveries_event_status_idx')
    .on('webhook_deliveries')
    .columns(['event_id', 'status'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_event_status_idx').execute();
  await db.schema.dropIndex('events_created_idx').execute();
}
