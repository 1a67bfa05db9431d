import { type Kysely, SqliteAdapter, sql } from 'kysely';
import { randomBase62 } from '../../lib/ids.js';

/**
 * Customers. A customer is a person a tenant sells to, with an email unique per tenant compared
 * case-insensitively (`email_key`, the lower-cased email), and figures kept in the transactions
 * that move them: `orders_count`, `total_spent` (JSON, per currency: captured payments minus
 * refunds), `total_spent_sort` (the amount in the tenant's currency, which `-total_spent` sorts
 * on) and `last_order_at`. Orders name their customer by `customer_id`.
 *
 * Existing orders become one customer per distinct email per tenant: orders store their email
 * lower-cased, so each distinct `customer_email` is one person. Its figures are counted from its
 * orders (release v2.4 had only whole refunds: an order in `paid`, `shipped` or `delivered` holds
 * its captured total, a refunded or cancelled one holds nothing), its name is that of its latest
 * order that gave one, its address that of its latest order with one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('customers')
    // `seq` keys the text-search index, as on products: SQLite's rowid alias, an identity on PostgreSQL.
    .$call((t) =>
      sqlite
        ? t
            .addColumn('seq', 'integer', (c) => c.primaryKey())
            .addColumn('id', 'text', (c) => c.notNull().unique())
        : t
            .addColumn('id', 'text', (c) => c.primaryKey())
            .addColumn('seq', 'bigint', (c) => c.generatedByDefaultAsIdentity()),
    )
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_key', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('phone', 'text')
    .addColumn('addresses', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('marketing_consent', 'integer', (c) => c.notNull())
    .addColumn('orders_count', 'bigint', (c) => c.notNull())
    .addColumn('total_spent', 'text', (c) => c.notNull())
    .addColumn('total_spent_sort', 'bigint', (c) => c.notNull())
    .addColumn('last_order_at', 'bigint')
    .addColumn('redacted', 'integer', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('customers_tenant_email_idx')
    .on('customers')
    .columns(['tenant_id', 'email_key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('customers_tenant_created_idx')
    .on('customers')
    .columns(['tenant_id', 'created', 'id'])
    .execute();
  await db.schema
    .createIndex('customers_tenant_spent_idx')
    .on('customers')
    .columns(['tenant_id', 'total_spent_sort', 'id'])
    .execute();
  // Tags, one row each, for the `tag` filter: (tenant, tag, created, id) pages like the list does.
  await db.schema
    .createTable('customer_tags')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('tag', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('customer_tags_pk', ['tenant_id', 'tag', 'customer_id'])
    .execute();
  await db.schema
    .createIndex('customer_tags_seek_idx')
    .on('customer_tags')
    .columns(['tenant_id', 'tag', 'created', 'customer_id'])
    .execute();
  // Customers per tenant and per tag, kept in the customers' transactions: a list's `total`.
  await db.schema
    .createTable('customer_counts')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('tag', 'text', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('customer_counts_pk', ['tenant_id', 'tag'])
    .execute();

  await db.schema.alterTable('orders').addColumn('customer_id', 'text').execute();
  await db.schema
    .createIndex('orders_tenant_customer_idx')
    .on('orders')
    .columns(['tenant_id', 'customer_id', 'created', 'id'])
    .execute();
  await backfill(db, sqlite);
  await (sqlite ? searchSqlite(db) : searchPostgres(db));
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  if (sqlite) await sql`DROP TABLE IF EXISTS customers_search`.execute(db);
  await db.schema.dropIndex('orders_tenant_customer_idx').execute();
  await db.schema.alterTable('orders').dropColumn('customer_id').execute();
  await db.schema.dropTable('customer_counts').execute();
  await db.schema.dropTable('customer_tags').execute();
  await db.schema.dropTable('customers').execute();
}

const CAPTURED = sql.raw("('paid', 'shipped', 'delivered')");

/**
 * Customers made from the orders, set-based: ids are drawn here (one per distinct tenant and email,
 * written to a scratch table a few thousand at a time), everything else is SQL over the orders.
 */
async function backfill(db: Kysely<unknown>, sqlite: boolean): Promise<void> {
  await sql`CREATE TABLE customer_backfill (tenant_id text NOT NULL, email text NOT NULL, id text NOT NULL,
    PRIMARY KEY (tenant_id, email))`.execute(db);
  const BATCH = 2000;
  let after: [string, string] = ['', ''];
  for (;;) {
    const people = await sql<{ tenant_id: string; customer_email: string }>`
      SELECT DISTINCT tenant_id, customer_email FROM orders
      WHERE tenant_id > ${after[0]} OR (tenant_id = ${after[0]} AND customer_email > ${after[1]})
      ORDER BY tenant_id, customer_email LIMIT ${BATCH}`.execute(db);
    if (people.rows.length === 0) break;
    const values = people.rows.map(
      (p) => sql`(${p.tenant_id}, ${p.customer_email}, ${`cus_${randomBase62(24)}`})`,
    );
    await sql`INSERT INTO customer_backfill (tenant_id, email, id) VALUES ${sql.join(values)}`.execute(db);
    const last = people.rows[people.rows.length - 1] as { tenant_id: string; customer_email: string };
    after = [last.tenant_id, last.customer_email];
  }
  await sql`UPDATE orders SET customer_id = (SELECT b.id FROM customer_backfill b
    WHERE b.tenant_id = orders.tenant_id AND b.email = orders.customer_email)`.execute(db);
  await sql`INSERT INTO customers (id, tenant_id, email, email_key, name, phone, addresses, tags, note, metadata,
      marketing_consent, orders_count, total_spent, total_spent_sort, last_order_at, redacted, created, updated)
    SELECT b.id, b.tenant_id, b.email, lower(b.email),
      (SELECT o.customer_name FROM orders o WHERE o.tenant_id = b.tenant_id AND o.customer_email = b.email
        AND o.customer_name IS NOT NULL ORDER BY o.created DESC, o.id DESC LIMIT 1),
      NULL,
      coalesce((SELECT '[' || o.shipping_address || ']' FROM orders o WHERE o.tenant_id = b.tenant_id
        AND o.customer_email = b.email AND o.shipping_address IS NOT NULL ORDER BY o.created DESC, o.id DESC LIMIT 1),
        '[]'),
      '[]', NULL, '{}', 0, agg.n, '{}', 0, agg.last, 0, agg.first, agg.first
    FROM customer_backfill b JOIN (
      SELECT tenant_id, customer_email, COUNT(*) AS n, MIN(created) AS first, MAX(created) AS last
      FROM orders GROUP BY tenant_id, customer_email
    ) agg ON agg.tenant_id = b.tenant_id AND agg.customer_email = b.email`.execute(db);
  // Per currency, as a JSON object: SQLite's json_group_object, PostgreSQL's json_object_agg.
  const perCurrency = sqlite
    ? sql`json_group_object(s.currency, s.amount)`
    : sql`json_object_agg(s.currency, s.amount)::text`;
  // A currency is there once a payment was captured in it, as the live figures keep it (order.paid
  // adds it; a refund leaves it at 0): a customer refunded in full has {"USD": 0}, one who never paid {}.
  const capturedOnce = sql`(o.paid_at IS NOT NULL OR o.status IN ${CAPTURED})`;
  await sql`UPDATE customers SET total_spent = (
      SELECT ${perCurrency} FROM (
        SELECT currency, SUM(CASE WHEN o.status IN ${CAPTURED} THEN total ELSE 0 END) AS amount FROM orders o
        WHERE o.tenant_id = customers.tenant_id AND o.customer_id = customers.id AND ${capturedOnce}
        GROUP BY currency ORDER BY currency
      ) s)
    WHERE EXISTS (SELECT 1 FROM orders o WHERE o.tenant_id = customers.tenant_id AND o.customer_id = customers.id
      AND ${capturedOnce})`.execute(db);
  await sql`UPDATE customers SET total_spent_sort = coalesce((
      SELECT SUM(o.total) FROM orders o JOIN tenants t ON t.id = o.tenant_id
      WHERE o.tenant_id = customers.tenant_id AND o.customer_id = customers.id AND o.currency = t.currency
        AND o.status IN ${CAPTURED}), 0)`.execute(db);
  await sql`INSERT INTO customer_counts (tenant_id, tag, n)
    SELECT tenant_id, '', COUNT(*) FROM customers GROUP BY tenant_id`.execute(db);
  await sql`DROP TABLE customer_backfill`.execute(db);
}

/** `q` searches email, name and phone: SQLite's FTS5 trigram table narrows the rows first. */
async function searchSqlite(db: Kysely<unknown>): Promise<void> {
  const text = (p: string) =>
    `search_fold(${p}email || char(10) || coalesce(${p}name, '') || char(10) || coalesce(${p}phone, ''))`;
  await sql`CREATE VIRTUAL TABLE customers_search USING fts5(text, content='', contentless_delete=1, tokenize='trigram')`.execute(
    db,
  );
  const insert = `INSERT INTO customers_search(rowid, text) VALUES (new.seq, ${text('new.')});`;
  await sql
    .raw(`CREATE TRIGGER customers_search_insert AFTER INSERT ON customers BEGIN ${insert} END`)
    .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER customers_search_update AFTER UPDATE OF email, name, phone ON customers BEGIN ` +
        `DELETE FROM customers_search WHERE rowid = old.seq; ${insert} END`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER customers_search_delete AFTER DELETE ON customers BEGIN DELETE FROM customers_search WHERE rowid = old.seq; END`,
    )
    .execute(db);
  await sql
    .raw(`INSERT INTO customers_search(rowid, text) SELECT seq, ${text('')} FROM customers`)
    .execute(db);
}

/** PostgreSQL: a trigram index on the folded text, where pg_trgm is installed. */
async function searchPostgres(db: Kysely<unknown>): Promise<void> {
  const installed = await sql<{ schema: string }>`
    SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'pg_trgm'`.execute(db);
  const schema = installed.rows[0]?.schema;
  if (schema === undefined) return;
  const text = `translate(lower(email || chr(10) || coalesce(name, '') || chr(10) || coalesce(phone, '')), '\u03c2\u0307', '\u03c3')`;
  await sql
    .raw(
      `CREATE INDEX customers_search_idx ON customers USING gin ((${text}) "${schema.replaceAll('"', '""')}".gin_trgm_ops)`,
    )
    .execute(db);
}
