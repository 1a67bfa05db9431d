import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../config.js';
import { DIALECTS, migratedStore, type TestStore } from '../../test/helpers/context.js';
import { statementsOf } from '../../test/helpers/statements.js';
import { openStore, type Store } from './store.js';

/**
 * A transaction ended by its last statement (`store.commitWith`; PostgreSQL: src/db/pg-transaction.ts):
 * the statement and the COMMIT sent as one message on PostgreSQL, after the work that waits for the
 * commit; what the transaction wrote before is committed with it, or rolled back with it when the
 * statement fails; a use case that fails after it is not tried again; a statement with parameters
 * is refused (its values must be inline).
 */
for (const dialect of DIALECTS) {
  describe(`a transaction ended by its last statement (${dialect})`, () => {
    let fresh: TestStore;
    let store: Store;

    before(async () => {
      fresh = await migratedStore(dialect);
      store = openStore({ ...loadConfig(fresh.env), poolSize: 2 });
      await sql`CREATE TABLE commit_probe (id integer PRIMARY KEY, a text)`.execute(store.db);
    });
    after(async () => {
      await store.close();
      await fresh.drop();
    });

    const rows = async () =>
      (await sql<{ id: number; a: string }>`SELECT id, a FROM commit_probe ORDER BY id`.execute(store.db))
        .rows;
    const insert = (id: number, a: string) =>
      sql`INSERT INTO commit_probe (id, a) VALUES (${sql.lit(id)}, ${sql.lit(a)})`;

    it('commits what came before with the statement, the work before the commit first', async () => {
      const order: string[] = [];
      let committed = false;
      const statements = await statementsOf({ dialect, store: fresh }, () =>
        store.transaction(async (trx) => {
          await sql`INSERT INTO commit_probe (id, a) VALUES (${1}, ${'before'})`.execute(trx);
          await store.beforeCommit(trx, async () => {
            order.push('before commit');
            await sql`INSERT INTO commit_probe (id, a) VALUES (${2}, ${'waited'})`.execute(trx);
          });
          store.afterCommit(trx, () => (committed = true));
          await store.commitWith(trx, insert(3, "last's"));
          order.push('after');
        }),
      );
      assert.deepEqual(order, ['before commit', 'after']);
      assert.ok(committed);
      assert.deepEqual(await rows(), [
        { id: 1, a: 'before' },
        { id: 2, a: 'waited' },
        { id: 3, a: "last's" },
      ]);
      if (dialect === 'postgres') {
        assert.match(statements.at(-1) ?? '', /^INSERT INTO commit_probe .*; COMMIT$/);
        assert.equal(statements.filter((s) => /^COMMIT/i.test(s)).length, 0, statements.join('\n'));
      }
      await sql`DELETE FROM commit_probe`.execute(store.db);
    });

    it('rolls back what came before when the statement fails', async () => {
      await sql`INSERT INTO commit_probe (id, a) VALUES (${7}, ${'there'})`.execute(store.db);
      await assert.rejects(
        store.transaction(async (trx) => {
          await sql`INSERT INTO commit_probe (id, a) VALUES (${8}, ${'rolled back'})`.execute(trx);
          await store.commitWith(trx, insert(7, 'a duplicate key'));
        }),
      );
      assert.deepEqual(await rows(), [{ id: 7, a: 'there' }]);
      await sql`DELETE FROM commit_probe`.execute(store.db);
    });

    it('does not try again a use case that failed after it, nor take work for its commit', async () => {
      let attempts = 0;
      await assert.rejects(
        store.transaction(async (trx) => {
          attempts += 1;
          await store.commitWith(trx, insert(9, 'committed'));
          await store.beforeCommit(trx, async () => undefined);
        }),
        dialect === 'postgres' ? /after its commit/ : /the transaction has committed/,
      );
      assert.equal(attempts, 1);
      assert.deepEqual(await rows(), [{ id: 9, a: 'committed' }]);
      await assert.rejects(
        store.transaction(async (trx) => {
          attempts += 1;
          await store.commitWith(trx, insert(10, 'committed'));
          throw Object.assign(new Error('a serialization failure, after the commit'), { code: '40001' });
        }),
      );
      assert.equal(attempts, 2);
      await sql`DELETE FROM commit_probe`.execute(store.db);
    });

    if (dialect === 'postgres') {
      it('refuses a statement whose values are not inline', async () => {
        await assert.rejects(
          store.transaction((trx) =>
            store.commitWith(trx, sql`INSERT INTO commit_probe (id, a) VALUES (${11}, ${'a parameter'})`),
          ),
          /inline/,
        );
        assert.deepEqual(await rows(), []);
      });
    }
  });
}
