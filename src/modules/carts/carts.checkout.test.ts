import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { client, createTestContext, DIALECTS, type TestContext } from '../../../test/helpers/context.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import { ManualClock } from '../../lib/clock.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import {
  type ChargeInput,
  createSandboxProvider,
  type PaymentProvider,
} from '../orders/payments.provider.js';
import { CHECKOUT_LEASE_MS } from './carts.checkout.js';
import type { CartObject, CartProblem } from './carts.schemas.js';
import { complete, count, newCart, openShop, product, type Shop, stockOf, US_CA } from './carts.test-kit.js';

/**
 * Completing carts: one paid order per cart, however many completions race for it; stock that
 * goes to exactly as many carts as it has units; a total that moved, a cart with problems and a
 * declined card refused with nothing taken; a completion a crash left half done finished by the
 * sweep, charged once; and the order's new members hidden from a tenant pinned to 2026-12-15.
 */

type Refusal = Problem & { cart?: CartObject; problems?: CartProblem[]; failure_code?: string };

/** The members of an order in version 2026-12-15 (release v2.5), exactly. */
const ORDER_KEYS_2026_12_15 = [
  'carrier',
  'cancelled_at',
  'created',
  'currency',
  'customer',
  'delivered_at',
  'discount_total',
  'discounts',
  'id',
  'items',
  'metadata',
  'paid_at',
  'payment',
  'refundable_amount',
  'refunded_amount',
  'refunded_at',
  'refunds',
  'restocked',
  'shipped_at',
  'shipping',
  'shipping_address',
  'shipping_total',
  'status',
  'subtotal',
  'tax_total',
  'taxes',
  'total',
  'tracking_number',
  'updated',
].sort();

/**
 * The sandbox, with a fault injected: the charge goes through at the "provider", and then the
 * answer is lost (`lose`): what a process killed between the charge and its record leaves.
 */
class FlakyProvider implements PaymentProvider {
  readonly name = 'sandbox';
  private readonly sandbox = createSandboxProvider();
  readonly charges: ChargeInput[] = [];
  lose = 0;
  accepts = (method: string) => this.sandbox.accepts(method);
  describeMethods = () => this.sandbox.describeMethods();
  refund = this.sandbox.refund.bind(this.sandbox);
  async charge(input: ChargeInput) {
    this.charges.push(input);
    const result = await this.sandbox.charge(input);
    if (this.lose > 0) {
      this.lose -= 1;
      throw new Error('connection reset after the charge');
    }
    return result;
  }
}

for (const dialect of DIALECTS) {
  describe(`cart completion (${dialect})`, () => {
    let ctx: TestContext;
    let clock: ManualClock;
    let provider: FlakyProvider;
    let shop: Shop;

    before(async () => {
      clock = new ManualClock(Date.now());
      provider = new FlakyProvider();
      ctx = await createTestContext(dialect, { clock, paymentProvider: provider, poolSize: 12 });
      shop = await openShop(ctx);
    });
    after(() => ctx.close());

    it('makes one paid order from the cart, and answers it again for a completed cart', async () => {
      const lamp = await product(shop.admin, { name: 'Lamp', price: 4_000, stock: 20 });
      const cart = await newCart(shop.shopper, {
        email: 'ada@example.com',
        lines: [{ variant_id: lamp.variantId, quantity: 2 }],
      });
      const first = await complete(shop.shopper, cart);
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const order = first.body;
      assert.deepEqual(
        [order.status, order.total, order.source, order.cart_id, order.payment?.status, order.customer.email],
        ['paid', 8_000, 'storefront', cart.id, 'succeeded', 'ada@example.com'],
      );
      const again = await complete(shop.shopper, cart);
      assert.deepEqual([again.status, again.body.id], [200, order.id]);
      const read = await shop.shopper<CartObject>('GET', `/v1/store/carts/${cart.id}`);
      assert.deepEqual(
        [read.body.status, read.body.order_id, read.body.total, read.body.problems],
        ['completed', order.id, 8_000, []],
      );
      assert.equal(await stockOf(shop.admin, lamp.product.id), 18);
      const events = await shop.admin<Page<{ type: string; data: { object: OrderObject } }>>(
        'GET',
        '/v1/events?limit=100',
      );
      const ofOrder = events.body.data.filter((e) => e.data.object.id === order.id).map((e) => e.type);
      assert.deepEqual(ofOrder.sort(), ['order.created', 'order.paid']);
      for (const event of events.body.data.filter((e) => e.data.object.id === order.id)) {
        assert.deepEqual([event.data.object.source, event.data.object.cart_id], ['storefront', cart.id]);
      }
      const customers = await shop.admin<Page<{ email: string; orders_count: number }>>(
        'GET',
        '/v1/customers?q=ada@example.com',
      );
      assert.deepEqual(
        customers.body.data.map((c) => [c.email, c.orders_count]),
        [['ada@example.com', 1]],
      );
    });

    it('makes one order of 20 concurrent completions of one cart', async () => {
      const lamp = await product(shop.admin, { name: 'Desk lamp', price: 3_000, stock: 50 });
      const cart = await newCart(shop.shopper, {
        email: 'race@example.com',
        lines: [{ variant_id: lamp.variantId, quantity: 3 }],
      });
      const ordersBefore = await count(ctx, 'orders', shop.tenantId);
      const results = await Promise.all(Array.from({ length: 20 }, () => complete(shop.shopper, cart)));
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(
        statuses,
        [...Array<number>(19).fill(200), 201].sort(),
        JSON.stringify(results.map((r) => r.body)),
      );
      assert.equal(new Set(results.map((r) => r.body.id)).size, 1);
      assert.equal(await count(ctx, 'orders', shop.tenantId), ordersBefore + 1);
      const payments = await ctx.deps.store.db
        .selectFrom('payments')
        .select('id')
        .where('order_id', '=', results[0]?.body.id ?? '')
        .execute();
      assert.equal(payments.length, 1);
      assert.equal(await stockOf(shop.admin, lamp.product.id), 47);
    });

    it('gives 10 units to exactly 10 of 30 carts racing for them; stock ends at 0', async () => {
      const last = await product(shop.admin, { name: 'Last ten', price: 1_500, stock: 10 });
      const carts = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          newCart(shop.shopper, {
            email: `buyer${i}@example.com`,
            lines: [{ variant_id: last.variantId, quantity: 1 }],
          }),
        ),
      );
      const results = await Promise.all(carts.map((cart) => complete(shop.shopper, cart)));
      const won = results.filter((r) => r.status === 201);
      assert.equal(won.length, 10, JSON.stringify(results.map((r) => r.status)));
      for (const lost of results.filter((r) => r.status !== 201)) {
        const body = lost.body as unknown as Refusal;
        assert.deepEqual(
          [lost.status, body.code, body.problems?.[0]?.code],
          [422, 'cart_not_ready', 'insufficient_stock'],
        );
      }
      assert.equal(await stockOf(shop.admin, last.product.id), 0);
      const made = await ctx.deps.store.db
        .selectFrom('order_items')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('variant_id', '=', last.variantId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(made.n), 10);
      // The losers are still open, with the problem listed.
      const loser = carts[results.findIndex((r) => r.status !== 201)] as CartObject;
      const read = await shop.shopper<CartObject>('GET', `/v1/store/carts/${loser.id}`);
      assert.deepEqual([read.body.status, read.body.problems[0]?.code], ['open', 'insufficient_stock']);
    });

    it('refuses a total that moved (409 cart_changed, with the cart) and a cart with problems (422)', async () => {
      const vase = await product(shop.admin, { name: 'Vase', price: 2_500, stock: 5 });
      const cart = await newCart(shop.shopper, {
        email: 'vase@example.com',
        lines: [{ variant_id: vase.variantId, quantity: 1 }],
      });
      const repriced = await shop.admin(
        'PATCH',
        `/v1/products/${vase.product.id}/variants/${vase.variantId}`,
        {
          body: { price: 2_900 },
        },
      );
      assert.equal(repriced.status, 200, JSON.stringify(repriced.body));
      const changed = await complete(shop.shopper, cart);
      const body = changed.body as unknown as Refusal;
      assert.deepEqual([changed.status, body.code, body.cart?.total], [409, 'cart_changed', 2_900]);
      const now = await shop.shopper<CartObject>('GET', `/v1/store/carts/${cart.id}`);
      // The cart the refusal holds is the cart as read, but for the answer's own `livemode`.
      assert.deepEqual({ ...body.cart, livemode: true }, now.body);
      assert.equal(await stockOf(shop.admin, vase.product.id), 5);

      const noEmail = await newCart(shop.shopper, { lines: [{ variant_id: vase.variantId, quantity: 1 }] });
      const notReady = await complete(shop.shopper, noEmail);
      const refusal = notReady.body as unknown as Refusal;
      assert.deepEqual(
        [notReady.status, refusal.code, refusal.problems?.map((p) => p.code)],
        [422, 'cart_not_ready', ['email_required']],
      );
      const done = await complete(shop.shopper, now.body);
      assert.equal(done.status, 201, JSON.stringify(done.body));
    });

    it('leaves the cart open with nothing taken when the card is declined', async () => {
      const rug = await product(shop.admin, { name: 'Rug', price: 10_000, stock: 4 });
      const discount = await shop.admin<{ id: string }>('POST', '/v1/discounts', {
        body: { code: 'RUG10', type: 'percentage', value: 1_000, usage_limit: 1 },
      });
      const cart = await newCart(shop.shopper, {
        email: 'declined@example.com',
        lines: [{ variant_id: rug.variantId, quantity: 2 }],
        discount_codes: ['rug10'],
      });
      assert.equal(cart.total, 18_000);
      const [orders, payments] = [
        await count(ctx, 'orders', shop.tenantId),
        await count(ctx, 'payments', shop.tenantId),
      ];
      const declined = await complete(shop.shopper, cart, 'pm_card_declined');
      const body = declined.body as unknown as Refusal;
      assert.deepEqual(
        [declined.status, body.code, body.failure_code],
        [422, 'payment_failed', 'card_declined'],
      );
      assert.equal(await count(ctx, 'orders', shop.tenantId), orders);
      assert.equal(await count(ctx, 'payments', shop.tenantId), payments);
      assert.equal(await stockOf(shop.admin, rug.product.id), 4);
      const used = await shop.admin<{ times_used: number }>('GET', `/v1/discounts/${discount.body.id}`);
      assert.equal(used.body.times_used, 0);
      const read = await shop.shopper<CartObject>('GET', `/v1/store/carts/${cart.id}`);
      assert.deepEqual([read.body.status, read.body.total, read.body.problems], ['open', 18_000, []]);
      const changed = await shop.shopper<CartObject>('PATCH', `/v1/store/carts/${cart.id}`, {
        body: { shipping_address: US_CA },
      });
      assert.equal(changed.status, 200, 'the cart takes changes again');

      const paid = await complete(shop.shopper, changed.body);
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      assert.equal(await stockOf(shop.admin, rug.product.id), 2);
      const after = await shop.admin<{ times_used: number }>('GET', `/v1/discounts/${discount.body.id}`);
      assert.equal(after.body.times_used, 1);
    });

    it('needs write:orders of a secret key, not of a publishable one', async () => {
      const cup = await product(shop.admin, { name: 'Cup', price: 800, stock: 10 });
      const key = async (permissions: string[]) =>
        client(
          ctx.app,
          (
            await shop.admin<{ key: string }>('POST', '/v1/api-keys', {
              body: { name: 'Server', permissions },
            })
          ).body.key,
        );
      const reader = await key(['read:products']);
      const cart = await newCart(reader, {
        email: 'srv@example.com',
        lines: [{ variant_id: cup.variantId, quantity: 1 }],
      });
      const refused = await complete(reader, cart);
      const body = refused.body as unknown as Problem;
      assert.deepEqual(
        [refused.status, body.code, body.required_permission],
        [403, 'insufficient_permissions', 'write:orders'],
      );
      assert.equal(await stockOf(shop.admin, cup.product.id), 10);
      const writer = await key(['read:products', 'write:orders']);
      assert.equal((await complete(writer, cart)).status, 201);
    });

    it('finishes a completion whose answer was lost: charged once, one order', async () => {
      const clock_ = clock;
      const chair = await product(shop.admin, { name: 'Chair', price: 12_000, stock: 3 });
      const cart = await newCart(shop.shopper, {
        email: 'crash@example.com',
        lines: [{ variant_id: chair.variantId, quantity: 1 }],
      });
      const charged = provider.charges.length;
      provider.lose = 1;
      const lost = await complete(shop.shopper, cart);
      assert.equal(lost.status, 503, JSON.stringify(lost.body));
      assert.equal(provider.charges.length, charged + 1);
      // Held meanwhile: no order, the unit taken, no change accepted.
      assert.equal(await stockOf(shop.admin, chair.product.id), 2);
      const change = await shop.shopper<Problem>('PATCH', `/v1/store/carts/${cart.id}`, {
        body: { email: 'x@example.com' },
      });
      assert.deepEqual([change.status, change.body.code], [409, 'cart_not_open']);
      assert.equal(await ctx.deps.cartCheckout.settleStaleCheckouts(), 0, 'its lease is not over yet');

      clock_.advance(CHECKOUT_LEASE_MS + 1);
      assert.equal(await ctx.deps.cartCheckout.settleStaleCheckouts(), 1);
      assert.equal(await ctx.deps.cartCheckout.settleStaleCheckouts(), 0);
      const payments = provider.charges.slice(charged).map((c) => c.paymentId);
      assert.equal(new Set(payments).size, 1, 'asked again with the same payment id');
      const answer = await complete(shop.shopper, cart);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual([answer.body.status, answer.body.payment?.id], ['paid', payments[0]]);
      assert.equal(await stockOf(shop.admin, chair.product.id), 2);

      // Lost again, then taken over by the shopper's own retry once the lease is over.
      const second = await newCart(shop.shopper, {
        email: 'crash2@example.com',
        lines: [{ variant_id: chair.variantId, quantity: 1 }],
      });
      provider.lose = 1;
      assert.equal((await complete(shop.shopper, second)).status, 503);
      clock_.advance(CHECKOUT_LEASE_MS + 1);
      const retried = await complete(shop.shopper, second);
      assert.deepEqual([retried.status, retried.body.status], [201, 'paid']);
      assert.equal(await stockOf(shop.admin, chair.product.id), 1);
      const ordersOfCart = await ctx.deps.store.db
        .selectFrom('orders')
        .select('id')
        .where('cart_id', 'in', [cart.id, second.id])
        .execute();
      assert.equal(ordersOfCart.length, 2);
    });

    it('hides source and cart_id from a tenant pinned to 2026-12-15', async () => {
      const pinned = await openShop(ctx, { apiVersion: '2026-12-15' });
      const pen = await product(pinned.admin, { name: 'Pen', price: 300, stock: 10 });
      const cart = await newCart(pinned.shopper, {
        email: 'old@example.com',
        lines: [{ variant_id: pen.variantId, quantity: 1 }],
      });
      const done = await complete(pinned.shopper, cart);
      assert.equal(done.status, 201, JSON.stringify(done.body));
      assert.deepEqual(Object.keys(done.body).sort(), ORDER_KEYS_2026_12_15);
      const read = await pinned.admin<Record<string, unknown>>('GET', `/v1/orders/${done.body.id}`);
      assert.deepEqual(Object.keys(read.body).sort(), ORDER_KEYS_2026_12_15);
      const latest = await pinned.admin<OrderObject>('GET', `/v1/orders/${done.body.id}`, {
        headers: { 'x-service-version': '2027-01-20' },
      });
      assert.deepEqual([latest.body.source, latest.body.cart_id], ['storefront', cart.id]);
      const events = await pinned.admin<Page<{ type: string; data: { object: Record<string, unknown> } }>>(
        'GET',
        '/v1/events?type=order.created',
      );
      const object = events.body.data[0]?.data.object ?? {};
      assert.equal(object.id, done.body.id);
      assert.ok(!('source' in object) && !('cart_id' in object));
      const api = await pinned.admin<Record<string, unknown>>('POST', '/v1/orders', {
        body: { items: [{ variant_id: pen.variantId, quantity: 1 }], customer: { email: 'api@example.com' } },
        headers: { 'x-service-version': '2027-01-20' },
      });
      assert.deepEqual([api.body.source, api.body.cart_id], ['api', null]);
    });
  });
}
