import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openStore } from '../../db/store.js';
import {
  type ApiResponse,
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import { entityTag } from '../../http/etag.js';
import { caller, type ServerProcess, SKIP_IN_UNIT_RUN } from '../../../test/helpers/process.js';
import { twoServers } from '../../../test/helpers/two-servers.js';
import { ManualClock } from '../../lib/clock.js';
import type { CartObject } from './carts.schemas.js';
import { complete, newCart, openShop, product, type Shop } from './carts.test-kit.js';

/**
 * A shopper's cart read is answered from memory (carts.answers.ts) while nothing it was priced
 * from has changed, and never after: each kind of write that changes a priced cart (its lines and
 * members, a price, stock, a discount, a customer's use of one, a shipping or tax rate, the
 * settings, a write by another connection) and each instant that does (a discount starting or
 * ending, a hold running out, the cart expiring) is seen by the very next read, and a kept answer
 * is byte for byte what a fresh read answers. A fresh read is the store's own `GET /v1/carts/{id}`,
 * which is priced afresh at every read.
 */

const MINUTE = 60_000;
const TX = { line1: '1 Main St', city: 'Austin', state: 'TX', postal_code: '78701', country: 'US' };

for (const dialect of DIALECTS) {
  describe(`cart answers kept in memory (${dialect})`, () => {
    let ctx: TestContext;
    let clock: ManualClock;
    let shop: Shop;
    let tee: { product: { id: string }; variantId: string };
    let mug: { product: { id: string }; variantId: string };
    let discountId: string;
    let shippingId: string;
    let taxId: string;
    /** The carts service's reads of a cart (a kept answer makes none). */
    let priced = 0;

    before(async () => {
      clock = new ManualClock(Date.now());
      ctx = await createTestContext(dialect, { clock });
      shop = await openShop(ctx);
      tee = await product(shop.admin, { name: 'Tee', price: 2_000, stock: 50, weight_grams: 200 });
      mug = await product(shop.admin, { name: 'Mug', price: 1_200, stock: 50, weight_grams: 400 });
      const made = async (path: string, body: Record<string, unknown>): Promise<string> => {
        const res = await shop.admin<{ id: string }>('POST', path, { body });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body.id;
      };
      discountId = await made('/v1/discounts', { code: 'WELCOME10', type: 'percentage', value: 1_000 });
      shippingId = await made('/v1/shipping-rates', {
        name: 'Standard',
        countries: ['US'],
        price: 695,
        currency: 'USD',
      });
      taxId = await made('/v1/tax-rates', {
        name: 'Texas',
        country: 'US',
        state: 'TX',
        rate_bps: 625,
        inclusive: false,
        shipping_taxable: false,
      });
      const { carts } = ctx.deps;
      const read = carts.read;
      carts.read = (...args) => {
        priced += 1;
        return read(...args);
      };
    });
    after(() => ctx.close());

    /** A cart of two lines with a code, an address and an email, as the bench's. */
    async function shoppersCart(extra: Record<string, unknown> = {}): Promise<CartObject> {
      return newCart(shop.shopper, {
        email: `kim-${Math.random().toString(36).slice(2)}@example.com`,
        lines: [
          { variant_id: tee.variantId, quantity: 2 },
          { variant_id: mug.variantId, quantity: 1 },
        ],
        discount_codes: ['WELCOME10'],
        shipping_address: TX,
        ...extra,
      });
    }

    /**
     * The shopper's read of the cart; `kept` says whether it must, or must not, be a kept answer
     * (undefined: a refusal before the cart is read).
     */
    async function read(
      id: string,
      kept: boolean | undefined,
      headers: Record<string, string> = {},
    ): Promise<ApiResponse<CartObject>> {
      const before = priced;
      const res = await shop.shopper<CartObject>('GET', `/v1/store/carts/${id}`, { headers });
      if (kept !== undefined) {
        assert.equal(priced === before, kept, kept ? 'answered from memory' : 'priced afresh');
      }
      return res;
    }

    /** The shopper's read now, which must be byte for byte the cart priced afresh. */
    async function sameAsFresh(id: string, what: string): Promise<string> {
      const served = await shop.shopper<CartObject>('GET', `/v1/store/carts/${id}`);
      const fresh = await shop.admin<CartObject>('GET', `/v1/carts/${id}`);
      assert.equal(served.status, 200, served.raw.body);
      assert.equal(served.raw.body, fresh.raw.body, `after ${what}`);
      assert.equal(served.headers.etag, entityTag(fresh.raw.body), `after ${what}`);
      return served.raw.body;
    }

    it('answers a repeated read from memory, byte for byte, with its ETag and 304', async () => {
      const cart = await shoppersCart();
      const first = await read(cart.id, false);
      assert.equal(first.status, 200);
      assert.deepEqual(first.body.problems, []);
      const again = await read(cart.id, true);
      assert.equal(again.raw.body, first.raw.body);
      assert.equal(again.headers.etag, first.headers.etag);
      assert.equal(again.headers['content-type'], first.headers['content-type']);
      const notModified = await shop.shopper('GET', `/v1/store/carts/${cart.id}`, {
        headers: { 'if-none-match': String(first.headers.etag) },
      });
      assert.equal(notModified.status, 304);
      await sameAsFresh(cart.id, 'nothing');
      await read(cart.id, true);
    });

    it('sees every write that changes a priced cart at the very next read', async () => {
      const cart = await shoppersCart();
      const line = (await read(cart.id, false)).body.lines[0]?.id;
      const other = openStore({
        databaseUrl: ctx.config.databaseUrl,
        databaseSchema: ctx.config.databaseSchema,
        dataDir: ctx.config.dataDir,
      });
      const patch = async (path: string, body: Record<string, unknown>, as: Client = shop.admin) => {
        const res = await as('PATCH', path, { body });
        assert.equal(res.status, 200, `${path}: ${res.raw.body}`);
      };
      const steps: [string, () => Promise<unknown>][] = [
        [
          'a change of a line',
          () => patch(`/v1/store/carts/${cart.id}/lines/${line}`, { quantity: 3 }, shop.shopper),
        ],
        [
          'a new line',
          () =>
            shop.shopper('POST', `/v1/store/carts/${cart.id}/lines`, {
              body: { variant_id: mug.variantId, quantity: 1 },
            }),
        ],
        [
          'a change of the cart',
          () => patch(`/v1/store/carts/${cart.id}`, { shipping_rate_id: shippingId }, shop.shopper),
        ],
        [
          'a price',
          () => patch(`/v1/products/${tee.product.id}/variants/${tee.variantId}`, { price: 2_100 }),
        ],
        [
          'stock down to none',
          () => patch(`/v1/products/${mug.product.id}/variants/${mug.variantId}`, { stock: 0 }),
        ],
        [
          'stock back',
          () => patch(`/v1/products/${mug.product.id}/variants/${mug.variantId}`, { stock: 50 }),
        ],
        ['a discount', () => patch(`/v1/discounts/${discountId}`, { value: 1_500 })],
        ['a shipping rate', () => patch(`/v1/shipping-rates/${shippingId}`, { price: 795 })],
        ['a tax rate', () => patch(`/v1/tax-rates/${taxId}`, { rate_bps: 825 })],
        [
          'a new automatic discount',
          () =>
            shop.admin('POST', '/v1/discounts', {
              body: { automatic: true, type: 'free_shipping' },
            }),
        ],
        [
          'a write by another connection',
          () =>
            other.db
              .updateTable('product_variants')
              .set({ price: 2_200 })
              .where('id', '=', tee.variantId)
              .execute(),
        ],
      ];
      try {
        let shown = await sameAsFresh(cart.id, 'nothing');
        for (const [what, write] of steps) {
          await read(cart.id, true);
          await write();
          const now = await sameAsFresh(cart.id, what);
          assert.notEqual(now, shown, `${what} changed the cart`);
          shown = now;
        }
      } finally {
        await other.close();
      }
    });

    it('sees a change of the settings and of a product its cart does not hold apart', async () => {
      const cart = await shoppersCart();
      await read(cart.id, false);
      await read(cart.id, true);
      const settings = await shop.admin('PATCH', '/v1/settings', {
        body: { storefront: { abandoned_after_minutes: 90 } },
      });
      assert.equal(settings.status, 200, settings.raw.body);
      await read(cart.id, false);
      await read(cart.id, true);
      await product(shop.admin, { name: 'Unrelated', price: 100, stock: 1 });
      await read(cart.id, false);
      await sameAsFresh(cart.id, 'a product of another cart');
      // Another cart's change leaves this one's answer as it is.
      const second = await shoppersCart();
      await read(cart.id, true);
      const changed = await shop.shopper('PATCH', `/v1/store/carts/${second.id}`, {
        body: { email: 'other@example.com' },
      });
      assert.equal(changed.status, 200);
      await read(cart.id, true);
    });

    it("sees a discount used up by the same customer's order elsewhere", async () => {
      const discount = await shop.admin<{ id: string }>('POST', '/v1/discounts', {
        body: { code: 'ONCEEACH', type: 'percentage', value: 2_000, usage_limit_per_customer: 1 },
      });
      assert.equal(discount.status, 201);
      const cart = await shoppersCart({ email: 'once@example.com', discount_codes: ['ONCEEACH'] });
      assert.deepEqual(cart.problems, []);
      await read(cart.id, false);
      await read(cart.id, true);
      const order = await shop.admin('POST', '/v1/orders', {
        body: {
          items: [{ variant_id: mug.variantId, quantity: 1 }],
          customer: { email: 'once@example.com' },
          discount_codes: ['ONCEEACH'],
          payment_method: 'pm_card_visa',
        },
      });
      assert.equal(order.status, 201, order.raw.body);
      const body = JSON.parse(await sameAsFresh(cart.id, 'the order')) as CartObject;
      assert.deepEqual(
        body.problems.map((problem) => [problem.code, problem.reason]),
        [['discount_invalid', 'usage_limit_reached']],
      );
    });

    it('sees a discount start and end, a hold run out and the cart expire, by the clock alone', async () => {
      const now = clock.now();
      for (const [code, from, to] of [
        ['LATER', now + 10 * MINUTE, null],
        ['SOONOVER', null, now + 20 * MINUTE],
      ] as const) {
        const res = await shop.admin('POST', '/v1/discounts', {
          body: {
            code,
            type: 'fixed_amount',
            value: 100,
            currency: 'USD',
            combinable: true,
            starts_at: from === null ? null : new Date(from).toISOString(),
            ends_at: to === null ? null : new Date(to).toISOString(),
          },
        });
        assert.equal(res.status, 201, res.raw.body);
      }
      const hold = await shop.admin('PATCH', '/v1/settings', { body: { storefront: { hold_minutes: 30 } } });
      assert.equal(hold.status, 200);
      const cart = await shoppersCart({ discount_codes: ['LATER', 'SOONOVER'] });
      const held = await shop.shopper<CartObject>('POST', `/v1/store/carts/${cart.id}/hold`, { body: {} });
      assert.equal(held.status, 200, held.raw.body);
      const reasons = (body: string) =>
        (JSON.parse(body) as CartObject).problems.map((problem) => problem.reason ?? problem.code);

      assert.deepEqual(reasons(await sameAsFresh(cart.id, 'nothing')), ['not_started']);
      await read(cart.id, true);
      clock.advance(10 * MINUTE - 1);
      await read(cart.id, true);
      clock.advance(1);
      await read(cart.id, false);
      assert.deepEqual(reasons(await sameAsFresh(cart.id, 'the start')), []);
      clock.advance(10 * MINUTE - 1);
      await read(cart.id, true);
      clock.advance(1);
      await read(cart.id, false);
      assert.deepEqual(reasons(await sameAsFresh(cart.id, 'the end')), ['expired']);
      const holding = (await read(cart.id, true)).body.hold;
      assert.ok(holding !== null);
      clock.set(Date.parse(holding.expires_at));
      assert.equal((await read(cart.id, false)).body.hold, null, 'the hold ran out (no sweep has run)');
      await sameAsFresh(cart.id, 'the hold ran out');
      clock.set(Date.parse(cart.expires_at) - 1);
      assert.equal((await read(cart.id, true)).body.status, 'open');
      clock.advance(1);
      assert.equal((await read(cart.id, false)).body.status, 'expired');
      await sameAsFresh(cart.id, 'the cart expired');
    });

    it("serves a signed-in shopper only their own cart's answer, and a token only while it signs in", async () => {
      const password = 'a long enough password';
      const signIn = async (email: string) => {
        const made = await shop.shopper('POST', '/v1/store/customers', { body: { email, password } });
        assert.equal(made.status, 201, made.raw.body);
        const session = await shop.shopper<{ token: string }>('POST', '/v1/store/sessions', {
          body: { email, password },
        });
        assert.equal(session.status, 201);
        return { 'x-customer-token': session.body.token };
      };
      const ada = await signIn('ada-kept@example.com');
      const bob = await signIn('bob-kept@example.com');
      const cart = await shoppersCart({ email: undefined });
      await read(cart.id, false);
      await read(cart.id, true);
      // Ada's token makes the cart of nobody hers: a write, not a kept answer.
      const bound = await read(cart.id, false, ada);
      assert.equal(bound.body.email, 'ada-kept@example.com');
      assert.notEqual(bound.body.customer_id, null);
      await read(cart.id, false, ada);
      const kept = await read(cart.id, true, ada);
      assert.equal(kept.raw.body, bound.raw.body);
      await read(cart.id, true);
      assert.equal((await read(cart.id, false, bob)).status, 404, "another shopper's cart");
      assert.equal((await read(cart.id, undefined, { 'x-customer-token': 'cst_nobody' })).status, 401);
      const out = await shop.shopper('DELETE', '/v1/store/sessions/current', { headers: ada });
      assert.equal(out.status, 204, out.raw.body);
      assert.equal((await read(cart.id, undefined, ada)).status, 401, 'a token signed out');
      await read(cart.id, true);
    });

    it('keeps each tenant, version and cart apart, and a completed cart not at all', async () => {
      const cart = await shoppersCart();
      await read(cart.id, false);
      await read(cart.id, true);
      const elsewhere = await createTenant(ctx);
      const otherKey = await client(ctx.app, elsewhere.apiKey.key)<{ key: string }>('POST', '/v1/api-keys', {
        body: { type: 'publishable', name: 'Other shop', allowed_origins: [] },
      });
      const otherShopper = client(ctx.app, otherKey.body.key);
      assert.equal((await otherShopper('GET', `/v1/store/carts/${cart.id}`)).status, 404);
      // Another id of the same shape (its last character changed: an id may end in `x` itself).
      const unknown = `${cart.id.slice(0, -1)}${cart.id.endsWith('x') ? 'y' : 'x'}`;
      assert.equal((await read(unknown, false)).status, 404);

      const done = await complete(shop.shopper, cart);
      assert.equal(done.status, 201, JSON.stringify(done.body));
      assert.equal((await read(cart.id, false)).body.status, 'completed');
      await read(cart.id, false);
      await sameAsFresh(cart.id, 'its completion');
    });
  });
}

describe('the kept answers on their own', () => {
  it('are dropped by clear()', async () => {
    const ctx = await createTestContext('sqlite');
    try {
      const shop = await openShop(ctx);
      const { variantId } = await product(shop.admin, { name: 'Cap', price: 900, stock: 5 });
      const cart = await newCart(shop.shopper, { lines: [{ variant_id: variantId, quantity: 1 }] });
      let priced = 0;
      const read = ctx.deps.carts.read;
      ctx.deps.carts.read = (...args) => {
        priced += 1;
        return read(...args);
      };
      await shop.shopper('GET', `/v1/store/carts/${cart.id}`);
      await shop.shopper('GET', `/v1/store/carts/${cart.id}`);
      assert.equal(priced, 1);
      ctx.deps.cartAnswers.clear();
      await shop.shopper('GET', `/v1/store/carts/${cart.id}`);
      assert.equal(priced, 2);
    } finally {
      await ctx.close();
    }
  });
});

// On PostgreSQL the way several processes run; on SQLite two servers on one file, which the
// commit marks keep exact too.
for (const dialect of DIALECTS) {
  describe(`cart answers across two server processes (${dialect})`, { skip: SKIP_IN_UNIT_RUN }, () => {
    const two = twoServers(dialect);

    it('a read in one process after a write acknowledged by the other sees the write', async () => {
      const tenant = await two.deps.tenants.create({ name: 'Two carts', email: 'carts2@example.com' });
      const admin = caller(tenant.apiKey.key);
      const [a, b] = two.servers as [ServerProcess, ServerProcess];
      const made = await admin<{ id: string; variants: { id: string }[] }>(a, 'POST', '/v1/products', {
        name: 'Shared lamp',
        price: 4_000,
        stock: 30,
      });
      assert.equal(made.status, 201);
      const { id: productId, variants } = made.body as { id: string; variants: { id: string }[] };
      const variantId = variants[0]?.id ?? '';
      const discount = await admin<{ id: string }>(a, 'POST', '/v1/discounts', {
        code: 'SHARED5',
        type: 'percentage',
        value: 500,
      });
      assert.equal(discount.status, 201);
      const key = await admin<{ key: string }>(a, 'POST', '/v1/api-keys', {
        type: 'publishable',
        name: 'Two shops',
        allowed_origins: [],
      });
      const shopper = caller((key.body as { key: string }).key);
      const cart = await shopper<CartObject>(a, 'POST', '/v1/store/carts', {
        lines: [{ variant_id: variantId, quantity: 2 }],
        discount_codes: ['SHARED5'],
      });
      assert.equal(cart.status, 201);
      const cartId = (cart.body as CartObject).id;
      for (let round = 1; round <= 6; round++) {
        // Both processes hold the answer; one takes a write; the other answers it at once.
        const [reader, writer] = round % 2 ? [b, a] : [a, b];
        await shopper(reader, 'GET', `/v1/store/carts/${cartId}`);
        await shopper(reader, 'GET', `/v1/store/carts/${cartId}`);
        await shopper(writer, 'GET', `/v1/store/carts/${cartId}`);
        const write =
          round % 3 === 0
            ? await admin(writer, 'PATCH', `/v1/discounts/${(discount.body as { id: string }).id}`, {
                value: 500 + round * 100,
              })
            : await admin(writer, 'PATCH', `/v1/products/${productId}/variants/${variantId}`, {
                price: 4_000 + round * 10,
              });
        assert.equal(write.status, 200, JSON.stringify(write.body));
        const served = await shopper<CartObject>(reader, 'GET', `/v1/store/carts/${cartId}`);
        const fresh = await admin<CartObject>(writer, 'GET', `/v1/carts/${cartId}`);
        assert.deepEqual(served.body, fresh.body, `round ${round}`);
      }
      const last = await shopper<CartObject>(a, 'GET', `/v1/store/carts/${cartId}`);
      assert.equal((last.body as CartObject).lines[0]?.unit_price, 4_050);
    });
  });
}
