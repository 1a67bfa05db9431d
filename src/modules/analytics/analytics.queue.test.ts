import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import { applyQueued, flushQueue, ROLLUP_BATCH } from './analytics.queue.js';

/**
 * The rollups' queue (analytics.queue.ts): an order's events are queued in its transaction and
 * rolled up once, whichever process or read takes them in, however many take them in at once, and
 * whatever batch fails on the way: the rollups then equal a rebuild from the orders.
 */

for (const dialect of DIALECTS) {
  describe(`the analytics queue (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let tenantId: string;
    let productId: string;

    before(async () => {
      ctx = await createTestContext(dialect);
      const tenant = await createTenant(ctx, { currency: 'USD' });
      tenantId = tenant.tenant.id;
      api = client(ctx.app, tenant.apiKey.key);
      const made = await api<{ id: string }>('POST', '/v1/products', {
        body: { name: 'Mug', price: 1_000, category: 'kitchen', stock: 10_000 },
      });
      productId = made.body.id;
    });
    after(() => ctx.close());

    async function orders(count: number, from = 0, buyer = 'buyer'): Promise<void> {
      for (let i = from; i < from + count; i++) {
        const res = await api('POST', '/v1/orders', {
          body: {
            customer: { email: `${buyer}-${i % 7}@example.com` },
            items: [{ product_id: productId, quantity: 1 + (i % 3) }],
            ...(i % 4 === 0 ? {} : { payment_method: 'pm_card_visa' }),
          },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
      }
    }

    const queued = async () =>
      Number(
        (
          await ctx.deps.store.db
            .selectFrom('analytics_queue')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    /** The tenant's rollup rows, in key order. */
    async function rollups(): Promise<Record<string, string[]>> {
      const out: Record<string, string[]> = {};
      for (const table of [
        'analytics_currencies',
        'analytics_orders',
        'analytics_daily',
        'analytics_running',
        'analytics_members',
        'analytics_customer_days',
        'analytics_reach',
      ]) {
        const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)}
          WHERE tenant_id = ${tenantId}`.execute(ctx.deps.store.db);
        out[table] = rows
          .map((row) => JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)))
          .sort();
      }
      return out;
    }

    /** The rollups as they stand equal a rebuild from the orders (which takes nothing queued). */
    async function equalsRebuild(): Promise<void> {
      const kept = await rollups();
      await ctx.deps.analytics.rebuild(tenantId);
      assert.deepEqual(await rollups(), kept);
    }

    it('queues each order change in its transaction and takes it in once', async () => {
      await orders(12);
      // 12 order.created and 9 order.paid events, none taken in yet.
      assert.equal(await queued(), 21);
      await flushQueue(ctx.deps.store, ctx.deps.logger);
      assert.equal(await queued(), 0);
      const orderRows = (await rollups()).analytics_orders ?? [];
      assert.equal(orderRows.length, 12);
      await equalsRebuild();
      // Nothing queued: a second flush writes nothing.
      const before = await rollups();
      await flushQueue(ctx.deps.store, ctx.deps.logger);
      assert.deepEqual(await rollups(), before);
    });

    it('counts each event once when several take the queue in at once', async () => {
      await orders(30, 100);
      await Promise.all([
        flushQueue(ctx.deps.store, ctx.deps.logger),
        flushQueue(ctx.deps.store, ctx.deps.logger),
        applyQueued(ctx.deps.store, ctx.deps.logger, false),
        ctx.deps.analyticsRollups.flush(),
      ]);
      assert.equal(await queued(), 0);
      await equalsRebuild();
    });

    it('leaves a batch that fails queued, and takes it in whole the next time', async () => {
      await orders(8, 200);
      const waiting = await queued();
      assert.ok(waiting > 0 && waiting < ROLLUP_BATCH);
      const [install, remove] =
        dialect === 'postgres'
          ? [
              [
                `CREATE FUNCTION refuse_rollup() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'injected'; END $$ LANGUAGE plpgsql`,
                `CREATE TRIGGER refuse_rollup BEFORE INSERT OR UPDATE ON analytics_reach FOR EACH ROW EXECUTE FUNCTION refuse_rollup()`,
              ],
              ['DROP TRIGGER refuse_rollup ON analytics_reach', 'DROP FUNCTION refuse_rollup()'],
            ]
          : [
              [
                `CREATE TRIGGER refuse_rollup BEFORE UPDATE ON analytics_reach BEGIN SELECT RAISE(ABORT, 'injected'); END`,
              ],
              ['DROP TRIGGER refuse_rollup'],
            ];
      // New customers' first orders of the day move the reach table: the batch fails there, after
      // it wrote other rows, and none of it stays.
      await orders(2, 1_001, 'fresh');
      const before = await rollups();
      for (const statement of install) await sql.raw(statement).execute(ctx.deps.store.db);
      try {
        await assert.rejects(flushQueue(ctx.deps.store, ctx.deps.logger), /injected/);
        assert.deepEqual(await rollups(), before);
        assert.equal(await queued(), waiting + 4);
        // A read answers from the rollups as they stand, and says why in the log.
        const res = await api('GET', '/v1/analytics');
        assert.equal(res.status, 200);
      } finally {
        for (const statement of remove) await sql.raw(statement).execute(ctx.deps.store.db);
      }
      await flushQueue(ctx.deps.store, ctx.deps.logger);
      assert.equal(await queued(), 0);
      await equalsRebuild();
    });
  });
}
