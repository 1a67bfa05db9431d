import { type Kysely, sql, SqliteAdapter } from 'kysely';

/**
 * Kept counts of the longest lists, so they answer their exact `total` without counting rows (a
 * `COUNT(*)` of a million events took 55-235 ms a page):
 *
 * - `list_counts (tenant_id, list, key, n)`: folded counts. The event log is list `events`, keyed
 *   by event type; an endpoint's delivery log is list `deliveries:<endpoint id>`, keyed by status.
 * - `list_count_deltas (seq, tenant_id, list, key, delta)`: +1 and -1 rows that triggers add in the
 *   writing transaction: an event written or deleted (retention), a delivery queued, deleted, or
 *   moved to another status. Rows are only ever inserted there, so concurrent orders of a tenant
 *   never wait for one another on a count (a counter updated in place would stay locked by each
 *   until its commit).
 *
 * A count is its folded `n` plus its deltas, read in one statement; a periodic fold
 * (src/lib/list-counts.ts) moves deltas into `n`. The counts start from the rows already there,
 * with writers held off meanwhile (PostgreSQL: SHARE ROW EXCLUSIVE locks until the migration
 * commits), so nothing is counted twice or missed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('list_counts')
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addColumn('list', 'text', (col) => col.notNull())
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('n', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('list_counts_pk', ['tenant_id', 'list', 'key'])
    .execute();
  await db.schema
    .createTable('list_count_deltas')
    .addColumn('seq', sqlite ? 'integer' : 'bigserial', (col) =>
      sqlite ? col.primaryKey().autoIncrement() : col.primaryKey(),
    )
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addColumn('list', 'text', (col) => col.notNull())
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('delta', 'integer', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('list_count_deltas_list_idx')
    .on('list_count_deltas')
    .columns(['tenant_id', 'list', 'key'])
    .execute();

  const delta = (prefix: 'new' | 'old', list: string, key: string, value: 1 | -1) =>
    `INSERT INTO list_count_deltas (tenant_id, list, key, delta) VALUES (${prefix}.tenant_id, ${list}, ${key}, ${value});`;
  const eventDelta = (prefix: 'new' | 'old', value: 1 | -1) =>
    delta(prefix, `'events'`, `${prefix}.type`, value);
  const deliveryDelta = (prefix: 'new' | 'old', value: 1 | -1) =>
    delta(prefix, `'deliveries:' || ${prefix}.endpoint_id`, `${prefix}.status`, value);

  if (sqlite) {
    await sql
      .raw(`CREATE TRIGGER events_count_insert AFTER INSERT ON events BEGIN ${eventDelta('new', 1)} END`)
      .execute(db);
    await sql
      .raw(`CREATE TRIGGER events_count_delete AFTER DELETE ON events BEGIN ${eventDelta('old', -1)} END`)
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER deliveries_count_insert AFTER INSERT ON webhook_deliveries BEGIN ${deliveryDelta('new', 1)} END`,
      )
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER deliveries_count_delete AFTER DELETE ON webhook_deliveries BEGIN ${deliveryDelta('old', -1)} END`,
      )
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER deliveries_count_status AFTER UPDATE OF status ON webhook_deliveries
          WHEN old.status <> new.status BEGIN ${deliveryDelta('old', -1)} ${deliveryDelta('new', 1)} END`,
      )
      .execute(db);
  } else {
    await sql`LOCK TABLE events, webhook_deliveries IN SHARE ROW EXCLUSIVE MODE`.execute(db);
    await sql
      .raw(
        `CREATE FUNCTION events_count_delta() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'INSERT' THEN ${eventDelta('new', 1)} ELSE ${eventDelta('old', -1)} END IF;
          RETURN NULL;
        END $$`,
      )
      .execute(db);
    await sql`CREATE TRIGGER events_count AFTER INSERT OR DELETE ON events
      FOR EACH ROW EXECUTE FUNCTION events_count_delta()`.execute(db);
    await sql
      .raw(
        `CREATE FUNCTION deliveries_count_delta() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'INSERT' THEN ${deliveryDelta('new', 1)}
          ELSIF TG_OP = 'DELETE' THEN ${deliveryDelta('old', -1)}
          ELSIF OLD.status <> NEW.status THEN ${deliveryDelta('old', -1)} ${deliveryDelta('new', 1)}
          END IF;
          RETURN NULL;
        END $$`,
      )
      .execute(db);
    await sql`CREATE TRIGGER deliveries_count AFTER INSERT OR DELETE OR UPDATE OF status ON webhook_deliveries
      FOR EACH ROW EXECUTE FUNCTION deliveries_count_delta()`.execute(db);
  }
  await sql`INSERT INTO list_counts (tenant_id, list, key, n)
    SELECT tenant_id, 'events', type, COUNT(*) FROM events GROUP BY tenant_id, type`.execute(db);
  await sql`INSERT INTO list_counts (tenant_id, list, key, n)
    SELECT tenant_id, 'deliveries:' || endpoint_id, status, COUNT(*) FROM webhook_deliveries
    GROUP BY tenant_id, endpoint_id, status`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  if (sqlite) {
    for (const trigger of [
      'events_count_insert',
      'events_count_delete',
      'deliveries_count_insert',
      'deliveries_count_delete',
      'deliveries_count_status',
    ]) {
      await sql`DROP TRIGGER IF EXISTS ${sql.id(trigger)}`.execute(db);
    }
  } else {
    await sql`DROP TRIGGER IF EXISTS events_count ON events`.execute(db);
    await sql`DROP TRIGGER IF EXISTS deliveries_count ON webhook_deliveries`.execute(db);
    await sql`DROP FUNCTION IF EXISTS events_count_delta()`.execute(db);
    await sql`DROP FUNCTION IF EXISTS deliveries_count_delta()`.execute(db);
  }
  await db.schema.dropTable('list_count_deltas').execute();
  await db.schema.dropTable('list_counts').execute();
}
