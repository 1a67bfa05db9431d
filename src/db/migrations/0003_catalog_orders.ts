import { type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * Catalog, orders and payments. `product_counts` and `order_counts` keep per-tenant totals by the
 * list filters that are equality tests, updated in the same transactions as the rows, so a list's
 * `total` is a handful of small rows instead of a scan.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('products')
    // `seq` keys the text-search index: SQLite's rowid alias (stable, unlike a bare rowid, across
    // VACUUM), an identity column on PostgreSQL.
    .$call((t) =>
      sqlite
        ? t
            .addColumn('seq', 'integer', (c) => c.primaryKey())
            .addColumn('id', 'text', (c) => c.notNull().unique())
        : t
            .addColumn('id', 'text', (c) => c.primaryKey())
            .addColumn('seq', 'bigint', (c) => c.generatedByDefaultAsIdentity()),
    )
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('sku', 'text')
    .addColumn('price', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('category', 'text')
    .addColumn('stock', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('images', 'text', (c) => c.notNull())
    .addColumn('attributes', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute();
  // One index per filter and sort; each ends in the sort key and id so a keyset seek is a range scan.
  await db.schema
    .createIndex('products_tenant_sku_idx')
    .on('products')
    .columns(['tenant_id', 'sku'])
    .unique()
    .execute();
  await db.schema
    .createIndex('products_tenant_created_idx')
    .on('products')
    .columns(['tenant_id', 'created', 'id'])
    .execute();
  await db.schema
    .createIndex('products_tenant_price_idx')
    .on('products')
    .columns(['tenant_id', 'price', 'id'])
    .execute();
  await db.schema
    .createIndex('products_tenant_name_idx')
    .on('products')
    .columns(['tenant_id', 'name', 'id'])
    .execute();
  await db.schema
    .createIndex('products_tenant_category_idx')
    .on('products')
    .columns(['tenant_id', 'category', 'created', 'id'])
    .execute();
  await db.schema
    .createIndex('products_tenant_status_idx')
    .on('products')
    .columns(['tenant_id', 'status', 'created', 'id'])
    .execute();
  await db.schema
    .createIndex('products_tenant_out_of_stock_idx')
    .on('products')
    .columns(['tenant_id', 'created', 'id'])
    .where(sql.ref('stock'), '=', 0)
    .execute();

  await (sqlite ? createSqliteSearch(db) : createPostgresSearch(db));

  await db.schema
    .createTable('product_counts')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('in_stock', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_counts_pk', ['tenant_id', 'category', 'status', 'in_stock'])
    .execute();

  await db.schema
    .createTable('orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('subtotal', 'bigint', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addColumn('customer_email', 'text', (c) => c.notNull())
    .addColumn('customer_name', 'text')
    .addColumn('shipping_address', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('payment_id', 'text')
    .addColumn('carrier', 'text')
    .addColumn('tracking_number', 'text')
    .addColumn('restocked', 'integer', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .addColumn('paid_at', 'bigint')
    .addColumn('shipped_at', 'bigint')
    .addColumn('delivered_at', 'bigint')
    .addColumn('cancelled_at', 'bigint')
    .addColumn('refunded_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('orders_tenant_created_idx')
    .on('orders')
    .columns(['tenant_id', 'created', 'id'])
    .execute();
  await db.schema
    .createIndex('orders_tenant_status_idx')
    .on('orders')
    .columns(['tenant_id', 'status', 'created', 'id'])
    .execute();
  await db.schema
    .createIndex('orders_tenant_email_idx')
    .on('orders')
    .columns(['tenant_id', 'customer_email', 'created', 'id'])
    .execute();

  await db.schema
    .createTable('order_items')
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('sku', 'text')
    .addColumn('category', 'text')
    .addColumn('quantity', 'bigint', (c) => c.notNull())
    .addColumn('unit_price', 'bigint', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('order_items_pk', ['order_id', 'position'])
    .execute();
  await db.schema
    .createIndex('order_items_tenant_product_idx')
    .on('order_items')
    .columns(['tenant_id', 'product_id'])
    .execute();

  await db.schema
    .createTable('order_counts')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('order_counts_pk', ['tenant_id', 'status'])
    .execute();

  await db.schema
    .createTable('payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('failure_code', 'text')
    .addColumn('failure_message', 'text')
    .addColumn('provider_reference', 'text')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payments_order_idx').on('payments').columns(['order_id', 'created']).execute();
  await db.schema
    .createIndex('payments_tenant_created_idx')
    .on('payments')
    .columns(['tenant_id', 'created', 'id'])
    .execute();
  // At most one attempt in flight per order: a second concurrent charge cannot start.
  await db.schema
    .createIndex('payments_one_pending_per_order_idx')
    .on('payments')
    .column('order_id')
    .unique()
    .where(sql.ref('status'), '=', 'pending')
    .execute();
}

/**
 * The text `q` searches: name, SKU and description joined by a newline (which `q` cannot
 * contain, so a match never spans two fields). The products repository queries this same
 * expression; `newline` is `char(10)` on SQLite and `chr(10)` on PostgreSQL.
 */
function searchText(prefix: string, newline: string): string {
  return `lower(${prefix}name || ${newline} || coalesce(${prefix}sku, '') || ${newline} || coalesce(${prefix}description, ''))`;
}

/** SQLite: an FTS5 trigram index (substring search), kept current by triggers. */
async function createSqliteSearch(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE VIRTUAL TABLE products_search USING fts5(text, content='', contentless_delete=1, tokenize='trigram')`.execute(
    db,
  );
  const insert = `INSERT INTO products_search(rowid, text) VALUES (new.seq, ${searchText('new.', 'char(10)')});`;
  await sql
    .raw(`CREATE TRIGGER products_search_insert AFTER INSERT ON products BEGIN ${insert} END`)
    .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER products_search_update AFTER UPDATE OF name, sku, description ON products BEGIN ` +
        `DELETE FROM products_search WHERE rowid = old.seq; ${insert} END`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER products_search_delete AFTER DELETE ON products BEGIN DELETE FROM products_search WHERE rowid = old.seq; END`,
    )
    .execute(db);
}

/**
 * PostgreSQL: a trigram GIN index (pg_trgm) on the search text. pg_trgm is a trusted extension
 * in every supported PostgreSQL; where it is missing or may not be created, search still works
 * by scanning. The extension goes to `public` when allowed, so dropping one schema never drops it.
 */
async function createPostgresSearch(db: Kysely<unknown>): Promise<void> {
  // Serialises processes migrating different schemas of one database at the same moment.
  await sql`SELECT pg_advisory_xact_lock(hashtext('pg_trgm extension'))`.execute(db);
  const installed = await sql<{ schema: string }>`
    SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'pg_trgm'`.execute(db);
  let schema = installed.rows[0]?.schema;
  if (schema === undefined) {
    const can = await sql<{ available: boolean; in_public: boolean; in_current: boolean }>`
      SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm')
               AND has_database_privilege(current_database(), 'CREATE') AS available,
             has_schema_privilege('public', 'CREATE') AS in_public,
             has_schema_privilege(current_schema(), 'CREATE') AS in_current`.execute(db);
    const row = can.rows[0];
    if (!row?.available || !(row.in_public || row.in_current)) return;
    const target = row.in_public
      ? 'public'
      : ((await sql<{ s: string }>`SELECT current_schema() AS s`.execute(db)).rows[0]?.s ?? 'public');
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA ${sql.id(target)}`.execute(db);
    schema = target;
  }
  await sql
    .raw(
      `CREATE INDEX products_search_idx ON products USING gin ((${searchText('', 'chr(10)')}) "${schema.replaceAll('"', '""')}".gin_trgm_ops)`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS products_search`.execute(db);
  for (const table of ['payments', 'order_counts', 'order_items', 'orders', 'product_counts', 'products']) {
    await db.schema.dropTable(table).execute();
  }
}
