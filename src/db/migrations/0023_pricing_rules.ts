import type { Kysely } from 'kysely';

/**
 * A store's pricing rules: discounts, shipping rates and tax rates. New tables only; nothing that
 * exists changes, so a store of the previous release gains them empty.
 *
 * - `discounts`: a code the buyer types (`code` as given, `code_key` upper-cased, unique per
 *   tenant) or an automatic discount (`automatic` 1, no code); its amount (`type`, `value`,
 *   `currency`), the lines it targets (`applies_to`, JSON or null), its conditions (minimum
 *   subtotal, time window, usage limits) and `times_used`, moved in the orders' transactions.
 * - `discount_customer_uses`: how many orders of one customer used one discount, for the
 *   per-customer limit.
 * - `shipping_rates`: a price for a set of countries (JSON array of alpha-2 codes, or `["*"]`), a
 *   currency and a weight band (null bounds are open).
 * - `tax_rates`: a rate for a country, or a state of it; `state_key` (the upper-cased state, `''`
 *   for the whole country) makes (tenant, country, state) unique even where `state` is null, since
 *   a unique index treats nulls as distinct.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('discounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('code', 'text')
    .addColumn('code_key', 'text')
    .addColumn('automatic', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text')
    .addColumn('applies_to', 'text')
    .addColumn('minimum_subtotal', 'bigint')
    .addColumn('starts_at', 'bigint')
    .addColumn('ends_at', 'bigint')
    .addColumn('usage_limit', 'bigint')
    .addColumn('usage_limit_per_customer', 'bigint')
    .addColumn('times_used', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('combinable', 'integer', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute();
  // Automatic discounts have no code: a unique index lets any number of nulls through.
  await db.schema
    .createIndex('discounts_tenant_code_idx')
    .on('discounts')
    .columns(['tenant_id', 'code_key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('discounts_tenant_created_idx')
    .on('discounts')
    .columns(['tenant_id', 'created', 'id'])
    .execute();
  // Every order reads its tenant's enabled automatic discounts.
  await db.schema
    .createIndex('discounts_tenant_automatic_idx')
    .on('discounts')
    .columns(['tenant_id', 'automatic', 'enabled'])
    .execute();

  await db.schema
    .createTable('discount_customer_uses')
    .addColumn('discount_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('uses', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('discount_customer_uses_pk', ['discount_id', 'customer_id'])
    .execute();

  await db.schema
    .createTable('shipping_rates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('countries', 'text', (c) => c.notNull())
    .addColumn('price', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('free_over', 'bigint')
    .addColumn('min_weight_grams', 'bigint')
    .addColumn('max_weight_grams', 'bigint')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('shipping_rates_tenant_created_idx')
    .on('shipping_rates')
    .columns(['tenant_id', 'created', 'id'])
    .execute();

  await db.schema
    .createTable('tax_rates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('state', 'text')
    .addColumn('state_key', 'text', (c) => c.notNull())
    .addColumn('rate_bps', 'integer', (c) => c.notNull())
    .addColumn('inclusive', 'integer', (c) => c.notNull())
    .addColumn('shipping_taxable', 'integer', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('tax_rates_tenant_place_idx')
    .on('tax_rates')
    .columns(['tenant_id', 'country', 'state_key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('tax_rates_tenant_created_idx')
    .on('tax_rates')
    .columns(['tenant_id', 'created', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('tax_rates').execute();
  await db.schema.dropTable('shipping_rates').execute();
  await db.schema.dropTable('discount_customer_uses').execute();
  await db.schema.dropTable('discounts').execute();
}
