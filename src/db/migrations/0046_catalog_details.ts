import { type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * What a store moved in from Shopify or WooCommerce brings besides prices and stock (release v2.6):
 *
 * - `product_variants.image`: the variant's own image, an https URL, or null;
 * - `product_variants.cost`: what the variant costs the merchant, minor units of the product's
 *   currency, or null (never shown to shoppers);
 * - `product_variants.requires_shipping` and `product_variants.taxable` (1 or 0): only lines that
 *   require shipping weigh and need a shipping rate, and untaxable lines get no tax;
 * - `products.seo_title` and `products.seo_description`: what search engines show, or null;
 * - `imports.ignored_columns`: a JSON array of the file's columns the import did not use.
 *
 * Every existing variant requires shipping and is taxable, as every order priced it until now;
 * it has no image and no cost. Existing products have no SEO fields, existing imports ignored
 * nothing they listed.
 *
 * On PostgreSQL the migrations of one start run in one transaction, and an earlier one may have
 * changed products under the catalog's deferred triggers (0033): PostgreSQL refuses to alter a table
 * with trigger events pending, so they fire first (`SET CONSTRAINTS ALL IMMEDIATE`), and the
 * triggers are deferred again after.
 *
 * Frozen: plain SQL, no module code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = !(db.getExecutor().adapter instanceof SqliteAdapter);
  if (postgres) await sql`SET CONSTRAINTS ALL IMMEDIATE`.execute(db);
  await db.schema.alterTable('product_variants').addColumn('image', 'text').execute();
  await db.schema.alterTable('product_variants').addColumn('cost', 'bigint').execute();
  await db.schema
    .alterTable('product_variants')
    .addColumn('requires_shipping', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable('product_variants')
    .addColumn('taxable', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('products').addColumn('seo_title', 'text').execute();
  await db.schema.alterTable('products').addColumn('seo_description', 'text').execute();
  await db.schema
    .alterTable('imports')
    .addColumn('ignored_columns', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  if (postgres) await sql`SET CONSTRAINTS ALL DEFERRED`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('imports').dropColumn('ignored_columns').execute();
  for (const column of ['seo_description', 'seo_title']) {
    await db.schema.alterTable('products').dropColumn(column).execute();
  }
  for (const column of ['taxable', 'requires_shipping', 'cost', 'image']) {
    await db.schema.alterTable('product_variants').dropColumn(column).execute();
  }
}
