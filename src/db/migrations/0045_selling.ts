import { type Kysely, sql, SqliteAdapter } from 'kysely';

/**
 * Selling without a counter every order of a store waits on:
 *
 * - Orders are counted by status in the kept list counts of migration 0031 (`list_counts` and
 *   `list_count_deltas`, list `orders`, keyed by status) instead of `order_counts`, whose one row
 *   per tenant and status every order locked until its commit. Triggers on `orders` add +1 and -1
 *   rows as orders are made, change status and are deleted, in the writing transaction; the
 *   periodic fold moves them into `list_counts`. The counts start from `order_counts`, with
 *   writers of orders held off meanwhile (PostgreSQL: SHARE ROW EXCLUSIVE until the migration
 *   commits), and `order_counts` goes.
 * - Customers are counted likewise (list `customers`, keyed by tag, '' for all of them), their
 *   writers adding the +1 and -1 rows themselves, instead of in `customer_counts`, whose row every
 *   order for a new buyer locked until its commit. The counts start from `customer_counts`, which
 *   goes.
 * - `analytics_queue (seq, event_id)`: the order and refund events the analytics rollups have not
 *   taken in yet, one row per event, added by a trigger on `events` as the event is written (in its
 *   transaction, no statement of its own) and deleted in the transaction that rolls it up (so each
 *   is counted once), oldest first. The rollups were written in the order's own transaction, under
 *   a lock of the store's figures every order of the store then waited for. The events queued:
 *   `order.created`, `.paid`, `.shipped`, `.delivered`, `.cancelled` and `.refunded` of an order,
 *   and `refund.created`.
 *
 * Frozen: plain SQL, no module code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const delta = (prefix: 'new' | 'old', value: 1 | -1) =>
    `INSERT INTO list_count_deltas (tenant_id, list, key, delta) VALUES (${prefix}.tenant_id, 'orders', ${prefix}.status, ${value});`;
  if (sqlite) {
    await sql
      .raw(`CREATE TRIGGER orders_count_insert AFTER INSERT ON orders BEGIN ${delta('new', 1)} END`)
      .execute(db);
    await sql
      .raw(`CREATE TRIGGER orders_count_delete AFTER DELETE ON orders BEGIN ${delta('old', -1)} END`)
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER orders_count_status AFTER UPDATE OF status ON orders
          WHEN old.status <> new.status BEGIN ${delta('old', -1)} ${delta('new', 1)} END`,
      )
      .execute(db);
  } else {
    await sql`LOCK TABLE orders, order_counts, customer_counts IN SHARE ROW EXCLUSIVE MODE`.execute(db);
    await sql
      .raw(
        `CREATE FUNCTION orders_count_delta() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'INSERT' THEN ${delta('new', 1)}
          ELSIF TG_OP = 'DELETE' THEN ${delta('old', -1)}
          ELSIF OLD.status <> NEW.status THEN ${delta('old', -1)} ${delta('new', 1)}
          END IF;
          RETURN NULL;
        END $$`,
      )
      .execute(db);
    await sql`CREATE TRIGGER orders_count AFTER INSERT OR DELETE OR UPDATE OF status ON orders
      FOR EACH ROW EXECUTE FUNCTION orders_count_delta()`.execute(db);
  }
  await sql`INSERT INTO list_counts (tenant_id, list, key, n)
    SELECT tenant_id, 'orders', status, n FROM order_counts WHERE n <> 0`.execute(db);
  await db.schema.dropTable('order_counts').execute();
  await sql`INSERT INTO list_counts (tenant_id, list, key, n)
    SELECT tenant_id, 'customers', tag, n FROM customer_counts WHERE n <> 0`.execute(db);
  await db.schema.dropTable('customer_counts').execute();

  await db.schema
    .createTable('analytics_queue')
    .addColumn('seq', sqlite ? 'integer' : 'bigserial', (col) =>
      sqlite ? col.primaryKey().autoIncrement() : col.primaryKey(),
    )
    .addColumn('event_id', 'text', (col) => col.notNull())
    .execute();
  const rolledUp = `(new.type IN ('order.created', 'order.paid', 'order.shipped', 'order.delivered',
    'order.cancelled', 'order.refunded') AND new.object_type = 'order') OR new.type = 'refund.created'`;
  const enqueue = 'INSERT INTO analytics_queue (event_id) VALUES (new.id);';
  if (sqlite) {
    await sql
      .raw(
        `CREATE TRIGGER events_analytics_queue AFTER INSERT ON events WHEN ${rolledUp} BEGIN ${enqueue} END`,
      )
      .execute(db);
  } else {
    await sql
      .raw(
        `CREATE FUNCTION analytics_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN ${enqueue} RETURN NULL; END $$`,
      )
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER events_analytics_queue AFTER INSERT ON events FOR EACH ROW
          WHEN (${rolledUp.replaceAll('new.', 'NEW.')}) EXECUTE FUNCTION analytics_enqueue()`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  if (sqlite) {
    await sql`DROP TRIGGER IF EXISTS events_analytics_queue`.execute(db);
  } else {
    await sql`DROP TRIGGER IF EXISTS events_analytics_queue ON events`.execute(db);
    await sql`DROP FUNCTION IF EXISTS analytics_enqueue()`.execute(db);
  }
  await db.schema.dropTable('analytics_queue').execute();
  await db.schema
    .createTable('customer_counts')
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addColumn('tag', 'text', (col) => col.notNull())
    .addColumn('n', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('customer_counts_pk', ['tenant_id', 'tag'])
    .execute();
  await sql`INSERT INTO customer_counts (tenant_id, tag, n)
    SELECT tenant_id, key, SUM(n) FROM (
      SELECT tenant_id, key, n FROM list_counts WHERE list = 'customers'
      UNION ALL SELECT tenant_id, key, delta FROM list_count_deltas WHERE list = 'customers'
    ) counted GROUP BY tenant_id, key HAVING SUM(n) <> 0`.execute(db);
  await db.schema
    .createTable('order_counts')
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('n', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('order_counts_pk', ['tenant_id', 'status'])
    .execute();
  await sql`INSERT INTO order_counts (tenant_id, status, n)
    SELECT tenant_id, status, COUNT(*) FROM orders GROUP BY tenant_id, status`.execute(db);
  if (sqlite) {
    for (const trigger of ['orders_count_insert', 'orders_count_delete', 'orders_count_status']) {
      await sql`DROP TRIGGER IF EXISTS ${sql.id(trigger)}`.execute(db);
    }
  } else {
    await sql`DROP TRIGGER IF EXISTS orders_count ON orders`.execute(db);
    await sql`DROP FUNCTION IF EXISTS orders_count_delta()`.execute(db);
  }
  await sql`DELETE FROM list_count_deltas WHERE list IN ('orders', 'customers')`.execute(db);
  await sql`DELETE FROM list_counts WHERE list IN ('orders', 'customers')`.execute(db);
}
