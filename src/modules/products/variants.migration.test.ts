import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { ProductObject } from './products.schemas.js';
import type { VariantObject } from './variants.schemas.js';

const T0 = Date.parse('2026-11-01T00:00:00.000Z');

/**
 * A store of release v2.4 (migrations up to 0018) with products, orders in several states and
 * events, written as that release wrote them; then the server of this release starts on it.
 */
for (const dialect of DIALECTS) {
  describe(`migration 0019 to options and variants (${dialect})`, () => {
    it('gives every product its Default variant and every order line its variant; orders go on', async () => {
      const store = await upgradeFrom(dialect, '0018_held_deliveries', async (old) => {
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                VALUES ('ten_m', 'M', 'free', 'USD', '2026-11-21', ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
                VALUES ('usr_m', 'ten_m', 'o@example.com', 'O', 'owner', NULL, ${T0}, ${T0})`.execute(old);
        // Two SKUs that differ only in case, as v2.4 allowed; a product without SKU, sold out.
        for (const [id, sku, price, stock, created] of [
          ['prod_AAAAAAAAAAAAAAAAAAAAAAA1', 'ABC-1', 1000, 5, T0],
          ['prod_AAAAAAAAAAAAAAAAAAAAAAA2', 'abc-1', 2000, 2, T0 + 1000],
          ['prod_AAAAAAAAAAAAAAAAAAAAAAA3', null, 300, 0, T0 + 2000],
        ] as const) {
          await sql`INSERT INTO products (id, tenant_id, name, description, sku, price, currency, category, stock,
                    status, images, attributes, tags, created, updated)
                  VALUES (${id}, 'ten_m', ${`Product ${id.slice(-1)}`}, 'Old.', ${sku}, ${price}, 'USD', 'misc',
                    ${stock}, 'active', '[]', '{}', '[]', ${created}, ${created})`.execute(old);
        }
        await sql`INSERT INTO product_counts (tenant_id, category, status, in_stock, n)
                VALUES ('ten_m', 'misc', 'active', 1, 2), ('ten_m', 'misc', 'active', 0, 1)`.execute(old);
        // Pending (its 2 units reserved), cancelled (restocked), and pending for a product deleted since.
        for (const [id, status, total, restocked] of [
          ['ord_pending', 'pending', 2000, 0],
          ['ord_cancelled', 'cancelled', 300, 1],
          ['ord_gone', 'pending', 700, 0],
        ] as const) {
          await sql`INSERT INTO orders (id, tenant_id, status, currency, subtotal, total, customer_email,
                    customer_name, metadata, restocked, created, updated)
                  VALUES (${id}, 'ten_m', ${status}, 'USD', ${total}, ${total}, 'a@example.com', NULL, '{}',
                    ${restocked}, ${T0}, ${T0})`.execute(old);
        }
        for (const [order, product, sku, quantity, price] of [
          ['ord_pending', 'prod_AAAAAAAAAAAAAAAAAAAAAAA1', 'ABC-1', 2, 1000],
          ['ord_cancelled', 'prod_AAAAAAAAAAAAAAAAAAAAAAA3', null, 1, 300],
          ['ord_gone', 'prod_GONEGONEGONEGONEGONEGO9', 'GONE', 1, 700],
        ] as const) {
          await sql`INSERT INTO order_items (order_id, position, tenant_id, product_id, name, sku, category,
                    quantity, unit_price, total)
                  VALUES (${order}, 0, 'ten_m', ${product}, 'Old name', ${sku}, 'misc', ${quantity}, ${price},
                    ${price * quantity})`.execute(old);
        }
        await sql`INSERT INTO order_counts (tenant_id, status, n)
                VALUES ('ten_m', 'pending', 2), ('ten_m', 'cancelled', 1)`.execute(old);
        const oldProduct = {
          id: 'prod_AAAAAAAAAAAAAAAAAAAAAAA3',
          name: 'Product 3',
          description: 'Old.',
          sku: null,
          price: 300,
          currency: 'USD',
          category: 'misc',
          stock: 0,
          status: 'active',
          images: [],
          attributes: {},
          tags: [],
          created: new Date(T0).toISOString(),
          updated: new Date(T0).toISOString(),
        };
        await sql`INSERT INTO events (id, tenant_id, type, object_type, object_id, data, created)
                VALUES ('evt_old', 'ten_m', 'product.outofstock', 'product', ${oldProduct.id},
                  ${JSON.stringify(oldProduct)}, ${T0})`.execute(old);
      });

      // This release started on the store: its migrations ran, and the API answers.
      try {
        const api = await store.clientFor('ten_m', 'usr_m');
        const latest = { headers: { 'x-service-version': '2026-12-15' } };

        const products = await api<Page<ProductObject>>(
          'GET',
          '/v1/products?sort=created&expand=variants',
          latest,
        );
        assert.equal(products.body.total, 3);
        assert.deepEqual(
          products.body.data.map((p) => [
            p.sku,
            p.price,
            p.price_max,
            p.stock,
            p.variant_count,
            p.variants?.map((v) => [v.id, v.title, v.sku, v.price, v.stock, v.position]),
          ]),
          [
            ['ABC-1', 1000, 1000, 5, 1, [['var_AAAAAAAAAAAAAAAAAAAAAAA1', 'Default', 'ABC-1', 1000, 5, 1]]],
            ['abc-1', 2000, 2000, 2, 1, [['var_AAAAAAAAAAAAAAAAAAAAAAA2', 'Default', 'abc-1', 2000, 2, 1]]],
            [null, 300, 300, 0, 1, [['var_AAAAAAAAAAAAAAAAAAAAAAA3', 'Default', null, 300, 0, 1]]],
          ],
        );
        // Both grandfathered SKUs stay; a new one equal to either, in any case, is refused.
        for (const sku of ['abc-1', 'ABC-1', 'Abc-1']) {
          const res = await api<Problem>('POST', '/v1/products', { body: { name: 'New', sku, price: 1 } });
          assert.equal(res.status, 409, sku);
        }
        assert.equal(
          (await api('POST', '/v1/products', { body: { name: 'New', sku: 'ABC-2', price: 1, stock: 1 } }))
            .status,
          201,
        );
        // The search index holds the migrated products.
        const found = await api<Page<ProductObject>>('GET', '/v1/products?q=abc-1');
        assert.equal(found.body.total, 2);
        assert.equal((await api<Page<ProductObject>>('GET', '/v1/products?in_stock=true')).body.total, 3);

        // Lines name their variant; the v2.4 shape is unchanged for a tenant still on 2026-11-21.
        const paid = await api<OrderObject>('GET', '/v1/orders/ord_gone', latest);
        assert.deepEqual(
          [paid.body.items[0]?.variant_id, paid.body.items[0]?.variant_title],
          ['var_GONEGONEGONEGONEGONEGO9', 'Default'],
        );
        const pinned = await api<OrderObject>('GET', '/v1/orders/ord_pending');
        assert.equal(pinned.headers['x-service-version'], '2026-11-21');
        assert.deepEqual(Object.keys(pinned.body.items[0] ?? {}).sort(), [
          'name',
          'product_id',
          'quantity',
          'sku',
          'total',
          'unit_price',
        ]);

        // The pending order's units go back to its variant; a new order takes from it.
        assert.equal((await api('POST', '/v1/orders/ord_pending/cancel')).status, 200);
        const variant = await api<VariantObject>(
          'GET',
          '/v1/products/prod_AAAAAAAAAAAAAAAAAAAAAAA1/variants/var_AAAAAAAAAAAAAAAAAAAAAAA1',
        );
        assert.equal(variant.body.stock, 7);
        const order = await api<OrderObject>('POST', '/v1/orders', {
          body: {
            items: [{ product_id: 'prod_AAAAAAAAAAAAAAAAAAAAAAA1', quantity: 7 }],
            customer: { email: 'b@example.com' },
          },
          ...latest,
        });
        assert.equal(order.status, 201, JSON.stringify(order.body));
        assert.equal(order.body.items[0]?.variant_id, 'var_AAAAAAAAAAAAAAAAAAAAAAA1');
        assert.equal((await api<Page<ProductObject>>('GET', '/v1/products?in_stock=false')).body.total, 2);
        // Cancelling the order of a deleted product changes no stock and fails nothing.
        const cancelled = await api<OrderObject>('POST', '/v1/orders/ord_gone/cancel');
        assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));

        // An event written before the migration reads in the latest shape, its one variant included.
        const event = await api<{ data: { object: ProductObject } }>('GET', '/v1/events/evt_old', latest);
        assert.equal(event.body.data.object.variant_count, 1);
        assert.equal(event.body.data.object.variants?.[0]?.id, 'var_AAAAAAAAAAAAAAAAAAAAAAA3');
        const oldShape = await api<{ data: { object: ProductObject } }>('GET', '/v1/events/evt_old');
        assert.equal('variant_count' in oldShape.body.data.object, false);
      } finally {
        await store.close();
      }
    });
  });
}
