import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../db/store.js';
import { DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import type { Analytics } from './analytics.schemas.js';

const DAY = 86_400_000;
const D1 = Date.parse('2026-12-01T00:00:00.000Z');
const D2 = D1 + DAY;

/**
 * Priced orders (discount, shipping, tax) as a store holds them before migration 0025: paid on
 * two days, one never paid, one in another currency, one of another tenant; each paid order's day
 * rolled up without the new figures (only the columns that existed, as the listener had kept them).
 */
const ORDERS = [
  {
    id: 'ord_p1',
    tenant: 'ten_a',
    currency: 'USD',
    total: 5819,
    d: 525,
    s: 700,
    t: 394,
    paidAt: D1 + 3_600_000,
  },
  { id: 'ord_p2', tenant: 'ten_a', currency: 'USD', total: 2100, d: 0, s: 700, t: 0, paidAt: D1 + 7_200_000 },
  { id: 'ord_p3', tenant: 'ten_a', currency: 'USD', total: 900, d: 100, s: 0, t: 65, paidAt: D2 + 60_000 },
  { id: 'ord_p4', tenant: 'ten_a', currency: 'USD', total: 1000, d: 50, s: 100, t: 70, paidAt: null },
  { id: 'ord_p5', tenant: 'ten_a', currency: 'EUR', total: 4000, d: 0, s: 0, t: 640, paidAt: D2 + 120_000 },
  { id: 'ord_p6', tenant: 'ten_b', currency: 'USD', total: 3000, d: 300, s: 0, t: 0, paidAt: D1 + 60_000 },
] as const;

async function writeStore(db: Db): Promise<void> {
  for (const tenant of ['ten_a', 'ten_b']) {
    await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
      VALUES (${tenant}, ${tenant}, 'pro', 'USD', '2026-12-15', ${D1 - DAY}, ${D1 - DAY})`.execute(db);
    await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
      VALUES (${`usr_${tenant}`}, ${tenant}, ${`owner@${tenant}.example`}, 'O', 'owner', NULL, ${D1}, ${D1})`.execute(
      db,
    );
  }
  const daily = new Map<string, { orders: number; captured: number }>();
  for (const o of ORDERS) {
    await sql`INSERT INTO orders (id, tenant_id, status, currency, subtotal, total, customer_email, customer_name,
        customer_id, metadata, restocked, created, updated, paid_at, discount_total, shipping_total, tax_total)
      VALUES (${o.id}, ${o.tenant}, ${o.paidAt === null ? 'pending' : 'paid'}, ${o.currency}, ${o.total},
        ${o.total}, 'ann@example.com', NULL, 'cus_ann', '{}', 0, ${D1}, ${D1}, ${o.paidAt}, ${o.d}, ${o.s},
        ${o.t})`.execute(db);
    const created = `${o.tenant}|${o.currency}|${D1}`;
    daily.set(created, {
      orders: (daily.get(created)?.orders ?? 0) + 1,
      captured: daily.get(created)?.captured ?? 0,
    });
    if (o.paidAt !== null) {
      const paid = `${o.tenant}|${o.currency}|${o.paidAt - (o.paidAt % DAY)}`;
      daily.set(paid, {
        orders: daily.get(paid)?.orders ?? 0,
        captured: (daily.get(paid)?.captured ?? 0) + o.total,
      });
    }
  }
  for (const [key, row] of daily) {
    const [tenant, currency, day] = key.split('|') as [string, string, string];
    await sql`INSERT INTO analytics_daily (tenant_id, currency, day, orders, paid_orders, paid_value,
        status_pending, status_paid, status_shipped, status_delivered, status_cancelled, status_refunded,
        captured_amount, refunded_amount, units_sold)
      VALUES (${tenant}, ${currency}, ${Number(day)}, ${row.orders}, 0, 0, 0, 0, 0, 0, 0, 0, ${row.captured}, 0,
        0)`.execute(db);
  }
}

for (const dialect of DIALECTS) {
  describe(`migration 0025 to analytics pricing figures (${dialect})`, () => {
    it('fills discounts, shipping and tax of the paid orders on their capture days, nothing else', async () => {
      const store = await upgradeFrom(dialect, '0024_refunds_owed', writeStore);
      try {
        const rows = await store.deps.store.db
          .selectFrom('analytics_daily')
          .select([
            'tenant_id',
            'currency',
            'day',
            'orders',
            'captured_amount',
            'discount_total',
            'shipping_total',
            'tax_total',
          ])
          .orderBy('tenant_id')
          .orderBy('currency')
          .orderBy('day')
          .execute();
        assert.deepEqual(
          rows.map((row) => Object.values(row).map((v) => (typeof v === 'string' ? v : Number(v)))),
          [
            // Every order was created on the 1st; ord_p1 and ord_p2 were captured then, ord_p3 the
            // next day, ord_p4 never (its discount, shipping and tax count nowhere).
            ['ten_a', 'EUR', D1, 1, 0, 0, 0, 0],
            ['ten_a', 'EUR', D2, 0, 4000, 0, 0, 640],
            ['ten_a', 'USD', D1, 4, 5819 + 2100, 525, 1400, 394],
            ['ten_a', 'USD', D2, 0, 900, 100, 0, 65],
            ['ten_b', 'USD', D1, 1, 3000, 300, 0, 0],
          ],
        );
        const api = await store.clientFor('ten_a', 'usr_ten_a');
        const res = await api<Analytics>('GET', '/v1/analytics?from=2026-12-01&to=2026-12-02');
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual(
          [
            res.body.summary.revenue,
            res.body.summary.discount_total,
            res.body.summary.shipping_total,
            res.body.summary.tax_total,
          ],
          [5819 + 2100 + 900, 625, 1400, 459],
        );
      } finally {
        await store.close();
      }
    });
  });
}
