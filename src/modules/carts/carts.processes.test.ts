import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { caller, type ServerProcess } from '../../../test/helpers/process.js';
import { twoServers } from '../../../test/helpers/two-servers.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { CartObject } from './carts.schemas.js';

/**
 * Cart completion across two server processes on one PostgreSQL store: the row lock, not a
 * process's memory, makes completions of one cart one order (the one that finds another's hold
 * waits for it by reading the row), and the stock's conditional update gives 10 units to exactly
 * 10 of 30 carts.
 */

describe(
  'cart completion across two server processes on PostgreSQL',
  { skip: !process.env.TEST_DATABASE_URL },
  () => {
    const two = twoServers('postgres');
    const server = (i: number) => two.servers[i % 2] as ServerProcess;

    async function shop(name: string) {
      const tenant = await two.deps.tenants.create({ name, email: `${name.toLowerCase()}@example.com` });
      const admin = caller(tenant.apiKey.key);
      const key = await admin<{ key: string }>(server(0), 'POST', '/v1/api-keys', {
        type: 'publishable',
        name: 'Shop',
        allowed_origins: ['https://shop.example'],
      });
      assert.equal(key.status, 201, JSON.stringify(key.body));
      // Completions of many shoppers: a server-rendered shop's secret key naming each shopper's
      // address (`X-Buyer-IP`), since one address completes at most 10 carts an hour.
      const checkout = (i: number) => caller(tenant.apiKey.key, { 'x-buyer-ip': `198.51.100.${i + 1}` });
      return { tenantId: tenant.tenant.id, admin, shopper: caller(key.body.key), checkout };
    }

    async function variant(admin: ReturnType<typeof caller>, stock: number) {
      const made = await admin<{ id: string; variants: { id: string }[] }>(
        server(1),
        'POST',
        '/v1/products',
        {
          name: 'Lamp',
          price: 4_000,
          stock,
        },
      );
      assert.equal(made.status, 201, JSON.stringify(made.body));
      return { productId: made.body.id, variantId: made.body.variants[0]?.id as string };
    }

    it('makes one order of 20 completions of one cart spread over both processes', async () => {
      const { tenantId, admin, shopper, checkout } = await shop('Once');
      const lamp = await variant(admin, 100);
      const cart = await shopper<CartObject>(server(0), 'POST', '/v1/store/carts', {
        email: 'once@example.com',
        lines: [{ variant_id: lamp.variantId, quantity: 2 }],
      });
      assert.equal(cart.status, 201, JSON.stringify(cart.body));
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          checkout(i)<OrderObject>(server(i), 'POST', `/v1/store/carts/${cart.body.id}/complete`, {
            payment_method: 'pm_card_visa',
            expected_total: cart.body.total,
          }),
        ),
      );
      assert.deepEqual(
        results.map((r) => r.status).sort(),
        [...Array<number>(19).fill(200), 201].sort(),
        JSON.stringify(results.map((r) => r.body)),
      );
      assert.equal(new Set(results.map((r) => r.body.id)).size, 1);
      const orders = await two.deps.store.db
        .selectFrom('orders')
        .select(['id', 'source', 'cart_id'])
        .where('tenant_id', '=', tenantId)
        .execute();
      assert.deepEqual(orders, [{ id: results[0]?.body.id, source: 'storefront', cart_id: cart.body.id }]);
      const stock = await admin<{ stock: number }>(server(1), 'GET', `/v1/products/${lamp.productId}`);
      assert.equal(stock.body.stock, 98);
    });

    it('gives 10 units to exactly 10 of 30 carts completed at once; stock ends at 0', async () => {
      const { tenantId, admin, shopper, checkout } = await shop('Scarce');
      const lamp = await variant(admin, 10);
      const carts = await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const made = await shopper<CartObject>(server(i), 'POST', '/v1/store/carts', {
            email: `buyer${i}@example.com`,
            lines: [{ variant_id: lamp.variantId, quantity: 1 }],
          });
          assert.equal(made.status, 201, JSON.stringify(made.body));
          return made.body;
        }),
      );
      const results = await Promise.all(
        carts.map((cart, i) =>
          checkout(i)<OrderObject & { code?: string }>(
            server(i + 1),
            'POST',
            `/v1/store/carts/${cart.id}/complete`,
            {
              payment_method: 'pm_card_visa',
              expected_total: cart.total,
            },
          ),
        ),
      );
      assert.equal(
        results.filter((r) => r.status === 201).length,
        10,
        JSON.stringify(results.map((r) => r.status)),
      );
      for (const lost of results.filter((r) => r.status !== 201)) {
        assert.deepEqual([lost.status, lost.body.code], [422, 'cart_not_ready']);
      }
      const orders = await two.deps.store.db
        .selectFrom('orders')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_id', '=', tenantId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(orders.n), 10);
      const stock = await admin<{ stock: number }>(server(0), 'GET', `/v1/products/${lamp.productId}`);
      assert.equal(stock.body.stock, 0);
    });
  },
);
