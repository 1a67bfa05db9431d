import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { AppError } from '../../lib/errors.js';
import type { DiscountRow } from './discounts.repository.js';
import type { LineInput } from './pricing.calculate.js';
import {
  chooseDiscounts,
  chooseShippingRate,
  chooseTaxRate,
  type DiscountChoiceInput,
  type DiscountReason,
} from './pricing.choose.js';
import { discountCodeKey, stateKey } from './pricing.rules.js';
import type { ShippingRateRow, TaxRateRow } from './rates.repository.js';

const NOW = Date.parse('2026-12-20T12:00:00.000Z');
const DAY = 86_400_000;

let serial = 0;
function discount(fields: Partial<DiscountRow> = {}): DiscountRow {
  serial += 1;
  const code = fields.code === undefined ? (fields.automatic === 1 ? null : `CODE${serial}`) : fields.code;
  return {
    id: `dsc_${String(serial).padStart(4, '0')}`,
    tenant_id: 'ten_a',
    code,
    code_key: code === null ? null : discountCodeKey(code),
    automatic: 0,
    type: 'percentage',
    value: 1000,
    currency: null,
    applies_to: null,
    minimum_subtotal: null,
    starts_at: null,
    ends_at: null,
    usage_limit: null,
    usage_limit_per_customer: null,
    times_used: 0,
    combinable: 0,
    enabled: 1,
    created: NOW - DAY + serial,
    updated: NOW - DAY + serial,
    ...fields,
  };
}

const LINES: LineInput[] = [
  { product_id: 'prod_shoe', category: 'shoes', unit_price: 4000, quantity: 2 },
  { product_id: 'prod_hat', category: 'hats', unit_price: 2000, quantity: 1 },
];

function input(fields: Partial<DiscountChoiceInput>): DiscountChoiceInput {
  const found = fields.found ?? [];
  return {
    codes: found.map((row) => row.code as string),
    found,
    automatic: [],
    lines: LINES,
    currency: 'USD',
    customerUses: new Map(),
    now: NOW,
    ...fields,
  };
}

/** The problem `fn` throws: its code, reason, field and typed code. */
function refusal(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return {
      code: error.code,
      status: error.status,
      reason: error.extra.reason,
      field: error.errors?.[0]?.field,
      discount_code: error.extra.discount_code,
      detail: error.detail,
    };
  }
  assert.fail('expected a refusal');
}

describe('chooseDiscounts', () => {
  it('matches typed codes case-insensitively and counts a discount typed twice once', () => {
    const save = discount({ code: 'Save-10' });
    const chosen = chooseDiscounts(input({ codes: ['save-10', 'SAVE-10'], found: [save] }));
    assert.deepEqual(chosen, [
      { id: save.id, code: 'Save-10', type: 'percentage', value: 1000, applies_to: null },
    ]);
    // Typed with invisible characters or full-width letters, it is the same code.
    for (const typed of ['save-10\u200b', ' \ufeffSAVE-10', '\uff33\uff41\uff56\uff45-10']) {
      assert.equal(chooseDiscounts(input({ codes: [typed], found: [save] }))[0]?.id, save.id, typed);
    }
  });

  it('refuses the first code that does not apply, with its reason and field', () => {
    const cases: [Partial<DiscountRow>, DiscountReason, RegExp][] = [
      [{ enabled: 0 }, 'disabled', /switched off/],
      [{ starts_at: NOW + 1 }, 'not_started', /starts at/],
      [{ ends_at: NOW }, 'expired', /ended at/],
      [{ ends_at: NOW - DAY }, 'expired', /ended at/],
      [{ usage_limit: 5, times_used: 5 }, 'usage_limit_reached', /limit/],
      [{ usage_limit: 5, times_used: 7 }, 'usage_limit_reached', /limit/],
      [{ minimum_subtotal: 10_001 }, 'minimum_not_met', /at least 10001/],
      [{ applies_to: JSON.stringify({ categories: ['bags'] }) }, 'minimum_not_met', /none of the order/],
      [{ type: 'fixed_amount', value: 500, currency: 'EUR' }, 'unknown', /orders in EUR, not USD/],
      [{ type: 'percentage', currency: 'EUR' }, 'unknown', /orders in EUR/],
    ];
    for (const [fields, reason, message] of cases) {
      const good = discount({ type: 'free_shipping', value: 0 });
      const bad = discount(fields);
      const problem = refusal(() =>
        chooseDiscounts(input({ codes: [good.code as string, bad.code as string], found: [good, bad] })),
      );
      assert.deepEqual(
        [problem.code, problem.status, problem.reason, problem.field, problem.discount_code],
        ['discount_invalid', 422, reason, 'discount_codes[1]', bad.code],
        JSON.stringify(fields),
      );
      assert.match(problem.detail, message);
    }
    // Not found at all; and just inside every bound, it applies.
    assert.equal(refusal(() => chooseDiscounts(input({ codes: ['NOPE'], found: [] }))).reason, 'unknown');
    const edge = discount({
      starts_at: NOW,
      ends_at: NOW + 1,
      usage_limit: 5,
      times_used: 4,
      minimum_subtotal: 10_000,
      usage_limit_per_customer: 2,
    });
    const ok = chooseDiscounts(input({ found: [edge], customerUses: new Map([[edge.id, 1]]) }));
    assert.deepEqual(
      ok.map((d) => d.id),
      [edge.id],
    );
    const spent = refusal(() =>
      chooseDiscounts(input({ found: [edge], customerUses: new Map([[edge.id, 2]]) })),
    );
    assert.equal(spent.reason, 'usage_limit_reached');
    assert.match(spent.detail, /this customer/);
  });

  it('stacks two typed discounts of one kind only when both are combinable', () => {
    const percent = discount({ combinable: 1 });
    const fixed = discount({ type: 'fixed_amount', value: 500, currency: 'USD', combinable: 1 });
    const lone = discount({ type: 'fixed_amount', value: 300, currency: 'USD' });
    const ship = discount({ type: 'free_shipping', value: 0 });
    assert.deepEqual(
      chooseDiscounts(input({ found: [fixed, percent] })).map((d) => d.id),
      [percent.id, fixed.id],
    );
    const clash = refusal(() => chooseDiscounts(input({ found: [percent, lone] })));
    assert.deepEqual([clash.reason, clash.field], ['not_combinable', 'discount_codes[1]']);
    assert.match(clash.detail, new RegExp(`combined with ${percent.code}`));
    // The other way round: the non-combinable one first, the combinable one clashes.
    const first = refusal(() => chooseDiscounts(input({ found: [lone, percent] })));
    assert.deepEqual([first.reason, first.field], ['not_combinable', 'discount_codes[1]']);
    // Different kinds always stack, combinable or not.
    assert.deepEqual(
      chooseDiscounts(input({ found: [ship, lone] })).map((d) => d.id),
      [lone.id, ship.id],
    );
    const ship2 = discount({ type: 'free_shipping', value: 0 });
    assert.equal(refusal(() => chooseDiscounts(input({ found: [ship, ship2] }))).reason, 'not_combinable');
  });

  it('applies percentages, then fixed amounts, then free shipping; codes as typed, then automatic oldest first', () => {
    const fixedCode = discount({ type: 'fixed_amount', value: 100, currency: 'USD', combinable: 1 });
    const pctCode = discount({ value: 500, combinable: 1 });
    const autoNew = discount({ automatic: 1, value: 300, combinable: 1, created: NOW - 10 });
    const autoOld = discount({
      automatic: 1,
      type: 'fixed_amount',
      value: 50,
      currency: 'USD',
      combinable: 1,
      created: NOW - 20,
    });
    const autoOlder = discount({ automatic: 1, value: 200, combinable: 1, created: NOW - 30 });
    const ship = discount({ automatic: 1, type: 'free_shipping', value: 0 });
    const chosen = chooseDiscounts(
      input({ found: [fixedCode, pctCode], automatic: [ship, autoNew, autoOld, autoOlder] }),
    );
    assert.deepEqual(
      chosen.map((d) => d.id),
      [pctCode.id, autoOlder.id, autoNew.id, fixedCode.id, autoOld.id, ship.id],
    );
  });

  it('leaves out automatic discounts that do not apply, and never refuses because of one', () => {
    const autos = [
      discount({ automatic: 1, enabled: 0, value: 9000 }),
      discount({ automatic: 1, ends_at: NOW, value: 9000 }),
      discount({ automatic: 1, starts_at: NOW + 1, value: 9000 }),
      discount({ automatic: 1, usage_limit: 1, times_used: 1, value: 9000 }),
      discount({ automatic: 1, minimum_subtotal: 1_000_000, value: 9000 }),
      discount({ automatic: 1, type: 'fixed_amount', value: 9000, currency: 'EUR' }),
      discount({ automatic: 1, applies_to: JSON.stringify({ product_ids: ['prod_other'] }), value: 9000 }),
      discount({ automatic: 1, usage_limit_per_customer: 1, value: 9000 }),
    ];
    const perCustomer = autos[7] as DiscountRow;
    const small = discount({ automatic: 1, value: 100 });
    const chosen = chooseDiscounts(
      input({ automatic: [...autos, small], customerUses: new Map([[perCustomer.id, 1]]) }),
    );
    assert.deepEqual(
      chosen.map((d) => d.id),
      [small.id],
    );
  });

  it('among automatic amounts off, the one taking most off the cart wins; combinable ones stack', () => {
    // Subtotal 10000: 10 % is 1000, 700 fixed is 700, a hats-only 60 % is 1200 (of 2000).
    const tenPercent = discount({ automatic: 1, value: 1000 });
    const fixed = discount({ automatic: 1, type: 'fixed_amount', value: 700, currency: 'USD' });
    const hats = discount({
      automatic: 1,
      value: 6000,
      applies_to: JSON.stringify({ categories: ['hats'] }),
    });
    assert.deepEqual(
      chooseDiscounts(input({ automatic: [tenPercent, fixed, hats] })).map((d) => d.id),
      [hats.id],
    );
    assert.deepEqual(
      chooseDiscounts(input({ automatic: [tenPercent, fixed] })).map((d) => d.id),
      [tenPercent.id],
    );
    // Two combinable ones (5 % and 600 = 1100 off) beat the best single one (1000).
    const five = discount({ automatic: 1, value: 500, combinable: 1 });
    const six = discount({ automatic: 1, type: 'fixed_amount', value: 600, currency: 'USD', combinable: 1 });
    assert.deepEqual(
      chooseDiscounts(input({ automatic: [tenPercent, five, six] })).map((d) => d.id),
      [five.id, six.id],
    );
    // A tie goes to the combinable group, then to the oldest.
    const sameA = discount({ automatic: 1, value: 1000 });
    const sameB = discount({ automatic: 1, value: 1000 });
    assert.deepEqual(
      chooseDiscounts(input({ automatic: [sameB, sameA] })).map((d) => d.id),
      [sameA.id],
    );
  });

  it('lets automatic discounts join typed codes only where both sides are combinable', () => {
    const code = discount({ value: 500 });
    const codeCombinable = discount({ value: 500, combinable: 1 });
    const autoCombinable = discount({ automatic: 1, value: 200, combinable: 1 });
    const autoLone = discount({ automatic: 1, value: 9000 });
    const autoShip = discount({ automatic: 1, type: 'free_shipping', value: 0 });
    // A non-combinable code: no automatic amount off joins it, however large; free shipping does.
    assert.deepEqual(
      chooseDiscounts(input({ found: [code], automatic: [autoCombinable, autoLone, autoShip] })).map(
        (d) => d.id,
      ),
      [code.id, autoShip.id],
    );
    // A combinable code: the combinable automatic ones join, the others stay out.
    assert.deepEqual(
      chooseDiscounts(input({ found: [codeCombinable], automatic: [autoCombinable, autoLone] })).map(
        (d) => d.id,
      ),
      [codeCombinable.id, autoCombinable.id],
    );
    // A typed free shipping: no automatic free shipping on top.
    const shipCode = discount({ type: 'free_shipping', value: 0, combinable: 1 });
    const autoShip2 = discount({ automatic: 1, type: 'free_shipping', value: 0, combinable: 1 });
    assert.deepEqual(
      chooseDiscounts(input({ found: [shipCode], automatic: [autoShip2] })).map((d) => d.id),
      [shipCode.id],
    );
    // Without codes, the oldest applicable automatic free shipping.
    assert.deepEqual(
      chooseDiscounts(input({ automatic: [autoShip2, autoShip] })).map((d) => d.id),
      [autoShip.id],
    );
  });

  it('property: automatic discounts never refuse; the choice applies, stacks and is deterministic', () => {
    const row = fc
      .record({
        automatic: fc.constant(1),
        type: fc.constantFrom('percentage' as const, 'fixed_amount' as const, 'free_shipping' as const),
        value: fc.integer({ min: 1, max: 10_000 }),
        currency: fc.constantFrom<string | null>(null, 'USD', 'EUR'),
        minimum_subtotal: fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: null }),
        starts_at: fc.option(fc.integer({ min: NOW - DAY, max: NOW + DAY }), { nil: null }),
        ends_at: fc.option(fc.integer({ min: NOW - DAY, max: NOW + DAY }), { nil: null }),
        usage_limit: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
        times_used: fc.integer({ min: 0, max: 3 }),
        combinable: fc.constantFrom(0, 1),
        enabled: fc.constantFrom(0, 1, 1),
        applies_to: fc.constantFrom<string | null>(
          null,
          '{"categories":["hats"]}',
          '{"product_ids":["prod_x"]}',
        ),
      })
      .map((fields) =>
        discount({
          ...fields,
          value: fields.type === 'free_shipping' ? 0 : fields.value,
          currency: fields.type === 'fixed_amount' ? (fields.currency ?? 'USD') : fields.currency,
        }),
      );
    fc.assert(
      fc.property(fc.array(row, { maxLength: 8 }), (automatic) => {
        const chosen = chooseDiscounts(input({ automatic }));
        const again = chooseDiscounts(input({ automatic: [...automatic].reverse() }));
        assert.deepEqual(again, chosen);
        const rows = chosen.map((d) => automatic.find((r) => r.id === d.id) as DiscountRow);
        assert.equal(new Set(rows.map((r) => r.id)).size, rows.length);
        for (const r of rows) {
          assert.equal(r.enabled, 1);
          assert.ok(r.starts_at === null || r.starts_at <= NOW);
          assert.ok(r.ends_at === null || r.ends_at > NOW);
          assert.ok(r.usage_limit === null || r.times_used < r.usage_limit);
          assert.ok(r.currency === null || r.currency === 'USD');
          assert.ok(r.minimum_subtotal === null || r.minimum_subtotal <= 10_000);
          if (r.type !== 'free_shipping') assert.ok(r.applies_to === null || r.applies_to.includes('hats'));
        }
        for (const kind of [['free_shipping'], ['percentage', 'fixed_amount']]) {
          const same = rows.filter((r) => kind.includes(r.type));
          if (same.length > 1) assert.ok(same.every((r) => r.combinable === 1));
        }
        assert.ok(rows.filter((r) => r.type === 'free_shipping').length <= 1);
      }),
    );
  });
});

let rateSerial = 0;
function shippingRate(fields: Partial<ShippingRateRow> = {}): ShippingRateRow {
  rateSerial += 1;
  return {
    id: `shr_${String(rateSerial).padStart(4, '0')}`,
    tenant_id: 'ten_a',
    name: `Rate ${rateSerial}`,
    countries: '["US","CA"]',
    price: 500,
    currency: 'USD',
    free_over: null,
    min_weight_grams: null,
    max_weight_grams: null,
    created: NOW,
    updated: NOW,
    ...fields,
  };
}

describe('chooseShippingRate', () => {
  const light = shippingRate({ price: 500, max_weight_grams: 999 });
  const heavy = shippingRate({ price: 1500, min_weight_grams: 1000, max_weight_grams: 5000 });
  const world = shippingRate({ price: 2500, countries: '["*"]', min_weight_grams: 0 });
  const euros = shippingRate({ price: 100, currency: 'EUR' });
  const rates = [world, heavy, light, euros];

  it('takes the cheapest rate for the country, currency and weight (bounds inclusive)', () => {
    const pick = (country: string, weight_grams: number) =>
      chooseShippingRate(rates, { country, weight_grams, discounted_subtotal: 0, currency: 'USD' }).id;
    assert.equal(pick('US', 0), light.id);
    assert.equal(pick('US', 999), light.id);
    assert.equal(pick('US', 1000), heavy.id);
    assert.equal(pick('CA', 5000), heavy.id);
    assert.equal(pick('FR', 10), world.id);
    assert.equal(pick('FR', 1_000_000), world.id);
    // The rest of the world is for countries no rate names: the US has its own, none takes 5001 g.
    assert.equal(
      refusal(() =>
        chooseShippingRate(rates, {
          country: 'US',
          weight_grams: 5001,
          discounted_subtotal: 0,
          currency: 'USD',
        }),
      ).code,
      'shipping_unavailable',
    );
    // A country named only by a rate in another currency is the rest of the world in this one.
    const eurOnly = shippingRate({ price: 1, countries: '["FR"]', currency: 'EUR' });
    assert.equal(
      chooseShippingRate([...rates, eurOnly], {
        country: 'FR',
        weight_grams: 1,
        discounted_subtotal: 0,
        currency: 'USD',
      }).id,
      world.id,
    );
    // Ties on price go to the lower id.
    const a = shippingRate({ price: 700, countries: '["DE"]' });
    const b = shippingRate({ price: 700, countries: '["DE"]' });
    assert.equal(
      chooseShippingRate([b, a], { country: 'DE', weight_grams: 1, discounted_subtotal: 0, currency: 'USD' })
        .id,
      a.id,
    );
  });

  it('takes the named rate only if it serves the order', () => {
    const named = (rate_id: string, country = 'US', weight_grams = 10) =>
      chooseShippingRate(rates, { country, weight_grams, discounted_subtotal: 0, currency: 'USD', rate_id });
    assert.equal(named(world.id, 'FR').id, world.id);
    assert.equal(named(heavy.id, 'CA', 1000).id, heavy.id);
    for (const [rateId, country, weight, message] of [
      ['shr_nope', 'US', 10, /does not exist/],
      [euros.id, 'US', 10, /is in EUR, the order in USD/],
      [light.id, 'FR', 10, /does not ship to FR/],
      [world.id, 'US', 10, /does not ship to US/],
      [light.id, 'US', 1000, /does not take a parcel of 1000 g/],
    ] as const) {
      const problem = refusal(() => named(rateId, country, weight));
      assert.deepEqual(
        [problem.code, problem.status, problem.field],
        ['shipping_unavailable', 422, 'shipping_rate_id'],
      );
      assert.match(problem.detail, message);
    }
  });

  it('without a named rate, takes the one costing this order least (after free_over), then the lower id', () => {
    // The order: 6,000 after discounts, Standard 500, Economy 700 but free over 5,000.
    const standard = shippingRate({ name: 'Standard', countries: '["NL"]', price: 500 });
    const economy = shippingRate({ name: 'Economy', countries: '["NL"]', price: 700, free_over: 5000 });
    const pick = (discounted_subtotal: number) =>
      chooseShippingRate([standard, economy], {
        country: 'NL',
        weight_grams: 100,
        discounted_subtotal,
        currency: 'USD',
      }).name;
    assert.equal(pick(6000), 'Economy');
    assert.equal(pick(5000), 'Economy'); // free_over is inclusive
    assert.equal(pick(4999), 'Standard');
    // Two free rates tie at 0: the lower id.
    const other = shippingRate({ name: 'Other', countries: '["NL"]', price: 300, free_over: 1000 });
    const both = chooseShippingRate([other, economy], {
      country: 'NL',
      weight_grams: 100,
      discounted_subtotal: 6000,
      currency: 'USD',
    });
    assert.equal(both.id, economy.id < other.id ? economy.id : other.id);
  });

  it('property: the rate chosen costs the order no more than any other that serves it, ties to the lower id', () => {
    const rate = fc.record({
      price: fc.integer({ min: 0, max: 2_000 }),
      free_over: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: null }),
      max_weight_grams: fc.option(fc.integer({ min: 0, max: 2_000 }), { nil: null }),
    });
    fc.assert(
      fc.property(
        fc.array(rate, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 12_000 }),
        fc.integer({ min: 0, max: 2_000 }),
        (fields, discounted_subtotal, weight_grams) => {
          const rates = fields.map((f) => shippingRate({ ...f, countries: '["JP"]' }));
          const cost = (r: ShippingRateRow) =>
            r.free_over !== null && discounted_subtotal >= r.free_over ? 0 : r.price;
          const serving = rates.filter(
            (r) => r.max_weight_grams === null || weight_grams <= r.max_weight_grams,
          );
          const order = { country: 'JP', weight_grams, discounted_subtotal, currency: 'USD' };
          if (serving.length === 0) {
            assert.equal(refusal(() => chooseShippingRate(rates, order)).code, 'shipping_unavailable');
            return;
          }
          const chosen = chooseShippingRate([...rates].reverse(), order);
          for (const r of serving) {
            assert.ok(
              cost(chosen) < cost(r) || (cost(chosen) === cost(r) && chosen.id <= r.id),
              `${chosen.id} costs ${cost(chosen)}, ${r.id} ${cost(r)}`,
            );
          }
        },
      ),
    );
  });

  it('refuses when no rate serves the country, currency and weight', () => {
    const problem = refusal(() =>
      chooseShippingRate([light, heavy], {
        country: 'FR',
        weight_grams: 10,
        discounted_subtotal: 0,
        currency: 'USD',
      }),
    );
    assert.deepEqual([problem.code, problem.field], ['shipping_unavailable', 'shipping_address.country']);
    assert.equal(
      refusal(() =>
        chooseShippingRate([euros], {
          country: 'US',
          weight_grams: 10,
          discounted_subtotal: 0,
          currency: 'USD',
        }),
      ).code,
      'shipping_unavailable',
    );
    assert.equal(
      refusal(() =>
        chooseShippingRate([], { country: 'US', weight_grams: 0, discounted_subtotal: 0, currency: 'USD' }),
      ).code,
      'shipping_unavailable',
    );
  });
});

describe('chooseTaxRate', () => {
  const tax = (country: string, state: string | null): TaxRateRow => ({
    id: `txr_${country}_${state ?? 'all'}`,
    tenant_id: 'ten_a',
    name: 'Tax',
    country,
    state,
    state_key: (state ?? '').trim().toUpperCase(),
    rate_bps: 1000,
    inclusive: 0,
    shipping_taxable: 0,
    created: NOW,
    updated: NOW,
  });
  const rates = [tax('US', null), tax('US', 'CA'), tax('DE', null), tax('CA', 'QC')];

  it("takes the state's rate over the country's, matching states trimmed and case-insensitively", () => {
    const pick = (country: string, state: string | null | undefined) =>
      chooseTaxRate(rates, { country, state })?.id ?? null;
    assert.equal(pick('US', 'CA'), 'txr_US_CA');
    assert.equal(pick('US', ' ca '), 'txr_US_CA');
    assert.equal(pick('US', 'NY'), 'txr_US_all');
    assert.equal(pick('US', null), 'txr_US_all');
    assert.equal(pick('US', ''), 'txr_US_all');
    assert.equal(pick('DE', 'BY'), 'txr_DE_all');
    assert.equal(pick('CA', 'ON'), null);
    assert.equal(pick('CA', 'qc'), 'txr_CA_QC');
    assert.equal(pick('FR', undefined), null);
  });

  it('matches a state however it is written: invisible characters, combining accents, its name; blank is absent', () => {
    const gg = {
      ...tax('GG', 'Saint Pierre du Bois'),
      id: 'txr_GG_SPB',
      state_key: stateKey('Saint Pierre du Bois'),
    };
    const re = {
      ...tax('RE', 'Saint-Beno\u00eet'),
      id: 'txr_RE_SB',
      state_key: stateKey('Saint-Beno\u00eet'),
    };
    const all = [...rates, gg, re];
    const pick = (country: string, state: string | null | undefined) =>
      chooseTaxRate(all, { country, state })?.id ?? null;
    assert.equal(pick('US', 'ca\u200b'), 'txr_US_CA');
    assert.equal(pick('US', '\u2060CA\ufeff'), 'txr_US_CA');
    assert.equal(pick('US', '\uff23\uff21'), 'txr_US_CA'); // full-width
    assert.equal(pick('US', 'California'), 'txr_US_CA');
    assert.equal(pick('CA', 'Que\u0301bec'), 'txr_CA_QC'); // e and a combining acute
    assert.equal(pick('CA', 'Qu\u00e9bec'), 'txr_CA_QC'); // precomposed
    // Countries without known subdivisions match text: NFKC, accents and case do not count.
    assert.equal(pick('RE', 'Saint-Benoi\u0302t'), 'txr_RE_SB');
    assert.equal(pick('RE', 'SAINT-BENOIT'), 'txr_RE_SB');
    assert.equal(pick('GG', ' saint  pierre\u200b du bois '), 'txr_GG_SPB');
    // Blank or empty: absent, so the country's own rate applies.
    for (const blank of ['', '   ', '\u200b', '\u00a0\u3000']) assert.equal(pick('US', blank), 'txr_US_all');
  });
});
