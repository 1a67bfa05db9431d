import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countList } from '../../db/list-counts.js';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import * as repo from './webhooks.queue.repository.js';
import type { WebhookObject } from './webhooks.presenter.js';

/**
 * How a worker writes a batch of attempts' outcomes (`completeAttempts`): one statement for the
 * whole batch (on PostgreSQL the outcomes travel as one array a column), each written only while
 * the worker still holds its lease, every value kept as sent, the delivery log's counts moved. No
 * worker runs here: the test leases the deliveries itself.
 */

const DELIVERIES = 300;
/** Response bodies that an array literal or a VALUES list must carry unchanged. */
const BODIES = [
  '{"ok":true}',
  'NULL',
  'a "quoted", {braced} \\ backslashed body',
  'Grüße, 東京 😀',
  '',
  null,
];

for (const dialect of DIALECTS) {
  describe(`webhook attempt outcomes, written in one statement (${dialect})`, () => {
    let ctx: TestContext;
    let tenantId: string;
    let hook: WebhookObject;
    let ids: string[];

    before(async () => {
      ctx = await createTestContext(dialect, {
        // The endpoint's host resolves to a public address; nothing is ever sent to it.
        webhooks: { resolve: async () => [{ address: '93.184.215.14', family: 4 }] },
      });
      const tenant = await createTenant(ctx);
      tenantId = tenant.tenant.id;
      hook = (
        await client(ctx.app, tenant.apiKey.key)<WebhookObject>('POST', '/v1/webhooks', {
          body: { url: 'https://hooks.example.com/in', events: ['product.updated'] },
        })
      ).body;
      await ctx.deps.store.transaction(async (trx) => {
        for (let i = 0; i < DELIVERIES; i++) {
          await ctx.deps.events.emit(trx, {
            tenantId,
            type: 'product.updated',
            objectType: 'product',
            object: { id: `prod_${i}` },
          });
        }
      });
      ids = (
        await ctx.deps.store.db
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('endpoint_id', '=', hook.id)
          .orderBy('id')
          .execute()
      ).map((row) => row.id);
      assert.equal(ids.length, DELIVERIES);
    });
    after(() => ctx.close());

    it('writes each outcome whose lease the worker holds, exactly as sent, and no other', async () => {
      const leaseUntil = Date.now() + 60_000;
      // Every tenth delivery is leased by another worker (this one's lease ran out and was taken).
      const theirs = new Set(ids.filter((_, i) => i % 10 === 0));
      await ctx.deps.store.db
        .updateTable('webhook_deliveries')
        .set({ lease_owner: 'wkr_mine', lease_until: leaseUntil })
        .where('id', 'in', ids)
        .execute();
      await ctx.deps.store.db
        .updateTable('webhook_deliveries')
        .set({ lease_owner: 'wkr_theirs' })
        .where('id', 'in', [...theirs])
        .execute();

      const outcomes = ids.map((id, i): repo.AttemptOutcome => {
        const ok = i % 3 !== 0;
        return {
          id,
          status: ok ? 'succeeded' : 'failed',
          time: 1_700_000_000_000 + i,
          url: `https://hooks.example.com/in?n=${i}`,
          response: ok ? '200 OK' : i % 2 === 0 ? 'Timeout after 10000 ms' : '503 Service Unavailable',
          response_status: ok ? 200 : i % 2 === 0 ? null : 503,
          response_body: BODIES[i % BODIES.length] ?? null,
          duration: i,
          next_retry_at: ok ? null : 1_800_000_000_000 + i,
        };
      });
      const written = await ctx.deps.store.transaction((trx) =>
        repo.completeAttempts(trx, ctx.deps.store.dialect, 'wkr_mine', outcomes),
      );
      assert.deepEqual(
        [...written].sort(),
        ids.filter((id) => !theirs.has(id)),
      );

      const rows = await ctx.deps.store.db
        .selectFrom('webhook_deliveries')
        .select([
          'id',
          'status',
          'time',
          'url',
          'response',
          'response_status',
          'response_body',
          'duration',
          'next_retry_at',
          'lease_owner',
          'lease_until',
        ])
        .where('id', 'in', ids)
        .orderBy('id')
        .execute();
      for (const [i, row] of rows.entries()) {
        const sent = outcomes[i] as repo.AttemptOutcome;
        assert.equal(row.id, sent.id);
        if (theirs.has(row.id)) {
          assert.equal(row.status, 'pending', `${row.id}: another worker's lease`);
          assert.equal(row.time, null);
          assert.equal(row.lease_owner, 'wkr_theirs');
          continue;
        }
        assert.deepEqual(
          {
            ...row,
            time: Number(row.time),
            next_retry_at: row.next_retry_at === null ? null : Number(row.next_retry_at),
          },
          { ...sent, lease_owner: 'wkr_mine', lease_until: null },
        );
      }

      // The log's counts moved with the statuses (the count triggers ran for every row).
      const counted = async (status: string) =>
        countList(ctx.deps.store.db, tenantId, `deliveries:${hook.id}`, { only: status });
      const expected = (status: string) => rows.filter((row) => row.status === status).length;
      for (const status of ['pending', 'succeeded', 'failed']) {
        assert.equal(await counted(status), expected(status), status);
      }

      // Written once: the same outcomes again find no pending row and change nothing.
      const again = await ctx.deps.store.transaction((trx) =>
        repo.completeAttempts(trx, ctx.deps.store.dialect, 'wkr_mine', outcomes),
      );
      assert.equal(again.size, 0);
    });
  });
}
