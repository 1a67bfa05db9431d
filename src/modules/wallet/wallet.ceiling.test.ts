import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isAppError } from '../../lib/errors.js';
import { MAX_AMOUNT, MAX_BALANCE } from '../../lib/money.js';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { ProductObject } from '../products/products.schemas.js';
import type { BalanceObject } from './wallet.schemas.js';

/**
 * A wallet holds at most MAX_BALANCE, so every balance stays an exact number: adjustments and
 * transfers past it are refused, and so is a payment, before anything is charged.
 */

for (const dialect of DIALECTS) {
  describe(`wallet ceiling (${dialect})`, () => {
    let ctx: TestContext;

    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    it('refuses credits, transfers and payments past MAX_BALANCE and changes nothing', async () => {
      const full = await createTenant(ctx);
      const payer = await createTenant(ctx);
      const api = client(ctx.app, full.apiKey.key);
      const payerApi = client(ctx.app, payer.apiKey.key);
      // Fill the wallet to 5 short of the ceiling, MAX_AMOUNT at a time.
      for (let left = MAX_BALANCE - 5; left > 0; left -= MAX_AMOUNT) {
        await ctx.deps.wallet.credit(full.tenant.id, { amount: Math.min(left, MAX_AMOUNT), currency: 'USD' });
      }
      await ctx.deps.wallet.credit(payer.tenant.id, { amount: 100, currency: 'USD' });
      const balanceOf = async (as: typeof api) => (await as<BalanceObject>('GET', '/v1/wallet/balance')).body;
      const before = await balanceOf(api);
      assert.equal(before.available, MAX_BALANCE - 5);

      await assert.rejects(
        ctx.deps.wallet.credit(full.tenant.id, { amount: 6, currency: 'USD' }),
        (error: unknown) => isAppError(error) && error.code === 'limit_exceeded',
      );

      const transfer = await payerApi<Problem>('POST', '/v1/wallet/transfer', {
        body: { amount: 6, currency: 'USD', destination_wallet_id: before.wallet_id },
      });
      assert.equal(transfer.status, 422);
      assert.equal(transfer.body.code, 'limit_exceeded');
      assert.equal((await balanceOf(payerApi)).available, 100);

      const product = await api<ProductObject>('POST', '/v1/products', {
        body: { name: 'Gold bar', price: 6, stock: 10 },
      });
      const items = [{ product_id: product.body.id, quantity: 1 }];
      const customer = { email: 'buyer@example.com' };
      const paidAtOnce = await api<Problem>('POST', '/v1/orders', {
        body: { items, customer, payment_method: 'pm_card_visa' },
      });
      assert.equal(paidAtOnce.status, 422);
      assert.equal(paidAtOnce.body.code, 'limit_exceeded');
      const orders = await api<Page<OrderObject>>('GET', '/v1/orders');
      assert.equal(orders.body.total, 0, 'no order without its payment');
      const stock = await api<ProductObject>('GET', `/v1/products/${product.body.id}`);
      assert.equal(stock.body.stock, 10, 'no stock reserved');

      const pending = await api<OrderObject>('POST', '/v1/orders', {
        body: { items, customer },
      });
      assert.equal(pending.status, 201);
      const pay = await api<Problem>('POST', `/v1/orders/${pending.body.id}/pay`, {
        body: { payment_method: 'pm_card_visa' },
      });
      assert.equal(pay.status, 422);
      assert.equal(pay.body.code, 'limit_exceeded');
      const order = await api<OrderObject>('GET', `/v1/orders/${pending.body.id}`);
      assert.equal(order.body.status, 'pending');
      assert.equal(order.body.payment, null, 'nothing was charged');

      // Up to the ceiling itself is fine.
      const last = await payerApi('POST', '/v1/wallet/transfer', {
        body: { amount: 5, currency: 'USD', destination_wallet_id: before.wallet_id },
      });
      assert.equal(last.status, 201);
      assert.equal((await balanceOf(api)).available, MAX_BALANCE);
      const report = await ctx.deps.wallet.verify();
      assert.deepEqual(report.violations, []);
    });
  });
}
