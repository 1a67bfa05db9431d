import type { Kysely } from 'kysely';

/**
 * Usage metering: one row per tenant, UTC day and endpoint, upserted in batches by the meter
 * (`calls = calls + excluded.calls`), never written once per request. No foreign key to tenants:
 * one row that could not be written must not hold back the batch of every other tenant.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('usage_daily')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('endpoint', 'text', (c) => c.notNull())
    .addColumn('calls', 'bigint', (c) => c.notNull())
    .addColumn('errors', 'bigint', (c) => c.notNull())
    .addColumn('rejected', 'bigint', (c) => c.notNull())
    .addColumn('duration_us', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_daily_pk', ['tenant_id', 'day', 'endpoint'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('usage_daily').execute();
}
