import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedDemoData } from '../../demo.js';
import { ManualClock } from '../../lib/clock.js';
import { client, createTestContext, DIALECTS, type TestContext } from '../../../test/helpers/context.js';
import type { Page } from '../../../test/helpers/responses.js';
import type { ProductObject } from '../products/products.schemas.js';
import type { CustomerObject } from '../customers/customers.schemas.js';
import type { OrderObject } from './orders.schemas.js';

const DAY = 24 * 3600 * 1000;

for (const dialect of DIALECTS) {
  describe(`demo catalog and orders (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock(Date.parse('2026-11-21T12:00:00.000Z'));
    let tenantId: string;
    let key: string;

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
      const credentials = await seedDemoData(ctx.deps);
      assert.ok(credentials);
      tenantId = credentials.tenant_id;
      key = credentials.api_key;
    });
    after(() => ctx.close());

    it('has a realistic catalog: 40+ products in several categories, a few low or out of stock', async () => {
      const api = client(ctx.app, key);
      const page = await api<Page<ProductObject>>('GET', '/v1/products?limit=100');
      assert.ok(page.body.total >= 40, `${page.body.total} products`);
      const products = page.body.data;
      assert.ok(new Set(products.map((p) => p.category)).size >= 5);
      assert.ok(products.filter((p) => p.stock === 0).length >= 2, 'out of stock');
      assert.ok(products.filter((p) => p.stock > 0 && p.stock <= 5).length >= 2, 'low stock');
      const outOfStock = await api<Page<ProductObject>>('GET', '/v1/products?in_stock=false');
      assert.equal(outOfStock.body.total, products.filter((p) => p.stock === 0).length);
    });

    it('sells part of the catalog in sizes and colours, a few variants sold out, and orders name them', async () => {
      const api = client(ctx.app, key);
      const page = await api<Page<ProductObject>>('GET', '/v1/products?limit=100&expand=variants');
      const sized = page.body.data.filter((p) => p.options.length > 0);
      assert.ok(sized.length >= 4, `${sized.length} products with options`);
      assert.ok(sized.some((p) => p.options.some((o) => o.name === 'Size')));
      assert.ok(sized.some((p) => p.options.some((o) => o.name === 'Color')));
      const soldOut = sized.flatMap((p) => (p.variants ?? []).filter((v) => v.stock === 0));
      assert.ok(soldOut.length >= 2, `${soldOut.length} sold-out variants`);
      for (const product of sized) {
        assert.equal(product.sku, null);
        assert.equal(
          product.stock,
          (product.variants ?? []).reduce((sum, v) => sum + v.stock, 0),
        );
      }
      const orders = await api<Page<OrderObject>>('GET', '/v1/orders?limit=100');
      assert.ok(
        orders.body.data.some((o) => o.items.some((i) => i.variant_title !== 'Default')),
        'some order bought a size or colour',
      );
    });

    it('has customers with their details, each with several orders and exact figures', async () => {
      const api = client(ctx.app, key);
      const customers = await api<Page<CustomerObject>>('GET', '/v1/customers?limit=100');
      assert.ok(customers.body.total >= 10, `${customers.body.total} customers`);
      const orders = await api<Page<OrderObject>>('GET', '/v1/orders?limit=100');
      for (const customer of customers.body.data) {
        const theirs = orders.body.data.filter((o) => o.customer.id === customer.id);
        assert.equal(customer.orders_count, theirs.length, customer.email);
        assert.ok(customer.addresses.length === 1 && customer.phone !== null, customer.email);
      }
      assert.ok(customers.body.data.filter((c) => c.orders_count >= 2).length >= 8, 'several orders each');
      assert.ok(customers.body.data.some((c) => c.tags.includes('vip')));
    });

    it('keeps its whole history inside the event retention: the first purge deletes nothing', async () => {
      const oldest = await ctx.deps.store.db
        .selectFrom('events')
        .select((eb) => eb.fn.min('created').as('created'))
        .where('tenant_id', '=', tenantId)
        .executeTakeFirstOrThrow();
      assert.ok(
        Number(oldest.created) > clock.now() - 30 * DAY,
        new Date(Number(oldest.created)).toISOString(),
      );
      assert.equal(await ctx.deps.webhooks.purgeExpired(), 0);
    });

    it('has orders over the last four weeks in every state, with consistent stock, payments and events', async () => {
      const db = ctx.deps.store.db;
      const now = clock.now();
      const orders = await db.selectFrom('orders').selectAll().where('tenant_id', '=', tenantId).execute();
      assert.ok(orders.length >= 50, `${orders.length} orders`);
      const statuses = new Set(orders.map((o) => o.status));
      for (const status of ['pending', 'paid', 'shipped', 'delivered', 'cancelled', 'refunded']) {
        assert.ok(statuses.has(status as never), `an order that is ${status}`);
      }
      // Unpaid orders expire after a day (the store's default): the older ones were cancelled then.
      assert.ok(orders.some((o) => o.cancel_reason === 'expired' && o.cancelled_at === o.created + DAY));
      assert.ok(orders.some((o) => o.cancel_reason === 'requested'));
      for (const o of orders.filter((o) => o.status === 'pending')) assert.ok(o.created > now - DAY);
      for (const o of orders) {
        assert.ok(
          o.created >= now - 28 * DAY - 3600_000 && o.created < now,
          new Date(o.created).toISOString(),
        );
        assert.ok(o.updated >= o.created && o.updated < now);
      }
      assert.ok(new Set(orders.map((o) => Math.floor(o.created / DAY))).size >= 15, 'spread over the month');

      const payments = await db
        .selectFrom('payments')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .execute();
      const paymentOf = new Map(payments.map((p) => [p.id, p]));
      for (const o of orders) {
        const payment = o.payment_id === null ? undefined : paymentOf.get(o.payment_id);
        if (['paid', 'shipped', 'delivered'].includes(o.status)) assert.equal(payment?.status, 'succeeded');
        if (o.status === 'refunded') assert.equal(payment?.status, 'refunded');
        if (o.status === 'pending') assert.ok(payment === undefined || payment.status === 'failed');
      }
      assert.ok(payments.some((p) => p.failure_code === 'card_declined'));

      // Stock now = stock at creation (from product.created) minus units of orders that kept them.
      const created = await db
        .selectFrom('events')
        .select(['object_id', 'data', 'created'])
        .where('tenant_id', '=', tenantId)
        .where('type', '=', 'product.created')
        .execute();
      const items = await db
        .selectFrom('order_items')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .execute();
      // A cancelled order gave every unit back; any other keeps what no restocking refund returned.
      const kept = new Set(orders.filter((o) => o.status !== 'cancelled').map((o) => o.id));
      const refunds = await db
        .selectFrom('refunds')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('restocked', '=', 1)
        .execute();
      const back = (orderId: string, variantId: string) =>
        refunds
          .filter((r) => r.order_id === orderId)
          .flatMap((r) => JSON.parse(r.items) as { variant_id: string; quantity: number }[])
          .filter((item) => item.variant_id === variantId)
          .reduce((sum, item) => sum + item.quantity, 0);
      assert.ok(
        refunds.some((r) => r.reason === 'Returned: wrong size'),
        'a partial refund put a unit back',
      );
      const products = await db
        .selectFrom('products')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .execute();
      for (const product of products) {
        const initial = (
          JSON.parse(created.find((e) => e.object_id === product.id)?.data ?? '{}') as { stock: number }
        ).stock;
        const sold = items
          .filter((i) => i.product_id === product.id && kept.has(i.order_id))
          .reduce((sum, i) => sum + i.quantity - back(i.order_id, i.variant_id), 0);
        assert.equal(product.stock, initial - sold, product.name);
      }
      // And per variant: each variant's stock at creation minus its units in kept orders.
      const variants = await db
        .selectFrom('product_variants')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .execute();
      for (const variant of variants) {
        const createdProduct = JSON.parse(
          created.find((e) => e.object_id === variant.product_id)?.data ?? '{}',
        ) as { variants: { id: string; stock: number }[] };
        const initial = createdProduct.variants.find((v) => v.id === variant.id)?.stock ?? 0;
        const sold = items
          .filter((i) => i.variant_id === variant.id && kept.has(i.order_id))
          .reduce((sum, i) => sum + i.quantity - back(i.order_id, i.variant_id), 0);
        assert.equal(variant.stock, initial - sold, variant.title);
      }

      const count = async (type: string) =>
        Number(
          (
            await db
              .selectFrom('events')
              .where('tenant_id', '=', tenantId)
              .where('type', '=', type)
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      assert.equal(await count('order.created'), orders.length);
      assert.equal(
        await count('payment.received'),
        payments.filter((p) => p.status === 'succeeded' || p.status === 'refunded').length,
      );
      assert.equal(await count('order.refunded'), orders.filter((o) => o.status === 'refunded').length);
      const latest = await db
        .selectFrom('events')
        .select((eb) => eb.fn.max('created').as('at'))
        .where('tenant_id', '=', tenantId)
        .executeTakeFirstOrThrow();
      assert.ok(Number(latest.at) < now, 'every event happened in the past');
    });
  });
}
