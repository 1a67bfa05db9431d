import { type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * Options and variants. Every product gets its variants in `product_variants`; a product of
 * release v2.4 becomes a product without options and with one `Default` variant holding its SKU,
 * price and stock (the variant's id is the product's with `var_` for `prod_`, so order lines
 * written before this migration name their variant too). The product row keeps the figures the
 * list filters and sorts on, kept by the service in the variants' transactions: `price` (the
 * lowest variant price), `price_max`, `stock` (the sum), `variant_count`, and `search_extra`
 * (variant SKUs and option values, which `q` searches beside name, SKU and description).
 *
 * SKUs become unique per tenant across variants and case-insensitively, through `sku_key`, the
 * lower-cased SKU. Products that already differ only in case keep their SKUs: the older one holds
 * the key, the later ones a key of their own that no SKU can equal (it contains a space), so the
 * index builds and every new SKU is compared case-insensitively with all of them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('product_variants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('sku', 'text')
    .addColumn('sku_key', 'text')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('options', 'text', (c) => c.notNull())
    .addColumn('option_key', 'text', (c) => c.notNull())
    .addColumn('price', 'bigint', (c) => c.notNull())
    .addColumn('compare_at_price', 'bigint')
    .addColumn('stock', 'bigint', (c) => c.notNull())
    .addColumn('weight_grams', 'bigint')
    .addColumn('barcode', 'text')
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('product_variants_product_position_idx')
    .on('product_variants')
    .columns(['product_id', 'position', 'id'])
    .execute();
  await db.schema
    .createIndex('product_variants_combination_idx')
    .on('product_variants')
    .columns(['product_id', 'option_key'])
    .unique()
    .execute();

  for (const [column, type, fill] of [
    ['options', 'text', "'[]'"],
    ['variant_count', 'integer', '1'],
    ['price_max', 'bigint', '0'],
    ['search_extra', 'text', "''"],
  ] as const) {
    await db.schema
      .alterTable('products')
      .addColumn(column, type, (c) => c.notNull().defaultTo(sql.raw(fill)))
      .execute();
  }
  await sql`UPDATE products SET price_max = price`.execute(db);
  await sql`INSERT INTO product_variants
      (id, tenant_id, product_id, sku, sku_key, title, options, option_key, price, compare_at_price,
       stock, weight_grams, barcode, position, created, updated)
    SELECT 'var_' || substr(id, 6), tenant_id, id, sku, lower(sku), 'Default', '{}', '[]', price, NULL,
       stock, NULL, NULL, 1, created, updated
    FROM products`.execute(db);
  await sql`UPDATE product_variants SET sku_key = sku_key || ' ' || id
    WHERE sku_key IS NOT NULL AND EXISTS (
      SELECT 1 FROM product_variants older
      WHERE older.tenant_id = product_variants.tenant_id AND older.sku_key = product_variants.sku_key
        AND (older.created < product_variants.created
          OR (older.created = product_variants.created AND older.id < product_variants.id)))`.execute(db);
  await db.schema
    .createIndex('product_variants_tenant_sku_idx')
    .on('product_variants')
    .columns(['tenant_id', 'sku_key'])
    .unique()
    .execute();
  await db.schema.dropIndex('products_tenant_sku_idx').execute();

  await db.schema.alterTable('order_items').addColumn('variant_id', 'text').execute();
  await db.schema.alterTable('order_items').addColumn('variant_title', 'text').execute();
  await sql`UPDATE order_items SET variant_id = 'var_' || substr(product_id, 6), variant_title = 'Default'`.execute(
    db,
  );

  await db.schema.alterTable('events').addColumn('extra', 'text').execute();

  await (sqlite ? searchSqlite(db, SEARCH_TEXT_SQLITE_V19) : searchPostgres(db, SEARCH_TEXT_POSTGRES_V19));
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await (sqlite ? searchSqlite(db, SEARCH_TEXT_SQLITE_V17) : searchPostgres(db, SEARCH_TEXT_POSTGRES_V17));
  await db.schema.alterTable('events').dropColumn('extra').execute();
  await db.schema.alterTable('order_items').dropColumn('variant_title').execute();
  await db.schema.alterTable('order_items').dropColumn('variant_id').execute();
  await db.schema
    .createIndex('products_tenant_sku_idx')
    .on('products')
    .columns(['tenant_id', 'sku'])
    .unique()
    .execute();
  for (const column of ['search_extra', 'price_max', 'variant_count', 'options']) {
    await db.schema.alterTable('products').dropColumn(column).execute();
  }
  await db.schema.dropTable('product_variants').execute();
}

/** The searched text, the fields joined by newlines and folded as migration 0017 folds them. */
function sqliteText(prefix: string, extra: boolean): string {
  const fields = `${prefix}name || char(10) || coalesce(${prefix}sku, '') || char(10) || coalesce(${prefix}description, '')`;
  return `search_fold(${extra ? `${fields} || char(10) || ${prefix}search_extra` : fields})`;
}
function postgresText(extra: boolean): string {
  const fields = `name || chr(10) || coalesce(sku, '') || chr(10) || coalesce(description, '')`;
  return `translate(lower(${extra ? `${fields} || chr(10) || search_extra` : fields}), '\u03c2\u0307', '\u03c3')`;
}
const SEARCH_TEXT_SQLITE_V17 = {
  text: (p: string) => sqliteText(p, false),
  columns: 'name, sku, description',
};
const SEARCH_TEXT_SQLITE_V19 = {
  text: (p: string) => sqliteText(p, true),
  columns: 'name, sku, description, search_extra',
};
const SEARCH_TEXT_POSTGRES_V17 = postgresText(false);
const SEARCH_TEXT_POSTGRES_V19 = postgresText(true);

/** SQLite: the FTS5 table's triggers index the new text, and the table is filled again. */
async function searchSqlite(
  db: Kysely<unknown>,
  search: { text: (prefix: string) => string; columns: string },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const trigger of ['products_search_insert', 'products_search_update']) {
      await sql`DROP TRIGGER IF EXISTS ${sql.id(trigger)}`.execute(trx);
    }
    const insert = `INSERT INTO products_search(rowid, text) VALUES (new.seq, ${search.text('new.')});`;
    await sql
      .raw(`CREATE TRIGGER products_search_insert AFTER INSERT ON products BEGIN ${insert} END`)
      .execute(trx);
    await sql
      .raw(
        `CREATE TRIGGER products_search_update AFTER UPDATE OF ${search.columns} ON products BEGIN ` +
          `DELETE FROM products_search WHERE rowid = old.seq; ${insert} END`,
      )
      .execute(trx);
    await sql`INSERT INTO products_search(products_search) VALUES ('delete-all')`.execute(trx);
    await sql
      .raw(`INSERT INTO products_search(rowid, text) SELECT seq, ${search.text('')} FROM products`)
      .execute(trx);
  });
}

/** PostgreSQL: the trigram index is built again on the new text, where pg_trgm is installed. */
async function searchPostgres(db: Kysely<unknown>, text: string): Promise<void> {
  await sql`DROP INDEX IF EXISTS products_search_idx`.execute(db);
  const installed = await sql<{ schema: string }>`
    SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'pg_trgm'`.execute(db);
  const schema = installed.rows[0]?.schema;
  if (schema === undefined) return;
  await sql
    .raw(
      `CREATE INDEX products_search_idx ON products USING gin ((${text}) "${schema.replaceAll('"', '""')}".gin_trgm_ops)`,
    )
    .execute(db);
}
