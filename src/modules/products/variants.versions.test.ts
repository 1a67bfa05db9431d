import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  LOGIC_ONLY,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { Page } from '../../../test/helpers/responses.js';
import { type Receiver, startReceiver } from '../../../test/helpers/webhook-receiver.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { ProductObject } from './products.schemas.js';

/** The keys a product had before 2026-12-15, and an order line's. */
const PRODUCT_KEYS_V4 = [
  'attributes',
  'category',
  'created',
  'currency',
  'description',
  'id',
  'images',
  'name',
  'price',
  'sku',
  'status',
  'stock',
  'tags',
  'updated',
];
const ITEM_KEYS_V4 = ['name', 'product_id', 'quantity', 'sku', 'total', 'unit_price'];

const keys = (value: unknown) => Object.keys(value as object).sort();

interface EventBody {
  type: string;
  api_version: string;
  data: { object: ProductObject } & Record<string, unknown>;
}

for (const dialect of LOGIC_ONLY) {
  describe(`options and variants in older versions (${dialect})`, () => {
    let ctx: TestContext;
    const receivers: Receiver[] = [];

    before(async () => {
      ctx = await createTestContext(dialect);
      ctx.deps.webhookWorker.start();
    });
    after(async () => {
      await ctx.close();
      await Promise.all(receivers.map((r) => r.close()));
    });

    async function shopIn(version: string | undefined): Promise<Client> {
      const tenant = await createTenant(ctx, version === undefined ? {} : { apiVersion: version });
      return client(ctx.app, tenant.apiKey.key);
    }

    for (const version of ['2026-11-21', '2026-06-01']) {
      it(`a tenant pinned to ${version} sees products, order items and events exactly as before`, async () => {
        const api = await shopIn(version);
        const created = await api<ProductObject>('POST', '/v1/products', {
          body: { name: 'Mug', sku: `MUG-${version}`, price: 900, stock: 1 },
        });
        assert.equal(created.status, 201);
        assert.equal(created.headers['x-service-version'], version);
        assert.deepEqual(keys(created.body), PRODUCT_KEYS_V4);
        const id = created.body.id;
        assert.deepEqual(keys((await api('GET', `/v1/products/${id}`)).body), PRODUCT_KEYS_V4);
        const patched = await api('PATCH', `/v1/products/${id}`, { body: { price: 950 } });
        assert.deepEqual(keys(patched.body), PRODUCT_KEYS_V4);
        const list = await api<Page<ProductObject>>('GET', '/v1/products?expand=variants');
        for (const item of list.body.data) assert.deepEqual(keys(item), PRODUCT_KEYS_V4);
        assert.ok(list.body.data.length > 0);

        const order = await api<OrderObject>('POST', '/v1/orders', {
          body: { items: [{ product_id: id, quantity: 1 }], customer: { email: 'old@example.com' } },
        });
        assert.equal(order.status, 201, JSON.stringify(order.body));
        for (const item of order.body.items) assert.deepEqual(keys(item), ITEM_KEYS_V4);
        // The order's customer has no id before 2026-12-15.
        assert.deepEqual(keys(order.body.customer), ['email', 'name']);
        const orders = await api<Page<OrderObject>>('GET', '/v1/orders');
        for (const item of orders.body.data.flatMap((o) => o.items))
          assert.deepEqual(keys(item), ITEM_KEYS_V4);
        assert.deepEqual(
          keys((await api<OrderObject>('GET', `/v1/orders/${order.body.id}`)).body.items[0]),
          ITEM_KEYS_V4,
        );

        const events = await api<Page<EventBody>>('GET', '/v1/events?limit=100');
        const soldOut = events.body.data.find((e) => e.type === 'product.outofstock');
        assert.ok(soldOut, 'the order sold the mug out');
        assert.deepEqual(keys(soldOut.data), ['object']);
        for (const event of events.body.data) {
          if (event.type.startsWith('product.')) assert.deepEqual(keys(event.data.object), PRODUCT_KEYS_V4);
          if (event.type.startsWith('order.')) {
            const items = (event.data.object as unknown as OrderObject).items;
            for (const item of items) assert.deepEqual(keys(item), ITEM_KEYS_V4);
          }
        }
        // The same tenant asking for the latest version by header sees the new fields.
        const latest = await api<ProductObject>('GET', `/v1/products/${id}`, {
          headers: { 'x-service-version': '2026-12-15' },
        });
        assert.equal(latest.body.variant_count, 1);
      });
    }

    it("a tenant pinned to 2026-11-21 may give a product its variant's compare_at_price, weight_grams and barcode; it reads as before", async () => {
      const api = await shopIn('2026-11-21');
      const body = {
        name: 'Kettle',
        price: 4500,
        compare_at_price: 5900,
        weight_grams: 1200,
        barcode: '4006381333931',
      };
      const created = await api<ProductObject>('POST', '/v1/products', { body });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual(keys(created.body), PRODUCT_KEYS_V4);
      const patched = await api<ProductObject>('PATCH', `/v1/products/${created.body.id}`, {
        body: { weight_grams: 1150 },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.deepEqual(keys(patched.body), PRODUCT_KEYS_V4);
      const latest = await api<ProductObject>('GET', `/v1/products/${created.body.id}`, {
        headers: { 'x-service-version': '2026-12-15' },
      });
      const variant = latest.body.variants?.[0];
      assert.deepEqual(
        [variant?.compare_at_price, variant?.weight_grams, variant?.barcode],
        [5900, 1150, '4006381333931'],
      );
    });

    it('a product with options reads the old way in 2026-11-21: lowest price, summed stock, no SKU', async () => {
      const api = await shopIn(undefined);
      const shirt = await api<ProductObject>('POST', '/v1/products', {
        body: {
          name: 'Shirt',
          options: [{ name: 'Size', values: ['S', 'M'] }],
          variants: [
            { options: { Size: 'S' }, price: 1500, stock: 2 },
            { options: { Size: 'M' }, price: 1700, stock: 3 },
          ],
        },
      });
      const old = await api<ProductObject>('GET', `/v1/products/${shirt.body.id}`, {
        headers: { 'x-service-version': '2026-11-21' },
      });
      assert.equal(old.headers['x-service-version'], '2026-11-21');
      assert.deepEqual(keys(old.body), PRODUCT_KEYS_V4);
      assert.deepEqual([old.body.price, old.body.stock, old.body.sku], [1500, 5, null]);
    });

    it('webhook endpoints render in their own version: product.outofstock with and without data.variant', async () => {
      const rx = await startReceiver();
      receivers.push(rx);
      const api = await shopIn(undefined);
      for (const [path, version] of [
        ['/old', '2026-11-21'],
        ['/new', '2026-12-15'],
      ] as const) {
        const hook = await api('POST', '/v1/webhooks', {
          body: { url: `${rx.url}${path}`, events: ['product.outofstock'] },
          headers: { 'x-service-version': version },
        });
        assert.equal(hook.status, 201, JSON.stringify(hook.body));
      }
      const shirt = await api<ProductObject>('POST', '/v1/products', {
        body: {
          name: 'Hooked shirt',
          options: [{ name: 'Size', values: ['S', 'M'] }],
          variants: [
            { options: { Size: 'S' }, price: 1500, stock: 1 },
            { options: { Size: 'M' }, price: 1700, stock: 3 },
          ],
        },
      });
      const small = shirt.body.variants?.[0]?.id;
      const order = await api('POST', '/v1/orders', {
        body: { items: [{ variant_id: small, quantity: 1 }], customer: { email: 'hook@example.com' } },
      });
      assert.equal(order.status, 201);
      await rx.waitFor(2);
      const byPath = Object.fromEntries(rx.received.map((r) => [r.path, JSON.parse(r.body) as EventBody]));
      assert.equal(byPath['/old']?.api_version, '2026-11-21');
      assert.deepEqual(keys(byPath['/old']?.data), ['object']);
      assert.deepEqual(keys(byPath['/old']?.data.object), PRODUCT_KEYS_V4);
      assert.equal(byPath['/new']?.api_version, '2026-12-15');
      assert.equal((byPath['/new']?.data.variant as { id: string }).id, small);
      assert.equal(byPath['/new']?.data.object.variant_count, 2);
    });
  });
}
