import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import { ManualClock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import type { DiscountObject } from './discounts.schemas.js';
import { chooseShippingRate, chooseTaxRate } from './pricing.choose.js';
import {
  loadCheckout,
  loadDiscountContext,
  loadRates,
  reserveUses,
  returnUses,
  toShippingInput,
  toTaxInput,
} from './pricing.service.js';

const HOUR = 3_600_000;

for (const dialect of DIALECTS) {
  describe(`pricing for orders: loading rules, taking and giving back uses (${dialect})`, () => {
    const clock = new ManualClock();
    let ctx: TestContext;
    let api: Client;
    let tenantId: string;

    before(async () => {
      ctx = await createTestContext(dialect, { clock, poolSize: 10 });
      const tenant = await createTenant(ctx);
      tenantId = tenant.tenant.id;
      api = client(ctx.app, tenant.apiKey.key);
    });
    after(() => ctx.close());

    const discount = async (body: Record<string, unknown>) => {
      const res = await api<DiscountObject>('POST', '/v1/discounts', { body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };
    const read = async (id: string) => (await api<DiscountObject>('GET', `/v1/discounts/${id}`)).body;
    const reserve = (ids: string[], customer: string | null) =>
      ctx.deps.store.transaction((trx) => reserveUses(trx, tenantId, ids, customer, clock.now()));
    const give = (ids: string[], customer: string | null) =>
      ctx.deps.store.transaction((trx) => returnUses(trx, tenantId, ids, customer, clock.now()));
    /** The reasons of the refusals among settled reservations, and how many succeeded. */
    const outcome = (settled: PromiseSettledResult<unknown>[]) => {
      const reasons = settled.flatMap((s) => {
        if (s.status === 'fulfilled') return [];
        assert.ok(s.reason instanceof AppError, String(s.reason));
        assert.equal(s.reason.code, 'discount_invalid');
        return [s.reason.extra.reason];
      });
      return { ok: settled.length - reasons.length, reasons: [...new Set(reasons)] };
    };

    it('with usage_limit 10 and 30 concurrent orders, exactly 10 take the discount', async () => {
      const limited = await discount({ code: 'TEN-ONLY', type: 'percentage', value: 1000, usage_limit: 10 });
      const settled = await Promise.allSettled(
        Array.from({ length: 30 }, (_, i) => reserve([limited.id], `cus_racer${i}`)),
      );
      assert.deepEqual(outcome(settled), { ok: 10, reasons: ['usage_limit_reached'] });
      const after = await read(limited.id);
      assert.deepEqual([after.times_used, after.status], [10, 'exhausted']);
      const lost = settled.find((s) => s.status === 'rejected');
      assert.ok(lost?.status === 'rejected' && lost.reason instanceof AppError);
      assert.deepEqual(lost.reason.extra, {
        reason: 'usage_limit_reached',
        discount_code: 'TEN-ONLY',
        discount_id: limited.id,
      });
      // A cancelled order gives its use back: one more order may have it.
      await give([limited.id], 'cus_racer0');
      assert.equal((await read(limited.id)).times_used, 9);
      await reserve([limited.id], 'cus_late');
      await assert.rejects(reserve([limited.id], 'cus_later'), /used as many times/);
    });

    it('holds the per-customer limit under concurrency, and a failed order takes nothing', async () => {
      const twice = await discount({
        code: 'TWICE',
        type: 'fixed_amount',
        value: 100,
        currency: 'USD',
        usage_limit_per_customer: 2,
      });
      const other = await discount({ code: 'OTHER', type: 'free_shipping', usage_limit: 100 });
      const settled = await Promise.allSettled(
        Array.from({ length: 8 }, () => reserve([twice.id, other.id], 'cus_ada')),
      );
      assert.deepEqual(outcome(settled), { ok: 2, reasons: ['usage_limit_reached'] });
      // The refused orders rolled back the uses of OTHER they took first.
      assert.equal((await read(other.id)).times_used, 2);
      assert.equal((await read(twice.id)).times_used, 2);
      // Another customer still may; the uses are what loadDiscountContext reports.
      await reserve([twice.id], 'cus_bob');
      const context = await loadDiscountContext(
        ctx.deps.store.db,
        tenantId,
        ['twice', 'Other', 'nope'],
        'cus_ada',
      );
      assert.deepEqual(context.found.map((d) => d.code).sort(), ['OTHER', 'TWICE']);
      // Only discounts limited per customer need the customer's uses (OTHER's are counted, not read).
      assert.deepEqual([context.customerUses.get(twice.id), context.customerUses.has(other.id)], [2, false]);
      const none = await loadDiscountContext(ctx.deps.store.db, tenantId, ['TWICE'], null);
      assert.equal(none.customerUses.size, 0);
      // Giving back never goes below zero: 3 uses in all, bob's 1 of them, given back 4 times.
      for (let i = 0; i < 4; i++) await give([twice.id], 'cus_bob');
      assert.equal((await read(twice.id)).times_used, 0);
      const rows = await ctx.deps.store.db
        .selectFrom('discount_customer_uses')
        .select(['customer_id', 'uses'])
        .where('discount_id', '=', twice.id)
        .orderBy('customer_id')
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.customer_id, Number(r.uses)]),
        [
          ['cus_ada', 2],
          ['cus_bob', 0],
        ],
      );
      // Without a customer, only the total counts.
      await reserve([twice.id], null);
      assert.equal((await read(twice.id)).times_used, 1);
    });

    it('re-checks the discount when taking a use: switched off, ended or not started meanwhile', async () => {
      const ends = new Date(clock.now() + HOUR).toISOString();
      const late = await discount({ code: 'LATE', type: 'free_shipping', ends_at: ends });
      const off = await discount({ automatic: true, type: 'free_shipping' });
      const soon = await discount({
        code: 'SOON',
        type: 'free_shipping',
        starts_at: new Date(clock.now() + 2 * HOUR).toISOString(),
      });
      assert.equal((await api('PATCH', `/v1/discounts/${off.id}`, { body: { enabled: false } })).status, 200);
      clock.advance(HOUR);
      const reasons = [];
      for (const id of [late.id, off.id, soon.id]) {
        const error = await reserve([id], 'cus_x').then(
          () => assert.fail('taken'),
          (e: unknown) => e,
        );
        assert.ok(error instanceof AppError);
        reasons.push([error.extra.reason, error.extra.discount_code]);
      }
      assert.deepEqual(reasons, [
        ['expired', 'LATE'],
        ['disabled', null],
        ['not_started', 'SOON'],
      ]);
      assert.equal(await reserve(['dsc_gone'], 'cus_x').catch((e: AppError) => e.extra.reason), 'unknown');
    });

    it('loads the automatic discounts and the rates an order needs', async () => {
      const fresh = await createTenant(ctx);
      const mine = client(ctx.app, fresh.apiKey.key);
      const post = async (url: string, body: Record<string, unknown>) => {
        const res = await mine<{ id: string }>('POST', url, { body });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body.id;
      };
      const on = await post('/v1/discounts', { automatic: true, type: 'percentage', value: 500 });
      await post('/v1/discounts', { automatic: true, type: 'percentage', value: 500, enabled: false });
      await post('/v1/discounts', { code: 'CODED', type: 'percentage', value: 500 });
      const context = await loadDiscountContext(ctx.deps.store.db, fresh.tenant.id, [], 'cus_none');
      assert.deepEqual([context.found, context.automatic.map((d) => d.id)], [[], [on]]);

      const us = await post('/v1/shipping-rates', {
        name: 'US',
        countries: ['US'],
        price: 700,
        currency: 'USD',
        free_over: 10_000,
        max_weight_grams: 2000,
      });
      const world = await post('/v1/shipping-rates', {
        name: 'World',
        countries: ['*'],
        price: 2000,
        currency: 'USD',
        min_weight_grams: 0,
      });
      await post('/v1/shipping-rates', { name: 'Euro', countries: ['US'], price: 1, currency: 'EUR' });
      const vat = await post('/v1/tax-rates', {
        name: 'US',
        country: 'US',
        rate_bps: 500,
        inclusive: false,
        shipping_taxable: true,
      });
      const ca = await post('/v1/tax-rates', {
        name: 'CA',
        country: 'US',
        state: 'CA',
        rate_bps: 725,
        inclusive: true,
        shipping_taxable: false,
      });
      await post('/v1/tax-rates', {
        name: 'DE',
        country: 'DE',
        rate_bps: 1900,
        inclusive: true,
        shipping_taxable: true,
      });

      const rates = await loadRates(ctx.deps.store.db, fresh.tenant.id, 'US', 'USD');
      // Every shipping rate in the currency, whatever its countries; the country's tax rates.
      assert.deepEqual(rates.shipping.map((r) => r.id).sort(), [us, world].sort());
      assert.deepEqual(rates.tax.map((r) => r.id).sort(), [vat, ca].sort());
      const cheapest = chooseShippingRate(rates.shipping, {
        country: 'US',
        weight_grams: 2000,
        discounted_subtotal: 0,
        currency: 'USD',
      });
      assert.deepEqual(toShippingInput(cheapest), { rate_id: us, name: 'US', price: 700, free_over: 10_000 });
      // The world rate is for countries no rate names.
      const abroad = await loadRates(ctx.deps.store.db, fresh.tenant.id, 'JP', 'USD');
      assert.equal(
        chooseShippingRate(abroad.shipping, {
          country: 'JP',
          weight_grams: 2001,
          discounted_subtotal: 0,
          currency: 'USD',
        }).id,
        world,
      );
      assert.throws(
        () =>
          chooseShippingRate(rates.shipping, {
            country: 'US',
            weight_grams: 2001,
            discounted_subtotal: 0,
            currency: 'USD',
          }),
        /No shipping rate in USD ships a parcel of 2001 g to US/,
      );
      const state = chooseTaxRate(rates.tax, { country: 'US', state: 'ca' });
      assert.deepEqual(toTaxInput(state as NonNullable<typeof state>), {
        rate_id: ca,
        name: 'CA',
        rate_bps: 725,
        inclusive: true,
        shipping_taxable: false,
      });
      const noCountry = await loadRates(ctx.deps.store.db, fresh.tenant.id, null, 'USD');
      assert.deepEqual([noCountry.shipping.length, noCountry.tax], [2, []]);
      const none = await loadRates(ctx.deps.store.db, fresh.tenant.id, 'FR', 'GBP');
      assert.deepEqual(none, { shipping: [], tax: [] });
    });

    it('answers a checkout read already for the same codes, customer, country and currency, else reads it', async () => {
      const fresh = await createTenant(ctx);
      const own = client(ctx.app, fresh.apiKey.key);
      const made = await own('POST', '/v1/discounts', {
        body: { automatic: true, type: 'fixed_amount', value: 100, currency: 'USD' },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const db = ctx.deps.store.db;
      const input = { codes: ['SAVE'], customerId: 'cus_a', country: 'US', currency: 'USD' };
      const known = await loadCheckout(db, fresh.tenant.id, input);
      assert.equal(known.discounts.automatic.length, 1);
      // The same checkout (a copy of its input): the very rows, not read again.
      assert.equal(await loadCheckout(db, fresh.tenant.id, { ...input, codes: ['SAVE'] }, known), known);
      // Anything else read for itself: another customer's uses, codes, country or currency.
      for (const other of [
        { customerId: 'cus_b' },
        { customerId: null },
        { codes: ['SAVE', 'MORE'] },
        { codes: [] },
        { country: undefined },
        { currency: 'EUR' },
      ]) {
        const loaded = await loadCheckout(db, fresh.tenant.id, { ...input, ...other }, known);
        assert.notEqual(loaded, known, JSON.stringify(other));
        assert.deepEqual(loaded.for, { ...input, ...other });
      }
    });
  });
}
