import { type Kysely, sql, SqliteAdapter } from 'kysely';

/**
 * A version of each tenant's catalog, `catalog_versions (tenant_id, version)`, moved by every
 * transaction that writes the tenant's products or variants (a product made or changed, stock
 * moved by an order, a cancellation or a refund, an import), in that transaction. Cached catalog
 * reads (src/http/read-cache.ts) are kept with the version they were read at and served only
 * while it is still the current one, which every process reads from the store: no read after an
 * acknowledged write, in any process, sees what the write changed.
 *
 * Triggers move it, so no writer can forget to:
 * - SQLite: row triggers on `products` and `product_variants` (one writer at a time: no lock order).
 * - PostgreSQL: deferred constraint triggers, which run at commit, after every other statement
 *   of the transaction: the version row is the last lock a transaction takes, so it adds no
 *   deadlock, and is held only while the commit completes. A transaction moves each tenant's
 *   version once, however many rows it wrote.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .createTable('catalog_versions')
    .addColumn('tenant_id', 'text', (col) => col.primaryKey())
    .addColumn('version', 'bigint', (col) => col.notNull())
    .execute();
  const bump = (tenant: string) =>
    `INSERT INTO catalog_versions (tenant_id, version) VALUES (${tenant}, 1)
       ON CONFLICT (tenant_id) DO UPDATE SET version = catalog_versions.version + 1;`;
  if (sqlite) {
    for (const table of ['products', 'product_variants']) {
      for (const [event, row] of [
        ['INSERT', 'new'],
        ['UPDATE', 'new'],
        ['DELETE', 'old'],
      ] as const) {
        await sql
          .raw(
            `CREATE TRIGGER ${table}_catalog_${event.toLowerCase()} AFTER ${event} ON ${table} BEGIN ${bump(`${row}.tenant_id`)} END`,
          )
          .execute(db);
      }
    }
  } else {
    await sql
      .raw(
        `CREATE FUNCTION catalog_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
          tenant text := CASE WHEN TG_OP = 'DELETE' THEN OLD.tenant_id ELSE NEW.tenant_id END;
          -- The tenants this transaction moved already (a setting local to the transaction; empty,
          -- not null, in a later transaction of the session).
          done text := coalesce(nullif(current_setting('catalog.bumped', true), ''), ' ');
        BEGIN
          IF position(' ' || tenant || ' ' IN done) > 0 THEN
            RETURN NULL;
          END IF;
          ${bump('tenant')}
          PERFORM set_config('catalog.bumped', done || tenant || ' ', true);
          RETURN NULL;
        END $$`,
      )
      .execute(db);
    for (const table of ['products', 'product_variants']) {
      await sql
        .raw(
          `CREATE CONSTRAINT TRIGGER ${table}_catalog AFTER INSERT OR UPDATE OR DELETE ON ${table}
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION catalog_version_bump()`,
        )
        .execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  for (const table of ['products', 'product_variants']) {
    if (sqlite) {
      for (const event of ['insert', 'update', 'delete']) {
        await sql`DROP TRIGGER IF EXISTS ${sql.id(`${table}_catalog_${event}`)}`.execute(db);
      }
    } else {
      await sql`DROP TRIGGER IF EXISTS ${sql.id(`${table}_catalog`)} ON ${sql.id(table)}`.execute(db);
    }
  }
  if (!sqlite) await sql`DROP FUNCTION IF EXISTS catalog_version_bump()`.execute(db);
  await db.schema.dropTable('catalog_versions').execute();
}
