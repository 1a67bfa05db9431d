import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { loadConfig } from '../../config.js';
import { migrateToLatest } from '../../db/migrate.js';
import { migrateStoreTo } from '../../../test/helpers/upgrade.js';
import { openStore } from '../../db/store.js';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  freshStore,
  type TestContext,
} from '../../../test/helpers/context.js';
import { sentQueries } from '../../../test/helpers/queries.js';
import * as repo from './webhooks.queue.repository.js';
import type { WebhookObject } from './webhooks.presenter.js';

/**
 * The delivery queue leaves a Disabled endpoint's pending deliveries out (`held`, migration 0018):
 * an endpoint disabled after days of failures holds hundreds of thousands, and the worker looks at
 * the queue many times a second. No worker runs here: deliveries stay pending.
 */

const PENDING = 200;

for (const dialect of DIALECTS) {
  describe(`webhook queue and Disabled endpoints (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let tenantId: string;
    let hook: WebhookObject;

    const heldCount = async () =>
      (
        await ctx.deps.store.db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('endpoint_id', '=', hook.id)
          .where('status', '=', 'pending')
          .where('held', '=', 1)
          .executeTakeFirstOrThrow()
      ).n;

    before(async () => {
      ctx = await createTestContext(dialect, {
        // The endpoint's host resolves to a public address; nothing is ever sent to it.
        webhooks: { resolve: async () => [{ address: '93.184.215.14', family: 4 }] },
      });
      const tenant = await createTenant(ctx);
      tenantId = tenant.tenant.id;
      api = client(ctx.app, tenant.apiKey.key);
      hook = (
        await api<WebhookObject>('POST', '/v1/webhooks', {
          body: { url: 'https://hooks.example.com/in', events: ['product.updated'] },
        })
      ).body;
      await ctx.deps.store.transaction(async (trx) => {
        for (let i = 0; i < PENDING; i++) {
          await ctx.deps.events.emit(trx, {
            tenantId,
            type: 'product.updated',
            objectType: 'product',
            object: { id: `prod_${i}` },
          });
        }
      });
    });
    after(() => ctx.close());

    it('holds pending deliveries while the endpoint is disabled, and releases them when it is enabled', async () => {
      const now = Date.now() + 1_000;
      assert.equal(await heldCount(), 0);
      assert.ok((await repo.nextDue(ctx.deps.store.db, now, [])) !== undefined);

      const disabled = await api<WebhookObject>('PATCH', `/v1/webhooks/${hook.id}`, {
        body: { enabled: false },
      });
      assert.equal(disabled.body.status, 'Disabled');
      assert.equal(Number(await heldCount()), PENDING);
      assert.equal(await repo.nextDue(ctx.deps.store.db, now, []), undefined);
      const claimed = await ctx.deps.store.transaction((trx) =>
        repo.dueCandidates(trx, {
          now,
          endpoints: [{ id: hook.id, limit: 10 }],
          rowLocks: dialect === 'postgres',
        }),
      );
      assert.deepEqual(claimed, []);

      if (dialect === 'postgres') {
        // The queue's look reads none of the held rows: its index no longer holds them.
        await ctx.deps.store.db.transaction().execute(async (trx) => {
          await sql`SET LOCAL enable_seqscan = off`.execute(trx);
          const [query] = await sentQueries(trx, (db) => repo.nextDue(db, now, []));
          assert.ok(query);
          const result = await trx.executeQuery<{ 'QUERY PLAN': unknown }>(
            CompiledQuery.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${query.sql}`, [...query.parameters]),
          );
          const plan = JSON.stringify(result.rows[0]?.['QUERY PLAN']);
          const scans = [...plan.matchAll(/"Relation Name":"webhook_deliveries"[^}]*?"Actual Rows":(\d+)/g)];
          assert.ok(scans.length > 0, plan);
          for (const [, rows] of scans) assert.equal(Number(rows), 0, plan);
          assert.doesNotMatch(
            plan,
            /"Relation Name":"webhook_deliveries"[^}]*?"Rows Removed by Filter":[1-9]/,
            plan,
          );
        });
      }

      const enabled = await api<WebhookObject>('PATCH', `/v1/webhooks/${hook.id}`, {
        body: { enabled: true },
      });
      assert.equal(enabled.body.status, 'Active');
      assert.equal(Number(await heldCount()), 0);
      assert.ok((await repo.nextDue(ctx.deps.store.db, now, [])) !== undefined);
    });

    it('claims in one statement on PostgreSQL: each claim the oldest unleased, leased and loaded, none twice', async (t) => {
      if (dialect !== 'postgres') {
        t.skip('SQLite claims in a write transaction (dueCandidates, leaseDeliveries, loadJobs)');
        return;
      }
      const now = Date.now() + 1_000;
      const leaseUntil = now + 60_000;
      const oldest = (
        await ctx.deps.store.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('endpoint_id', '=', hook.id)
          .orderBy('due_at')
          .orderBy('id')
          .execute()
      ).map((row) => row.id);
      assert.equal(oldest.length, PENDING);
      const claim = (owner: string, limit: number) =>
        repo.claimJobs(ctx.deps.store.db, { now, endpoints: [{ id: hook.id, limit }], owner, leaseUntil });

      // Another worker's claim holds the 20 oldest locked: this one takes the next 50, without waiting.
      const ids = (jobs: repo.Job[]) => jobs.map((job) => job.id);
      const a = await ctx.deps.store.db.transaction().execute(async (trx) => {
        await trx
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('id', 'in', oldest.slice(0, 20))
          .forUpdate()
          .execute();
        let timer: NodeJS.Timeout | undefined;
        const waited = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('the claim waited for locked rows')), 10_000);
        });
        try {
          return await Promise.race([claim('wkr_a', 50), waited]);
        } finally {
          clearTimeout(timer);
        }
      });
      assert.deepEqual(ids(a), oldest.slice(20, 70));
      const b = await claim('wkr_b', 50);
      assert.deepEqual(ids(b), [...oldest.slice(0, 20), ...oldest.slice(70, 100)]);
      for (const [owner, jobs] of [
        ['wkr_a', a],
        ['wkr_b', b],
      ] as const) {
        for (const job of jobs) {
          assert.equal(job.lease_owner, owner);
          assert.equal(job.endpoint_id, hook.id);
          assert.equal(job.url, 'https://hooks.example.com/in');
          assert.match(job.secret, /^whsec_/);
          assert.equal(job.event_type, 'product.updated');
          assert.equal(job.event_tenant_id, tenantId);
          assert.ok(job.event_data);
        }
      }
      const leased = await ctx.deps.store.db
        .selectFrom('webhook_deliveries')
        .select(['id', 'lease_owner', 'lease_until'])
        .where('id', 'in', ids(a))
        .execute();
      assert.ok(leased.every((row) => row.lease_owner === 'wkr_a' && Number(row.lease_until) === leaseUntil));

      // The rest, then nothing while the leases live.
      const rest = await claim('wkr_c', PENDING);
      assert.deepEqual(ids(rest), oldest.slice(100));
      assert.deepEqual(await claim('wkr_d', PENDING), []);

      // Leases run out: the oldest come back first.
      const again = await repo.claimJobs(ctx.deps.store.db, {
        now: leaseUntil,
        endpoints: [{ id: hook.id, limit: 10 }],
        owner: 'wkr_e',
        leaseUntil: leaseUntil + 60_000,
      });
      assert.deepEqual(ids(again), oldest.slice(0, 10));
    });
  });

  describe(`webhook queue, migrated store (${dialect})`, () => {
    it('holds the pending deliveries of endpoints that were Disabled before migration 0018', async () => {
      const fresh = await freshStore(dialect);
      const config = loadConfig(fresh.env);
      const store = openStore({ ...config, dataDir: config.dataDir });
      try {
        await migrateStoreTo(store, '0017_search_fold');
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                  VALUES ('ten_m', 'M', 'free', 'USD', '2026-11-21', 1, 1)`.execute(store.db);
        await sql`INSERT INTO events (id, tenant_id, type, object_type, object_id, data, created)
                  VALUES ('evt_m', 'ten_m', 'product.updated', 'product', 'prod_1', '{}', 1)`.execute(
          store.db,
        );
        for (const [endpoint, status] of [
          ['wh_off', 'Disabled'],
          ['wh_on', 'Active'],
        ]) {
          await sql`INSERT INTO webhook_endpoints (id, tenant_id, url, events, description, secret, status,
                      api_version, created, updated)
                    VALUES (${endpoint}, 'ten_m', 'https://example.com/in', '["*"]', NULL, 'whsec_x', ${status},
                      '2026-11-21', 1, 1)`.execute(store.db);
          for (const [suffix, delivery] of [
            ['p', 'pending'],
            ['s', 'succeeded'],
          ]) {
            await sql`INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, event_type, attempt,
                        manual, status, due_at, created)
                      VALUES (${`del_${endpoint}_${suffix}`}, 'ten_m', ${endpoint}, 'evt_m', 'product.updated', 1,
                        0, ${delivery}, 1, 1)`.execute(store.db);
          }
        }
        await migrateToLatest(store);
        const rows = await store.db
          .selectFrom('webhook_deliveries')
          .select(['id', 'held'])
          .orderBy('id')
          .execute();
        assert.deepEqual(
          rows.map((row) => [row.id, Number(row.held)]),
          [
            ['del_wh_off_p', 1],
            ['del_wh_off_s', 0],
            ['del_wh_on_p', 0],
            ['del_wh_on_s', 0],
          ],
        );
        assert.equal(await repo.nextDue(store.db, 10, []), 1, 'the enabled endpoint is still queued');
      } finally {
        await store.close();
        await fresh.drop();
      }
    });
  });
}
