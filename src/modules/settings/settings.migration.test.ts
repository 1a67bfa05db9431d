import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import type { Db } from '../../db/store.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { SettingsObject } from './settings.schemas.js';

/**
 * Migration 0041 on a store of release v2.5 (migrations up to 0036): every store gets the default
 * settings, every order cancelled before is `requested`, and an order event stored before shows
 * `cancel_reason` from 2027-01-20 on. Its pending orders then expire by the new default.
 */

/** Ten days ago: the upgraded server runs on the real clock, and its orders are that old. */
const T0 = Date.now() - 10 * 24 * 3600 * 1000;
const iso = (ms: number) => new Date(ms).toISOString();
const LATEST = { 'x-service-version': '2027-01-20' };

/** The order as release v2.5 stored it in an event's object. */
function storedOrder(id: string, status: string) {
  return {
    id,
    status,
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
    customer: { id: 'cus_m', email: 'kim@example.com', name: 'Kim' },
    shipping_address: null,
    payment: null,
    metadata: {},
    carrier: null,
    tracking_number: null,
    restocked: status === 'cancelled',
    created: iso(T0),
    updated: iso(T0 + 1000),
    paid_at: null,
    shipped_at: null,
    delivered_at: null,
    cancelled_at: status === 'cancelled' ? iso(T0 + 1000) : null,
    refunded_at: null,
    refunded_amount: 0,
    refundable_amount: 0,
    refunds: [],
  };
}

async function writeOldStore(db: Db): Promise<void> {
  await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
    VALUES ('ten_m', 'Old Shop', 'pro', 'EUR', '2026-12-15', ${T0}, ${T0})`.execute(db);
  await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
    VALUES ('usr_m', 'ten_m', 'owner@old.example', 'O', 'owner', NULL, ${T0}, ${T0})`.execute(db);
  await sql`INSERT INTO customers (id, tenant_id, email, email_key, name, phone, addresses, tags, note,
      metadata, marketing_consent, orders_count, total_spent, total_spent_sort, last_order_at, redacted,
      created, updated)
    VALUES ('cus_m', 'ten_m', 'kim@example.com', 'kim@example.com', 'Kim', NULL, '[]', '[]', NULL, '{}', 0, 3,
      '{}', 0, ${T0}, 0, ${T0}, ${T0})`.execute(db);
  for (const [id, status] of [
    ['ord_cancelled', 'cancelled'],
    ['ord_pending', 'pending'],
    ['ord_shipped', 'shipped'],
  ] as const) {
    await sql`INSERT INTO orders (id, tenant_id, status, currency, subtotal, total, customer_email, customer_name,
        customer_id, shipping_address, metadata, payment_id, carrier, tracking_number, restocked, created,
        updated, paid_at, shipped_at, delivered_at, cancelled_at, refunded_at, refunded_amount)
      VALUES (${id}, 'ten_m', ${status}, 'USD', 2000, 2000, 'kim@example.com', 'Kim', 'cus_m', NULL, '{}', NULL,
        NULL, NULL, ${status === 'cancelled' ? 1 : 0}, ${T0}, ${T0 + 1000}, ${status === 'shipped' ? T0 : null},
        ${status === 'shipped' ? T0 + 1000 : null}, NULL, ${status === 'cancelled' ? T0 + 1000 : null}, NULL,
        0)`.execute(db);
  }
  await sql`INSERT INTO order_counts (tenant_id, status, n)
    VALUES ('ten_m', 'cancelled', 1), ('ten_m', 'pending', 1), ('ten_m', 'shipped', 1)`.execute(db);
  await sql`INSERT INTO events (id, tenant_id, type, object_type, object_id, data, created)
    VALUES ('evt_cancelled', 'ten_m', 'order.cancelled', 'order', 'ord_cancelled',
      ${JSON.stringify(storedOrder('ord_cancelled', 'cancelled'))}, ${T0 + 1000})`.execute(db);
}

for (const dialect of DIALECTS) {
  describe(`migration 0041 to store settings and cancel reasons (${dialect})`, () => {
    it('gives stores the default settings, says why old orders were cancelled, and expires old unpaid ones', async () => {
      const store = await upgradeFrom(dialect, '0036_redact_refund_reasons', writeOldStore);
      try {
        const api = await store.clientFor('ten_m', 'usr_m');
        const settings = await api<SettingsObject>('GET', '/v1/settings');
        assert.equal(settings.status, 200, JSON.stringify(settings.body));
        assert.deepEqual(settings.body, {
          name: 'Old Shop',
          currency: 'EUR',
          unpaid_order_expiry_minutes: 1440,
          storefront: {
            hold_minutes: null,
            abandoned_after_minutes: 60,
            recovery_url_template: null,
            requests_per_minute: 120,
          },
        });

        const rows = await store.deps.store.db
          .selectFrom('orders')
          .select(['id', 'cancel_reason'])
          .orderBy('id')
          .execute();
        assert.deepEqual(rows, [
          { id: 'ord_cancelled', cancel_reason: 'requested' },
          { id: 'ord_pending', cancel_reason: null },
          { id: 'ord_shipped', cancel_reason: null },
        ]);
        const cancelled = await api<OrderObject>('GET', '/v1/orders/ord_cancelled', { headers: LATEST });
        assert.equal(cancelled.body.cancel_reason, 'requested');
        // The store stays pinned to 2026-12-15: it sees no cancel_reason until it upgrades.
        const pinned = await api<Record<string, unknown>>('GET', '/v1/orders/ord_cancelled');
        assert.equal(pinned.body.status, 'cancelled');
        assert.equal('cancel_reason' in pinned.body, false);

        // The event stored before shows its order in the latest shape, and as it was when pinned.
        const event = await api<{ data: { object: Record<string, unknown> } }>(
          'GET',
          '/v1/events/evt_cancelled',
          {
            headers: LATEST,
          },
        );
        assert.equal(event.status, 200, JSON.stringify(event.body));
        assert.equal(event.body.data.object.cancel_reason, 'requested');
        const oldEvent = await api<{ data: { object: Record<string, unknown> } }>(
          'GET',
          '/v1/events/evt_cancelled',
        );
        assert.deepEqual(oldEvent.body.data.object, storedOrder('ord_cancelled', 'cancelled'));

        // The pending order is far older than a day: the first sweep expires it, and only it.
        assert.equal(await store.deps.orders.expireUnpaid(), 1);
        const expired = await api<OrderObject>('GET', '/v1/orders/ord_pending', { headers: LATEST });
        assert.equal(expired.body.status, 'cancelled');
        assert.equal(expired.body.cancel_reason, 'expired');
        assert.equal((await api<OrderObject>('GET', '/v1/orders/ord_shipped')).body.status, 'shipped');
      } finally {
        await store.close();
      }
    });
  });
}
