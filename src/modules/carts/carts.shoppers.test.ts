import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Client, createTestContext, DIALECTS, type TestContext } from '../../../test/helpers/context.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import type { OrderObject } from '../orders/index.js';
import type { CartObject } from './carts.schemas.js';
import { complete, newCart, openShop, product, type Shop, US_CA } from './carts.test-kit.js';

/**
 * A signed-in shopper's carts: a cart made or read with `X-Customer-Token` is theirs, another
 * shopper cannot read it, and its order is the shopper's, listed among their orders.
 */

/** Signs a new shopper up and in: the headers their browser sends from then on. */
async function signIn(shopper: Client, email: string): Promise<{ 'x-customer-token': string }> {
  const password = 'a long enough password';
  const signUp = await shopper('POST', '/v1/store/customers', { body: { email, password, name: 'Ada' } });
  assert.equal(signUp.status, 201, JSON.stringify(signUp.body));
  const session = await shopper<{ token: string }>('POST', '/v1/store/sessions', {
    body: { email, password },
  });
  assert.equal(session.status, 201);
  return { 'x-customer-token': session.body.token };
}

for (const dialect of DIALECTS) {
  describe(`a signed-in shopper's carts (${dialect})`, () => {
    let ctx: TestContext;
    let shop: Shop;
    let variantId: string;

    before(async () => {
      ctx = await createTestContext(dialect);
      shop = await openShop(ctx);
      ({ variantId } = await product(shop.admin, { name: 'Tee', price: 2_000, stock: 10 }));
      await shop.admin('POST', '/v1/shipping-rates', {
        body: { name: 'Standard', amount: 500, countries: ['US'] },
      });
    });
    after(() => ctx.close());

    it('binds a cart made with a token to the shopper, with their email', async () => {
      const ada = await signIn(shop.shopper, 'ada@example.com');
      const me = await shop.shopper<{ id: string }>('GET', '/v1/store/customers/me', { headers: ada });
      const res = await shop.shopper<CartObject>('POST', '/v1/store/carts', {
        headers: ada,
        body: { lines: [{ variant_id: variantId, quantity: 1 }], shipping_address: US_CA },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.customer_id, me.body.id);
      assert.equal(res.body.email, 'ada@example.com');
      assert.deepEqual(res.body.problems, []);

      const order = await complete(shop.shopper, res.body);
      assert.equal(order.status, 201, JSON.stringify(order.body));
      assert.equal(order.body.customer.id, me.body.id);
      const mine = await shop.shopper<Page<OrderObject>>('GET', '/v1/store/customers/me/orders', {
        headers: ada,
      });
      assert.deepEqual(
        mine.body.data.map((o) => o.id),
        [order.body.id],
      );
    });

    it('makes a cart of nobody the shopper’s when they read it, and hides it from another', async () => {
      const grace = await signIn(shop.shopper, 'grace@example.com');
      const cart = await newCart(shop.shopper, { lines: [{ variant_id: variantId, quantity: 1 }] });
      assert.equal(cart.customer_id, null);
      const read = await shop.shopper<CartObject>('GET', `/v1/store/carts/${cart.id}`, { headers: grace });
      assert.equal(read.status, 200);
      assert.notEqual(read.body.customer_id, null);
      assert.equal(read.body.email, 'grace@example.com');

      const other = await signIn(shop.shopper, 'linus@example.com');
      const refused = await shop.shopper<Problem>('GET', `/v1/store/carts/${cart.id}`, { headers: other });
      assert.equal(refused.status, 404);
      // Without a token the cart id alone still reads it, as it did before sign-in.
      assert.equal((await shop.shopper('GET', `/v1/store/carts/${cart.id}`)).status, 200);
    });

    it('refuses a token that signs nobody in, and makes no cart', async () => {
      const before = await shop.admin<Page<CartObject>>('GET', '/v1/carts?limit=100');
      const res = await shop.shopper<Problem>('POST', '/v1/store/carts', {
        headers: { 'x-customer-token': 'cst_not-a-session' },
        body: {},
      });
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'invalid_customer_token');
      const afterwards = await shop.admin<Page<CartObject>>('GET', '/v1/carts?limit=100');
      assert.equal(afterwards.body.data.length, before.body.data.length);
    });
  });
}
