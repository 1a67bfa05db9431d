import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import { ManualClock } from '../../lib/clock.js';
import type { CartObject } from './carts.schemas.js';
import { complete, newCart, openShop, product, type Shop, US_CA } from './carts.test-kit.js';

/**
 * Carts through the API: the shape the contract lists, the lifecycle of lines and members, what
 * stops an order listed as problems rather than refused, the limits, another store's cart, and
 * the store's list by status.
 */

const CART_KEYS = [
  'created',
  'currency',
  'customer_id',
  'discount_codes',
  'discount_total',
  'email',
  'expires_at',
  'hold',
  'id',
  'lines',
  'livemode',
  'order_id',
  'problems',
  'shipping_address',
  'shipping_rate_id',
  'shipping_rates',
  'shipping_total',
  'status',
  'subtotal',
  'tax_total',
  'total',
  'updated',
];
const LINE_KEYS = [
  'available',
  'discount',
  'id',
  'name',
  'product_id',
  'quantity',
  'sku',
  'subtotal',
  'tax',
  'total',
  'unit_price',
  'variant_id',
  'variant_title',
];

type CartOrProblem = CartObject & Problem & { problems: CartObject['problems'] };

for (const dialect of DIALECTS) {
  describe(`carts (${dialect})`, () => {
    let ctx: TestContext;
    let clock: ManualClock;
    let shop: Shop;
    let tee: { product: { id: string }; variantId: string };
    let mug: { product: { id: string }; variantId: string };

    before(async () => {
      clock = new ManualClock(Date.now());
      ctx = await createTestContext(dialect, { clock });
      shop = await openShop(ctx);
      tee = await product(shop.admin, {
        name: 'Tee',
        price: 2_000,
        stock: 50,
        sku: 'TEE-1',
        category: 'apparel',
      });
      mug = await product(shop.admin, { name: 'Mug', price: 1_250, stock: 3 });
    });
    after(() => ctx.close());

    it('makes a cart in the contract’s shape, priced, with a random id', async () => {
      const cart = await newCart(shop.shopper, {
        email: 'Ada@Example.com',
        lines: [
          { variant_id: tee.variantId, quantity: 2 },
          { variant_id: mug.variantId, quantity: 1 },
        ],
      });
      assert.deepEqual(Object.keys(cart).sort(), CART_KEYS);
      for (const line of cart.lines) assert.deepEqual(Object.keys(line).sort(), LINE_KEYS);
      assert.match(cart.id, /^cart_[0-9A-Za-z]{24}$/);
      assert.equal(cart.status, 'open');
      assert.equal(cart.currency, 'USD');
      assert.equal(cart.email, 'ada@example.com');
      assert.equal(cart.customer_id, null);
      assert.equal(cart.hold, null);
      assert.equal(cart.order_id, null);
      assert.deepEqual(
        cart.lines.map((l) => [l.name, l.sku, l.quantity, l.unit_price, l.subtotal, l.total, l.available]),
        [
          ['Tee', 'TEE-1', 2, 2_000, 4_000, 4_000, true],
          ['Mug', null, 1, 1_250, 1_250, 1_250, true],
        ],
      );
      assert.deepEqual(
        [cart.subtotal, cart.discount_total, cart.shipping_total, cart.tax_total, cart.total],
        [5_250, 0, 0, 0, 5_250],
      );
      assert.deepEqual(cart.problems, []);
      assert.equal(Date.parse(cart.expires_at) - Date.parse(cart.updated), 30 * 24 * 60 * 60 * 1000);
      const read = await shop.shopper<CartObject>('GET', `/v1/store/carts/${cart.id}`);
      assert.deepEqual(read.body, cart);
    });

    it('adds to a line, sets and removes lines, and changes its members', async () => {
      let cart = await newCart(shop.shopper, { lines: [{ variant_id: tee.variantId, quantity: 1 }] });
      const call = async (method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) => {
        const res = await shop.shopper<CartObject>(method, `/v1/store/carts/${cart.id}${path}`, {
          ...(body === undefined ? {} : { body }),
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body;
      };
      cart = await call('POST', '/lines', { variant_id: tee.variantId, quantity: 2 });
      assert.deepEqual(
        cart.lines.map((l) => [l.variant_id, l.quantity]),
        [[tee.variantId, 3]],
      );
      cart = await call('POST', '/lines', { variant_id: mug.variantId, quantity: 1 });
      const [teeLine, mugLine] = cart.lines;
      assert.ok(teeLine && mugLine);
      cart = await call('PATCH', `/lines/${mugLine.id}`, { quantity: 2 });
      assert.equal(cart.lines[1]?.quantity, 2);
      cart = await call('PATCH', `/lines/${teeLine.id}`, { quantity: 0 });
      assert.deepEqual(
        cart.lines.map((l) => l.id),
        [mugLine.id],
      );
      cart = await call('DELETE', `/lines/${mugLine.id}`);
      assert.deepEqual(cart.lines, []);
      assert.deepEqual(
        cart.problems.map((p) => p.code),
        ['cart_empty', 'email_required'],
      );

      cart = await call('PATCH', '', { email: 'grace@example.com', shipping_address: US_CA });
      assert.equal(cart.email, 'grace@example.com');
      assert.deepEqual(cart.shipping_address, US_CA);
      cart = await call('PATCH', '', { shipping_address: null, email: null });
      assert.deepEqual([cart.email, cart.shipping_address], [null, null]);
      const missing = await shop.shopper<Problem>('PATCH', `/v1/store/carts/${cart.id}/lines/cli_nope`, {
        body: { quantity: 1 },
      });
      assert.equal(missing.status, 404);
    });

    it('lists what would stop the order instead of refusing the change', async () => {
      const scarce = await product(shop.admin, { name: 'Scarce', price: 500, stock: 1 });
      await shop.admin('POST', '/v1/shipping-rates', {
        body: { name: 'Domestic', countries: ['US'], price: 700, currency: 'USD' },
      });
      const cart = await newCart(shop.shopper, {
        lines: [{ variant_id: scarce.variantId, quantity: 2 }],
        discount_codes: ['NOPE'],
        shipping_address: { line1: '1 Rue', city: 'Paris', country: 'FR' },
      });
      assert.deepEqual(
        cart.problems.map((p) => [p.code, p.line_id ?? null, p.reason ?? null]),
        [
          ['insufficient_stock', cart.lines[0]?.id, null],
          ['discount_invalid', null, 'unknown'],
          ['shipping_unavailable', null, null],
          ['email_required', null, null],
        ],
      );
      assert.equal(cart.lines[0]?.available, false);
      assert.equal(cart.lines[0]?.subtotal, 1_000, 'a line short of stock is priced as asked');
      assert.deepEqual(cart.discount_codes, ['NOPE']);
      assert.ok(!JSON.stringify(cart.problems).includes('"1"'), 'no stock count reaches the shopper');

      // The product archived, then its variant deleted: the line stays, costs nothing, and says so.
      const archived = await shop.admin('PATCH', `/v1/products/${scarce.product.id}`, {
        body: { status: 'archived' },
      });
      assert.equal(archived.status, 200, JSON.stringify(archived.body));
      const read = await shop.shopper<CartObject>('GET', `/v1/store/carts/${cart.id}`);
      assert.deepEqual(
        [
          read.body.lines[0]?.available,
          read.body.lines[0]?.total,
          read.body.lines[0]?.name,
          read.body.subtotal,
        ],
        [false, 0, 'Scarce', 0],
      );
      assert.equal(read.body.problems[0]?.code, 'variant_unavailable');
      await shop.admin('DELETE', `/v1/products/${scarce.product.id}`);
      const gone = await shop.shopper<CartObject>('GET', `/v1/store/carts/${cart.id}`);
      assert.deepEqual(
        [gone.body.lines[0]?.name, gone.body.lines[0]?.unit_price, gone.body.problems[0]?.code],
        ['Scarce', 0, 'variant_unavailable'],
      );
    });

    it('refuses an unknown variant or one not on sale, naming the field; holds 100 lines of 999 units', async () => {
      const draft = await product(shop.admin, { name: 'Draft', price: 100, stock: 5, status: 'draft' });
      for (const variantId of ['var_nope', draft.variantId]) {
        const res = await shop.shopper<Problem>('POST', '/v1/store/carts', {
          body: {
            lines: [
              { variant_id: tee.variantId, quantity: 1 },
              { variant_id: variantId, quantity: 1 },
            ],
          },
        });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.errors?.[0]?.field, 'lines[1].variant_id');
      }
      const cart = await newCart(shop.shopper, { lines: [{ variant_id: tee.variantId, quantity: 999 }] });
      const over = await shop.shopper<Problem>('POST', `/v1/store/carts/${cart.id}/lines`, {
        body: { variant_id: tee.variantId, quantity: 1 },
      });
      assert.deepEqual([over.status, over.body.errors?.[0]?.field], [400, 'quantity']);
      const big = await shop.shopper<Problem>('POST', `/v1/store/carts/${cart.id}/lines`, {
        body: { variant_id: tee.variantId, quantity: 1000 },
      });
      assert.deepEqual([big.status, big.body.errors?.[0]?.field], [400, 'quantity']);
      const merged = await shop.shopper<Problem>('POST', '/v1/store/carts', {
        body: {
          lines: [
            { variant_id: tee.variantId, quantity: 500 },
            { variant_id: tee.variantId, quantity: 500 },
          ],
        },
      });
      assert.deepEqual([merged.status, merged.body.errors?.[0]?.field], [400, 'lines[1].quantity']);

      // 100 one-variant products fill a cart; the 101st line is refused, the 100 stay.
      const many = await Promise.all(
        Array.from({ length: 101 }, (_, i) =>
          product(shop.admin, { name: `Item ${i}`, price: 100, stock: 10 }),
        ),
      );
      const full = await newCart(shop.shopper, {
        lines: many.slice(0, 100).map((p) => ({ variant_id: p.variantId, quantity: 1 })),
      });
      assert.equal(full.lines.length, 100);
      const extra = await shop.shopper<Problem>('POST', `/v1/store/carts/${full.id}/lines`, {
        body: { variant_id: many[100]?.variantId, quantity: 1 },
      });
      assert.deepEqual([extra.status, extra.body.errors?.[0]?.field], [400, 'variant_id']);
      const tooMany = await shop.shopper<Problem>('POST', '/v1/store/carts', {
        body: { lines: many.map((p) => ({ variant_id: p.variantId, quantity: 1 })) },
      });
      assert.equal(tooMany.status, 400);
      const again = await shop.shopper<CartObject>('GET', `/v1/store/carts/${full.id}`);
      assert.equal(again.body.lines.length, 100);
    });

    it('answers 404 for another store’s cart, and 409 for changes to a cart that is not open', async () => {
      const cart = await newCart(shop.shopper, {
        email: 'a@example.com',
        lines: [{ variant_id: tee.variantId, quantity: 1 }],
      });
      const other = await openShop(ctx);
      for (const [method, path, body] of [
        ['GET', '', undefined],
        ['PATCH', '', { email: 'x@example.com' }],
        ['POST', '/lines', { variant_id: tee.variantId, quantity: 1 }],
        ['PATCH', `/lines/${cart.lines[0]?.id}`, { quantity: 2 }],
        ['DELETE', `/lines/${cart.lines[0]?.id}`, undefined],
        ['POST', '/complete', { payment_method: 'pm_card_visa', expected_total: cart.total }],
      ] as const) {
        const res = await other.shopper<Problem>(method, `/v1/store/carts/${cart.id}${path}`, {
          ...(body === undefined ? {} : { body }),
        });
        assert.deepEqual([res.status, res.body.code], [404, 'not_found'], `${method} ${path}`);
      }
      const admin = await other.admin<Problem>('GET', `/v1/carts/${cart.id}`);
      assert.equal(admin.status, 404);

      const done = await complete(shop.shopper, cart);
      assert.equal(done.status, 201, JSON.stringify(done.body));
      for (const [method, path, body] of [
        ['PATCH', '', { email: 'x@example.com' }],
        ['POST', '/lines', { variant_id: tee.variantId, quantity: 1 }],
        ['PATCH', `/lines/${cart.lines[0]?.id}`, { quantity: 2 }],
        ['DELETE', `/lines/${cart.lines[0]?.id}`, undefined],
      ] as const) {
        const res = await shop.shopper<Problem>(method, `/v1/store/carts/${cart.id}${path}`, {
          ...(body === undefined ? {} : { body }),
        });
        assert.deepEqual([res.status, res.body.code], [409, 'cart_not_open'], `${method} ${path}`);
      }
      // Thirty days unchanged: expired, and as closed to changes.
      const stale = await newCart(shop.shopper, { lines: [{ variant_id: tee.variantId, quantity: 1 }] });
      clock.advance(30 * 24 * 60 * 60 * 1000);
      try {
        const read = await shop.shopper<CartObject>('GET', `/v1/store/carts/${stale.id}`);
        assert.equal(read.body.status, 'expired');
        const change = await shop.shopper<CartOrProblem>('PATCH', `/v1/store/carts/${stale.id}`, {
          body: { email: 'late@example.com' },
        });
        assert.deepEqual([change.status, change.body.code], [409, 'cart_not_open']);
      } finally {
        clock.advance(-30 * 24 * 60 * 60 * 1000);
      }
    });

    it('lists the store’s carts by status, abandoned after an hour unchanged, with read:orders', async () => {
      const tenant = await createTenant(ctx);
      const admin = client(ctx.app, tenant.apiKey.key);
      const item = await product(admin, { name: 'Lamp', price: 900, stock: 100 });
      const key = await admin<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'Shop server', permissions: ['read:products', 'write:orders'] },
      });
      const shopper = client(ctx.app, key.body.key);
      const line = [{ variant_id: item.variantId, quantity: 1 }];
      const completed = await newCart(shopper, { email: 'c@example.com', lines: line });
      assert.equal((await complete(shopper, completed)).status, 201);
      clock.advance(1);
      const expired = await newCart(shopper, { email: 'e@example.com', lines: line });
      clock.advance(29 * 24 * 60 * 60 * 1000);
      const abandoned = await newCart(shopper, { email: 'a@example.com', lines: line });
      clock.advance(1);
      const noEmail = await newCart(shopper, { lines: line });
      clock.advance(1);
      const empty = await newCart(shopper, { email: 'x@example.com' });
      clock.advance(24 * 60 * 60 * 1000 + 61 * 60 * 1000);
      const fresh = await newCart(shopper, { email: 'f@example.com', lines: line });
      try {
        const list = async (status?: string) => {
          const res = await admin<Page<CartObject>>('GET', `/v1/carts${status ? `?status=${status}` : ''}`);
          assert.equal(res.status, 200, JSON.stringify(res.body));
          return res.body;
        };
        const ids = (page: Page<CartObject>) => page.data.map((c) => c.id);
        assert.deepEqual(ids(await list('completed')), [completed.id]);
        assert.deepEqual(ids(await list('expired')), [expired.id]);
        assert.deepEqual(ids(await list('abandoned')), [abandoned.id]);
        assert.deepEqual(ids(await list('open')), [fresh.id, empty.id, noEmail.id, abandoned.id]);
        const all = await list();
        assert.equal(all.total, 6);
        assert.deepEqual(
          all.data.map((c) => c.status),
          ['open', 'open', 'open', 'open', 'expired', 'completed'],
        );
        const completedShown = all.data[5] as CartObject;
        assert.equal(completedShown.order_id?.startsWith('ord_'), true);
        const one = await admin<CartObject>('GET', `/v1/carts/${abandoned.id}`);
        assert.equal(one.body.id, abandoned.id);
        const paged = await admin<Page<CartObject>>('GET', '/v1/carts?limit=4');
        const next = await admin<Page<CartObject>>(
          'GET',
          `/v1/carts?limit=4&cursor=${paged.body.next_cursor}`,
        );
        assert.deepEqual([...ids(paged.body), ...ids(next.body)], ids(all));

        const reader = await admin<{ key: string }>('POST', '/v1/api-keys', {
          body: { name: 'No orders', permissions: ['read:products'] },
        });
        const refused = await client(ctx.app, reader.body.key)<Problem>('GET', '/v1/carts');
        assert.deepEqual([refused.status, refused.body.code], [403, 'insufficient_permissions']);
      } finally {
        clock.advance(-(30 * 24 * 60 * 60 * 1000 + 61 * 60 * 1000 + 3));
      }
    });
  });
}
