import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Migrator, sql } from 'kysely';
import { loadConfig } from '../../config.js';
import { migrateToLatest } from '../../db/migrate.js';
import { migrations } from '../../db/migrations/index.js';
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
import { eventually, type Receiver, startReceiver } from '../../../test/helpers/webhook-receiver.js';
import { ManualClock } from '../../lib/clock.js';
import type { EventType } from '../events/events.types.js';
import type { WebhookObject } from './webhooks.service.js';

/**
 * `total` of the event list and the delivery log comes from kept counts (migration 0019), not from
 * counting rows: it must stay exact through every write, settled attempt, retry, purge and
 * deletion, under concurrent writers, and for stores migrated with events already in them.
 */

const DAY_MS = 24 * 3_600_000;
const STATUSES = [undefined, 'pending', 'succeeded', 'failed'] as const;

interface Page {
  total: number;
}

for (const dialect of DIALECTS) {
  describe(`event and delivery-log totals (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let tenantId: string;
    let rx: Receiver;
    const hooks: WebhookObject[] = [];
    const clock = new ManualClock(Date.parse('2026-03-02T10:00:00.000Z'));

    async function emit(type: EventType, count: number): Promise<void> {
      await ctx.deps.store.transaction(async (trx) => {
        for (let i = 0; i < count; i++) {
          await ctx.deps.events.emit(trx, {
            tenantId,
            type,
            objectType: 'product',
            object: { id: `prod_${i}` },
          });
        }
      });
    }

    /** Every total the API gives equals a count of the rows. */
    async function assertTotalsExact(): Promise<void> {
      const db = ctx.deps.store.db;
      for (const type of [undefined, 'product.updated', 'order.created'] as const) {
        let counted = db.selectFrom('events').where('tenant_id', '=', tenantId);
        if (type) counted = counted.where('type', '=', type);
        const { n } = await counted
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        const listed = await api<Page>('GET', `/v1/events${type ? `?type=${type}` : ''}`);
        assert.equal(listed.body.total, Number(n), `events of type ${type ?? 'any'}`);
      }
      for (const hook of hooks) {
        for (const status of STATUSES) {
          let counted = db.selectFrom('webhook_deliveries').where('endpoint_id', '=', hook.id);
          if (status) counted = counted.where('status', '=', status);
          const { n } = await counted
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow();
          const listed = await api<Page>(
            'GET',
            `/v1/webhooks/${hook.id}/deliveries${status ? `?status=${status}` : ''}`,
          );
          assert.equal(listed.body.total, Number(n), `${hook.description} deliveries ${status ?? 'any'}`);
        }
      }
    }

    before(async () => {
      ctx = await createTestContext(dialect, { clock, env: { WEBHOOK_RETRY_SCHEDULE: '60' } });
      const tenant = await createTenant(ctx);
      tenantId = tenant.tenant.id;
      api = client(ctx.app, tenant.apiKey.key);
      rx = await startReceiver((req) => (req.path === '/failing' ? { status: 503 } : { status: 200 }));
      for (const [path, events] of [
        ['/ok', ['*']],
        ['/failing', ['product.updated']],
      ] as const) {
        const created = await api<WebhookObject>('POST', '/v1/webhooks', {
          body: { url: `${rx.url}${path}`, events, description: path },
        });
        assert.equal(created.status, 201);
        hooks.push(created.body);
      }
    });
    after(async () => {
      await ctx.close();
      await rx.close();
    });

    it('stays exact through writes, settled attempts, retries, retention and deletion', async () => {
      await emit('product.updated', 5);
      await emit('order.created', 3);
      await assertTotalsExact();
      assert.equal((await api<Page>('GET', '/v1/events')).body.total, 8);
      assert.equal(
        (await api<Page>('GET', `/v1/webhooks/${hooks[0]?.id}/deliveries?status=pending`)).body.total,
        8,
      );

      // Delivered: 8 succeed on one endpoint; 5 fail on the other, each with a retry waiting.
      ctx.deps.webhookWorker.start();
      await rx.waitFor(13);
      await eventually(
        async () =>
          (await api<Page>('GET', `/v1/webhooks/${hooks[1]?.id}/deliveries?status=failed`)).body.total === 5,
      );
      await eventually(
        async () =>
          (await api<Page>('GET', `/v1/webhooks/${hooks[0]?.id}/deliveries?status=succeeded`)).body.total ===
          8,
      );
      await ctx.deps.webhookWorker.stop();
      await assertTotalsExact();
      assert.equal(
        (await api<Page>('GET', `/v1/webhooks/${hooks[1]?.id}/deliveries?status=pending`)).body.total,
        5,
      );

      // Within a time range the total is counted: the same answer.
      const from = new Date(clock.now() - 1).toISOString();
      assert.equal((await api<Page>('GET', `/v1/events?created_from=${from}`)).body.total, 8);

      // Past retention: the events delivered everywhere go with their log; those with a retry
      // waiting stay.
      clock.advance(31 * DAY_MS);
      await emit('order.created', 2);
      assert.equal(await ctx.deps.webhooks.purgeExpired(2), 3);
      await assertTotalsExact();
      assert.equal((await api<Page>('GET', '/v1/events')).body.total, 7);

      // Deleting an endpoint takes its counts with it.
      assert.equal((await api('DELETE', `/v1/webhooks/${hooks[1]?.id}`)).status, 204);
      const left = await ctx.deps.store.db
        .selectFrom('webhook_delivery_counts')
        .select('endpoint_id')
        .where('endpoint_id', '=', hooks[1]?.id ?? '')
        .execute();
      assert.deepEqual(left, []);
      hooks.pop();
      await assertTotalsExact();
    });

    it('stays exact under concurrent writers', async () => {
      const before = (await api<Page>('GET', '/v1/events')).body.total;
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => emit(i % 2 === 0 ? 'product.updated' : 'order.created', 5)),
      );
      assert.equal((await api<Page>('GET', '/v1/events')).body.total, before + 100);
      await assertTotalsExact();
    });
  });

  describe(`event and delivery-log totals, migrated store (${dialect})`, () => {
    it('counts the events and deliveries a store held before migration 0019', async () => {
      const fresh = await freshStore(dialect);
      const config = loadConfig(fresh.env);
      const store = openStore({ ...config, dataDir: config.dataDir });
      try {
        const migrator = new Migrator({
          db: store.db,
          provider: { getMigrations: async () => migrations },
          ...(store.schema ? { migrationTableSchema: store.schema } : {}),
        });
        assert.equal((await migrator.migrateTo('0018_held_deliveries')).error, undefined);
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                  VALUES ('ten_m', 'M', 'free', 'USD', '2026-11-21', 1, 1)`.execute(store.db);
        await sql`INSERT INTO webhook_endpoints (id, tenant_id, url, events, description, secret, status,
                    api_version, created, updated)
                  VALUES ('wh_m', 'ten_m', 'https://example.com/in', '["*"]', NULL, 'whsec_x', 'Active',
                    '2026-11-21', 1, 1)`.execute(store.db);
        for (let i = 0; i < 5; i++) {
          const type = i < 3 ? 'product.updated' : 'order.created';
          await sql`INSERT INTO events (id, tenant_id, type, object_type, object_id, data, created)
                    VALUES (${`evt_${i}`}, 'ten_m', ${type}, 'product', 'prod_1', '{}', ${i})`.execute(
            store.db,
          );
          await sql`INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, event_type, attempt,
                      manual, status, due_at, created)
                    VALUES (${`del_${i}`}, 'ten_m', 'wh_m', ${`evt_${i}`}, ${type}, 1, 0,
                      ${i < 2 ? 'succeeded' : 'pending'}, ${i}, ${i})`.execute(store.db);
        }
        await migrateToLatest(store);
        const events = await store.db
          .selectFrom('event_counts')
          .select(['type', (eb) => eb.fn.sum<number>('n').as('n')])
          .groupBy('type')
          .orderBy('type')
          .execute();
        assert.deepEqual(
          events.map((row) => [row.type, Number(row.n)]),
          [
            ['order.created', 2],
            ['product.updated', 3],
          ],
        );
        const deliveries = await store.db
          .selectFrom('webhook_delivery_counts')
          .select(['status', (eb) => eb.fn.sum<number>('n').as('n')])
          .groupBy('status')
          .orderBy('status')
          .execute();
        assert.deepEqual(
          deliveries.map((row) => [row.status, Number(row.n)]),
          [
            ['pending', 3],
            ['succeeded', 2],
          ],
        );
      } finally {
        await store.close();
        await fresh.drop();
      }
    });
  });
}
