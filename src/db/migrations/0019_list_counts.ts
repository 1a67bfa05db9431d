import { type Kysely, sql } from 'kysely';

/**
 * Kept totals for the event list and the delivery log, as `order_counts` keeps them for orders: an
 * exact `total` without counting the rows (contract section 4: a list's cost does not grow with
 * its table). `event_counts` per tenant and type, `webhook_delivery_counts` per endpoint and
 * status; both change in the transaction that adds, settles or deletes the rows they count. Each
 * count is split over a few rows (`shard`, picked at random by each change, summed when read), so
 * concurrent transactions of one tenant rarely wait on one another's count.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('event_counts')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('event_counts_pk', ['tenant_id', 'type', 'shard'])
    .execute();
  await db.schema
    .createTable('webhook_delivery_counts')
    .addColumn('endpoint_id', 'text', (c) =>
      c.notNull().references('webhook_endpoints.id').onDelete('cascade'),
    )
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('shard', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_delivery_counts_pk', ['endpoint_id', 'status', 'shard'])
    .execute();
  await sql`INSERT INTO event_counts (tenant_id, type, shard, n)
    SELECT tenant_id, type, 0, COUNT(*) FROM events GROUP BY tenant_id, type`.execute(db);
  await sql`INSERT INTO webhook_delivery_counts (endpoint_id, status, shard, n)
    SELECT endpoint_id, status, 0, COUNT(*) FROM webhook_deliveries GROUP BY endpoint_id, status`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_delivery_counts').execute();
  await db.schema.dropTable('event_counts').execute();
}
