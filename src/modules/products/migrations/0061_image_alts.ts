import { type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * Images' alt text (release v2.6, products' `media`): `products.image_alts`, a JSON object from an
 * image URL of the product's `images` to its alt text. `images` stays as it was (a JSON array of
 * URLs, in order), so every reader and writer of it is untouched; an image without alt text has
 * no entry. Existing products have none: every image's alt is null.
 *
 * As 0046: on PostgreSQL an earlier migration of the same start may have left the catalog's
 * deferred trigger events pending, which forbid altering the table; they fire first.
 *
 * Frozen: plain SQL, no module code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = !(db.getExecutor().adapter instanceof SqliteAdapter);
  if (postgres) await sql`SET CONSTRAINTS ALL IMMEDIATE`.execute(db);
  await db.schema
    .alterTable('products')
    .addColumn('image_alts', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  if (postgres) await sql`SET CONSTRAINTS ALL DEFERRED`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('products').dropColumn('image_alts').execute();
}
