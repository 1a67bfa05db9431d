import { type Kysely, sql, SqliteAdapter } from 'kysely';

/**
 * What a priced cart is read from gets versions, moved by triggers in the transaction of every
 * write, so a kept cart answer (src/modules/carts/carts.answers.ts) is served only while none of
 * it changed, in this process or another:
 *
 * - `catalog_versions.pricing_version`: each tenant's pricing version, beside its catalog version
 *   (`version`, migration 0033, moved by its products and variants), moved by every write of its
 *   discounts (a use taken or given back included), its customers' uses of them, its customers
 *   (made, erased or their email changed: a cart finds its customer by email), its shipping and
 *   tax rates and its settings (the tenant's settings columns, migration 0041). A pricing write
 *   leaves `version` as it is, so the catalog's read cache is not touched by it. One row holds
 *   both so that a transaction writing both locks one row;
 * - `carts.revision`: moved by every write of the cart's row or its lines.
 *
 * Existing carts start at revision 0 and existing tenants at pricing version 0 (a tenant without
 * a row reads as 0 for both until its first write).
 *
 * As in 0033: on SQLite row triggers (one writer at a time); on PostgreSQL the pricing version is
 * moved by deferred constraint triggers at commit, once per tenant and transaction, on the row the
 * catalog's triggers move (the last lock a transaction takes, and one row: no new deadlock), and a
 * cart's revision by a row trigger on `carts` (its lines' writers hold the cart's row lock already).
 *
 * Frozen: plain SQL, no module code.
 */

/** Tables whose rows carry `tenant_id` and whose every write moves the tenant's pricing version. */
const TENANT_TABLES = ['discounts', 'discount_customer_uses', 'shipping_rates', 'tax_rates'] as const;

/** The tenant's columns that are its settings (migration 0041, and its name and currency). */
const SETTINGS_COLUMNS = [
  'name',
  'currency',
  'unpaid_order_expiry_minutes',
  'storefront_hold_minutes',
  'storefront_abandoned_after_minutes',
  'storefront_recovery_url_template',
  'storefront_requests_per_minute',
];

const bump = (tenant: string) =>
  `INSERT INTO catalog_versions (tenant_id, version, pricing_version) VALUES (${tenant}, 0, 1)
     ON CONFLICT (tenant_id) DO UPDATE SET pricing_version = catalog_versions.pricing_version + 1;`;

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  const rows = [
    ['insert', 'INSERT', 'new'],
    ['update', 'UPDATE', 'new'],
    ['delete', 'DELETE', 'old'],
  ] as const;
  const create = (name: string, on: string, body: string) =>
    sql.raw(`CREATE TRIGGER ${name} AFTER ${on} BEGIN ${body} END`).execute(db);
  for (const table of TENANT_TABLES) {
    for (const [name, event, row] of rows) {
      await create(`${table}_pricing_${name}`, `${event} ON ${table}`, bump(`${row}.tenant_id`));
    }
  }
  // A customer counts by its email (figures and tags do not): made, erased, its email changed.
  await create('customers_pricing_insert', 'INSERT ON customers', bump('new.tenant_id'));
  await create('customers_pricing_delete', 'DELETE ON customers', bump('old.tenant_id'));
  await create('customers_pricing_update', 'UPDATE OF email_key ON customers', bump('new.tenant_id'));
  await create(
    'tenants_pricing_update',
    `UPDATE OF ${SETTINGS_COLUMNS.join(', ')} ON tenants`,
    bump('new.id'),
  );
  // The cart's own row (unless the statement moved the revision itself), then its lines'.
  await create(
    'carts_revision_update',
    'UPDATE ON carts FOR EACH ROW WHEN new.revision = old.revision',
    'UPDATE carts SET revision = old.revision + 1 WHERE id = new.id;',
  );
  for (const [name, event, row] of rows) {
    await create(
      `cart_lines_revision_${name}`,
      `${event} ON cart_lines`,
      `UPDATE carts SET revision = revision + 1 WHERE id = ${row}.cart_id;`,
    );
  }
}

async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `CREATE FUNCTION pricing_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        tenant text;
        -- The tenants this transaction moved already (a setting local to the transaction; empty,
        -- not null, in a later transaction of the session).
        done text := coalesce(nullif(current_setting('pricing.bumped', true), ''), ' ');
      BEGIN
        IF TG_TABLE_NAME = 'tenants' THEN
          tenant := NEW.id;
        ELSIF TG_OP = 'DELETE' THEN
          tenant := OLD.tenant_id;
        ELSE
          tenant := NEW.tenant_id;
        END IF;
        IF position(' ' || tenant || ' ' IN done) > 0 THEN
          RETURN NULL;
        END IF;
        ${bump('tenant')}
        PERFORM set_config('pricing.bumped', done || tenant || ' ', true);
        RETURN NULL;
      END $$`,
    )
    .execute(db);
  const constraint = (table: string, events: string) =>
    sql
      .raw(
        `CREATE CONSTRAINT TRIGGER ${table}_pricing AFTER ${events} ON ${table}
          DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION pricing_version_bump()`,
      )
      .execute(db);
  for (const table of TENANT_TABLES) await constraint(table, 'INSERT OR UPDATE OR DELETE');
  await constraint('customers', 'INSERT OR DELETE OR UPDATE OF email_key');
  await constraint('tenants', `UPDATE OF ${SETTINGS_COLUMNS.join(', ')}`);

  await sql
    .raw(
      `CREATE FUNCTION cart_revision_own() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.revision = OLD.revision THEN
          NEW.revision := OLD.revision + 1;
        END IF;
        RETURN NEW;
      END $$`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER carts_revision BEFORE UPDATE ON carts FOR EACH ROW EXECUTE FUNCTION cart_revision_own()`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE FUNCTION cart_revision_lines() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE carts SET revision = revision + 1
          WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.cart_id ELSE NEW.cart_id END;
        RETURN NULL;
      END $$`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER cart_lines_revision AFTER INSERT OR UPDATE OR DELETE ON cart_lines
        FOR EACH ROW EXECUTE FUNCTION cart_revision_lines()`,
    )
    .execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema
    .alterTable('catalog_versions')
    .addColumn('pricing_version', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('carts')
    .addColumn('revision', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute();
  if (sqlite) await sqliteTriggers(db);
  else await postgresTriggers(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const tables = [...TENANT_TABLES, 'customers', 'tenants'];
  if (sqlite) {
    for (const table of tables) {
      for (const event of ['insert', 'update', 'delete']) {
        await sql`DROP TRIGGER IF EXISTS ${sql.id(`${table}_pricing_${event}`)}`.execute(db);
      }
    }
    await sql`DROP TRIGGER IF EXISTS carts_revision_update`.execute(db);
    for (const event of ['insert', 'update', 'delete']) {
      await sql`DROP TRIGGER IF EXISTS ${sql.id(`cart_lines_revision_${event}`)}`.execute(db);
    }
  } else {
    for (const table of tables) {
      await sql`DROP TRIGGER IF EXISTS ${sql.id(`${table}_pricing`)} ON ${sql.id(table)}`.execute(db);
    }
    await sql`DROP TRIGGER IF EXISTS carts_revision ON carts`.execute(db);
    await sql`DROP TRIGGER IF EXISTS cart_lines_revision ON cart_lines`.execute(db);
    await sql`DROP FUNCTION IF EXISTS pricing_version_bump()`.execute(db);
    await sql`DROP FUNCTION IF EXISTS cart_revision_own()`.execute(db);
    await sql`DROP FUNCTION IF EXISTS cart_revision_lines()`.execute(db);
  }
  await db.schema.alterTable('carts').dropColumn('revision').execute();
  await db.schema.alterTable('catalog_versions').dropColumn('pricing_version').execute();
}
