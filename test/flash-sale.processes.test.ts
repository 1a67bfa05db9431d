import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.js';
import { createDeps, type Deps } from '../src/deps.js';
import { randomBase62 } from '../src/lib/ids.js';
import { migratedStore, TEST_REDIS_URL, type TestStore } from './helpers/context.js';
import { caller, type ServerProcess, spawnServer } from './helpers/process.js';
import { dropRedisKeys, redisTestPrefix } from './helpers/redis.js';

/**
 * A flash sale, as bench/flash-sale.ts runs it at full size (1,000 shoppers, 100 units, 100 at a
 * time), scaled down: 300 shoppers, each from an address of its own (a trusted loopback proxy's
 * `X-Forwarded-For`), at most 50 at a time, make a cart of one unit of a variant with 30 in stock
 * with the store's publishable key and complete it, their calls spread over two server processes
 * on one PostgreSQL store and one Redis. Exactly 30 orders, each paid once; every other completion
 * a 422 `cart_not_ready`; no unit oversold, no charge without its order, no cart left mid-way; and
 * the kept counts and the analytics (taken in from their queue by either process) say the same.
 */

const SHOPPERS = 300;
const STOCK = 30;
const AT_ONCE = 50;

interface Product {
  id: string;
  variants: { id: string }[];
}

describe(
  'a flash sale over two server processes on PostgreSQL and Redis',
  {
    skip: !process.env.TEST_DATABASE_URL
      ? 'TEST_DATABASE_URL is not set'
      : !TEST_REDIS_URL
        ? 'TEST_REDIS_URL is not set'
        : false,
  },
  () => {
    let store: TestStore;
    let deps: Deps;
    let servers: ServerProcess[] = [];
    let journal = '';
    const prefix = redisTestPrefix();

    before(async () => {
      store = await migratedStore('postgres');
      journal = path.join(store.dataDir, 'provider-charges.jsonl');
      const env = {
        ...store.env,
        REDIS_URL: TEST_REDIS_URL ?? '',
        REDIS_KEY_PREFIX: prefix,
        TRUST_PROXY: 'loopback',
        PAYMENT_SANDBOX_JOURNAL: journal,
      };
      deps = await createDeps(loadConfig(env), { poolSize: 2 });
      servers = await Promise.all([spawnServer(env), spawnServer(env)]);
    });
    after(async () => {
      for (const server of servers) await server.stop();
      await deps?.close();
      await store?.drop();
      await dropRedisKeys(prefix);
    });

    it('sells exactly the stock, once each, and refuses every other shopper with a 422', async () => {
      const tenant = await deps.tenants.create({
        name: 'Flash Sale',
        email: `sale-${randomBase62(6).toLowerCase()}@example.com`,
        currency: 'USD',
      });
      await deps.tenants.setLimits(tenant.tenant.id, { hourly: 1_000_000, monthly: 10_000_000 });
      const server = (i: number) => servers[i % 2] as ServerProcess;
      const admin = caller(tenant.apiKey.key);
      const key = await admin<{ key: string }>(server(0), 'POST', '/v1/api-keys', {
        type: 'publishable',
        name: 'Sale',
        allowed_origins: [],
      });
      assert.equal(key.status, 201, JSON.stringify(key.body));
      const print = await admin<Product>(server(1), 'POST', '/v1/products', {
        name: 'Limited print',
        price: 4_900,
        stock: STOCK,
      });
      assert.equal(print.status, 201, JSON.stringify(print.body));
      const variantId = print.body.variants[0]?.id as string;

      const shop = async (i: number) => {
        const shopper = caller(key.body.key, { 'x-forwarded-for': `10.88.${i >> 8}.${i & 255}` });
        const cart = await shopper<{ id: string; total: number }>(server(i), 'POST', '/v1/store/carts', {
          email: `shopper-${i}@example.com`,
          lines: [{ variant_id: variantId, quantity: 1 }],
        });
        assert.equal(cart.status, 201, JSON.stringify(cart.body));
        return caller(key.body.key, {
          'x-forwarded-for': `10.88.${i >> 8}.${i & 255}`,
          'idempotency-key': `sale-${i}`,
        })<{ id: string }>(server(i + 1), 'POST', `/v1/store/carts/${cart.body.id}/complete`, {
          payment_method: 'pm_card_visa',
          expected_total: cart.body.total,
        });
      };
      const answers: { status: number; code: string | undefined }[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: AT_ONCE }, async () => {
          for (let i = next++; i < SHOPPERS; i = next++) {
            const done = await shop(i);
            answers.push({ status: done.status, code: done.body.code });
          }
        }),
      );

      const tally = new Map<string, number>();
      for (const answer of answers) {
        const name = `${answer.status} ${answer.code ?? ''}`.trim();
        tally.set(name, (tally.get(name) ?? 0) + 1);
      }
      assert.deepEqual(
        Object.fromEntries(tally),
        { '201': STOCK, '422 cart_not_ready': SHOPPERS - STOCK },
        JSON.stringify([...tally]),
      );

      const db = deps.store.db;
      const orders = await db
        .selectFrom('orders')
        .innerJoin('order_items', 'order_items.order_id', 'orders.id')
        .select(['orders.status', 'orders.payment_id', 'order_items.quantity'])
        .where('orders.tenant_id', '=', tenant.tenant.id)
        .execute();
      assert.equal(orders.length, STOCK);
      assert.ok(orders.every((order) => order.status === 'paid' && Number(order.quantity) === 1));
      const stock = await db
        .selectFrom('product_variants')
        .select('stock')
        .where('id', '=', variantId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(stock.stock), 0);
      // The provider's own record: every charge it made paid an order, and each order once.
      const charged = fs
        .readFileSync(journal, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => (JSON.parse(line) as { payment_id: string }).payment_id);
      assert.deepEqual([...charged].sort(), orders.map((order) => order.payment_id).sort());
      const midway = await db
        .selectFrom('carts')
        .select('id')
        .where('tenant_id', '=', tenant.tenant.id)
        .where('checkout', 'is not', null)
        .execute();
      assert.deepEqual(midway, []);
      assert.equal((await deps.wallet.verify()).ok, true);

      // The kept counts and the analytics, read through either process, say the same.
      const paid = await admin<{ total: number }>(server(0), 'GET', '/v1/orders?status=paid&limit=1');
      assert.equal(paid.body.total, STOCK);
      const analytics = await admin<{ summary: { orders: number; revenue: number } }>(
        server(1),
        'GET',
        '/v1/analytics',
      );
      assert.deepEqual(
        [analytics.body.summary.orders, analytics.body.summary.revenue],
        [STOCK, STOCK * 4_900],
      );
    });
  },
);
