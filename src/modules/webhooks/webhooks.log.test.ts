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
import type { Page, Problem } from '../../../test/helpers/responses.js';
import type { DeliveryObject, WebhookObject } from './webhooks.presenter.js';

/**
 * The delivery logs' order and paging: an endpoint's log (`GET /v1/webhooks/{id}/deliveries`) and
 * an event's deliveries to every endpoint (`GET /v1/events/{id}/deliveries`), by attempt time
 * newest first, queued attempts by when they are due.
 */

type EventDelivery = DeliveryObject & { webhook_id: string };

for (const dialect of DIALECTS) {
  describe(`delivery logs by attempt time (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let other: Client;

    before(async () => {
      ctx = await createTestContext(dialect);
      api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      other = client(ctx.app, (await createTenant(ctx)).apiKey.key);
    });
    after(() => ctx.close());

    async function endpoint(path: string, events: string[]): Promise<WebhookObject> {
      const res = await api<WebhookObject>('POST', '/v1/webhooks', {
        body: { url: `https://example.com${path}`, events },
      });
      assert.equal(res.status, 201);
      return res.body;
    }

    /** Sets a delivery's outcome or due time in the store, as the worker and the schedule would. */
    async function set(
      id: string,
      row: { status: 'pending' | 'failed' | 'succeeded'; time?: number; due_at: number; created: number },
    ): Promise<void> {
      await ctx.deps.store.db
        .updateTable('webhook_deliveries')
        .set({
          status: row.status,
          time: row.time ?? null,
          due_at: row.due_at,
          created: row.created,
          response:
            row.status === 'pending' ? null : row.status === 'failed' ? '503 Service Unavailable' : '200 OK',
          response_status: row.status === 'pending' ? null : row.status === 'failed' ? 503 : 200,
        })
        .where('id', '=', id)
        .execute();
    }

    /** Every page of `url` at `limit`, following `next_cursor`. */
    async function walk<T extends { id: string }>(url: string, limit: number): Promise<T[]> {
      const rows: T[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 50; pages++) {
        const sep = url.includes('?') ? '&' : '?';
        const res: { status: number; body: Page<T> } = await api<Page<T>>(
          'GET',
          `${url}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        assert.equal(res.status, 200);
        rows.push(...res.body.data);
        cursor = res.body.next_cursor;
        if (!res.body.has_more) break;
      }
      return rows;
    }

    it("orders an endpoint's log by attempt time, queued attempts by due time, and pages on", async () => {
      const hook = await endpoint('/hooks/log', ['webhook.test']);
      const queued: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await api<DeliveryObject>('POST', `/v1/webhooks/${hook.id}/test`);
        assert.equal(res.status, 202);
        queued.push(res.body.id);
      }
      const [a1, b1, a2, c1, d1] = queued as [string, string, string, string, string];
      const t = Date.parse('2026-11-20T10:00:00.000Z');
      // `created` (when a row was queued) disagrees with the attempt times on purpose: a retry is
      // queued when the attempt before it ends, a manual retry of an old event now.
      await set(a1, { status: 'failed', time: t + 1_000, due_at: t, created: t + 50_000 });
      await set(b1, { status: 'succeeded', time: t + 3_000, due_at: t + 2_000, created: t });
      await set(a2, { status: 'succeeded', time: t + 9_000, due_at: t + 8_000, created: t + 1_000 });
      await set(c1, { status: 'pending', due_at: t + 20_000, created: t + 40_000 });
      await set(d1, { status: 'pending', due_at: t + 30_000, created: t + 2_000 });

      const expected = [d1, c1, a2, b1, a1];
      const log = await api<Page<DeliveryObject>>('GET', `/v1/webhooks/${hook.id}/deliveries`);
      assert.equal(log.status, 200);
      assert.equal(log.body.total, 5);
      assert.deepEqual(
        log.body.data.map((d) => d.id),
        expected,
      );
      // What each row says it sorts by: the attempt's time, or a queued one's due time.
      const sortTimes = log.body.data.map((d) => Date.parse((d.time ?? d.next_retry_at) as string));
      assert.deepEqual(
        sortTimes,
        [...sortTimes].sort((x, y) => y - x),
      );

      // The cursor pages through the same order, page sizes 1 and 2, nothing skipped or repeated.
      for (const limit of [1, 2]) {
        const walked = await walk<DeliveryObject>(`/v1/webhooks/${hook.id}/deliveries`, limit);
        assert.deepEqual(
          walked.map((d) => d.id),
          expected,
          `limit ${limit}`,
        );
      }
      // Offsets agree with the cursor.
      const second = await api<Page<DeliveryObject>>(
        'GET',
        `/v1/webhooks/${hook.id}/deliveries?limit=2&page=2`,
      );
      assert.deepEqual(
        second.body.data.map((d) => d.id),
        [a2, b1],
      );
      // Ties in time break by id, newest id first, across pages too.
      await set(b1, { status: 'succeeded', time: t + 9_000, due_at: t + 2_000, created: t });
      const tied = [a2, b1].sort().reverse();
      const walked = await walk<DeliveryObject>(`/v1/webhooks/${hook.id}/deliveries`, 1);
      assert.deepEqual(
        walked.map((d) => d.id),
        [d1, c1, ...tied, a1],
      );
      // A status filter keeps the order.
      const pending = await api<Page<DeliveryObject>>(
        'GET',
        `/v1/webhooks/${hook.id}/deliveries?status=pending`,
      );
      assert.deepEqual(
        pending.body.data.map((d) => d.id),
        [d1, c1],
      );
      // A cursor of another list's sort is refused, naming the field.
      const events = await api<Page<{ id: string }>>('GET', '/v1/events?limit=1');
      assert.ok(events.body.next_cursor);
      const foreign = await api<Problem>(
        'GET',
        `/v1/webhooks/${hook.id}/deliveries?cursor=${encodeURIComponent(events.body.next_cursor)}`,
      );
      assert.equal(foreign.status, 400);
      assert.equal(foreign.body.errors?.[0]?.field, 'cursor');
    });

    it("lists an event's deliveries to every endpoint, with each endpoint's id to retry it", async () => {
      const first = await endpoint('/hooks/first', ['product.created']);
      const second = await endpoint('/hooks/second', ['*']);
      const product = await api<{ id: string }>('POST', '/v1/products', {
        body: { name: 'Logged Lamp', price: 1500, stock: 2 },
      });
      assert.equal(product.status, 201);
      const events = await api<Page<{ id: string; data: { object: { id: string } } }>>(
        'GET',
        '/v1/events?type=product.created&limit=1',
      );
      const event = events.body.data[0];
      assert.equal(event?.data.object.id, product.body.id);
      const url = `/v1/events/${event.id}/deliveries`;

      const listed = await api<Page<EventDelivery>>('GET', url);
      assert.equal(listed.status, 200);
      assert.equal(listed.body.total, 2);
      assert.deepEqual(listed.body.data.map((d) => d.webhook_id).sort(), [first.id, second.id].sort());
      for (const delivery of listed.body.data) {
        assert.equal(delivery.event_id, event.id);
        assert.equal(delivery.event, 'product.created');
        assert.equal(delivery.status, 'pending');
        assert.equal(delivery.url, delivery.webhook_id === first.id ? first.url : second.url);
      }
      // Attempted once, failed: then retried through its endpoint, a new attempt shows up first.
      const toFirst = listed.body.data.find((d) => d.webhook_id === first.id) as EventDelivery;
      const t = Date.parse('2026-11-20T12:00:00.000Z');
      await set(toFirst.id, { status: 'failed', time: t, due_at: t, created: t });
      const retry = await api<DeliveryObject>(
        'POST',
        `/v1/webhooks/${toFirst.webhook_id}/deliveries/${toFirst.id}/retry`,
      );
      assert.equal(retry.status, 202);
      const after = await walk<EventDelivery>(url, 1);
      assert.equal(after.length, 3);
      assert.equal(after.at(-1)?.id, toFirst.id, 'the failed attempt is the oldest');
      assert.ok(after.some((d) => d.id === retry.body.id && d.webhook_id === first.id && d.attempt === 2));
      const times = after.map((d) => Date.parse((d.time ?? d.next_retry_at) as string));
      assert.deepEqual(
        times,
        [...times].sort((x, y) => y - x),
      );

      // Another tenant's event, or none: 404; a bad page: 400.
      assert.equal((await other('GET', url)).status, 404);
      assert.equal((await api('GET', '/v1/events/evt_unknown/deliveries')).status, 404);
      const bad = await api<Problem>('GET', `${url}?limit=0`);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.errors?.[0]?.field, 'limit');
      // Read permission is enough; a key without it is refused.
      const reader = await api<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'reader', permissions: ['read:webhooks'] },
      });
      assert.equal((await client(ctx.app, reader.body.key)('GET', url)).status, 200);
      const stranger = await api<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'stranger', permissions: ['read:orders'] },
      });
      assert.equal((await client(ctx.app, stranger.body.key)('GET', url)).status, 403);
    });
  });
}
