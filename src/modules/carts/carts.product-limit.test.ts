import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, DIALECTS, type TestContext } from '../../../test/helpers/context.js';
import { complete, newCart, openShop, product, type Shop } from './carts.test-kit.js';

/**
 * What the per-product completion limit counts (docs/storefront.md#limits): a completion counts
 * against the products of its cart it could still buy (the line's variant in stock, or held by the
 * cart). A sold-out line's completion is refused 422 `cart_not_ready` by the completion itself: in a
 * flash sale, the shoppers who come after the last unit hear it is gone, not to come back later.
 */

for (const dialect of DIALECTS) {
  describe(`the per-product completion limit (${dialect})`, () => {
    let ctx: TestContext;
    let shop: Shop;

    before(async () => {
      ctx = await createTestContext(dialect);
      shop = await openShop(ctx);
    });
    after(() => ctx.close());

    it('counts the products a completion could still buy, not those sold out', async () => {
      const last = await product(shop.admin, { name: 'Last one', price: 1_000, stock: 1 });
      const plenty = await product(shop.admin, { name: 'Plenty', price: 500, stock: 50 });
      const both = await newCart(shop.shopper, {
        email: 'late@example.com',
        lines: [
          { variant_id: last.variantId, quantity: 1 },
          { variant_id: plenty.variantId, quantity: 1 },
        ],
      });
      const first = await newCart(shop.shopper, {
        email: 'early@example.com',
        lines: [{ variant_id: last.variantId, quantity: 1 }],
      });
      const productsOf = (cartId: string) =>
        ctx.deps.carts.productIds(shop.tenantId, cartId).then((ids) => [...ids].sort());
      assert.deepEqual(await productsOf(both.id), [last.product.id, plenty.product.id].sort());

      assert.equal((await complete(shop.shopper, first)).status, 201);
      assert.deepEqual(await productsOf(both.id), [plenty.product.id]);
      assert.deepEqual(await productsOf(first.id), []);
      const refused = await complete(shop.shopper, both);
      assert.equal(refused.status, 422, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 'cart_not_ready');
    });
  });
}
