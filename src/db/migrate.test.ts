import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS, freshStore, type TestStore } from '../../test/helpers/context.js';
import { loadConfig } from '../config.js';
import { isCatalogRace } from './migrate.js';
import { openStore, type Store } from './store.js';

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
