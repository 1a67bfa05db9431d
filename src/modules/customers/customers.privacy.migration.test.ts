import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import type { Page } from '../../../test/helpers/responses.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import { type Receiver, startReceiver } from '../../../test/helpers/webhook-receiver.js';
import type { Db } from '../../db/store.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { RefundObject } from '../orders/refunds.schemas.js';
import type { DeliveryObject } from '../webhooks/webhooks.presenter.js';

/**
 * Migration 0036: customers redacted before erasure cleared refund reasons (and orders' carrier and
 * tracking number) lose them now, in their rows, their stored events, their recorded idempotent
 * responses and their webhook deliveries' recorded responses. A customer not redacted keeps all.
 */

const T0 = Date.parse('2026-11-20T09:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

interface Person {
  customer: string;
  email: string;
  redacted: boolean;
  order: string;
  payment: string;
  refunds: { id: string; amount: number; reason: string }[];
  carrier: string;
  tracking: string;
}

/** Zed was redacted by the previous release: its redacted address, yet the free text left behind. */
const ZED: Person = {
  customer: 'cus_zed',
  email: 'redacted+cus_zed@invalid',
  redacted: true,
  order: 'ord_zed',
  payment: 'pay_zed',
  refunds: [
    { id: 're_zed1', amount: 300, reason: 'Asked by Zed Name: one cup chipped' },
    { id: 're_zed2', amount: 1700, reason: 'Zed Name wants the rest back' },
  ],
  carrier: 'Courier of Zed Name',
  tracking: 'ZN-TRACK-0042',
};

/** Kim, never redacted: nothing of hers changes. */
const KIM: Person = {
  customer: 'cus_kim',
  email: 'kim@example.com',
  redacted: false,
  order: 'ord_kim',
  payment: 'pay_kim',
  refunds: [{ id: 're_kim', amount: 500, reason: 'Kim: box dented' }],
  carrier: 'UPS',
  tracking: '1Z-KIM',
};

function refundObject(p: Person, refund: Person['refunds'][number]) {
  return {
    id: refund.id,
    order_id: p.order,
    amount: refund.amount,
    currency: 'USD',
    items: [],
    shipping: 0,
    restocked: false,
    reason: refund.reason,
    status: 'succeeded',
    created: iso(T0 + 3000),
  };
}

function orderObject(p: Person) {
  const refunded = p.refunds.reduce((sum, r) => sum + r.amount, 0);
  return {
    id: p.order,
    status: refunded === 2000 ? 'refunded' : 'shipped',
    items: [],
    subtotal: 2000,
    discount_total: 0,
    shipping_total: 0,
    tax_total: 0,
    total: 2000,
    discounts: [],
    shipping: null,
    taxes: [],
    currency: 'USD',
    customer: { id: p.customer, email: p.email, name: p.redacted ? null : 'Kim' },
    shipping_address: null,
    payment: { id: p.payment, status: 'succeeded', method: 'pm_card_visa' },
    metadata: {},
    carrier: p.carrier,
    tracking_number: p.tracking,
    restocked: false,
    created: iso(T0),
    updated: iso(T0 + 3000),
    paid_at: iso(T0 + 1000),
    shipped_at: iso(T0 + 2000),
    delivered_at: null,
    cancelled_at: null,
    refunded_at: refunded === 2000 ? iso(T0 + 3000) : null,
    refunded_amount: refunded,
    refundable_amount: 2000 - refunded,
    refunds: p.refunds.map((r) => refundObject(p, r)),
  };
}

/** The events, recorded responses and deliveries the previous release kept of each person. */
function writeOldStore(rx: Receiver) {
  return async (db: Db) => {
    await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
      VALUES ('ten_a', 'Shop', 'pro', 'USD', '2026-12-15', ${T0}, ${T0})`.execute(db);
    await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
      VALUES ('usr_a', 'ten_a', 'owner@shop.example', 'O', 'owner', NULL, ${T0}, ${T0})`.execute(db);
    await sql`INSERT INTO webhook_endpoints (id, tenant_id, url, events, description, secret, status,
        api_version, last_triggered, failing_since, created, updated, retired_secrets)
      VALUES ('wh_a', 'ten_a', ${`${rx.url}/hook`}, '["*"]', NULL, ${SECRET}, 'Active', '2026-12-15',
        NULL, NULL, ${T0}, ${T0}, '[]')`.execute(db);
    for (const p of [ZED, KIM]) {
      const refunded = p.refunds.reduce((sum, r) => sum + r.amount, 0);
      const order = orderObject(p);
      await sql`INSERT INTO customers (id, tenant_id, email, email_key, name, phone, addresses, tags, note,
          metadata, marketing_consent, orders_count, total_spent, total_spent_sort, last_order_at, redacted,
          created, updated)
        VALUES (${p.customer}, 'ten_a', ${p.email}, ${p.email.toLowerCase()}, ${p.redacted ? null : 'Kim'}, NULL,
          '[]', '[]', NULL, '{}', 0, 1, ${JSON.stringify({ USD: 2000 - refunded })}, ${2000 - refunded}, ${T0},
          ${p.redacted ? 1 : 0}, ${T0}, ${T0})`.execute(db);
      await sql`INSERT INTO orders (id, tenant_id, status, currency, subtotal, total, customer_email, customer_name,
          customer_id, shipping_address, metadata, payment_id, carrier, tracking_number, restocked, created,
          updated, paid_at, shipped_at, delivered_at, cancelled_at, refunded_at, refunded_amount)
        VALUES (${p.order}, 'ten_a', ${order.status}, 'USD', 2000, 2000, ${p.email}, ${order.customer.name},
          ${p.customer}, NULL, '{}', ${p.payment}, ${p.carrier}, ${p.tracking}, 0, ${T0}, ${T0 + 3000},
          ${T0 + 1000}, ${T0 + 2000}, NULL, NULL, ${refunded === 2000 ? T0 + 3000 : null}, ${refunded})`.execute(
        db,
      );
      await sql`INSERT INTO payments (id, tenant_id, order_id, provider, method, amount, currency, status,
          failure_code, failure_message, provider_reference, refund_due_at, created, updated)
        VALUES (${p.payment}, 'ten_a', ${p.order}, 'sandbox', 'pm_card_visa', 2000, 'USD', 'succeeded',
          NULL, NULL, ${`ch_${p.order}`}, NULL, ${T0 + 1000}, ${T0 + 1000})`.execute(db);
      for (const r of p.refunds) {
        await sql`INSERT INTO refunds (id, tenant_id, order_id, payment_id, amount, currency, items, shipping,
            restocked, reason, status, due_at, provider_reference, created)
          VALUES (${r.id}, 'ten_a', ${p.order}, ${p.payment}, ${r.amount}, 'USD', '[]', 0, 0, ${r.reason},
            'succeeded', NULL, ${`rf_${r.id}`}, ${T0 + 3000})`.execute(db);
      }
      const events: [string, string, string, string, unknown][] = [
        [`evt_pay_${p.customer}`, 'payment.received', 'payment', p.payment, { id: p.payment, amount: 2000 }],
        [`evt_ship_${p.customer}`, 'order.shipped', 'order', p.order, { ...order, refunds: [] }],
        ...p.refunds.map(
          (r) =>
            [`evt_${r.id}`, 'refund.created', 'refund', r.id, refundObject(p, r)] as [
              string,
              string,
              string,
              string,
              unknown,
            ],
        ),
        [`evt_order_${p.customer}`, 'order.updated', 'order', p.order, order],
      ];
      for (const [i, [id, type, objectType, objectId, object]] of events.entries()) {
        await sql`INSERT INTO events (id, tenant_id, type, object_type, object_id, data, extra, created)
          VALUES (${id}, 'ten_a', ${type}, ${objectType}, ${objectId}, ${JSON.stringify(object)}, NULL,
            ${T0 + 1000 * i})`.execute(db);
        // Each delivered; the receiver echoed the payload, which the log keeps.
        await sql`INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, event_type, attempt, manual,
            status, due_at, lease_until, lease_owner, held, time, url, response, response_status, response_body,
            duration, next_retry_at, created)
          VALUES (${`del_${id}`}, 'ten_a', 'wh_a', ${id}, ${type}, 1, 0, 'succeeded', ${T0 + 1000 * i}, NULL, NULL,
            0, ${T0 + 1000 * i}, ${`${rx.url}/hook`}, '200 OK', 200,
            ${JSON.stringify({ data: { object } }).slice(0, 1024)}, 5, NULL, ${T0 + 1000 * i})`.execute(db);
      }
      // One more of the first refund's event, still queued, and due.
      const first = p.refunds[0]?.id ?? '';
      await sql`INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, event_type, attempt, manual,
          status, due_at, lease_until, lease_owner, held, created)
        VALUES (${`del_queued_${p.customer}`}, 'ten_a', 'wh_a', ${`evt_${first}`}, 'refund.created', 1, 1,
          'pending', ${Date.now() - 1000}, NULL, NULL, 0, ${T0})`.execute(db);
      // Recorded responses: the first refund (its key marks the refund) and paying (it marks the payment).
      for (const [key, resource, body] of [
        [`refund-${p.customer}`, first, refundObject(p, p.refunds[0] ?? { id: '', amount: 0, reason: '' })],
        [`pay-${p.customer}`, p.payment, { ...order, refunds: [] }],
      ] as const) {
        await sql`INSERT INTO idempotency_keys (tenant_id, key, fingerprint, state, locked_until, response_status,
            response_body, resource_id, created)
          VALUES ('ten_a', ${key}, 'f', 'completed', 0, 200, ${JSON.stringify(body)}, ${resource}, ${Date.now()})`.execute(
          db,
        );
      }
    }
  };
}

for (const dialect of DIALECTS) {
  describe(`migration 0036: refund reasons of customers redacted before (${dialect})`, () => {
    let rx: Receiver | undefined;
    after(() => rx?.close());

    it("clears a redacted customer's refund reasons, carrier and tracking number everywhere, and leaves everyone else's", async () => {
      rx = await startReceiver((request) => ({ status: 200, body: request.body }));
      const upgraded = await upgradeFrom(dialect, '0033_catalog_versions', writeOldStore(rx));
      try {
        const { db } = upgraded.deps.store;
        const api = await upgraded.clientFor('ten_a', 'usr_a');
        const zedText = ['Zed Name', 'chipped', 'ZN-TRACK-0042'];

        // The rows, and every read of them.
        const zedOrder = await api<OrderObject>('GET', `/v1/orders/${ZED.order}`);
        assert.equal(zedOrder.status, 200, JSON.stringify(zedOrder.body));
        assert.deepEqual(
          [zedOrder.body.carrier, zedOrder.body.tracking_number, zedOrder.body.refunded_amount],
          [null, null, 2000],
        );
        const zedRefunds = (await api<Page<RefundObject>>('GET', `/v1/orders/${ZED.order}/refunds`)).body
          .data;
        assert.deepEqual(
          zedRefunds.map((r) => [r.id, r.amount, r.reason]),
          [
            ['re_zed1', 300, null],
            ['re_zed2', 1700, null],
          ],
        );
        assert.deepEqual(zedOrder.body.refunds, zedRefunds);
        const kimOrder = (await api<OrderObject>('GET', `/v1/orders/${KIM.order}`)).body;
        assert.deepEqual(
          [kimOrder.carrier, kimOrder.tracking_number, kimOrder.refunds.map((r) => r.reason)],
          ['UPS', '1Z-KIM', ['Kim: box dented']],
        );

        // The stored events: Zed's objects lose the text; Kim's are as they were.
        for (const id of ['evt_re_zed1', 'evt_re_zed2', 'evt_order_cus_zed', 'evt_ship_cus_zed']) {
          const event = await api('GET', `/v1/events/${id}`);
          assert.equal(event.status, 200, JSON.stringify(event.body));
          for (const text of zedText) assert.ok(!JSON.stringify(event.body).includes(text), `${id}: ${text}`);
        }
        const closed = (await api<{ data: { object: OrderObject } }>('GET', '/v1/events/evt_order_cus_zed'))
          .body;
        assert.deepEqual(closed.data.object, { ...orderObject(ZED), ...zedChanges(orderObject(ZED)) });
        const kimRefund = (await api<{ data: { object: RefundObject } }>('GET', '/v1/events/evt_re_kim'))
          .body;
        assert.equal(kimRefund.data.object.reason, 'Kim: box dented');
        const kimShipped = (
          await api<{ data: { object: OrderObject } }>('GET', '/v1/events/evt_ship_cus_kim')
        ).body;
        assert.equal(kimShipped.data.object.tracking_number, '1Z-KIM');

        // The recorded responses replay without the text.
        const bodies = new Map(
          (await db.selectFrom('idempotency_keys').select(['key', 'response_body']).execute()).map((k) => [
            k.key,
            JSON.parse(k.response_body ?? 'null') as Record<string, unknown>,
          ]),
        );
        assert.equal(bodies.get('refund-cus_zed')?.reason, null);
        assert.deepEqual(
          [bodies.get('pay-cus_zed')?.carrier, bodies.get('pay-cus_zed')?.tracking_number],
          [null, null],
        );
        assert.equal(bodies.get('refund-cus_kim')?.reason, 'Kim: box dented');
        assert.equal(bodies.get('pay-cus_kim')?.tracking_number, '1Z-KIM');

        // The delivery log: the responses to Zed's events are gone, Kim's kept; no row goes.
        const log = (await api<Page<DeliveryObject>>('GET', '/v1/webhooks/wh_a/deliveries?limit=100')).body
          .data;
        assert.equal(log.length, 11);
        for (const entry of log) {
          const zeds = entry.event_id.includes('zed');
          if (entry.status === 'pending') continue;
          assert.equal(entry.response_body === null, zeds, entry.id);
        }

        // The queued delivery of Zed's refund sends it without its reason.
        upgraded.deps.webhookWorker.start();
        const sent = await rx.waitFor(2);
        const zedSent = sent.find((r) => r.id === 'evt_re_zed1');
        assert.ok(zedSent);
        assert.equal(
          (JSON.parse(zedSent.body) as { data: { object: RefundObject } }).data.object.reason,
          null,
        );
        const kimSent = sent.find((r) => r.id === 'evt_re_kim');
        assert.equal(
          (JSON.parse(kimSent?.body ?? '{}') as { data: { object: RefundObject } }).data.object.reason,
          'Kim: box dented',
        );

        // Nothing of Zed's text is left in the store's rows; the amounts are all there.
        const rows = await db
          .selectFrom('refunds')
          .select(['id', 'amount', 'reason'])
          .orderBy('id')
          .execute();
        assert.deepEqual(
          rows.map((r) => [r.id, Number(r.amount), r.reason]),
          [
            ['re_kim', 500, 'Kim: box dented'],
            ['re_zed1', 300, null],
            ['re_zed2', 1700, null],
          ],
        );
        for (const table of ['orders', 'events', 'idempotency_keys', 'webhook_deliveries'] as const) {
          const dump = JSON.stringify(await db.selectFrom(table).selectAll().execute());
          for (const text of zedText) assert.ok(!dump.includes(text), `${table}: ${text}`);
          assert.ok(dump.includes(table === 'orders' ? '1Z-KIM' : 'Kim: box dented'), table);
        }
      } finally {
        await upgraded.close();
      }
    });
  });
}

/** What the migration changes in one of Zed's stored orders. */
function zedChanges(order: ReturnType<typeof orderObject>) {
  return {
    carrier: null,
    tracking_number: null,
    refunds: order.refunds.map((r) => ({ ...r, reason: null })),
  };
}
