import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { Problem } from '../../../test/helpers/responses.js';
import type { ProductObject } from '../products/products.schemas.js';
import type { OrderObject } from './orders.schemas.js';

/**
 * Orders priced through the API: discounts by code and automatic, shipping rates, tax rates, the
 * preview, usage limits under concurrency, and what a tenant pinned to an older version sees.
 */

type Refusal = Problem & { reason?: string; code?: string };

const US_CA = { line1: '1 Main St', city: 'Los Angeles', state: 'CA', country: 'US' };
const DE = { line1: 'Hauptstr. 1', city: 'Berlin', country: 'DE' };
const FR = { line1: '1 rue de Rivoli', city: 'Paris', country: 'FR' };

/** The figures an order's lines and totals must satisfy, whatever its discounts, shipping and tax. */
function assertAddsUp(order: OrderObject): void {
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  assert.equal(sum(order.items.map((item) => item.total)), order.subtotal);
  const waived = sum(order.discounts.filter((d) => d.type === 'free_shipping').map((d) => d.amount));
  assert.equal(sum(order.items.map((item) => item.discount)) + waived, order.discount_total);
  assert.equal(sum(order.discounts.map((d) => d.amount)), order.discount_total);
  assert.equal(sum(order.taxes.map((t) => t.amount)), order.tax_total);
  const exclusive = order.taxes.some((t) => !t.inclusive) ? order.tax_total : 0;
  assert.equal(order.total, order.subtotal - order.discount_total + order.shipping_total + exclusive);
  assert.ok(order.total >= 0);
  for (const item of order.items) assert.ok(item.discount <= item.total);
}

for (const dialect of DIALECTS) {
  describe(`order pricing (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let shirt: ProductObject;
    let mug: ProductObject;

    const create = async <T = Record<string, unknown>>(path: string, body: Record<string, unknown>) => {
      const res = await api<T>('POST', path, { body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };
    const stockOf = async (id: string) => (await api<ProductObject>('GET', `/v1/products/${id}`)).body.stock;
    const count = async (table: 'orders' | 'events' | 'customers') => {
      const row = await ctx.deps.store.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    };
    const timesUsed = async (id: string) =>
      (await api<{ times_used: number }>('GET', `/v1/discounts/${id}`)).body.times_used;

    before(async () => {
      ctx = await createTestContext(dialect);
      api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      shirt = await create<ProductObject>('/v1/products', {
        name: 'Shirt',
        price: 2000,
        stock: 1000,
        category: 'apparel',
      });
      mug = await create<ProductObject>('/v1/products', {
        name: 'Mug',
        price: 1250,
        stock: 1000,
        category: 'kitchen',
      });
      await create('/v1/discounts', { code: 'WELCOME10', type: 'percentage', value: 1000 });
      await create('/v1/discounts', { code: 'FREESHIP', type: 'free_shipping' });
      await create('/v1/discounts', {
        code: 'MUGS5',
        type: 'fixed_amount',
        value: 500,
        currency: 'USD',
        applies_to: { categories: ['kitchen'] },
      });
      await create('/v1/shipping-rates', {
        name: 'Standard',
        countries: ['US'],
        price: 700,
        currency: 'USD',
        free_over: 10_000,
      });
      await create('/v1/shipping-rates', { name: 'DHL', countries: ['DE'], price: 900, currency: 'USD' });
      await create('/v1/tax-rates', {
        name: 'California',
        country: 'US',
        state: 'CA',
        rate_bps: 725,
        inclusive: false,
        shipping_taxable: true,
      });
      await create('/v1/tax-rates', {
        name: 'MwSt',
        country: 'DE',
        rate_bps: 1900,
        inclusive: true,
        shipping_taxable: true,
      });
    });
    after(() => ctx.close());

    it('prices a code, shipping and exclusive tax to the minor unit', async () => {
      const order = await create<OrderObject>('/v1/orders', {
        items: [
          { product_id: shirt.id, quantity: 2 },
          { product_id: mug.id, quantity: 1 },
        ],
        customer: { email: 'ann@example.com' },
        shipping_address: US_CA,
        discount_codes: ['welcome10'],
      });
      // 5250 less 10% (525, spread 400 + 125), shipping 700, tax 7.25% per line after discount
      // (261 + 81.5625 -> 82) and on shipping (50.75 -> 51).
      assert.deepEqual(
        [order.subtotal, order.discount_total, order.shipping_total, order.tax_total, order.total],
        [5250, 525, 700, 394, 5819],
      );
      assert.deepEqual(
        order.items.map((item) => [item.total, item.discount, item.tax]),
        [
          [4000, 400, 261],
          [1250, 125, 82],
        ],
      );
      assert.deepEqual(
        order.discounts.map((d) => [d.code, d.type, d.amount]),
        [['WELCOME10', 'percentage', 525]],
      );
      assert.deepEqual(
        [order.shipping?.name, order.shipping?.amount, order.taxes.map((t) => [t.name, t.amount])],
        ['Standard', 700, [['California', 394]]],
      );
      assertAddsUp(order);
      const read = (await api<OrderObject>('GET', `/v1/orders/${order.id}`)).body;
      assert.deepEqual(read, order);
    });

    it('extracts an inclusive tax without changing the total, and waives shipping with a code', async () => {
      const order = await create<OrderObject>('/v1/orders', {
        items: [{ product_id: shirt.id, quantity: 1 }],
        customer: { email: 'bert@example.com' },
        shipping_address: DE,
      });
      // 2000 contains 2000 - round(2000 / 1.19) = 319; shipping 900 contains 144.
      assert.deepEqual(
        [order.subtotal, order.shipping_total, order.tax_total, order.total],
        [2000, 900, 463, 2900],
      );
      assertAddsUp(order);

      const free = await create<OrderObject>('/v1/orders', {
        items: [{ product_id: mug.id, quantity: 2 }],
        customer: { email: 'bert@example.com' },
        shipping_address: US_CA,
        discount_codes: ['FREESHIP', 'MUGS5'],
      });
      // 2500 less 500 on the mugs; shipping 700 waived; tax on 2000 only (145), none on shipping.
      assert.deepEqual(
        [free.subtotal, free.discount_total, free.shipping_total, free.tax_total, free.total],
        [2500, 1200, 700, 145, 2145],
      );
      assert.deepEqual(free.discounts.map((d) => `${d.code}:${d.amount}`).sort(), [
        'FREESHIP:700',
        'MUGS5:500',
      ]);
      assertAddsUp(free);
    });

    it('gives free shipping over the threshold, and no shipping or tax without an address', async () => {
      const big = await create<OrderObject>('/v1/orders', {
        items: [{ product_id: shirt.id, quantity: 5 }],
        customer: { email: 'cleo@example.com' },
        shipping_address: US_CA,
      });
      assert.deepEqual([big.shipping?.amount, big.shipping_total, big.tax_total], [0, 0, 725]);
      const digital = await create<OrderObject>('/v1/orders', {
        items: [{ product_id: shirt.id, quantity: 1 }],
        customer: { email: 'cleo@example.com' },
      });
      assert.deepEqual(
        [digital.shipping, digital.taxes, digital.total, digital.discount_total],
        [null, [], 2000, 0],
      );
    });

    it('ships at the rate the buyer names, else the cheapest that serves the address', async () => {
      const express = await create<{ id: string }>('/v1/shipping-rates', {
        name: 'Express',
        countries: ['US'],
        price: 1500,
        currency: 'USD',
      });
      const german = (
        await api<{ data: { id: string; name: string }[] }>('GET', '/v1/shipping-rates')
      ).body.data.find((rate) => rate.name === 'DHL');
      const body = (extra: Record<string, unknown>) => ({
        items: [{ product_id: mug.id, quantity: 1 }],
        customer: { email: 'ship@example.com' },
        ...extra,
      });
      const cheapest = await create<OrderObject>('/v1/orders', body({ shipping_address: US_CA }));
      assert.deepEqual([cheapest.shipping?.name, cheapest.shipping_total], ['Standard', 700]);
      const chosen = await create<OrderObject>(
        '/v1/orders',
        body({ shipping_address: US_CA, shipping_rate_id: express.id }),
      );
      assert.deepEqual([chosen.shipping?.rate_id, chosen.shipping_total], [express.id, 1500]);
      assertAddsUp(chosen);

      const before = await count('orders');
      const elsewhere = await api<Refusal>('POST', '/v1/orders', {
        body: body({ shipping_address: US_CA, shipping_rate_id: german?.id }),
      });
      assert.deepEqual([elsewhere.status, elsewhere.body.code], [422, 'shipping_unavailable']);
      const nowhere = await api<Refusal>('POST', '/v1/orders', {
        body: body({ shipping_rate_id: express.id }),
      });
      assert.equal(nowhere.status, 400);
      assert.equal(nowhere.body.errors?.[0]?.field, 'shipping_address');
      assert.equal(await count('orders'), before);
      assert.equal((await api('DELETE', `/v1/shipping-rates/${express.id}`)).status, 204);
    });

    it('refuses a code that does not apply with its reason, and creates nothing', async () => {
      const now = Date.now();
      await create('/v1/discounts', {
        code: 'OLD',
        type: 'percentage',
        value: 500,
        ends_at: new Date(now - 1000).toISOString(),
      });
      await create('/v1/discounts', {
        code: 'SOON',
        type: 'percentage',
        value: 500,
        starts_at: new Date(now + 86_400_000).toISOString(),
      });
      await create('/v1/discounts', { code: 'OFF', type: 'percentage', value: 500, enabled: false });
      await create('/v1/discounts', {
        code: 'BIG',
        type: 'percentage',
        value: 500,
        minimum_subtotal: 100_000,
      });
      await create('/v1/discounts', { code: 'TEN', type: 'fixed_amount', value: 1000, currency: 'USD' });
      const before = [
        await count('orders'),
        await count('events'),
        await count('customers'),
        await stockOf(shirt.id),
      ];
      const cases: [string[], string][] = [
        [['NOPE'], 'unknown'],
        [['OLD'], 'expired'],
        [['SOON'], 'not_started'],
        [['OFF'], 'disabled'],
        [['BIG'], 'minimum_not_met'],
        [['WELCOME10', 'TEN'], 'not_combinable'],
      ];
      for (const [codes, reason] of cases) {
        for (const path of ['/v1/orders', '/v1/orders/preview']) {
          const res = await api<Refusal>('POST', path, {
            body: {
              items: [{ product_id: shirt.id, quantity: 1 }],
              customer: { email: 'new.buyer@example.com' },
              discount_codes: codes,
            },
          });
          assert.equal(res.status, 422, `${path} ${codes.join(',')}: ${JSON.stringify(res.body)}`);
          assert.equal(res.body.code, 'discount_invalid');
          assert.equal(res.body.reason, reason, JSON.stringify(res.body));
        }
      }
      const unserved = await api<Refusal>('POST', '/v1/orders', {
        body: {
          items: [{ product_id: shirt.id, quantity: 1 }],
          customer: { email: 'new.buyer@example.com' },
          shipping_address: FR,
        },
      });
      assert.equal(unserved.status, 422, JSON.stringify(unserved.body));
      assert.equal(unserved.body.code, 'shipping_unavailable');
      assert.deepEqual(
        [await count('orders'), await count('events'), await count('customers'), await stockOf(shirt.id)],
        before,
      );
    });

    it('previews the order it would create and changes nothing', async () => {
      const customer = await create<{ id: string }>('/v1/customers', { email: 'dora@example.com' });
      const body = {
        items: [
          { product_id: shirt.id, quantity: 3 },
          { product_id: mug.id, quantity: 2 },
        ],
        customer_id: customer.id,
        shipping_address: US_CA,
        discount_codes: ['WELCOME10', 'FREESHIP'],
      };
      const before = [
        await count('orders'),
        await count('events'),
        await stockOf(shirt.id),
        await stockOf(mug.id),
      ];
      const preview = await api<OrderObject>('POST', '/v1/orders/preview', { body });
      assert.equal(preview.status, 200, JSON.stringify(preview.body));
      assert.deepEqual([preview.body.id, preview.body.status, preview.body.payment], [null, 'preview', null]);
      assert.deepEqual(
        [await count('orders'), await count('events'), await stockOf(shirt.id), await stockOf(mug.id)],
        before,
      );
      const made = await create<OrderObject>('/v1/orders', body);
      const figures = (o: OrderObject) => {
        const { id: _id, status: _status, created: _c, updated: _u, ...rest } = o;
        return rest;
      };
      assert.deepEqual(figures(preview.body), figures(made));
    });

    it('applies the best automatic discount without a code', async () => {
      await create('/v1/discounts', {
        automatic: true,
        type: 'percentage',
        value: 500,
        minimum_subtotal: 10_000,
      });
      await create('/v1/discounts', {
        automatic: true,
        type: 'fixed_amount',
        value: 800,
        currency: 'USD',
        minimum_subtotal: 10_000,
      });
      const small = await create<OrderObject>('/v1/orders', {
        items: [{ product_id: shirt.id, quantity: 1 }],
        customer: { email: 'eve@example.com' },
      });
      assert.deepEqual(small.discounts, []);
      const large = await create<OrderObject>('/v1/orders', {
        items: [{ product_id: shirt.id, quantity: 6 }],
        customer: { email: 'eve@example.com' },
      });
      // 5% of 12000 (600) loses to 800 off: the best single one wins.
      assert.deepEqual(
        large.discounts.map((d) => [d.code, d.type, d.amount]),
        [[null, 'fixed_amount', 800]],
      );
      assert.equal(large.total, 11_200);
    });

    it('gives a usage limit of 10 to exactly 10 of 30 concurrent orders, and a cancel gives one back', async () => {
      const limited = await create<{ id: string }>('/v1/discounts', {
        code: 'LIMITED',
        type: 'percentage',
        value: 2000,
        usage_limit: 10,
        combinable: true,
      });
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          api<OrderObject & Refusal>('POST', '/v1/orders', {
            body: {
              items: [{ product_id: mug.id, quantity: 1 }],
              customer: { email: `rush${i}@example.com` },
              discount_codes: ['LIMITED'],
            },
          }),
        ),
      );
      const won = results.filter((r) => r.status === 201);
      const lost = results.filter((r) => r.status !== 201);
      assert.equal(won.length, 10);
      for (const r of lost)
        assert.deepEqual(
          [r.status, r.body.code, r.body.reason],
          [422, 'discount_invalid', 'usage_limit_reached'],
        );
      for (const r of won) assert.equal(r.body.discount_total, 250);
      assert.equal(await timesUsed(limited.id), 10);

      const first = won[0]?.body as OrderObject;
      assert.equal((await api('POST', `/v1/orders/${first.id}/cancel`)).status, 200);
      assert.equal(await timesUsed(limited.id), 9);
      await create('/v1/orders', {
        items: [{ product_id: mug.id, quantity: 1 }],
        customer: { email: 'late@example.com' },
        discount_codes: ['LIMITED'],
      });
      assert.equal(await timesUsed(limited.id), 10);
    });

    it('holds a per-customer limit, and gives it back on cancel', async () => {
      await create('/v1/discounts', {
        code: 'ONCE',
        type: 'percentage',
        value: 1000,
        usage_limit_per_customer: 1,
        combinable: true,
      });
      const body = (email: string) => ({
        items: [{ product_id: mug.id, quantity: 1 }],
        customer: { email },
        discount_codes: ['ONCE'],
      });
      const first = await create<OrderObject>('/v1/orders', body('once@example.com'));
      const again = await api<Refusal>('POST', '/v1/orders', { body: body('ONCE@example.com') });
      assert.deepEqual([again.status, again.body.reason], [422, 'usage_limit_reached']);
      await create('/v1/orders', body('someone.else@example.com'));
      assert.equal((await api('POST', `/v1/orders/${first.id}/cancel`)).status, 200);
      await create('/v1/orders', body('once@example.com'));
    });

    it('keeps the shapes of 2026-11-21 for a pinned tenant, with the same total', async () => {
      const pinned = await createTenant(ctx, { apiVersion: '2026-11-21' });
      const old = client(ctx.app, pinned.apiKey.key);
      const product = await old<ProductObject>('POST', '/v1/products', {
        body: { name: 'Cap', price: 1000, stock: 5 },
      });
      const rate = await old('POST', '/v1/tax-rates', {
        body: {
          name: 'NY',
          country: 'US',
          state: 'NY',
          rate_bps: 800,
          inclusive: false,
          shipping_taxable: false,
        },
      });
      assert.equal(rate.status, 201, JSON.stringify(rate.body));
      const res = await old<Record<string, unknown> & { items: Record<string, unknown>[]; total: number }>(
        'POST',
        '/v1/orders',
        {
          body: {
            items: [{ product_id: product.body.id, quantity: 2 }],
            customer: { email: 'pinned@example.com' },
            shipping_address: { line1: '1 Broadway', city: 'New York', state: 'NY', country: 'US' },
          },
        },
      );
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.total, 2160);
      for (const key of [
        'discount_total',
        'shipping_total',
        'tax_total',
        'discounts',
        'shipping',
        'taxes',
        'refunded_amount',
        'refundable_amount',
        'refunds',
      ]) {
        assert.ok(!(key in res.body), key);
      }
      assert.deepEqual(Object.keys(res.body.items[0] ?? {}).sort(), [
        'name',
        'product_id',
        'quantity',
        'sku',
        'total',
        'unit_price',
      ]);
    });

    /** A tenant of its own with a 10.00 lamp, for tests whose rates must meet only each other. */
    const shop = async () => {
      const own = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      const lamp = await own<ProductObject>('POST', '/v1/products', {
        body: { name: 'Lamp', price: 1000, stock: 100 },
      });
      assert.equal(lamp.status, 201, JSON.stringify(lamp.body));
      const rate = async (body: Record<string, unknown>) => {
        const res = await own<{ id: string }>('POST', '/v1/tax-rates', {
          body: { name: 'Tax', inclusive: false, shipping_taxable: false, ...body },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body.id;
      };
      return { own, lamp: lamp.body, rate };
    };

    it("matches the address's state however it is written, for the order and its preview; blank is absent", async () => {
      const { own, lamp, rate } = await shop();
      const us = await rate({ country: 'US', rate_bps: 100 });
      const california = await rate({ country: 'US', state: 'CA', rate_bps: 725 });
      const quebec = await rate({ country: 'CA', state: 'Quebec', rate_bps: 1000 });
      const cases: [Record<string, unknown>, string, string | undefined][] = [
        [{ country: 'US', state: 'ca\u200b' }, california, 'CA'],
        [{ country: 'US', state: '\u2060Ca\u00ad ' }, california, 'CA'],
        [{ country: 'US', state: 'california' }, california, 'CA'],
        [{ country: 'US', state: '\uff23\uff21' }, california, 'CA'],
        [{ country: 'CA', state: 'Que\u0301bec' }, quebec, 'QC'],
        [{ country: 'CA', state: 'Qu\u00e9bec' }, quebec, 'QC'],
        [{ country: 'US', state: '' }, us, undefined],
        [{ country: 'US', state: '   ' }, us, undefined],
        [{ country: 'US', state: '\u200b' }, us, undefined],
      ];
      for (const [place, rateId, stored] of cases) {
        const body = {
          items: [{ product_id: lamp.id, quantity: 1 }],
          customer: { email: 'state.buyer@example.com' },
          shipping_address: { line1: '1 Main St', city: 'Somewhere', ...place },
        };
        for (const path of ['/v1/orders/preview', '/v1/orders']) {
          const res = await own<OrderObject>('POST', path, { body });
          assert.ok(
            [200, 201].includes(res.status),
            `${path} ${JSON.stringify(place)}: ${JSON.stringify(res.body)}`,
          );
          assert.deepEqual(
            res.body.taxes.map((t) => t.rate_id),
            [rateId],
            `${path} ${JSON.stringify(place)}`,
          );
          assert.equal(res.body.shipping_address?.state, stored, JSON.stringify(place));
          assert.equal(
            res.body.shipping_address && 'state' in res.body.shipping_address,
            stored !== undefined,
          );
        }
      }
      // The customer the first order made keeps its address as stored.
      const customers = await own<{ data: { addresses: { state?: string }[] }[] }>('GET', '/v1/customers');
      assert.deepEqual(
        customers.body.data[0]?.addresses.map((a) => a.state),
        ['CA'],
      );
    });

    it('refuses a state its country does not have, naming shipping_address.state, and creates nothing', async () => {
      const { own, lamp, rate } = await shop();
      await rate({ country: 'US', state: 'CA', rate_bps: 725 });
      const stock = async () => (await own<ProductObject>('GET', `/v1/products/${lamp.id}`)).body.stock;
      const before = [await count('orders'), await count('events'), await count('customers'), await stock()];
      for (const state of ['XX', 'Calif', 'QC', 'US-XX']) {
        for (const path of ['/v1/orders/preview', '/v1/orders']) {
          const res = await own<Problem>('POST', path, {
            body: {
              items: [{ product_id: lamp.id, quantity: 1 }],
              customer: { email: 'unknown.state@example.com' },
              shipping_address: { line1: '1 Main St', city: 'Somewhere', state, country: 'US' },
            },
          });
          assert.deepEqual(
            [res.status, res.body.code, res.body.errors?.map((e) => e.field)],
            [400, 'validation_failed', ['shipping_address.state']],
            `${path} ${state}: ${JSON.stringify(res.body)}`,
          );
        }
      }
      assert.deepEqual(
        [await count('orders'), await count('events'), await count('customers'), await stock()],
        before,
      );
    });

    it('without shipping_rate_id, ships at the rate that costs this order least (free over its threshold)', async () => {
      const { own, lamp } = await shop();
      for (const body of [
        { name: 'Standard', price: 500 },
        { name: 'Economy', price: 700, free_over: 5000 },
      ]) {
        const res = await own('POST', '/v1/shipping-rates', {
          body: { countries: ['US'], currency: 'USD', ...body },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
      }
      const code = await own('POST', '/v1/discounts', {
        body: { code: 'TWENTY', type: 'percentage', value: 2000 },
      });
      assert.equal(code.status, 201);
      const order = (quantity: number, codes: string[] = []) => ({
        items: [{ product_id: lamp.id, quantity }],
        customer: { email: 'cheapest@example.com' },
        shipping_address: { line1: '1 Main St', city: 'Somewhere', country: 'US' },
        discount_codes: codes,
      });
      for (const [body, name, amount] of [
        // The order: 6,000 ships free by Economy, not at Standard's 500.
        [order(6), 'Economy', 0],
        [order(5), 'Economy', 0],
        [order(4), 'Standard', 500],
        // free_over is on the subtotal after discounts: 6,000 less 20% is 4,800.
        [order(6, ['TWENTY']), 'Standard', 500],
      ] as const) {
        for (const path of ['/v1/orders/preview', '/v1/orders']) {
          const res = await own<OrderObject>('POST', path, { body });
          assert.ok([200, 201].includes(res.status), JSON.stringify(res.body));
          assert.deepEqual(
            [res.body.shipping?.name, res.body.shipping_total],
            [name, amount],
            `${path} ${JSON.stringify(body.items)} ${body.discount_codes.join()}`,
          );
          assertAddsUp(res.body);
        }
      }
    });

    it('previews what it creates, for random carts, codes and addresses', async () => {
      const customer = await create<{ id: string }>('/v1/customers', { email: 'prop@example.com' });
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 4 }),
          fc.integer({ min: 0, max: 4 }),
          fc.subarray(['WELCOME10', 'FREESHIP', 'MUGS5']),
          fc.constantFrom(US_CA, DE, undefined),
          async (shirts, mugs, codes, address) => {
            const items = [
              ...(shirts > 0 ? [{ product_id: shirt.id, quantity: shirts }] : []),
              ...(mugs > 0 ? [{ product_id: mug.id, quantity: mugs }] : []),
            ];
            if (items.length === 0) return;
            const body = {
              items,
              customer_id: customer.id,
              discount_codes: codes,
              ...(address === undefined ? {} : { shipping_address: address }),
            };
            const preview = await api<OrderObject & Refusal>('POST', '/v1/orders/preview', { body });
            const made = await api<OrderObject & Refusal>('POST', '/v1/orders', { body });
            assert.equal(
              made.status,
              preview.status === 200 ? 201 : preview.status,
              JSON.stringify(made.body),
            );
            if (made.status !== 201) {
              assert.deepEqual([made.body.code, made.body.reason], [preview.body.code, preview.body.reason]);
              return;
            }
            assertAddsUp(made.body);
            const strip = (o: OrderObject) => ({
              ...o,
              id: null,
              status: null,
              created: null,
              updated: null,
            });
            assert.deepEqual(strip(preview.body), strip(made.body));
          },
        ),
        { numRuns: 15 },
      );
    });
  });
}
