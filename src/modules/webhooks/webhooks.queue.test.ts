import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import { sentQueries } from '../../../test/helpers/queries.js';
import * as repo from './webhooks.repository.js';
import type { WebhookObject } from './webhooks.service.js';

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
        repo.dueCandidates(trx, { now, limit: 10, skipEndpoints: [], rowLocks: dialect === 'postgres' }),
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
          assert.doesNotMatch(plan, /"Rows Removed by Filter":[1-9]/, plan);
        });
      }

      const enabled = await api<WebhookObject>('PATCH', `/v1/webhooks/${hook.id}`, {
        body: { enabled: true },
      });
      assert.equal(enabled.body.status, 'Active');
      assert.equal(Number(await heldCount()), 0);
      assert.ok((await repo.nextDue(ctx.deps.store.db, now, [])) !== undefined);
    });
  });
}
