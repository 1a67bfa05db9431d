import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { ProductObject } from '../products/products.schemas.js';

for (const dialect of DIALECTS) {
  describe(`customers in analytics (${dialect})`, () => {
    let ctx: TestContext;

    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    it('analytics count customers, not emails: one who changes email is one customer, shown as it is now', async () => {
      const shop = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      const product = (
        await shop<ProductObject>('POST', '/v1/products', {
          body: { name: 'Counted', price: 700, stock: 10 },
        })
      ).body;
      const buy = async (body: Record<string, unknown>) => {
        const res = await shop<OrderObject>('POST', '/v1/orders', {
          body: { items: [{ product_id: product.id, quantity: 1 }], payment_method: 'pm_card_visa', ...body },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body;
      };
      const first = await buy({ customer: { email: 'old@example.com', name: 'Oda' } });
      await shop('PATCH', `/v1/customers/${first.customer.id}`, { body: { email: 'new@example.com' } });
      await buy({ customer: { email: 'NEW@example.com' } });
      await buy({ customer: { email: 'someone.else@example.com' } });
      const summary = await shop<{ summary: { customers: number; orders: number } }>('GET', '/v1/analytics');
      assert.deepEqual([summary.body.summary.orders, summary.body.summary.customers], [3, 2]);
      const report = await shop<{ data: { email: string; orders: number; revenue: number }[] }>(
        'GET',
        '/v1/analytics/reports/customers',
      );
      assert.deepEqual(
        report.body.data.map((row) => [row.email, row.orders, row.revenue]),
        [
          ['new@example.com', 2, 1400],
          ['someone.else@example.com', 1, 700],
        ],
      );
    });
  });
}
