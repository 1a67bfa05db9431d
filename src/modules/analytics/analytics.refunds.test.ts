import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { ManualClock } from '../../lib/clock.js';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import { emitRefund } from '../../../test/helpers/refund-events.js';
import type { CustomerObject } from '../customers/customers.schemas.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { ProductObject } from '../products/products.schemas.js';
import { type RefundedLine, refundShares, spread } from './analytics.refunds.js';
import type { Analytics, Summary } from './analytics.schemas.js';
import { flushQueue } from './analytics.queue.js';

/**
 * Refunds in the rollups: how a refund is split over an order's lines (pure), and the listener on
 * `refund.created` events this file emits itself (a refund row and its event in one transaction,
 * as the refunds module commits them), on an order priced with a discount, shipping and tax.
 */

const line = (position: number, paid: number, product = `prod_${position}`): RefundedLine => ({
  position,
  product_id: product,
  variant_id: `var_${position}`,
  category: null,
  paid,
});

describe('splitting a refund over the lines', () => {
  it('spreads by the largest remainder, exactly, ties to the earlier weight', () => {
    assert.deepEqual(spread(10, [1, 2]), [3, 7]);
    assert.deepEqual(spread(2, [1, 1, 1]), [1, 1, 0]);
    assert.deepEqual(spread(5, [0, 0]), [0, 0]);
    assert.deepEqual(spread(0, [3, 4]), [0, 0]);
    assert.deepEqual(spread(7, [-5, 2]), [0, 7]);
    // Amount times weight past 2^53 stays exact.
    assert.deepEqual(
      spread(1_000_000_000_000, [999_999_999_999, 1_000_000_000_000, 3]),
      [499_999_999_999, 500_000_000_000, 1],
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000_000_000 }),
        fc.array(fc.integer({ min: 0, max: 1_000_000_000_000 }), { minLength: 1, maxLength: 8 }),
        (total, weights) => {
          const shares = spread(total, weights);
          const sum = weights.reduce((a, b) => a + b, 0);
          if (sum === 0) return assert.ok(shares.every((share) => share === 0));
          assert.equal(
            shares.reduce((a, b) => a + b, 0),
            total,
          );
          shares.forEach((share, i) => {
            // Within one unit of the exact share, never above a weight that covers the total.
            const exact = (BigInt(total) * BigInt(weights[i] as number)) / BigInt(sum);
            assert.ok(BigInt(share) === exact || BigInt(share) === exact + 1n, `${share} vs ${exact}`);
          });
        },
      ),
    );
  });

  it('takes listed items from their lines and spreads goodwill over lines and shipping', () => {
    const lines = [line(1, 1207, 'prod_mug'), line(0, 3861, 'prod_shirt')];
    // Items and shipping: exactly what they list; lines in position order.
    assert.deepEqual(
      refundShares(lines, 751, {
        amount: 1930 + 751,
        shipping: 751,
        items: [{ variant_id: 'var_0', quantity: 1, amount: 1930 }],
      }).map((s) => [s.line.product_id, s.units, s.revenue]),
      [['prod_shirt', 1, 1930]],
    );
    // Goodwill of 1000 over 3861 : 1207 : 751 (shipping): 663.5, 207.4, 129.1 -> 664, 207, (129).
    assert.deepEqual(
      refundShares(lines, 751, { amount: 1000, shipping: 0, items: [] }).map((s) => [
        s.line.product_id,
        s.units,
        s.revenue,
      ]),
      [
        ['prod_shirt', 0, 664],
        ['prod_mug', 0, 207],
      ],
    );
    // All that is left after that goodwill lists more than it returns: its amount is spread over
    // what it lists, and each line (and shipping) ends up refunded exactly what it was paid.
    const rest = refundShares(lines, 751, {
      amount: 5819 - 1000,
      shipping: 751,
      items: [
        { variant_id: 'var_0', quantity: 2, amount: 3861 },
        { variant_id: 'var_1', quantity: 1, amount: 1207 },
      ],
    });
    assert.deepEqual(
      rest.map((s) => [s.line.product_id, s.units, s.revenue]),
      [
        ['prod_shirt', 2, 3861 - 664],
        ['prod_mug', 1, 1207 - 207],
      ],
    );
    // Shipping alone, an item of another order's variant, a refund of nothing.
    assert.deepEqual(refundShares(lines, 751, { amount: 751, shipping: 751, items: [] }), []);
    assert.deepEqual(
      refundShares(lines, 0, {
        amount: 500,
        shipping: 0,
        items: [{ variant_id: 'var_other', quantity: 1, amount: 500 }],
      }).map((s) => s.revenue),
      [381, 119],
    );
    assert.deepEqual(refundShares(lines, 751, { amount: 0, shipping: 0, items: [] }), []);
    // A free line given back moves units, not money.
    assert.deepEqual(
      refundShares([line(0, 0)], 0, {
        amount: 0,
        shipping: 0,
        items: [{ variant_id: 'var_0', quantity: 2, amount: 0 }],
      }).map((s) => [s.units, s.revenue]),
      [[2, 0]],
    );
  });

  it('never takes more than the refund returns, and all of it while something was paid', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 200_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.array(
          fc.record({ line: fc.nat(), quantity: fc.integer({ min: 1, max: 5 }), amount: fc.nat(50_000) }),
        ),
        (paid, shippingPaid, amount, shipping, items) => {
          const lines = paid.map((p, i) => line(i, p));
          const cover = {
            amount,
            shipping,
            items: items.map((item) => ({
              variant_id: `var_${item.line % lines.length}`,
              quantity: item.quantity,
              amount: item.amount,
            })),
          };
          const shares = refundShares(lines, shippingPaid, cover);
          const taken = shares.reduce((sum, share) => sum + share.revenue, 0);
          assert.ok(taken <= amount, `${taken} > ${amount}`);
          assert.ok(shares.every((share) => share.revenue >= 0 && share.units >= 0));
          assert.equal(
            shares.reduce((sum, share) => sum + share.units, 0),
            cover.items.reduce((sum, item) => sum + item.quantity, 0),
          );
          // With no shipping anywhere and something paid for a line, all of it goes to lines.
          if (shipping === 0 && shippingPaid === 0 && paid.some((p) => p > 0)) assert.equal(taken, amount);
        },
      ),
    );
  });
});

const US_CA = { line1: '1 Main St', city: 'Los Angeles', state: 'CA', country: 'US' };
const T1 = Date.parse('2026-05-04T10:00:00.000Z');
const T2 = Date.parse('2026-05-05T09:00:00.000Z');
const T3 = Date.parse('2026-05-06T23:59:59.999Z');

for (const dialect of DIALECTS) {
  describe(`refund.created in the rollups and customer figures (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock(T1);
    let api: Client;
    let tenantId: string;
    let shirt: ProductObject;
    let mug: ProductObject;
    let order: OrderObject;
    /** What the buyer paid for each line and for shipping, as the order's rows hold it. */
    let paid: { shirt: number; mug: number; shipping: number };

    const create = async <T>(path: string, body: Record<string, unknown>) => {
      const res = await api<T>('POST', path, { body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };
    const summaryOf = async (from: number, to = from) => {
      const res = await api<Analytics>('GET', `/v1/analytics?from=${day(from)}&to=${day(to)}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body;
    };
    const day = (t: number) => new Date(t).toISOString().slice(0, 10);
    /** Every rollup row of the tenant, in key order, once what is queued is taken in. */
    const snapshot = async () => {
      await flushQueue(ctx.deps.store, ctx.deps.logger);
      const out: Record<string, unknown[]> = {};
      for (const table of [
        'analytics_currencies',
        'analytics_orders',
        'analytics_daily',
        'analytics_running',
        'analytics_members',
        'analytics_customer_days',
        'analytics_reach',
      ]) {
        const rows = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)}
          WHERE tenant_id = ${tenantId}`.execute(ctx.deps.store.db);
        out[table] = rows.rows
          .map((row) => JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)))
          .sort();
      }
      return out;
    };

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
      const tenant = await createTenant(ctx);
      tenantId = tenant.tenant.id;
      api = client(ctx.app, tenant.apiKey.key);
      shirt = await create<ProductObject>('/v1/products', {
        name: 'Shirt',
        price: 2000,
        stock: 100,
        category: 'apparel',
      });
      mug = await create<ProductObject>('/v1/products', {
        name: 'Mug',
        price: 1250,
        stock: 100,
        category: 'kitchen',
      });
      await create('/v1/discounts', { code: 'WELCOME10', type: 'percentage', value: 1000 });
      await create('/v1/shipping-rates', {
        name: 'Standard',
        countries: ['US'],
        price: 700,
        currency: 'USD',
      });
      await create('/v1/tax-rates', {
        name: 'California',
        country: 'US',
        state: 'CA',
        rate_bps: 725,
        inclusive: false,
        shipping_taxable: true,
      });
      order = await create<OrderObject>('/v1/orders', {
        items: [
          { product_id: shirt.id, quantity: 2 },
          { product_id: mug.id, quantity: 1 },
        ],
        customer: { email: 'ann@example.com', name: 'Ann' },
        shipping_address: US_CA,
        discount_codes: ['WELCOME10'],
        payment_method: 'pm_card_visa',
      });
      assert.equal(order.status, 'paid');
      const rows = await ctx.deps.store.db
        .selectFrom('order_items')
        .select(['product_id', 'paid'])
        .where('order_id', '=', order.id)
        .execute();
      const paidOf = (id: string) => Number(rows.find((row) => row.product_id === id)?.paid);
      paid = {
        shirt: paidOf(shirt.id),
        mug: paidOf(mug.id),
        shipping: order.total - paidOf(shirt.id) - paidOf(mug.id),
      };
      assert.ok(order.discount_total > 0 && order.shipping_total > 0 && order.tax_total > 0);
      assert.ok(paid.shipping > 0);
    });
    after(() => ctx.close());

    it('counts the discounts, shipping and tax of a capture on its day', async () => {
      const body = await summaryOf(T1);
      const expected: Summary = {
        revenue: order.total,
        orders: 1,
        paid_orders: 1,
        average_order_value: order.total,
        units_sold: 3,
        refunded_amount: 0,
        customers: 1,
        discount_total: order.discount_total,
        shipping_total: order.shipping_total,
        tax_total: order.tax_total,
      };
      assert.deepEqual(body.summary, expected);
      // Products and categories count what the buyer paid for their lines.
      assert.deepEqual(body.top_products, [
        { product_id: shirt.id, name: 'Shirt', units_sold: 2, revenue: paid.shirt },
        { product_id: mug.id, name: 'Mug', units_sold: 1, revenue: paid.mug },
      ]);
    });

    it('moves money by each refund, on its own day, and the products it covers', async () => {
      const shirtVariant = order.items.find((item) => item.product_id === shirt.id)?.variant_id as string;
      // 2nd: one shirt back. 3rd, at the last millisecond of the day: goodwill of 1000, and the shipping.
      await emitRefund(ctx.deps, {
        tenantId,
        orderId: order.id,
        amount: 1930,
        items: [{ variant_id: shirtVariant, quantity: 1, amount: 1930 }],
        at: T2,
      });
      await emitRefund(ctx.deps, { tenantId, orderId: order.id, amount: 1000, at: T3 });
      await emitRefund(ctx.deps, {
        tenantId,
        orderId: order.id,
        amount: paid.shipping,
        shipping: paid.shipping,
        at: T3,
      });
      clock.set(T3 + 1);

      const second = (await summaryOf(T2)).summary;
      assert.deepEqual(
        [second.revenue, second.refunded_amount, second.units_sold, second.orders, second.discount_total],
        [-1930, 1930, -1, 0, 0],
      );
      const third = await summaryOf(T3);
      assert.deepEqual(
        [third.summary.revenue, third.summary.refunded_amount, third.summary.units_sold],
        [-1000 - paid.shipping, 1000 + paid.shipping, 0],
      );
      // The goodwill's shares (largest remainder over shirt, mug and shipping).
      const [toShirt, toMug] = spread(1000, [paid.shirt, paid.mug, paid.shipping]) as [number, number];
      assert.deepEqual(third.top_products, [
        { product_id: mug.id, name: 'Mug', units_sold: 0, revenue: -toMug },
        { product_id: shirt.id, name: 'Shirt', units_sold: 0, revenue: -toShirt },
      ]);

      const all = await summaryOf(T1, T3);
      const refunded = 1930 + 1000 + paid.shipping;
      assert.equal(all.summary.revenue, order.total - refunded);
      assert.equal(all.summary.refunded_amount, refunded);
      // Discounts, shipping and tax stay as captured: refunds do not move them.
      assert.deepEqual(
        [all.summary.discount_total, all.summary.shipping_total, all.summary.tax_total],
        [order.discount_total, order.shipping_total, order.tax_total],
      );
      assert.deepEqual(all.sales_by_category, [
        { category: 'apparel', revenue: paid.shirt - 1930 - toShirt, units_sold: 1 },
        { category: 'kitchen', revenue: paid.mug - toMug, units_sold: 1 },
      ]);
      const customers = await api<{ data: { email: string; revenue: number }[] }>(
        'GET',
        `/v1/analytics/reports/customers?from=${day(T1)}&to=${day(T3)}`,
      );
      assert.deepEqual(
        customers.body.data.map((row) => [row.email, row.revenue]),
        [['ann@example.com', order.total - refunded]],
      );
      const customer = await api<CustomerObject>('GET', `/v1/customers/${order.customer.id}`);
      assert.deepEqual(customer.body.total_spent, { USD: order.total - refunded });

      // What the listener kept is what a rebuild computes from the refunds table.
      const kept = await snapshot();
      await ctx.deps.analytics.rebuild(tenantId);
      assert.deepEqual(await snapshot(), kept);
    });

    it('ignores refunds of money never captured, and of orders it never rolled up', async () => {
      clock.set(T3 + 2);
      const pending = await create<OrderObject>('/v1/orders', {
        items: [{ product_id: mug.id, quantity: 1 }],
        customer: { email: 'ann@example.com' },
      });
      const before = await snapshot();
      const spent = (await api<CustomerObject>('GET', `/v1/customers/${order.customer.id}`)).body.total_spent;
      await emitRefund(ctx.deps, { tenantId, orderId: pending.id, amount: 500, at: T3 + 3 });
      await emitRefund(ctx.deps, {
        tenantId,
        orderId: 'ord_000000000000000000000000',
        amount: 500,
        at: T3 + 3,
      });
      assert.deepEqual(await snapshot(), before);
      const after = (await api<CustomerObject>('GET', `/v1/customers/${order.customer.id}`)).body;
      assert.deepEqual(after.total_spent, spent);
      await ctx.deps.analytics.rebuild(tenantId);
      assert.deepEqual(await snapshot(), before);
    });

    it('takes all that is left through the refunds API, and the order nets to nothing', async () => {
      clock.set(T3 + 10);
      const res = await api<OrderObject>('POST', `/v1/orders/${order.id}/refund`, { body: {} });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.status, 'refunded');
      const all = await summaryOf(T1, T3 + 10);
      assert.equal(all.summary.revenue, 0);
      assert.equal(all.summary.refunded_amount, order.total);
      assert.equal(all.summary.units_sold, 0);
      assert.deepEqual(all.summary.orders, 2);
      assert.deepEqual(all.orders_by_status.refunded, 1);
      // Every unit came back; the products' money follows the spread rules (analytics.refunds.ts).
      assert.deepEqual(
        all.top_products.map((row) => row.units_sold),
        [0, 0],
      );
      const customer = await api<CustomerObject>('GET', `/v1/customers/${order.customer.id}`);
      assert.deepEqual(customer.body.total_spent, { USD: 0 });
      const kept = await snapshot();
      await ctx.deps.analytics.rebuild(tenantId);
      assert.deepEqual(await snapshot(), kept);
    });
  });
}
