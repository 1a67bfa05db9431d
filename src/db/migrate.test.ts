import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Migration, Migrator, sql } from 'kysely';
import { DIALECTS, freshStore, type TestStore } from '../../test/helpers/context.js';
import { loadConfig } from '../config.js';
import { createDeps } from '../deps.js';
import { type AnyManifest, loadModules } from '../kernel/modules.js';
import { allMigrations, isCatalogRace, migrateToLatest, type MigrationSource } from './migrate.js';
import { openStore, type Store } from './store.js';

/**
 * The migrations are one list, in name order: src/db/migrations/ and those the modules' manifests
 * declare. The names are what a store records as applied, so those an earlier release recorded
 * stay, in their order, wherever their files now live; a number taken twice fails the start.
 */

/** The names the release before the modules declared migrations recorded (then one list): never to change. */
const RECORDED_BEFORE = [
  '0001_foundation',
  '0002_events',
  '0003_catalog_orders',
  '0004_usage',
  '0005_webhooks',
  '0006_plugins',
  '0007_wallet',
  '0008_ai',
  '0009_console',
  '0010_analytics',
  '0011_idempotency_recovery',
  '0012_event_retention',
  '0013_retired_secrets',
  '0014_refunds_due',
  '0015_transfer_idempotency',
  '0016_transfer_receiver',
  '0017_search_fold',
  '0018_held_deliveries',
  '0019_variants',
  '0020_customers',
  '0021_analytics_customers',
  '0022_order_pricing',
  '0023_pricing_rules',
  '0024_refunds_owed',
  '0025_analytics_pricing',
  '0026_imports',
  '0027_webhook_fairness',
  '0028_plugin_apps',
  '0029_app_runtime',
  '0030_delivery_log_order',
  '0031_list_counts',
  '0033_catalog_versions',
  '0034_plugin_revisions',
  '0035_normalised_states',
  '0036_redact_refund_reasons',
  '0037_publishable_keys',
  '0038_product_handles',
  '0039_carts',
  '0040_customer_logins',
  '0041_store_settings',
  '0043_cart_holds',
];

const NOTHING: Migration = { up: async () => undefined };
const probe = (name: string, migrations: Record<string, Migration>): MigrationSource => ({
  name,
  migrations,
});

describe('the migrations of the house and the modules', () => {
  let modules: readonly AnyManifest[];
  before(async () => {
    modules = await loadModules();
  });

  it('are one list in name order, keeping every name an earlier release recorded, in its order', () => {
    const names = Object.keys(allMigrations(modules));
    assert.deepEqual(names, [...names].sort());
    assert.deepEqual(
      names.filter((name) => RECORDED_BEFORE.includes(name)),
      RECORDED_BEFORE,
    );
    // Those a module declares are the module's, under the names the stores recorded.
    const owners = Object.fromEntries(
      modules.flatMap((module) => Object.keys(module.migrations ?? {}).map((name) => [name, module.name])),
    );
    assert.deepEqual(
      ['0039_carts', '0040_customer_logins', '0041_store_settings', '0043_cart_holds'].map(
        (name) => owners[name],
      ),
      ['carts', 'customers', 'settings', 'carts'],
    );
  });

  it('refuses a number taken twice, or a name without one, naming both', () => {
    assert.throws(
      () => allMigrations([...modules, probe('probe', { '0039_probe_pings': NOTHING })]),
      /migration number 0039 is taken twice: 0039_carts \(carts\) and 0039_probe_pings \(probe\)/,
    );
    assert.throws(
      () => allMigrations([probe('probe', { '0001_probe_pings': NOTHING })]),
      /migration number 0001 is taken twice: 0001_foundation \(src\/db\/migrations\) and 0001_probe_pings \(probe\)/,
    );
    assert.throws(
      () => allMigrations([probe('one', { '9998_one': NOTHING }), probe('two', { '9998_two': NOTHING })]),
      /migration number 9998 is taken twice: 9998_one \(one\) and 9998_two \(two\)/,
    );
    assert.throws(
      () => allMigrations([probe('probe', { probe_pings: NOTHING })]),
      /migration probe_pings \(probe\) must be named NNNN_what_it_does/,
    );
  });

  it('fail the start on a number taken twice, before anything is applied', async () => {
    const fresh = await freshStore('sqlite');
    try {
      const clash = { position: 999, ...probe('probe', { '0039_probe_pings': NOTHING }) } as AnyManifest;
      await assert.rejects(
        createDeps(loadConfig(fresh.env), { modules: [...modules, clash] }),
        /migration number 0039 is taken twice/,
      );
      const store = openStore({ dataDir: fresh.dataDir });
      try {
        const tables = await sql<{
          name: string;
        }>`SELECT name FROM sqlite_master WHERE type = 'table'`.execute(store.db);
        assert.deepEqual(tables.rows, []);
      } finally {
        await store.close();
      }
    } finally {
      await fresh.drop();
    }
  });

  for (const dialect of DIALECTS) {
    it(`run none again on a store an earlier release migrated (${dialect})`, async () => {
      const fresh = await freshStore(dialect);
      const store = openStore({ ...loadConfig(fresh.env), poolSize: 1 });
      try {
        // The earlier release: the same migrations, by the names it recorded, from its one list.
        const all = allMigrations(modules);
        const earlier = Object.fromEntries(RECORDED_BEFORE.map((name) => [name, all[name] as Migration]));
        const migrator = new Migrator({
          db: store.db,
          provider: { getMigrations: async () => earlier },
          ...(store.schema ? { migrationTableSchema: store.schema } : {}),
        });
        let { error, results } = await migrator.migrateToLatest();
        for (let attempt = 1; attempt < 5 && isCatalogRace(error) && results === undefined; attempt++) {
          ({ error, results } = await migrator.migrateToLatest());
        }
        if (error) throw error;
        const recorded = async () =>
          (
            await sql<{ name: string; timestamp: string }>`
              SELECT name, timestamp FROM kysely_migration ORDER BY name`.execute(store.db)
          ).rows.map((row) => ({ name: row.name, timestamp: String(row.timestamp) }));
        const then = await recorded();
        assert.deepEqual(
          then.map((row) => row.name),
          RECORDED_BEFORE,
        );

        await migrateToLatest(store);
        const now = await recorded();
        // Each recorded migration is still recorded once, as applied then; the rest are the newer ones.
        assert.deepEqual(
          now.filter((row) => RECORDED_BEFORE.includes(row.name)),
          then,
        );
        assert.deepEqual(
          now.map((row) => row.name),
          Object.keys(all),
        );
      } finally {
        await store.close();
        await fresh.drop();
      }
    });
  }
});

/**
 * What the migrations read again: Kysely's migrator reads the catalog of every schema on the
 * server, and a schema another deployment or test run drops meanwhile fails that read. Each
 * failure below is the one PostgreSQL gives for a part of the catalog that went away; anything
 * else fails the start.
 */
// Without PostgreSQL the run lists the suite as skipped, and says why.
describe(
  'catalog reads that race a dropped schema (postgres)',
  { skip: !DIALECTS.includes('postgres') && 'needs TEST_DATABASE_URL' },
  () => {
    let fresh: TestStore;
    let store: Store;

    before(async () => {
      fresh = await freshStore('postgres');
      store = openStore({ ...loadConfig(fresh.env), poolSize: 1 });
    });
    after(async () => {
      await store.close();
      await fresh.drop();
    });

    const failure = async (query: ReturnType<typeof sql>) => {
      try {
        await query.execute(store.db);
      } catch (error) {
        return error;
      }
      assert.fail(`${query.compile(store.db).sql} did not fail`);
    };

    it('reads again when the schema, a table or a column it read went away', async () => {
      await sql`CREATE TABLE gone (id text)`.execute(store.db);
      const gone = [
        await failure(sql`SELECT * FROM no_such_schema.t`),
        await failure(sql`SELECT * FROM no_such_table`),
        // The read asks each column for its sequence by name, as Kysely's does.
        await failure(sql`SELECT pg_get_serial_sequence('gone', 'no_such_column')`),
      ];
      assert.deepEqual(
        gone.map((error) => isCatalogRace(error)),
        [true, true, true],
      );
    });

    it('fails the start on anything else', async () => {
      await sql`CREATE TABLE kept (id text PRIMARY KEY)`.execute(store.db);
      await sql`INSERT INTO kept VALUES ('a')`.execute(store.db);
      const other = [
        await failure(sql`SELEC 1`),
        await failure(sql`INSERT INTO kept VALUES ('a')`),
        await failure(sql`SELECT 1 / 0`),
      ];
      assert.deepEqual(
        other.map((error) => isCatalogRace(error)),
        [false, false, false],
      );
      assert.equal(isCatalogRace(new Error('no code')), false);
      assert.equal(isCatalogRace(undefined), false);
    });
  },
);
