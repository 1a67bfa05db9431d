import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { Page } from '../../../test/helpers/responses.js';
import { eventually, type Receiver, startReceiver } from '../../../test/helpers/webhook-receiver.js';
import pg from 'pg';
import { ManualClock } from '../../lib/clock.js';
import * as repo from './webhooks.deliveries.repository.js';
import type { DeliveryObject, WebhookObject } from './webhooks.presenter.js';

/**
 * Retention (`EVENT_RETENTION_DAYS`, default 30): events past it go with their delivery log, except
 * an event whose delivery is still pending, which stays until it has been delivered.
 */

const DAY_MS = 24 * 3_600_000;

for (const dialect of DIALECTS) {
  describe(`event retention (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let quietApi: Client;
    let tenantId: string;
    let quietTenantId: string;
    let rx: Receiver;
    let hook: WebhookObject;
    const clock = new ManualClock(Date.parse('2026-01-05T10:00:00.000Z'));

    async function emit(tenant: string, id: string): Promise<string> {
      const { store, events } = ctx.deps;
      const event = await store.transaction((trx) =>
        events.emit(trx, {
          tenantId: tenant,
          type: 'product.updated',
          objectType: 'product',
          object: { id },
        }),
      );
      return event.id;
    }
    async function log(): Promise<DeliveryObject[]> {
      const res = await api<Page<DeliveryObject>>('GET', `/v1/webhooks/${hook.id}/deliveries?limit=100`);
      assert.equal(res.status, 200);
      return res.body.data;
    }
    /** Waits until the endpoint's log holds a successful attempt of `event`. */
    async function deliveredOnce(event: string): Promise<void> {
      await eventually(
        async () => (await log()).some((d) => d.event_id === event && d.status === 'succeeded'),
        15_000,
        `${event} delivered`,
      );
    }
    async function listedEvents(): Promise<string[]> {
      const res = await api<Page<{ id: string }>>('GET', '/v1/events?limit=100');
      assert.equal(res.status, 200);
      return res.body.data.map((event) => event.id);
    }
    async function storedDeliveries(eventIds: string[]): Promise<number> {
      const { n } = await ctx.deps.store.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('event_id', 'in', eventIds)
        .executeTakeFirstOrThrow();
      return Number(n);
    }

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
      const tenant = await createTenant(ctx);
      tenantId = tenant.tenant.id;
      api = client(ctx.app, tenant.apiKey.key);
      const quiet = await createTenant(ctx);
      quietTenantId = quiet.tenant.id;
      quietApi = client(ctx.app, quiet.apiKey.key);
      rx = await startReceiver();
      const created = await api<WebhookObject>('POST', '/v1/webhooks', {
        body: { url: `${rx.url}/hook`, events: ['*'] },
      });
      assert.equal(created.status, 201);
      hook = created.body;
    });
    after(async () => {
      await ctx.close();
      await rx.close();
    });

    it('deletes expired events and their delivery log, keeps pending ones until delivered', async () => {
      assert.equal(ctx.config.eventRetentionDays, 30);
      // Day 0: two events delivered, one of a tenant without endpoints, one left pending.
      ctx.deps.webhookWorker.start();
      const delivered = [await emit(tenantId, 'prod_a'), await emit(tenantId, 'prod_b')];
      await rx.waitFor(2);
      await eventually(async () => (await log()).every((d) => d.status === 'succeeded'), 15_000, 'delivered');
      const quiet = await emit(quietTenantId, 'prod_quiet');
      await ctx.deps.webhookWorker.stop();
      const pending = await emit(tenantId, 'prod_pending');
      // Day 25: a recent event.
      clock.advance(25 * DAY_MS);
      const recent = await emit(tenantId, 'prod_recent');

      // Day 30 exactly: nothing is past retention yet.
      clock.advance(5 * DAY_MS);
      assert.equal(await ctx.deps.webhooks.purgeExpired(1), 0);
      assert.equal((await listedEvents()).length, 4);

      // Past it, in batches of one.
      clock.advance(1);
      assert.equal(await ctx.deps.webhooks.purgeExpired(1), 3);
      for (const id of delivered) assert.equal((await api('GET', `/v1/events/${id}`)).status, 404);
      assert.equal((await quietApi('GET', `/v1/events/${quiet}`)).status, 404);
      assert.deepEqual((await quietApi<Page<unknown>>('GET', '/v1/events')).body.data, []);
      assert.equal(await storedDeliveries(delivered), 0);
      assert.deepEqual(await listedEvents(), [recent, pending]);
      const kept = await log();
      assert.deepEqual(
        kept.map((d) => [d.event_id, d.status]).sort(),
        [
          [pending, 'pending'],
          [recent, 'pending'],
        ].sort(),
      );

      // The kept event is delivered once the worker runs again, and then it goes too.
      ctx.deps.webhookWorker.start();
      await rx.waitFor(4);
      const ids = rx.received.map((r) => String(r.headers['webhook-id']));
      assert.deepEqual(ids.slice(2).sort(), [pending, recent].sort());
      await eventually(async () => (await log()).every((d) => d.status === 'succeeded'), 15_000, 'delivered');
      assert.equal(await ctx.deps.webhooks.purgeExpired(), 1);
      assert.equal((await api('GET', `/v1/events/${pending}`)).status, 404);
      assert.deepEqual(await listedEvents(), [recent]);
      assert.deepEqual(
        (await log()).map((d) => d.event_id),
        [recent],
      );
      assert.equal(await ctx.deps.webhooks.purgeExpired(), 0);
    });

    it('keeps an event that a manual retry makes pending between the purge choosing it and deleting it', async () => {
      const event = await emit(tenantId, 'prod_retried');
      await deliveredOnce(event);
      await ctx.deps.webhookWorker.stop();
      const first = (await log()).find((d) => d.event_id === event);
      assert.ok(first);
      clock.advance(31 * DAY_MS);
      const cutoff = clock.now() - 30 * DAY_MS;
      const chosen = await repo.expiredEvents(ctx.deps.store.db, { cutoff, after: null, limit: 100 });
      assert.ok(chosen.some((c) => c.id === event));
      const retried = await api<DeliveryObject>(
        'POST',
        `/v1/webhooks/${hook.id}/deliveries/${first.id}/retry`,
      );
      assert.equal(retried.status, 202, JSON.stringify(retried.body));
      const ids = chosen.map((c) => c.id);
      const deleted = await ctx.deps.store.transaction((trx) => repo.deleteEventsAndLog(trx, ids));
      assert.equal(deleted, ids.length - 1, 'every chosen event but the retried one');
      assert.equal((await api('GET', `/v1/events/${event}`)).status, 200);
      assert.deepEqual(
        (await log()).map((d) => [d.attempt, d.status]).sort(),
        [
          [1, 'succeeded'],
          [2, 'pending'],
        ],
        'the whole log of the kept event stays',
      );
      assert.equal(await ctx.deps.webhooks.purgeExpired(), 0);
    });

    if (dialect === 'postgres') {
      it('fails, deleting nothing, when a retry not yet committed holds the event (PostgreSQL)', async () => {
        ctx.deps.webhookWorker.start();
        const event = await emit(tenantId, 'prod_racing');
        await deliveredOnce(event);
        await ctx.deps.webhookWorker.stop();
        const other = new pg.Client({ connectionString: ctx.store.env.DATABASE_URL });
        const watcher = new pg.Client({ connectionString: ctx.store.env.DATABASE_URL });
        await other.connect();
        await watcher.connect();
        try {
          await other.query(`SET search_path TO ${ctx.store.env.DATABASE_SCHEMA}`);
          clock.advance(31 * DAY_MS);
          // A retry's insert, left uncommitted: it holds the event row's key-share lock.
          await other.query('BEGIN');
          await other.query(
            `INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, event_type, attempt, manual, status, due_at, created)
             VALUES ('whd_racing', $1, $2, $3, 'product.updated', 2, 1, 'pending', $4, $4)`,
            [tenantId, hook.id, event, clock.now()],
          );
          const purge = ctx.deps.webhooks.purgeExpired().then(
            (n) => ({ n }),
            (error: unknown) => ({ error }),
          );
          // Commit only once the purge waits on that lock (seen from outside the transaction, whose
          // view of pg_stat_activity is a snapshot).
          await eventually(
            async () => {
              const { rows } = await watcher.query<{ n: string }>(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'delete from \"events\"%'",
              );
              return Number(rows[0]?.n) > 0;
            },
            10_000,
            'the purge to wait on the lock',
          );
          await other.query('COMMIT');
          const outcome = await purge;
          assert.ok('error' in outcome, `the purge failed (${JSON.stringify(outcome)})`);
          assert.match(String(outcome.error), /foreign key/);
        } finally {
          await other.end();
          await watcher.end();
        }
        assert.equal((await api('GET', `/v1/events/${event}`)).status, 200);
        assert.deepEqual(
          (await log())
            .filter((d) => d.event_id === event)
            .map((d) => [d.attempt, d.status])
            .sort(),
          [
            [1, 'succeeded'],
            [2, 'pending'],
          ],
          'nothing was deleted',
        );
      });
    }
  });
}
