import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../config.js';
import { DIALECTS, migratedStore, type TestStore } from '../../test/helpers/context.js';
import { openStore, type Store } from './store.js';

/**
 * PostgreSQL statements prepared once a connection repeats them (src/db/pg-prepared.ts): sent
 * unnamed four times, then prepared and run by name; bulk statements left unnamed; a statement made stale by a change of
 * its table (a migration while the process serves) sent again, outside a transaction and within
 * one; and none prepared with `DATABASE_PREPARED_STATEMENTS=off`. One connection (a pool of one),
 * so what it prepared is what `pg_prepared_statements` shows.
 */
for (const dialect of DIALECTS.filter((name) => name === 'postgres')) {
  describe(`prepared statements (${dialect})`, () => {
    let fresh: TestStore;
    let store: Store;

    before(async () => {
      fresh = await migratedStore(dialect);
      store = openStore({ ...loadConfig(fresh.env), poolSize: 1 });
      await sql`CREATE TABLE prepared_probe (id integer PRIMARY KEY, a text)`.execute(store.db);
      await sql`INSERT INTO prepared_probe VALUES (1, 'one'), (2, 'two')`.execute(store.db);
    });
    after(async () => {
      await store.close();
      await fresh.drop();
    });

    /** The statements this connection prepared whose text mentions the probe table. */
    async function prepared(db = store.db): Promise<string[]> {
      const { rows } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements
        WHERE statement LIKE ${'%FROM prepared_probe%'} AND statement NOT LIKE ${'%pg_prepared_statements%'}
        ORDER BY statement`.execute(db);
      return rows.map((row) => row.statement);
    }

    const byId = (id: number) => sql<Record<string, unknown>>`SELECT * FROM prepared_probe WHERE id = ${id}`;

    it('prepares a statement with parameters the fifth time it is sent, and runs it by name after', async () => {
      for (let i = 0; i < 4; i++) {
        assert.deepEqual((await byId(1).execute(store.db)).rows, [{ id: 1, a: 'one' }]);
      }
      assert.deepEqual(await prepared(), [], 'sent four times: not prepared');
      for (let i = 0; i < 3; i++) {
        assert.deepEqual((await byId(2).execute(store.db)).rows, [{ id: 2, a: 'two' }]);
      }
      assert.deepEqual(await prepared(), ['SELECT * FROM prepared_probe WHERE id = $1']);
    });

    it('leaves a statement of many parameters unnamed (a bulk insert, a long IN list)', async () => {
      const ids = Array.from({ length: 65 }, (_, i) => i + 1);
      for (let i = 0; i < 6; i++) {
        const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM prepared_probe
          WHERE id IN (${sql.join(ids)})`.execute(store.db);
        assert.equal(rows[0]?.n, 2);
      }
      assert.deepEqual(await prepared(), ['SELECT * FROM prepared_probe WHERE id = $1']);
    });

    it('sends a statement its table changed under again, outside a transaction and within one', async () => {
      await byId(1).execute(store.db);
      await sql`ALTER TABLE prepared_probe ADD COLUMN b text DEFAULT 'bee'`.execute(store.db);
      assert.deepEqual((await byId(1).execute(store.db)).rows, [{ id: 1, a: 'one', b: 'bee' }]);

      await sql`ALTER TABLE prepared_probe ADD COLUMN c text DEFAULT 'sea'`.execute(store.db);
      let attempts = 0;
      const rows = await store.transaction(async (trx) => {
        attempts += 1;
        return (await byId(2).execute(trx)).rows;
      });
      assert.deepEqual(rows, [{ id: 2, a: 'two', b: 'bee', c: 'sea' }]);
      assert.equal(attempts, 2, 'the transaction that met the stale statement ran again');
    });

    it('prepares nothing with DATABASE_PREPARED_STATEMENTS=off', async () => {
      const config = loadConfig({ ...fresh.env, DATABASE_PREPARED_STATEMENTS: 'off' });
      assert.equal(config.databasePreparedStatements, false);
      const plain = openStore({ ...config, poolSize: 1 });
      try {
        for (let i = 0; i < 6; i++) await byId(1 + (i % 2)).execute(plain.db);
        assert.deepEqual(await prepared(plain.db), []);
      } finally {
        await plain.close();
      }
    });
  });
}
