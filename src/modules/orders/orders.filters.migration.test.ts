import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import type { Page } from '../../../test/helpers/responses.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import type { Db } from '../../db/store.js';
import type { OrderObject } from './orders.schemas.js';

const T0 = Date.parse('2027-01-12T08:00:00.000Z');

/** An old order: its lines as [quantity, fulfilled, released], and what was paid and refunded. */
interface OldOrder {
  id: string;
  lines: [number, number, number][];
  paid: boolean;
  refunded: number;
}

const ORDERS: OldOrder[] = [
  { id: 'ord_OLDUNFULFILLED00000000001', lines: [[2, 0, 0]], paid: false, refunded: 0 },
  {
    id: 'ord_OLDPARTIAL000000000000002',
    lines: [
      [2, 1, 0],
      [1, 0, 0],
    ],
    paid: true,
    refunded: 0,
  },
  {
    id: 'ord_OLDFULFILLED0000000000003',
    lines: [
      [2, 1, 1],
      [1, 1, 0],
    ],
    paid: true,
    refunded: 500,
  },
  { id: 'ord_OLDRELEASED00000000000004', lines: [[1, 0, 1]], paid: true, refunded: 1000 },
  { id: 'ord_OLDSHIPPED000000000000005', lines: [[3, 3, 0]], paid: true, refunded: 0 },
];

/** A store of the release before migration 0060: orders shipped in part, in whole and not at all. */
async function writeOldStore(db: Db): Promise<void> {
  await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
    VALUES ('ten_old', 'Old Store', 'pro', 'USD', '2027-01-20', ${T0}, ${T0})`.execute(db);
  await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
    VALUES ('usr_old', 'ten_old', 'owner@old.example', 'Owner', 'owner', NULL, ${T0}, ${T0})`.execute(db);
  for (const [index, order] of ORDERS.entries()) {
    const at = T0 + index * 1000;
    await sql`INSERT INTO orders (id, tenant_id, status, currency, subtotal, total, customer_email, customer_id,
        metadata, restocked, created, updated, paid_at, refunded_amount)
      VALUES (${order.id}, 'ten_old', ${order.paid ? 'paid' : 'pending'}, 'USD', 1000, 1000, 'old@example.com',
        'cus_old', '{}', 0, ${at}, ${at}, ${order.paid ? at : null}, ${order.refunded})`.execute(db);
    for (const [position, [quantity, fulfilled, released]] of order.lines.entries()) {
      await sql`INSERT INTO order_items (order_id, position, tenant_id, product_id, variant_id, variant_title, name,
          quantity, unit_price, total, fulfilled_quantity, released_quantity)
        VALUES (${order.id}, ${position}, 'ten_old', 'prod_old', 'var_old', '', 'Old thing', ${quantity}, 100,
          ${quantity * 100}, ${fulfilled}, ${released})`.execute(db);
    }
  }
}

for (const dialect of DIALECTS) {
  describe(`migration 0060: order list filters on a store holding orders (${dialect})`, () => {
    it('gives each order the fulfilment status its lines say, which the filter finds', async () => {
      const upgraded = await upgradeFrom(dialect, '0059_audit_content_digest', writeOldStore);
      try {
        const api = await upgraded.clientFor('ten_old', 'usr_old');
        const all = await api<Page<OrderObject>>('GET', '/v1/orders?limit=100');
        assert.equal(all.status, 200, JSON.stringify(all.body));
        assert.deepEqual(all.body.data.map((order) => [order.id, order.fulfillment_status]).reverse(), [
          [ORDERS[0]?.id, 'unfulfilled'],
          [ORDERS[1]?.id, 'partial'],
          [ORDERS[2]?.id, 'fulfilled'],
          [ORDERS[3]?.id, 'unfulfilled'],
          [ORDERS[4]?.id, 'fulfilled'],
        ]);
        for (const status of ['unfulfilled', 'partial', 'fulfilled']) {
          const listed = await api<Page<OrderObject>>('GET', `/v1/orders?fulfillment_status=${status}`);
          assert.deepEqual(
            listed.body.data.map((order) => order.id),
            all.body.data.filter((order) => order.fulfillment_status === status).map((order) => order.id),
            status,
          );
          assert.equal(listed.body.total, listed.body.data.length, status);
        }
        for (const [status, ids] of [
          ['unpaid', [ORDERS[0]?.id]],
          ['paid', [ORDERS[4]?.id, ORDERS[1]?.id]],
          ['partially_refunded', [ORDERS[2]?.id]],
          ['refunded', [ORDERS[3]?.id]],
        ] as const) {
          const listed = await api<Page<OrderObject>>('GET', `/v1/orders?payment_status=${status}`);
          assert.deepEqual(
            listed.body.data.map((order) => order.id),
            ids,
            status,
          );
        }

        // From now on the lines' trigger keeps it: the partial order's last units shipped.
        await sql`UPDATE order_items SET fulfilled_quantity = quantity
          WHERE order_id = ${ORDERS[1]?.id ?? ''}`.execute(upgraded.deps.store.db);
        const shipped = await api<Page<OrderObject>>('GET', '/v1/orders?fulfillment_status=fulfilled');
        assert.deepEqual(
          shipped.body.data.map((order) => order.id),
          [ORDERS[4]?.id, ORDERS[2]?.id, ORDERS[1]?.id],
        );
      } finally {
        await upgraded.close();
      }
    });
  });
}
