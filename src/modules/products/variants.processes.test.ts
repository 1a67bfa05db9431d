import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Deps } from '../../deps.js';
import { caller, type ServerProcess } from '../../../test/helpers/process.js';
import { twoServers } from '../../../test/helpers/two-servers.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { ProductObject } from './products.schemas.js';
import type { VariantObject } from './variants.schemas.js';

/**
 * Two server processes on one PostgreSQL store sell one variant of a product with options at once:
 * exactly its stock is sold, the other variants keep theirs, and stock given back by cancellations
 * and partial refunds with `restock` is sold again to the last unit, never oversold.
 */

const SIZES = ['S', 'M', 'L'];
const COLORS = ['Black', 'White'];
const STOCK = 5;

async function outOfStockEvents(deps: Deps, tenantId: string, productId: string) {
  const rows = await deps.store.db
    .selectFrom('events')
    .where('tenant_id', '=', tenantId)
    .where('type', '=', 'product.outofstock')
    .where('object_id', '=', productId)
    .select(['extra', 'created', 'id'])
    .orderBy('created')
    .orderBy('id')
    .execute();
  return rows.map((row) => (JSON.parse(row.extra ?? '{}') as { variant?: VariantObject }).variant);
}

describe(
  'one variant sold by two server processes on PostgreSQL',
  { skip: !process.env.TEST_DATABASE_URL },
  () => {
    const two = twoServers('postgres');

    it('sells exactly the stock of the variant, restocks it per variant, and sells it again', async () => {
      const tenant = await two.deps.tenants.create({ name: 'Variants', email: 'v2@example.com' });
      const call = caller(tenant.apiKey.key);
      const server = (i: number) => two.servers[i % 2] as ServerProcess;
      const created = await call<ProductObject>(server(0), 'POST', '/v1/products', {
        name: 'Race T-shirt',
        options: [
          { name: 'Size', values: SIZES },
          { name: 'Color', values: COLORS },
        ],
        variants: COLORS.flatMap((color) =>
          SIZES.map((size) => ({
            sku: `RACE-${color}-${size}`,
            options: { Size: size, Color: color },
            price: 2500,
            stock: STOCK,
          })),
        ),
        status: 'active',
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const product = created.body as ProductObject;
      const target = product.variants?.find((v) => v.title === 'M / Black') as VariantObject;
      assert.ok(target, JSON.stringify(product.variants));

      const order = (i: number) =>
        call<OrderObject>(server(i), 'POST', '/v1/orders', {
          items: [{ variant_id: target.id, quantity: 1 }],
          customer: { email: `buyer${i}@example.com` },
          payment_method: 'pm_card_visa',
        });
      const first = await Promise.all(Array.from({ length: 20 }, (_, i) => order(i)));
      const sold = first.filter((r) => r.status === 201).map((r) => r.body as OrderObject);
      assert.equal(sold.length, STOCK, JSON.stringify(first.map((r) => r.status)));
      assert.ok(first.every((r) => r.status === 201 || r.status === 422));
      for (const o of sold) {
        assert.equal(o.items[0]?.variant_id, target.id);
        assert.equal(o.items[0]?.variant_title, 'M / Black');
      }
      let read = (await call<ProductObject>(server(1), 'GET', `/v1/products/${product.id}`))
        .body as ProductObject;
      assert.equal(read.variants?.find((v) => v.id === target.id)?.stock, 0);
      assert.equal(read.stock, STOCK * 5, 'the other five variants keep their stock');
      assert.deepEqual(
        (await outOfStockEvents(two.deps, tenant.tenant.id, product.id)).map((v) => [v?.id, v?.stock]),
        [[target.id, 0]],
      );

      // Two cancelled and two refunded with restock, at once over both processes: four units back.
      const moved = await Promise.all(
        sold.slice(0, 4).map((o, i) =>
          i % 2
            ? call<OrderObject>(server(i), 'POST', `/v1/orders/${o.id}/cancel`, {})
            : call(server(i), 'POST', `/v1/orders/${o.id}/refunds`, {
                items: [{ variant_id: target.id, quantity: 1 }],
                restock: true,
              }),
        ),
      );
      assert.deepEqual(
        moved.map((r) => r.status),
        [201, 200, 201, 200],
        JSON.stringify(moved.map((r) => r.body)),
      );
      read = (await call<ProductObject>(server(0), 'GET', `/v1/products/${product.id}`))
        .body as ProductObject;
      assert.equal(read.variants?.find((v) => v.id === target.id)?.stock, 4);

      const second = await Promise.all(Array.from({ length: 12 }, (_, i) => order(i + 1)));
      assert.equal(
        second.filter((r) => r.status === 201).length,
        4,
        JSON.stringify(second.map((r) => r.status)),
      );
      read = (await call<ProductObject>(server(1), 'GET', `/v1/products/${product.id}`))
        .body as ProductObject;
      assert.equal(read.variants?.find((v) => v.id === target.id)?.stock, 0);
      assert.deepEqual(
        read.variants?.filter((v) => v.id !== target.id).map((v) => v.stock),
        [STOCK, STOCK, STOCK, STOCK, STOCK],
      );
      // Sold out a second time: a second event, each naming the variant.
      assert.deepEqual(
        (await outOfStockEvents(two.deps, tenant.tenant.id, product.id)).map((v) => v?.id),
        [target.id, target.id],
      );
    });
  },
);
