import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import type { Page } from '../../../test/helpers/responses.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { CartObject } from './carts.schemas.js';

const T0 = Date.parse('2027-01-10T00:00:00.000Z');

/**
 * A store of release v2.5 (migrations up to 0038) holding customers, orders and their events; then
 * this release starts on it: migration 0039 adds carts and says every order was placed through the
 * API, and a tenant still pinned to 2026-12-15 sees its orders as before.
 */
for (const dialect of DIALECTS) {
  describe(`migration 0039: carts and where orders come from (${dialect})`, () => {
    it('gives every order source "api" and no cart; carts work on the upgraded store', async () => {
      const store = await upgradeFrom(dialect, '0038_product_handles', async (old) => {
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                VALUES ('ten_c', 'C', 'free', 'USD', '2026-12-15', ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
                VALUES ('usr_c', 'ten_c', 'o@example.com', 'O', 'owner', NULL, ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO customers (id, tenant_id, email, email_key, name, phone, addresses, tags, note,
                  metadata, marketing_consent, orders_count, total_spent, total_spent_sort, last_order_at, redacted,
                  created, updated)
                VALUES ('cus_c', 'ten_c', 'kim@example.com', 'kim@example.com', 'Kim', NULL, '[]', '[]', NULL, '{}',
                  0, 2, '{"USD":2500}', 2500, ${T0}, 0, ${T0}, ${T0})`.execute(old);
        for (const [id, status, paidAt] of [
          ['ord_paid', 'paid', T0],
          ['ord_pending', 'pending', null],
        ] as const) {
          await sql`INSERT INTO orders (id, tenant_id, status, currency, subtotal, total, customer_email,
                    customer_name, customer_id, shipping_address, metadata, payment_id, carrier, tracking_number,
                    restocked, created, updated, paid_at, shipped_at, delivered_at, cancelled_at, refunded_at)
                  VALUES (${id}, 'ten_c', ${status}, 'USD', 2500, 2500, 'kim@example.com', 'Kim', 'cus_c', NULL, '{}',
                    NULL, NULL, NULL, 0, ${T0}, ${T0}, ${paidAt}, NULL, NULL, NULL, NULL)`.execute(old);
          await sql`INSERT INTO order_items (order_id, position, tenant_id, product_id, variant_id, variant_title,
                    name, sku, category, quantity, unit_price, total, discount, tax, paid, refunded_quantity)
                  VALUES (${id}, 0, 'ten_c', 'prod_OLDOLDOLDOLDOLDOLDOLDOLD1', 'var_OLDOLDOLDOLDOLDOLDOLDOLD1',
                    'Default', 'Old thing', NULL, NULL, 1, 2500, 2500, 0, 0, 2500, 0)`.execute(old);
        }
        await sql`INSERT INTO order_counts (tenant_id, status, n) VALUES ('ten_c', 'paid', 1), ('ten_c', 'pending', 1)`.execute(
          old,
        );
        // The event of the paid order, its object as release v2.5 wrote it: no source, no cart.
        const object = {
          id: 'ord_paid',
          status: 'paid',
          items: [],
          subtotal: 2500,
          total: 2500,
          currency: 'USD',
          customer: { id: 'cus_c', email: 'kim@example.com', name: 'Kim' },
          created: new Date(T0).toISOString(),
        };
        await sql`INSERT INTO events (id, tenant_id, type, object_type, object_id, data, extra, created)
                VALUES ('evt_old', 'ten_c', 'order.paid', 'order', 'ord_paid', ${JSON.stringify(object)}, NULL,
                  ${T0})`.execute(old);
      });
      try {
        const api = await store.clientFor('ten_c', 'usr_c');
        const latest = { headers: { 'x-service-version': '2027-01-20' } };
        const orders = await api<Page<OrderObject>>('GET', '/v1/orders', latest);
        assert.deepEqual(orders.body.data.map((o) => [o.id, o.source, o.cart_id]).sort(), [
          ['ord_paid', 'api', null],
          ['ord_pending', 'api', null],
        ]);
        // The tenant is still on 2026-12-15: neither member, in an order or in the old event.
        const pinned = await api<OrderObject>('GET', '/v1/orders/ord_paid');
        assert.equal(pinned.headers['x-service-version'], '2026-12-15');
        assert.ok(!('source' in pinned.body) && !('cart_id' in pinned.body));
        const events = await api<Page<{ data: { object: Record<string, unknown> } }>>(
          'GET',
          '/v1/events',
          latest,
        );
        assert.deepEqual(
          [events.body.data[0]?.data.object.source, events.body.data[0]?.data.object.cart_id],
          ['api', null],
        );

        // A cart on the upgraded store, completed by the store's own key.
        const made = await api<{ variants: { id: string }[] }>('POST', '/v1/products', {
          body: { name: 'New thing', price: 1_000, stock: 2 },
        });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        const cart = await api<CartObject>('POST', '/v1/store/carts', {
          body: { email: 'kim@example.com', lines: [{ variant_id: made.body.variants[0]?.id, quantity: 1 }] },
        });
        assert.equal(cart.status, 201, JSON.stringify(cart.body));
        const order = await api<OrderObject>('POST', `/v1/store/carts/${cart.body.id}/complete`, {
          body: { payment_method: 'pm_card_visa', expected_total: cart.body.total },
          ...latest,
        });
        assert.equal(order.status, 201, JSON.stringify(order.body));
        assert.deepEqual(
          [order.body.source, order.body.cart_id, order.body.customer.id],
          ['storefront', cart.body.id, 'cus_c'],
        );
        const carts = await api<Page<CartObject>>('GET', '/v1/carts?status=completed');
        assert.deepEqual(
          carts.body.data.map((c) => c.order_id),
          [order.body.id],
        );
      } finally {
        await store.close();
      }
    });
  });
}
