import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS, freshStore, type TestStore } from '../../test/helpers/context.js';
import { loadConfig } from '../config.js';
import { migrateToLatest } from './migrate.js';
import { openStore, type Store } from './store.js';

for (const dialect of DIALECTS) {
  describe(`store afterCommit (${dialect})`, () => {
    let fresh: TestStore;
    let store: Store;

    before(async () => {
      fresh = await freshStore(dialect);
      const config = loadConfig(fresh.env);
      store = openStore({ ...config, dataDir: config.dataDir, poolSize: 4 });
      await migrateToLatest(store);
    });
    after(async () => {
      await store.close();
      await fresh.drop();
    });

    const tenantNamed = (name: string) =>
      store.db.selectFrom('tenants').select('name').where('name', '=', name).executeTakeFirst();
    const insertTenant = (trx: Store['db'], name: string) =>
      trx
        .insertInto('tenants')
        .values({
          id: `ten_${name}`,
          name,
          plan: 'free',
          currency: 'USD',
          api_version: '2026-11-21',
          hourly_limit: null,
          monthly_limit: null,
          created: 0,
          updated: 0,
        })
        .execute();

    it('calls back once the transaction has committed, when other connections see its rows', async () => {
      const order: string[] = [];
      let seen: Promise<string | undefined> | undefined;
      await store.transaction(async (trx) => {
        await insertTenant(trx, 'committed');
        store.afterCommit(trx, () => {
          order.push('callback');
          // A fresh query from the callback: on PostgreSQL another pool connection.
          seen = tenantNamed('committed').then((row) => row?.name);
        });
        order.push('transaction body done');
      });
      order.push('transaction returned');
      assert.deepEqual(order, ['transaction body done', 'callback', 'transaction returned']);
      assert.equal(await seen, 'committed');
    });

    it('never calls back for a transaction that rolls back', async () => {
      let called = 0;
      await assert.rejects(
        store.transaction(async (trx) => {
          await insertTenant(trx, 'rolled-back');
          store.afterCommit(trx, () => called++);
          throw new Error('changed our mind');
        }),
        /changed our mind/,
      );
      assert.equal(called, 0);
      assert.equal(await tenantNamed('rolled-back'), undefined);
    });

    it('outside a transaction, calls back at once', () => {
      let called = 0;
      store.afterCommit(store.db, () => called++);
      assert.equal(called, 1);
    });

    if (dialect === 'postgres') {
      it('calls back only for the attempt that committed when a serialization failure is retried', async () => {
        const calls: number[] = [];
        let attempt = 0;
        await store.transaction(async (trx) => {
          attempt += 1;
          const current = attempt;
          store.afterCommit(trx, () => calls.push(current));
          if (current === 1) throw Object.assign(new Error('could not serialize access'), { code: '40001' });
          await insertTenant(trx, 'retried');
        });
        assert.deepEqual(calls, [2]);
        assert.equal((await tenantNamed('retried'))?.name, 'retried');
      });
    }
  });
}
