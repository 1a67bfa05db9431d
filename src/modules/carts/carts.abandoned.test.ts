import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, DIALECTS, type TestContext } from '../../../test/helpers/context.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import { ManualClock } from '../../lib/clock.js';
import type { CartObject } from './carts.schemas.js';
import { newCart, openShop, product, type Shop, stockOf } from './carts.test-kit.js';

/**
 * Abandoned and expired carts: `cart.abandoned` once per cart (however many sweeps run, at once
 * or one after the other) for an open cart with an email and a line left unchanged for the store's
 * `storefront.abandoned_after_minutes`, with the store's recovery link; again after the shopper
 * came back and left again; never for a cart without an email or a line. An open cart unchanged
 * for 30 days becomes `expired` and gives back its stock hold.
 */

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

interface AbandonedEvent {
  id: string;
  type: string;
  data: { object: CartObject; recovery_url: string | null };
}

for (const dialect of DIALECTS) {
  describe(`abandoned and expired carts (${dialect})`, () => {
    let ctx: TestContext;
    let clock: ManualClock;

    before(async () => {
      clock = new ManualClock(Date.parse('2027-02-01T10:00:00.000Z'));
      ctx = await createTestContext(dialect, { clock, poolSize: 12 });
    });
    after(() => ctx.close());

    async function shopWith(storefront: Record<string, unknown>) {
      const shop = await openShop(ctx);
      const set = await shop.admin('PATCH', '/v1/settings', { body: { storefront } });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      const lamp = await product(shop.admin, { name: 'Lamp', price: 2_500, stock: 50 });
      return { shop, lamp };
    }

    async function abandonedEvents(shop: Shop): Promise<AbandonedEvent[]> {
      const res = await shop.admin<Page<AbandonedEvent>>('GET', '/v1/events?type=cart.abandoned&limit=100');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data;
    }

    it('emits cart.abandoned once, with the recovery link, only for carts with an email and a line', async () => {
      const { shop, lamp } = await shopWith({
        abandoned_after_minutes: 30,
        recovery_url_template: 'https://shop.example.com/cart/{cart_id}?utm_source=recovery',
      });
      const line = [{ variant_id: lamp.variantId, quantity: 2 }];
      const left = await newCart(shop.shopper, { email: 'left@example.com', lines: line });
      const anonymous = await newCart(shop.shopper, { lines: line });
      const empty = await newCart(shop.shopper, { email: 'empty@example.com' });

      clock.advance(29 * MINUTE);
      await ctx.deps.cartSweeps.announceAbandoned();
      assert.deepEqual(await abandonedEvents(shop), [], 'not before its time');

      clock.advance(MINUTE);
      await Promise.all([
        ctx.deps.cartSweeps.announceAbandoned(),
        ctx.deps.cartSweeps.announceAbandoned(),
        ctx.deps.cartSweeps.announceAbandoned(),
      ]);
      await ctx.deps.cartSweeps.announceAbandoned();
      const events = await abandonedEvents(shop);
      assert.equal(events.length, 1, JSON.stringify(events));
      const [event] = events as [AbandonedEvent];
      assert.equal(event.data.object.id, left.id);
      assert.equal(event.data.recovery_url, `https://shop.example.com/cart/${left.id}?utm_source=recovery`);
      const now = await shop.shopper<CartObject>('GET', `/v1/store/carts/${left.id}`);
      assert.deepEqual(event.data.object, now.body, 'the cart as it stands');
      for (const id of [anonymous.id, empty.id]) {
        assert.ok(!events.some((e) => e.data.object.id === id));
      }
      // The store's list agrees.
      const listed = await shop.admin<Page<CartObject>>('GET', '/v1/carts?status=abandoned');
      assert.deepEqual(
        listed.body.data.map((c) => c.id),
        [left.id],
      );

      // The shopper comes back (a change) and leaves again: announced again, once.
      clock.advance(5 * MINUTE);
      const back = await shop.shopper<CartObject>('PATCH', `/v1/store/carts/${left.id}`, {
        body: { email: 'back@example.com' },
      });
      assert.equal(back.status, 200);
      await ctx.deps.cartSweeps.announceAbandoned();
      assert.equal((await abandonedEvents(shop)).length, 1);
      clock.advance(31 * MINUTE);
      await Promise.all([ctx.deps.cartSweeps.announceAbandoned(), ctx.deps.cartSweeps.announceAbandoned()]);
      const again = await abandonedEvents(shop);
      assert.equal(again.length, 2);
      assert.equal(again[0]?.data.object.email, 'back@example.com');
    });

    it('gives a null recovery_url without a template, and never announces a cart being completed or completed', async () => {
      const { shop, lamp } = await shopWith({ abandoned_after_minutes: 10 });
      const line = [{ variant_id: lamp.variantId, quantity: 1 }];
      const cart = await newCart(shop.shopper, { email: 'plain@example.com', lines: line });
      const bought = await newCart(shop.shopper, { email: 'bought@example.com', lines: line });
      const paid = await shop.shopper('POST', `/v1/store/carts/${bought.id}/complete`, {
        body: { payment_method: 'pm_card_visa', expected_total: bought.total },
      });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      clock.advance(11 * MINUTE);
      await ctx.deps.cartSweeps.announceAbandoned();
      const events = await abandonedEvents(shop);
      assert.deepEqual(
        events.map((e) => [e.data.object.id, e.data.recovery_url]),
        [[cart.id, null]],
      );
    });

    it('expires an open cart unchanged for 30 days, giving back its hold', async () => {
      const { shop, lamp } = await shopWith({ hold_minutes: 60 });
      const line = [{ variant_id: lamp.variantId, quantity: 5 }];
      const idle = await newCart(shop.shopper, { email: 'idle@example.com', lines: line });
      const held = await shop.shopper<CartObject>('POST', `/v1/store/carts/${idle.id}/hold`);
      assert.equal(held.status, 200, JSON.stringify(held.body));
      clock.advance(20 * DAY);
      const recent = await newCart(shop.shopper, { email: 'recent@example.com', lines: line });
      assert.equal(await stockOf(shop.admin, lamp.product.id), 45, 'the hold is not swept yet');

      clock.advance(10 * DAY);
      // Expiry comes first here: it gives the hold back itself, once.
      await Promise.all([ctx.deps.cartSweeps.expireIdle(), ctx.deps.cartSweeps.expireIdle()]);
      assert.equal(await stockOf(shop.admin, lamp.product.id), 50);
      await ctx.deps.cartSweeps.releaseHolds();
      assert.equal(await stockOf(shop.admin, lamp.product.id), 50);
      const rows = await ctx.deps.store.db
        .selectFrom('carts')
        .select(['id', 'status', 'hold_lines'])
        .where('id', 'in', [idle.id, recent.id])
        .orderBy('created')
        .execute();
      assert.deepEqual(rows, [
        { id: idle.id, status: 'expired', hold_lines: null },
        { id: recent.id, status: 'open', hold_lines: null },
      ]);
      const read = await shop.shopper<CartObject>('GET', `/v1/store/carts/${idle.id}`);
      assert.deepEqual([read.body.status, read.body.hold], ['expired', null]);
      const change = await shop.shopper<Problem>('POST', `/v1/store/carts/${idle.id}/hold`);
      assert.deepEqual([change.status, change.body.code], [409, 'cart_not_open']);
      const expired = await shop.admin<Page<CartObject>>('GET', '/v1/carts?status=expired');
      assert.deepEqual(
        expired.body.data.map((c) => c.id),
        [idle.id],
      );
      // An expired cart is never announced as abandoned.
      await ctx.deps.cartSweeps.announceAbandoned();
      const announced = (await abandonedEvents(shop)).map((e) => e.data.object.id);
      assert.deepEqual(announced, [recent.id]);
    });
  });
}
