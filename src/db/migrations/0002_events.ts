import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('events_tenant_created_idx')
    .on('events')
    .columns(['tenant_id', 'created', 'id'])
    .execute();
  await db.schema
    .createIndex('events_tenant_type_created_idx')
    .on('events')
    .columns(['tenant_id', 'type', 'created', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('events').execute();
}
