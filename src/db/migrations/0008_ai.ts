import type { Kysely } from 'kysely';

/**
 * AI description generations: one row per generated text, with the provider and model that wrote
 * it, the token usage it cost and whether it was saved to its product.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ai_generations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    // No foreign key: a generation outlives the product it was written for.
    .addColumn('product_id', 'text')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('tone', 'text', (c) => c.notNull())
    .addColumn('length', 'text', (c) => c.notNull())
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('variant', 'integer', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('word_count', 'integer', (c) => c.notNull())
    .addColumn('input_tokens', 'integer', (c) => c.notNull())
    .addColumn('output_tokens', 'integer', (c) => c.notNull())
    .addColumn('truncated', 'integer', (c) => c.notNull())
    .addColumn('saved', 'integer', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('ai_generations_tenant_created_idx')
    .on('ai_generations')
    .columns(['tenant_id', 'created', 'id'])
    .execute();
  await db.schema
    .createIndex('ai_generations_tenant_product_idx')
    .on('ai_generations')
    .columns(['tenant_id', 'product_id', 'created'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('ai_generations').execute();
}
