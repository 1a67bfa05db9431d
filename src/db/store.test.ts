import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS, freshStore, type TestStore } from '../../test/helpers/context.js';
import { loadConfig } from '../config.js';
import { migrateToLatest } from './migrate.js';
import { openStore, type Store, StoreUnavailableError, storeUnavailable } from './store.js';

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
          unpaid_order_expiry_minutes: 1440,
          storefront_abandoned_after_minutes: 60,
          storefront_requests_per_minute: 120,
          mode: 'live',
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

describe('storeUnavailable', () => {
  const withCode = (code: string) => Object.assign(new Error(code), { code });

  it('names what the store cannot do right now, from the error and what it wraps', () => {
    const cases: [unknown, ReturnType<typeof storeUnavailable>][] = [
      [withCode('55P03'), 'lock_timeout'],
      [withCode('SQLITE_BUSY'), 'lock_timeout'],
      [withCode('SQLITE_BUSY_SNAPSHOT'), 'lock_timeout'],
      [withCode('57014'), 'statement_timeout'],
      [withCode('53300'), 'refusing_connections'],
      [withCode('53000'), 'refusing_connections'],
      [withCode('57P03'), 'refusing_connections'],
      [withCode('57P01'), 'unreachable'],
      [withCode('08006'), 'unreachable'],
      [withCode('ECONNREFUSED'), 'unreachable'],
      [new AggregateError([withCode('ECONNREFUSED')]), 'unreachable'],
      [new Error('wrapped', { cause: withCode('53300') }), 'refusing_connections'],
      [new Error('Connection terminated unexpectedly'), 'unreachable'],
      [new Error('timeout exceeded when trying to connect'), 'busy'],
      [new StoreUnavailableError('tenant_busy', 'share taken'), 'tenant_busy'],
      // Not the store being unavailable: bugs and refusals of the request itself.
      [withCode('23505'), undefined],
      [withCode('40001'), undefined],
      [withCode('SQLITE_CONSTRAINT_UNIQUE'), undefined],
      [withCode('5330'), undefined],
      [new Error('something else'), undefined],
      ['55P03', undefined],
    ];
    for (const [error, reason] of cases) assert.equal(storeUnavailable(error), reason, String(error));
  });
});

if (DIALECTS.includes('postgres')) {
  describe('store limits on PostgreSQL', () => {
    let fresh: TestStore;
    let store: Store;
    const POOL = 4;

    before(async () => {
      fresh = await freshStore('postgres');
      const config = loadConfig({ ...fresh.env, DATABASE_STATEMENT_TIMEOUT_MS: '200' });
      store = openStore({ ...config, poolSize: POOL, databaseTenantConnections: 1 });
      await migrateToLatest(store);
    });
    after(async () => {
      await store.close();
      await fresh.drop();
    });

    /** Holds one pool connection until the returned function is called. */
    async function hold(): Promise<() => Promise<void>> {
      let release = () => undefined as void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let taken = () => undefined as void;
      const holding = new Promise<void>((resolve) => (taken = resolve));
      const done = store.db.connection().execute(async (conn) => {
        await sql`SELECT 1`.execute(conn);
        taken();
        await released;
      });
      await holding;
      return async () => {
        release();
        await done;
      };
    }

    const asTenant = <T>(tenant: string, fn: () => T): T => {
      assert.ok(store.asTenant);
      return store.asTenant(tenant, fn);
    };

    it('ends a statement that runs past DATABASE_STATEMENT_TIMEOUT_MS; the migrations gave their connection it back', async () => {
      await assert.rejects(sql`SELECT pg_sleep(1)`.execute(store.db), (error) => {
        assert.equal(storeUnavailable(error), 'statement_timeout');
        return true;
      });
      // The migrations lift the timeouts on the connection they run on, and set them back after.
      const timeouts = await sql<{
        statement_timeout: string;
      }>`SELECT current_setting('statement_timeout') AS statement_timeout`.execute(store.db);
      assert.equal(timeouts.rows[0]?.statement_timeout, '200ms');
    });

    it("queues a tenant's requests past its share in its own queue, while other tenants and untenanted work go on", async () => {
      const order: string[] = [];
      const query = (label: string) => sql`SELECT 1`.execute(store.db).then(() => order.push(label));
      let release: (() => Promise<void>) | undefined;
      await asTenant('ten_a', async () => {
        release = await hold();
      });
      assert.ok(release);
      const queued = asTenant('ten_a', () => query('a'));
      await asTenant('ten_b', () => query('b'));
      await query('untenanted');
      await asTenant('ten_a', () => store.outsideTenant(() => query('a, outside its share')));
      assert.deepEqual(order, ['b', 'untenanted', 'a, outside its share']);
      await release();
      await queued;
      assert.deepEqual(order, ['b', 'untenanted', 'a, outside its share', 'a']);
    });

    it("refuses at once a tenant's request past 64 waiting per connection of its share", async () => {
      let release: (() => Promise<void>) | undefined;
      await asTenant('ten_c', async () => {
        release = await hold();
      });
      assert.ok(release);
      const waiting = Array.from({ length: 64 }, () =>
        asTenant('ten_c', () => sql`SELECT 1`.execute(store.db)),
      );
      await assert.rejects(
        asTenant('ten_c', () => sql`SELECT 1`.execute(store.db)),
        (error) => {
          assert.equal(storeUnavailable(error), 'tenant_busy');
          return true;
        },
      );
      await release();
      assert.equal((await Promise.all(waiting)).length, 64);
    });

    it('answers ping within READY_TIMEOUT_MS even when no connection comes free', async () => {
      const holds = await Promise.all(Array.from({ length: POOL }, () => hold()));
      try {
        await assert.rejects(store.ping(), (error) => {
          assert.equal(storeUnavailable(error), 'no_answer');
          return true;
        });
      } finally {
        await Promise.all(holds.map((release) => release()));
      }
      await store.ping();
    });
  });
}
