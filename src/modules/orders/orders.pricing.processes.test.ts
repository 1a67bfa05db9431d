import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { caller, type ServerProcess } from '../../../test/helpers/process.js';
import { twoServers } from '../../../test/helpers/two-servers.js';
import type { OrderObject } from './orders.schemas.js';

/**
 * A discount's usage limit across two server processes on one PostgreSQL store: 30 concurrent
 * orders, spread over both, name a code with `usage_limit: 10`; exactly 10 get it, each use is
 * counted once, and the rest are refused with nothing written.
 */

describe(
  'discount usage limits across two server processes on PostgreSQL',
  { skip: !process.env.TEST_DATABASE_URL },
  () => {
    const two = twoServers('postgres');

    it('gives a limit of 10 to exactly 10 of 30 concurrent orders', async () => {
      const tenant = await two.deps.tenants.create({ name: 'Two processes', email: 'limits@example.com' });
      const call = caller(tenant.apiKey.key);
      const server = (i: number) => two.servers[i % 2] as ServerProcess;
      const product = await call<{ id: string }>(server(0), 'POST', '/v1/products', {
        name: 'Lamp',
        price: 4_000,
        stock: 1_000,
      });
      assert.equal(product.status, 201, JSON.stringify(product.body));
      const discount = await call<{ id: string }>(server(1), 'POST', '/v1/discounts', {
        code: 'TENONLY',
        type: 'percentage',
        value: 2_500,
        usage_limit: 10,
      });
      assert.equal(discount.status, 201, JSON.stringify(discount.body));

      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          call<OrderObject>(server(i), 'POST', '/v1/orders', {
            items: [{ product_id: product.body.id, quantity: 1 }],
            customer: { email: `buyer${i}@example.com` },
            discount_codes: ['tenonly'],
          }),
        ),
      );
      const won = results.filter((r) => r.status === 201);
      assert.equal(won.length, 10, JSON.stringify(results.map((r) => r.status)));
      for (const r of won) assert.deepEqual([r.body.discount_total, r.body.total], [1_000, 3_000]);
      for (const r of results.filter((r) => r.status !== 201)) {
        assert.deepEqual(
          [r.status, r.body.code, r.body.reason],
          [422, 'discount_invalid', 'usage_limit_reached'],
        );
      }
      const read = await call<{ times_used: number; status: string }>(
        server(0),
        'GET',
        `/v1/discounts/${discount.body.id}`,
      );
      assert.deepEqual([read.body.times_used, read.body.status], [10, 'exhausted']);
      const orders = await two.deps.store.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_id', '=', tenant.tenant.id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(orders.n), 10);
      const stock = await call<{ stock: number }>(server(1), 'GET', `/v1/products/${product.body.id}`);
      assert.equal(stock.body.stock, 990);
    });
  },
);
