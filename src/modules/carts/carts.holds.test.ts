import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { client, createTestContext, DIALECTS, type TestContext } from '../../../test/helpers/context.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import { ManualClock } from '../../lib/clock.js';
import type { CartObject, CartProblem } from './carts.schemas.js';
import { complete, newCart, openShop, product, type Shop, stockOf } from './carts.test-kit.js';

/**
 * Stock holds: off until the store sets `storefront.hold_minutes` (409 `holds_disabled`); a hold
 * takes the cart's units as an order would (other carts, orders and the catalog see them gone),
 * is renewed by a second call, given back exactly once when it runs out (two sweeps racing), when
 * the cart's lines change or when the cart expires, and taken over by the cart's completion
 * (stock moves once); a buyer address holds at most 3 carts of a store.
 */

const MINUTE = 60_000;

type CartOrProblem = CartObject &
  Problem & { problems: CartProblem[]; max_holds?: number; next_release_at?: string };

interface StoreProduct {
  available: boolean;
  variants: { id: string; available: boolean }[];
}

for (const dialect of DIALECTS) {
  describe(`cart stock holds (${dialect})`, () => {
    let ctx: TestContext;
    let clock: ManualClock;

    before(async () => {
      clock = new ManualClock(Date.parse('2027-02-01T10:00:00.000Z'));
      ctx = await createTestContext(dialect, { clock, poolSize: 12 });
    });
    after(() => ctx.close());

    /** A store holding stock for `minutes`, and a product of `stock` units. */
    async function holdingShop(minutes: number | null, stock: number) {
      const shop = await openShop(ctx);
      const set = await shop.admin('PATCH', '/v1/settings', {
        body: { storefront: { hold_minutes: minutes } },
      });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      const lamp = await product(shop.admin, { name: 'Lamp', price: 4_000, stock });
      return { shop, lamp };
    }

    const hold = (shop: Shop, cartId: string, headers: Record<string, string> = {}) =>
      shop.shopper<CartOrProblem>('POST', `/v1/store/carts/${cartId}/hold`, { headers });

    async function catalogAvailable(shop: Shop, productId: string): Promise<boolean> {
      const res = await shop.shopper<StoreProduct>('GET', `/v1/store/products/${productId}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.available;
    }

    it('refuses with 409 holds_disabled while the store holds nothing, and shows hold: null', async () => {
      const { shop, lamp } = await holdingShop(null, 5);
      const cart = await newCart(shop.shopper, { lines: [{ variant_id: lamp.variantId, quantity: 1 }] });
      assert.equal(cart.hold, null);
      const refused = await hold(shop, cart.id);
      assert.deepEqual([refused.status, refused.body.code], [409, 'holds_disabled']);
      assert.equal(await stockOf(shop.admin, lamp.product.id), 5);
      const read = await shop.shopper<CartObject>('GET', `/v1/store/carts/${cart.id}`);
      assert.equal(read.body.hold, null);
    });

    it('takes the units from everyone else until the hold runs out, renews it, and gives them back once', async () => {
      const { shop, lamp } = await holdingShop(15, 5);
      const mine = await newCart(shop.shopper, {
        email: 'held@example.com',
        lines: [{ variant_id: lamp.variantId, quantity: 5 }],
      });
      const held = await hold(shop, mine.id);
      assert.equal(held.status, 200, JSON.stringify(held.body));
      assert.deepEqual(held.body.hold, { expires_at: new Date(clock.now() + 15 * MINUTE).toISOString() });
      // The cart's own units are its own: no problem, every line available.
      assert.deepEqual(held.body.problems, []);
      assert.deepEqual(
        held.body.lines.map((line) => line.available),
        [true],
      );
      assert.equal(await stockOf(shop.admin, lamp.product.id), 0);
      assert.equal(await catalogAvailable(shop, lamp.product.id), false);

      // Another cart sees none left, and can neither hold nor complete.
      const other = await newCart(shop.shopper, {
        email: 'other@example.com',
        lines: [{ variant_id: lamp.variantId, quantity: 1 }],
      });
      assert.deepEqual(
        other.problems.map((p) => p.code),
        ['insufficient_stock'],
      );
      const otherHold = await hold(shop, other.id);
      assert.deepEqual(
        [otherHold.status, otherHold.body.code, otherHold.body.problems.map((p) => p.code)],
        [422, 'cart_not_ready', ['insufficient_stock']],
      );
      assert.match(otherHold.body.detail ?? '', /cannot be held/);
      const otherDone = await complete(shop.shopper, other);
      assert.equal(otherDone.status, 422, JSON.stringify(otherDone.body));
      // An order through the admin API is refused too.
      const order = await shop.admin<Problem>('POST', '/v1/orders', {
        body: {
          items: [{ variant_id: lamp.variantId, quantity: 1 }],
          customer: { email: 'api@example.com' },
        },
      });
      assert.deepEqual([order.status, order.body.code], [422, 'insufficient_stock']);

      // Renewed by a second call, for as long again from then; the stock does not move.
      clock.advance(10 * MINUTE);
      const renewed = await hold(shop, mine.id);
      assert.equal(renewed.status, 200, JSON.stringify(renewed.body));
      assert.deepEqual(renewed.body.hold, { expires_at: new Date(clock.now() + 15 * MINUTE).toISOString() });
      assert.equal(await stockOf(shop.admin, lamp.product.id), 0);

      // Not over yet: the sweep leaves it.
      clock.advance(14 * MINUTE);
      await ctx.deps.cartSweeps.releaseHolds();
      assert.equal(await stockOf(shop.admin, lamp.product.id), 0);

      // Run out: two sweeps racing give the units back once.
      clock.advance(2 * MINUTE);
      const read = await shop.shopper<CartObject>('GET', `/v1/store/carts/${mine.id}`);
      assert.equal(read.body.hold, null, 'a hold that ran out is not shown');
      const swept = await Promise.all([
        ctx.deps.cartSweeps.releaseHolds(),
        ctx.deps.cartSweeps.releaseHolds(),
      ]);
      assert.equal(swept[0] + swept[1], 1);
      assert.equal(await ctx.deps.cartSweeps.releaseHolds(), 0);
      assert.equal(await stockOf(shop.admin, lamp.product.id), 5);
      assert.equal(await catalogAvailable(shop, lamp.product.id), true);
      const row = await ctx.deps.store.db
        .selectFrom('carts')
        .select(['hold_lines', 'hold_expires', 'hold_ip'])
        .where('id', '=', mine.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { hold_lines: null, hold_expires: null, hold_ip: null });

      // The other cart can now be completed.
      const again = await shop.shopper<CartObject>('GET', `/v1/store/carts/${other.id}`);
      assert.deepEqual(again.body.problems, []);
      assert.equal((await complete(shop.shopper, again.body)).status, 201);
      assert.equal(await stockOf(shop.admin, lamp.product.id), 4);
    });

    it('is taken over by the cart’s completion: the stock moves once', async () => {
      const { shop, lamp } = await holdingShop(30, 10);
      const cart = await newCart(shop.shopper, {
        email: 'buyer@example.com',
        lines: [{ variant_id: lamp.variantId, quantity: 3 }],
      });
      assert.equal((await hold(shop, cart.id)).status, 200);
      assert.equal(await stockOf(shop.admin, lamp.product.id), 7);
      const done = await complete(shop.shopper, cart);
      assert.equal(done.status, 201, JSON.stringify(done.body));
      assert.equal(await stockOf(shop.admin, lamp.product.id), 7);
      const read = await shop.shopper<CartObject>('GET', `/v1/store/carts/${cart.id}`);
      assert.deepEqual([read.body.status, read.body.hold], ['completed', null]);
      // Nothing is left to give back when the hold's time comes.
      clock.advance(31 * MINUTE);
      await ctx.deps.cartSweeps.releaseHolds();
      assert.equal(await stockOf(shop.admin, lamp.product.id), 7);
      // The hold emitted nothing; the order its events, one stock change among them.
      const events = await shop.admin<Page<{ type: string }>>('GET', '/v1/events?limit=100');
      assert.deepEqual(
        events.body.data
          .map((e) => e.type)
          .filter((t) => t.startsWith('order.') || t.startsWith('product.'))
          .sort(),
        ['order.created', 'order.paid', 'product.created', 'product.updated'],
      );
    });

    it('a declined card leaves the cart open and its units in stock; it may be held again', async () => {
      const { shop, lamp } = await holdingShop(30, 4);
      const cart = await newCart(shop.shopper, {
        email: 'declined@example.com',
        lines: [{ variant_id: lamp.variantId, quantity: 4 }],
      });
      assert.equal((await hold(shop, cart.id)).status, 200);
      const declined = await complete(shop.shopper, cart, 'pm_card_declined');
      assert.equal(declined.status, 422);
      assert.equal(await stockOf(shop.admin, lamp.product.id), 4);
      const read = await shop.shopper<CartObject>('GET', `/v1/store/carts/${cart.id}`);
      assert.deepEqual([read.body.status, read.body.hold], ['open', null]);
      assert.equal((await hold(shop, cart.id)).status, 200);
      assert.equal(await stockOf(shop.admin, lamp.product.id), 0);
    });

    it('gives the units back when the lines change, and keeps them for other changes', async () => {
      const { shop, lamp } = await holdingShop(15, 10);
      const cart = await newCart(shop.shopper, { lines: [{ variant_id: lamp.variantId, quantity: 4 }] });
      assert.equal((await hold(shop, cart.id)).status, 200);
      assert.equal(await stockOf(shop.admin, lamp.product.id), 6);
      const email = await shop.shopper<CartObject>('PATCH', `/v1/store/carts/${cart.id}`, {
        body: { email: 'later@example.com' },
      });
      assert.notEqual(email.body.hold, null, 'an email changes no unit');
      assert.equal(await stockOf(shop.admin, lamp.product.id), 6);

      const added = await shop.shopper<CartObject>('POST', `/v1/store/carts/${cart.id}/lines`, {
        body: { variant_id: lamp.variantId, quantity: 1 },
      });
      assert.equal(added.status, 200, JSON.stringify(added.body));
      assert.equal(added.body.hold, null);
      assert.equal(await stockOf(shop.admin, lamp.product.id), 10);
      const again = await hold(shop, cart.id);
      assert.equal(again.status, 200);
      assert.equal(await stockOf(shop.admin, lamp.product.id), 5);
      const line = again.body.lines[0]?.id ?? '';
      const removed = await shop.shopper<CartObject>('DELETE', `/v1/store/carts/${cart.id}/lines/${line}`);
      assert.deepEqual([removed.status, removed.body.hold, removed.body.lines.length], [200, null, 0]);
      assert.equal(await stockOf(shop.admin, lamp.product.id), 10);
      const empty = await hold(shop, cart.id);
      assert.deepEqual(
        [empty.status, empty.body.code, empty.body.problems.map((p) => p.code)],
        [422, 'cart_not_ready', ['cart_empty']],
      );
    });

    it('holds at most 3 carts per buyer address at a store', async () => {
      const { shop, lamp } = await holdingShop(20, 100);
      const carts = await Promise.all(
        Array.from({ length: 5 }, () =>
          newCart(shop.shopper, { lines: [{ variant_id: lamp.variantId, quantity: 1 }] }),
        ),
      );
      const ids = carts.map((cart) => cart.id);
      for (const id of ids.slice(0, 3)) assert.equal((await hold(shop, id)).status, 200);
      const fourth = await hold(shop, ids[3] as string);
      assert.deepEqual(
        [fourth.status, fourth.body.code, fourth.body.max_holds],
        [409, 'too_many_holds', 3],
        JSON.stringify(fourth.body),
      );
      assert.equal(fourth.body.next_release_at, new Date(clock.now() + 20 * MINUTE).toISOString());
      assert.equal(await stockOf(shop.admin, lamp.product.id), 97);
      // Renewing one of the three is no fourth.
      assert.equal((await hold(shop, ids[0] as string)).status, 200);
      // Another address (a server-rendered shop names its shopper's) has its own three.
      const server = await shop.admin<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'Shop server', permissions: ['read:products'] },
      });
      const serverShop: Shop = { ...shop, shopper: client(ctx.app, server.body.key) };
      const elsewhere = await hold(serverShop, ids[3] as string, { 'x-buyer-ip': '203.0.113.7' });
      assert.equal(elsewhere.status, 200, JSON.stringify(elsewhere.body));
      const recorded = await ctx.deps.store.db
        .selectFrom('carts')
        .select(['id', 'hold_ip'])
        .where('id', 'in', ids.slice(0, 4))
        .execute();
      assert.deepEqual(
        recorded.map((r) => [r.id, r.hold_ip]).sort(),
        [
          [ids[0], '127.0.0.1'],
          [ids[1], '127.0.0.1'],
          [ids[2], '127.0.0.1'],
          [ids[3], '203.0.113.7'],
        ].sort(),
      );
      // Once a hold runs out, the address may hold another.
      clock.advance(21 * MINUTE);
      assert.equal((await hold(shop, ids[4] as string)).status, 200);
    });

    it('lets exactly 3 of 8 concurrent holds from one address through', async () => {
      const { shop, lamp } = await holdingShop(20, 100);
      const carts = await Promise.all(
        Array.from({ length: 8 }, () =>
          newCart(shop.shopper, { lines: [{ variant_id: lamp.variantId, quantity: 2 }] }),
        ),
      );
      const results = await Promise.all(carts.map((cart) => hold(shop, cart.id)));
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(
        statuses,
        [200, 200, 200, 409, 409, 409, 409, 409],
        JSON.stringify(results.map((r) => r.body)),
      );
      assert.equal(await stockOf(shop.admin, lamp.product.id), 94);
    });

    it('gives the 5 units of a product to exactly the carts that fit when holds race', async () => {
      const { shop, lamp } = await holdingShop(20, 5);
      const server = await shop.admin<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'Shop server', permissions: ['read:products'] },
      });
      const serverClient = client(ctx.app, server.body.key);
      const carts = await Promise.all(
        Array.from({ length: 8 }, () =>
          newCart(serverClient, { lines: [{ variant_id: lamp.variantId, quantity: 2 }] }),
        ),
      );
      // Each from its own address, so only the stock decides.
      const results = await Promise.all(
        carts.map((cart, i) =>
          serverClient<CartOrProblem>('POST', `/v1/store/carts/${cart.id}/hold`, {
            headers: { 'x-buyer-ip': `198.51.100.${i + 1}` },
          }),
        ),
      );
      const held = results.filter((r) => r.status === 200);
      assert.equal(held.length, 2, JSON.stringify(results.map((r) => [r.status, r.body.code])));
      for (const refused of results.filter((r) => r.status !== 200)) {
        assert.deepEqual([refused.status, refused.body.problems[0]?.code], [422, 'insufficient_stock']);
      }
      assert.equal(await stockOf(shop.admin, lamp.product.id), 1);
    });
  });
}
