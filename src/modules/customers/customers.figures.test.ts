import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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
import type { OrderObject } from '../orders/orders.schemas.js';
import type { ProductObject } from '../products/products.schemas.js';
import type { CustomerObject } from './customers.schemas.js';

/**
 * `total_spent` moves by each refund's own amount, from `refund.created` (emitted here with a
 * refund row, in one transaction, as the refunds module commits them), in the refunded order's
 * currency; `order.refunded` and `order.cancelled` move no money of their own.
 */

for (const dialect of DIALECTS) {
  describe(`customer figures on refund.created (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock(Date.parse('2026-12-01T09:00:00.000Z'));
    let api: Client;
    let tenantId: string;
    let usd: ProductObject;
    let eur: ProductObject;

    const buy = async (product: ProductObject, paid = true) => {
      const res = await api<OrderObject>('POST', '/v1/orders', {
        body: {
          items: [{ product_id: product.id, quantity: 2 }],
          customer: { email: 'ann@example.com' },
          ...(paid ? { payment_method: 'pm_card_visa' } : {}),
        },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };
    const figures = async (id: string) => {
      const customer = (await api<CustomerObject>('GET', `/v1/customers/${id}`)).body;
      const row = await ctx.deps.store.db
        .selectFrom('customers')
        .select('total_spent_sort')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      return { total_spent: customer.total_spent, sort: Number(row.total_spent_sort) };
    };

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
      const tenant = await createTenant(ctx, { currency: 'USD' });
      tenantId = tenant.tenant.id;
      api = client(ctx.app, tenant.apiKey.key);
      for (const [name, price, currency] of [
        ['Mug', 1250, 'USD'],
        ['Beanie', 1999, 'EUR'],
      ] as const) {
        const res = await api<ProductObject>('POST', '/v1/products', {
          body: { name, price, currency, stock: 100 },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        if (currency === 'USD') usd = res.body;
        else eur = res.body;
      }
    });
    after(() => ctx.close());

    it('takes each refund’s amount off in its currency, the sort key in the tenant’s only', async () => {
      const inDollars = await buy(usd);
      const inEuros = await buy(eur);
      const customer = inDollars.customer.id;
      assert.deepEqual(await figures(customer), { total_spent: { EUR: 3998, USD: 2500 }, sort: 2500 });

      await emitRefund(ctx.deps, { tenantId, orderId: inDollars.id, amount: 700, at: clock.now() });
      assert.deepEqual(await figures(customer), { total_spent: { EUR: 3998, USD: 1800 }, sort: 1800 });
      await emitRefund(ctx.deps, {
        tenantId,
        orderId: inEuros.id,
        amount: 999,
        items: [{ variant_id: inEuros.items[0]?.variant_id as string, quantity: 1, amount: 999 }],
        at: clock.now(),
      });
      assert.deepEqual(await figures(customer), { total_spent: { EUR: 2999, USD: 1800 }, sort: 1800 });

      // A refund of an order never paid, or of no order, moves nothing.
      const pending = await buy(usd, false);
      await emitRefund(ctx.deps, { tenantId, orderId: pending.id, amount: 500, at: clock.now() });
      await emitRefund(ctx.deps, {
        tenantId,
        orderId: 'ord_000000000000000000000000',
        amount: 5,
        at: clock.now(),
      });
      assert.deepEqual(await figures(customer), { total_spent: { EUR: 2999, USD: 1800 }, sort: 1800 });
    });

    it('counts a whole refund and a cancel after payment once: by their refund, not their order event', async () => {
      const refunded = await buy(usd);
      const cancelled = await buy(usd);
      const customer = refunded.customer.id;
      const start = await figures(customer);
      // A part first, then all that is left (`order.refunded` fires with the last refund).
      const part = await api('POST', `/v1/orders/${refunded.id}/refunds`, { body: { amount: 300 } });
      assert.equal(part.status, 201, JSON.stringify(part.body));
      assert.equal((await api('POST', `/v1/orders/${refunded.id}/refund`, { body: {} })).status, 200);
      assert.equal((await api('POST', `/v1/orders/${cancelled.id}/cancel`, { body: {} })).status, 200);
      const events = await ctx.deps.store.db
        .selectFrom('events')
        .select('type')
        .where('tenant_id', '=', tenantId)
        .where('object_id', 'in', [refunded.id, cancelled.id])
        .where('type', 'in', ['order.refunded', 'order.cancelled'])
        .execute();
      assert.equal(events.length, 2);
      const now = await figures(customer);
      assert.deepEqual(now, {
        total_spent: { ...start.total_spent, USD: (start.total_spent.USD ?? 0) - 2 * 2500 },
        sort: start.sort - 2 * 2500,
      });
    });
  });
}
