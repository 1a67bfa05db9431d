import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  calculatePricing,
  type DiscountInput,
  type LineInput,
  mulDivRound,
  type PricingInput,
  spread,
  type TaxInput,
} from './pricing.calculate.js';

const PRODUCTS = ['prod_a', 'prod_b', 'prod_c', 'prod_d'];
const CATEGORIES = ['shoes', 'hats'];

const line: fc.Arbitrary<LineInput> = fc.record({
  product_id: fc.constantFrom(...PRODUCTS),
  category: fc.constantFrom<string | null>(null, ...CATEGORIES),
  // Up to the API's bounds: 10^10 a unit, 1,000 units.
  unit_price: fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 10_000_000_000 })),
  quantity: fc.integer({ min: 1, max: 1_000 }),
});

const discount: fc.Arbitrary<DiscountInput> = fc
  .record({
    id: fc.constant('dsc_x'),
    code: fc.constantFrom<string | null>(null, 'SAVE'),
    type: fc.constantFrom('percentage' as const, 'fixed_amount' as const, 'free_shipping' as const),
    value: fc.integer({ min: 1, max: 10_000 }),
    applies_to: fc.oneof(
      fc.constant(null),
      fc.record({ product_ids: fc.subarray(PRODUCTS) }),
      fc.record({ categories: fc.subarray(CATEGORIES) }),
    ),
  })
  .map((d) => (d.type === 'fixed_amount' ? { ...d, value: d.value * 137 } : d));

const tax: fc.Arbitrary<TaxInput> = fc.record({
  rate_id: fc.constant('txr_x'),
  name: fc.constant('VAT'),
  rate_bps: fc.integer({ min: 0, max: 10_000 }),
  inclusive: fc.boolean(),
  shipping_taxable: fc.boolean(),
});

const cart: fc.Arbitrary<PricingInput> = fc.record({
  lines: fc.array(line, { minLength: 1, maxLength: 8 }),
  discounts: fc.array(discount, { maxLength: 3 }),
  shipping: fc.option(
    fc.record({
      rate_id: fc.constant('shr_x'),
      name: fc.constant('Standard'),
      price: fc.integer({ min: 0, max: 5_000 }),
      free_over: fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: null }),
    }),
    { nil: null },
  ),
  tax: fc.option(tax, { nil: null }),
});

const sum = (values: readonly number[]) => values.reduce((n, v) => n + v, 0);

describe('checkout arithmetic', () => {
  it('rounds a × b / d half away from zero, exactly past 2^53', () => {
    assert.equal(mulDivRound(5, 1, 2), 3);
    assert.equal(mulDivRound(4, 1, 3), 1);
    assert.equal(mulDivRound(5, 1, 3), 2);
    assert.equal(mulDivRound(10_000_000_000_000, 9_999, 10_000), 9_999_000_000_000);
    assert.equal(mulDivRound(999_999_999_999_999, 3, 7), 428_571_428_571_428);
  });

  it('spreads by the largest remainder: shares add up and never pass their weight', () => {
    assert.deepEqual(spread(10, [1, 1, 1]), [4, 3, 3]);
    assert.deepEqual(spread(2, [5, 3, 2]), [1, 1, 0]);
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1e9 }), { minLength: 1, maxLength: 10 }),
        fc.nat(),
        (w, n) => {
          const amount = Math.min(n, sum(w));
          const shares = spread(amount, w);
          assert.equal(sum(shares), sum(w) === 0 ? 0 : amount);
          shares.forEach((share, i) => assert.ok(share >= 0 && share <= (w[i] as number)));
        },
      ),
    );
  });

  it('adds up exactly over random carts, never negative, integers only', () => {
    fc.assert(
      fc.property(cart, (input) => {
        const p = calculatePricing(input);
        assert.equal(p.subtotal, sum(p.lines.map((l) => l.amount)));
        const exclusive = input.tax !== null && !input.tax.inclusive;
        const shippingWaived = sum(
          p.discounts.filter((d) => d.type === 'free_shipping').map((d) => d.amount),
        );
        const shippingNet = p.shipping_total - shippingWaived;
        const shippingTax = p.tax_total - sum(p.lines.map((l) => l.tax));
        // The lines, the shipping and its tax make the total; the parts make it too.
        assert.equal(p.total, sum(p.lines.map((l) => l.total)) + shippingNet + (exclusive ? shippingTax : 0));
        assert.equal(
          p.total,
          p.subtotal - p.discount_total + p.shipping_total + (exclusive ? p.tax_total : 0),
        );
        assert.equal(p.discount_total, sum(p.lines.map((l) => l.discount)) + shippingWaived);
        assert.equal(sum(p.discounts.map((d) => d.amount)), p.discount_total);
        assert.ok(p.total >= 0);
        for (const l of p.lines) {
          assert.ok(l.discount >= 0 && l.discount <= l.amount, JSON.stringify(l));
          assert.ok(l.tax >= 0);
        }
        for (const value of [p.total, p.tax_total, p.discount_total, ...p.lines.flatMap(Object.values)]) {
          assert.ok(Number.isSafeInteger(value), String(value));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('leaves the total unchanged with an inclusive tax', () => {
    fc.assert(
      fc.property(cart, tax, (input, rate) => {
        const without = calculatePricing({ ...input, tax: null });
        const inclusive = calculatePricing({ ...input, tax: { ...rate, inclusive: true } });
        assert.equal(inclusive.total, without.total);
        assert.ok(inclusive.tax_total <= inclusive.total);
      }),
      { numRuns: 300 },
    );
  });

  it('spreads a whole-order discount over the lines in proportion, and stops at what it discounts', () => {
    const lines: LineInput[] = [
      { product_id: 'prod_a', category: 'shoes', unit_price: 1000, quantity: 1 },
      { product_id: 'prod_b', category: null, unit_price: 2000, quantity: 1 },
    ];
    const tenPercent: DiscountInput = {
      id: 'd1',
      code: 'TEN',
      type: 'percentage',
      value: 1000,
      applies_to: null,
    };
    const p = calculatePricing({ lines, discounts: [tenPercent], shipping: null, tax: null });
    assert.deepEqual(
      p.lines.map((l) => l.discount),
      [100, 200],
    );
    assert.equal(p.total, 2700);
    // A fixed amount larger than the shoes it targets takes the shoes to zero, not below.
    const big: DiscountInput = {
      id: 'd2',
      code: null,
      type: 'fixed_amount',
      value: 5000,
      applies_to: { categories: ['shoes'] },
    };
    const q = calculatePricing({ lines, discounts: [big], shipping: null, tax: null });
    assert.deepEqual(
      [q.lines[0]?.discount, q.lines[1]?.discount, q.total, q.discounts[0]?.amount],
      [1000, 0, 2000, 1000],
    );
  });

  it('prices shipping with its free-over threshold and a free-shipping discount; taxes it when taxable', () => {
    const lines: LineInput[] = [{ product_id: 'prod_a', category: null, unit_price: 4000, quantity: 1 }];
    const shipping = { rate_id: 'shr_1', name: 'Standard', price: 500, free_over: 5000 };
    const vat: TaxInput = {
      rate_id: 'txr_1',
      name: 'VAT',
      rate_bps: 2000,
      inclusive: false,
      shipping_taxable: true,
    };
    const p = calculatePricing({ lines, discounts: [], shipping, tax: vat });
    assert.deepEqual([p.shipping_total, p.tax_total, p.total], [500, 900, 5400]);
    const free = calculatePricing({
      lines,
      discounts: [{ id: 'd', code: 'SHIPFREE', type: 'free_shipping', value: 0, applies_to: null }],
      shipping,
      tax: vat,
    });
    assert.deepEqual(
      [free.shipping_total, free.discount_total, free.tax_total, free.total],
      [500, 500, 800, 4800],
    );
    const over = calculatePricing({
      lines: [{ ...(lines[0] as LineInput), quantity: 2 }],
      discounts: [],
      shipping,
      tax: null,
    });
    assert.equal(over.shipping_total, 0);
    // Inclusive: 19% contained in 1190 is 190.
    const inclusive = calculatePricing({
      lines: [{ product_id: 'prod_a', category: null, unit_price: 1190, quantity: 1 }],
      discounts: [],
      shipping: null,
      tax: { ...vat, rate_bps: 1900, inclusive: true },
    });
    assert.deepEqual([inclusive.tax_total, inclusive.total], [190, 1190]);
  });

  it('gives an untaxable line no tax, exclusive or inclusive, and the others theirs', () => {
    const lines: LineInput[] = [
      { product_id: 'prod_a', category: null, unit_price: 2000, quantity: 1 },
      { product_id: 'prod_b', category: null, unit_price: 1000, quantity: 2, taxable: false },
    ];
    const vat: TaxInput = {
      rate_id: 't',
      name: 'VAT',
      rate_bps: 2000,
      inclusive: false,
      shipping_taxable: false,
    };
    const p = calculatePricing({ lines, discounts: [], shipping: null, tax: vat });
    assert.deepEqual(
      p.lines.map((l) => [l.tax, l.total]),
      [
        [400, 2400],
        [0, 2000],
      ],
    );
    assert.deepEqual([p.tax_total, p.total], [400, 4400]);
    const inclusive = calculatePricing({
      lines,
      discounts: [],
      shipping: null,
      tax: { ...vat, inclusive: true },
    });
    assert.deepEqual([inclusive.tax_total, inclusive.total], [333, 4000]);
  });

  it('taxes no more over random carts when lines turn untaxable, and never the untaxable ones', () => {
    fc.assert(
      fc.property(cart, fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), (input, flags) => {
        const marked = {
          ...input,
          lines: input.lines.map((l, i) => ({ ...l, taxable: flags[i] !== false })),
        };
        const all = calculatePricing(input);
        const some = calculatePricing(marked);
        assert.ok(some.tax_total <= all.tax_total);
        marked.lines.forEach((l, i) => {
          if (l.taxable === false) assert.equal(some.lines[i]?.tax, 0);
          else assert.equal(some.lines[i]?.tax, all.lines[i]?.tax);
        });
      }),
    );
  });
});
