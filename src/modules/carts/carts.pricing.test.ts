import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createTestContext, LOGIC_ONLY, type TestContext } from '../../../test/helpers/context.js';
import type { OrProblem } from '../../../test/helpers/responses.js';
import type { OrderPreview } from '../orders/orders.schemas.js';
import type { CartObject } from './carts.schemas.js';
import { newCart, openShop, product, type Shop, US_CA } from './carts.test-kit.js';

/**
 * A cart is priced by the code that prices orders: for the same lines, codes, address and rate its
 * figures are `POST /orders/preview`'s to the minor unit; where the preview refuses (a code that
 * does not apply, no rate for the address, too little stock), the cart lists that refusal as a
 * problem instead; and no figure is ever negative. Pricing sits above the store (its repositories
 * are the orders' own, tested on both stores): SQLite.
 */

const DE = { line1: 'Hauptstr. 1', city: 'Berlin', country: 'DE' };
const FR = { line1: '1 rue de Rivoli', city: 'Paris', country: 'FR' };
const CODES = ['WELCOME10', 'FREESHIP', 'MUGS5', 'STACK5', 'BIGSPEND', 'NOSUCH'];
const ADDRESSES = [undefined, US_CA, DE, FR];

interface Checkout {
  lines: { variant: number; quantity: number }[];
  codes: string[];
  address: (typeof ADDRESSES)[number];
  rate: 'cheapest' | 'express' | 'unknown';
}

for (const dialect of LOGIC_ONLY) {
  describe(`cart pricing (${dialect})`, () => {
    let ctx: TestContext;
    let shop: Shop;
    const variants: string[] = [];
    let express: string;

    before(async () => {
      ctx = await createTestContext(dialect);
      shop = await openShop(ctx);
      const create = async <T = { id: string }>(path: string, body: Record<string, unknown>) => {
        const res = await shop.admin<T>('POST', path, { body });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body;
      };
      for (const [name, price, category, weight_grams] of [
        ['Shirt', 2_000, 'apparel', 300],
        ['Mug', 1_250, 'kitchen', 500],
        ['Poster', 999, null, 50],
        ['Sofa', 89_900, 'furniture', 40_000],
      ] as const) {
        const made = await product(shop.admin, { name, price, stock: 1_000, category, weight_grams });
        variants.push(made.variantId);
      }
      await create('/v1/discounts', { code: 'WELCOME10', type: 'percentage', value: 1_000 });
      await create('/v1/discounts', { code: 'FREESHIP', type: 'free_shipping' });
      await create('/v1/discounts', {
        code: 'MUGS5',
        type: 'fixed_amount',
        value: 500,
        currency: 'USD',
        applies_to: { categories: ['kitchen'] },
      });
      await create('/v1/discounts', { code: 'STACK5', type: 'percentage', value: 500, combinable: true });
      await create('/v1/discounts', {
        code: 'BIGSPEND',
        type: 'fixed_amount',
        value: 5_000,
        currency: 'USD',
        minimum_subtotal: 50_000,
      });
      await create('/v1/discounts', {
        automatic: true,
        type: 'fixed_amount',
        value: 300,
        currency: 'USD',
        minimum_subtotal: 10_000,
        combinable: true,
      });
      await create('/v1/shipping-rates', {
        name: 'Standard',
        countries: ['US'],
        price: 700,
        currency: 'USD',
        free_over: 10_000,
        max_weight_grams: 30_000,
      });
      express = (
        await create('/v1/shipping-rates', {
          name: 'Express',
          countries: ['US'],
          price: 1_500,
          currency: 'USD',
        })
      ).id;
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
        rate_bps: 1_900,
        inclusive: true,
        shipping_taxable: true,
      });
    });
    after(() => ctx.close());

    /** The cart and the preview of one checkout. */
    async function both(checkout: Checkout) {
      const lines = checkout.lines.map((line) => ({
        variant_id: variants[line.variant] as string,
        quantity: line.quantity,
      }));
      const rate =
        checkout.rate === 'cheapest'
          ? {}
          : { shipping_rate_id: checkout.rate === 'express' ? express : 'shr_unknown' };
      const place = checkout.address === undefined ? {} : { shipping_address: checkout.address };
      const cart = await newCart(shop.shopper, {
        email: 'shopper@example.com',
        lines,
        discount_codes: checkout.codes,
        ...place,
        ...rate,
      });
      const preview = await shop.admin<OrProblem<OrderPreview>>('POST', '/v1/orders/preview', {
        body: {
          items: lines,
          customer: { email: 'shopper@example.com' },
          discount_codes: checkout.codes,
          ...place,
          ...rate,
        },
      });
      return { cart, preview };
    }

    function assertSame(cart: CartObject, preview: OrderPreview): void {
      assert.deepEqual(
        [cart.subtotal, cart.discount_total, cart.shipping_total, cart.tax_total, cart.total],
        [preview.subtotal, preview.discount_total, preview.shipping_total, preview.tax_total, preview.total],
      );
      assert.deepEqual(
        cart.lines.map((line) => [
          line.variant_id,
          line.quantity,
          line.unit_price,
          line.subtotal,
          line.discount,
          line.tax,
        ]),
        preview.items.map((item) => [
          item.variant_id,
          item.quantity,
          item.unit_price,
          item.total,
          item.discount,
          item.tax,
        ]),
      );
      assert.equal(
        cart.shipping_rate_id ?? preview.shipping?.rate_id ?? null,
        preview.shipping?.rate_id ?? null,
      );
    }

    it('prices discounts, shipping and tax as POST /orders/preview does', async () => {
      const cases: Checkout[] = [
        {
          lines: [
            { variant: 0, quantity: 2 },
            { variant: 1, quantity: 1 },
          ],
          codes: [],
          address: undefined,
          rate: 'cheapest',
        },
        {
          lines: [
            { variant: 0, quantity: 2 },
            { variant: 1, quantity: 1 },
          ],
          codes: ['welcome10'],
          address: US_CA,
          rate: 'cheapest',
        },
        {
          lines: [
            { variant: 1, quantity: 3 },
            { variant: 2, quantity: 4 },
          ],
          codes: ['FREESHIP', 'MUGS5'],
          address: US_CA,
          rate: 'express',
        },
        { lines: [{ variant: 0, quantity: 7 }], codes: ['STACK5'], address: DE, rate: 'cheapest' },
        {
          lines: [
            { variant: 3, quantity: 1 },
            { variant: 0, quantity: 1 },
          ],
          codes: ['BIGSPEND'],
          address: DE,
          rate: 'cheapest',
        },
      ];
      for (const checkout of cases) {
        const { cart, preview } = await both(checkout);
        assert.equal(preview.status, 200, JSON.stringify(preview.body));
        assert.deepEqual(cart.problems, []);
        assertSame(cart, preview.body);
      }
      // The rates the shopper may choose, cheapest first, with what each costs this cart.
      const { cart } = await both(cases[1] as Checkout);
      assert.deepEqual(
        cart.shipping_rates.map((rate) => [rate.name, rate.amount]),
        [
          ['Standard', 700],
          ['Express', 1_500],
        ],
      );
    });

    it('lists, for any checkout, what the preview refuses, and otherwise prices alike; never negative', async () => {
      const checkout = fc.record({
        lines: fc.uniqueArray(
          fc.record({ variant: fc.integer({ min: 0, max: 3 }), quantity: fc.integer({ min: 1, max: 40 }) }),
          { minLength: 1, maxLength: 4, selector: (line) => line.variant },
        ),
        codes: fc.subarray(CODES, { maxLength: 3 }),
        address: fc.constantFrom(...ADDRESSES),
        rate: fc.constantFrom(
          'cheapest' as const,
          'cheapest' as const,
          'express' as const,
          'unknown' as const,
        ),
      });
      await fc.assert(
        fc.asyncProperty(checkout, async (input) => {
          const { cart, preview } = await both(input);
          for (const figure of [
            cart.subtotal,
            cart.discount_total,
            cart.shipping_total,
            cart.tax_total,
            cart.total,
          ]) {
            assert.ok(figure >= 0);
          }
          for (const line of cart.lines) assert.ok(line.total >= 0 && line.discount <= line.subtotal);
          if (preview.status === 200) {
            assert.deepEqual(cart.problems, []);
            assertSame(cart, preview.body);
            return;
          }
          const codes = cart.problems.map((p) => p.code);
          const refused =
            preview.body.code === 'validation_failed' ? 'shipping_unavailable' : preview.body.code;
          assert.ok(
            codes.includes(refused as never),
            `${preview.body.code} ${JSON.stringify(cart.problems)}`,
          );
          if (preview.body.code === 'discount_invalid') {
            const listed = cart.problems.find((p) => p.code === 'discount_invalid');
            assert.equal(listed?.reason, (preview.body as unknown as { reason: string }).reason);
          }
        }),
        { numRuns: 40 },
      );
    });
  });
}
