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
import type { OrProblem, Page, Problem } from '../../../test/helpers/responses.js';
import type { ShippingRateObject, TaxRateObject } from './rates.schemas.js';

/** `409 shipping_rate_overlap` names the rate in the way. */
type OverlapProblem = Problem & { conflicting_rate_id?: string };

async function rowCounts(ctx: TestContext): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ['shipping_rates', 'tax_rates'] as const) {
    const { n } = await ctx.deps.store.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    counts[table] = Number(n);
  }
  return counts;
}

for (const dialect of DIALECTS) {
  describe(`shipping and tax rates (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let other: Client;

    before(async () => {
      ctx = await createTestContext(dialect);
      api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      other = client(ctx.app, (await createTenant(ctx)).apiKey.key);
    });
    after(() => ctx.close());

    /** A tenant of its own, so each test's rates meet only each other. */
    const freshTenant = async () => client(ctx.app, (await createTenant(ctx)).apiKey.key);

    const shipping = async (as: Client, body: Record<string, unknown>) => {
      const res = await as<OrProblem<ShippingRateObject, OverlapProblem>>('POST', '/v1/shipping-rates', {
        body: { name: 'Rate', price: 500, currency: 'USD', ...body },
      });
      return res;
    };

    it('creates, reads, changes, lists and deletes a shipping rate', async () => {
      const mine = await freshTenant();
      const res = await shipping(mine, {
        name: 'Standard',
        countries: ['US', 'CA'],
        price: 599,
        free_over: 5000,
        max_weight_grams: 4999,
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const rate = res.body;
      assert.match(rate.id, /^shr_[0-9A-Za-z]{24}$/);
      assert.deepEqual(
        { ...rate, created: undefined, updated: undefined },
        {
          id: rate.id,
          name: 'Standard',
          countries: ['US', 'CA'],
          price: 599,
          currency: 'USD',
          free_over: 5000,
          min_weight_grams: null,
          max_weight_grams: 4999,
          created: undefined,
          updated: undefined,
          livemode: true,
        },
      );
      assert.match(rate.created, /^\d{4}-\d\d-\d\dT/);
      assert.deepEqual((await mine('GET', `/v1/shipping-rates/${rate.id}`)).body, rate);
      assert.equal((await other('GET', `/v1/shipping-rates/${rate.id}`)).status, 404);
      assert.equal((await other('DELETE', `/v1/shipping-rates/${rate.id}`)).status, 404);
      const patched = await mine<ShippingRateObject>('PATCH', `/v1/shipping-rates/${rate.id}`, {
        body: { price: 699, free_over: null, countries: ['*'] },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.deepEqual(
        [patched.body.price, patched.body.free_over, patched.body.countries],
        [699, null, ['*']],
      );
      const eur = await shipping(mine, { countries: ['DE'], currency: 'EUR' });
      assert.equal(eur.status, 201);
      const all = await mine<Page<ShippingRateObject>>('GET', '/v1/shipping-rates');
      assert.deepEqual([all.body.total, all.body.data.map((r) => r.id)], [2, [eur.body.id, rate.id]]);
      const euros = await mine<Page<ShippingRateObject>>('GET', '/v1/shipping-rates?currency=EUR');
      assert.deepEqual([euros.body.total, euros.body.data.map((r) => r.id)], [1, [eur.body.id]]);
      assert.equal((await mine('DELETE', `/v1/shipping-rates/${rate.id}`)).status, 204);
      assert.equal((await mine('GET', `/v1/shipping-rates/${rate.id}`)).status, 404);
    });

    it('refuses bad shipping rates naming each field, and writes nothing', async () => {
      const before = await rowCounts(ctx);
      const cases: [Record<string, unknown>, string][] = [
        [{ countries: ['US', 'XX'] }, 'countries[1]'],
        [{ countries: ['us'] }, 'countries[0]'],
        [{ countries: ['UK'] }, 'countries[0]'],
        [{ countries: ['US', '*'] }, 'countries[1]'],
        [{ countries: [] }, 'countries'],
        [{ countries: ['US', 'US'] }, 'countries'],
        [{ countries: ['US'], min_weight_grams: 1000, max_weight_grams: 999 }, 'min_weight_grams'],
        [{ countries: ['US'], price: -1 }, 'price'],
        [{ countries: ['US'], currency: 'XYZ' }, 'currency'],
        [{ countries: ['US'], name: '' }, 'name'],
        [{ countries: ['US'], max_weight_grams: -5 }, 'max_weight_grams'],
        [{ price: 1 }, 'countries'],
      ];
      for (const [body, field] of cases) {
        const res = await shipping(api, body);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        assert.ok(
          res.body.errors?.some((e) => e.field === field),
          `${field}: ${JSON.stringify(res.body.errors)}`,
        );
      }
      assert.deepEqual(await rowCounts(ctx), before);
    });

    it('refuses a rate of one name whose weights and countries overlap another in its currency', async () => {
      const mine = await freshTenant();
      const light = await shipping(mine, { name: 'Ground', countries: ['US', 'CA'], max_weight_grams: 999 });
      assert.equal(light.status, 201);
      // Adjacent bands, other countries, another currency, another method: no overlap.
      for (const body of [
        { name: 'Ground', countries: ['US'], min_weight_grams: 1000, max_weight_grams: 4999 },
        { name: 'Ground', countries: ['DE', 'FR'] },
        { name: 'Ground', countries: ['CA'], currency: 'CAD' },
        { name: 'Ground', countries: ['CA', 'US'], min_weight_grams: 5000 },
        // The rest of the world: every country no rate names, so no overlap with named ones.
        { name: 'Ground', countries: ['*'] },
        // Another shipping method for the same parcels: the buyer picks, or gets the cheapest.
        { name: 'Express', countries: ['US', 'CA'], max_weight_grams: 999 },
      ]) {
        const res = await shipping(mine, body);
        assert.equal(res.status, 201, `${body.name}: ${JSON.stringify(res.body)}`);
      }
      const before = await rowCounts(ctx);
      for (const body of [
        { name: 'Ground', countries: ['CA'], max_weight_grams: 10 },
        { name: 'ground', countries: ['US'], max_weight_grams: 0 },
        { name: 'GROUND', countries: ['US'], min_weight_grams: 999, max_weight_grams: 999 },
        { name: 'Ground', countries: ['*'], min_weight_grams: 500, max_weight_grams: 600 },
        { name: 'Ground', countries: ['CA'] },
      ]) {
        const res = await shipping(mine, body);
        assert.equal(res.status, 409, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'shipping_rate_overlap');
        assert.ok(
          typeof res.body.conflicting_rate_id === 'string' &&
            res.body.detail.includes(res.body.conflicting_rate_id),
          JSON.stringify(res.body),
        );
      }
      const named = await shipping(mine, { name: 'Ground', countries: ['CA'], max_weight_grams: 10 });
      assert.equal(named.body.conflicting_rate_id, light.body.id);
      assert.match(
        named.body.detail,
        /"Ground", 0-999 g\) already prices parcels of these weights in USD to CA;/,
      );
      const world = await shipping(mine, { name: 'Ground', countries: ['*'], max_weight_grams: 0 });
      assert.match(world.body.detail, /"Ground", 0 g and up\) .* to the rest of the world;/);
      // A change into an overlap is refused too; a change of the rate's own band is not.
      const grown = await mine<Problem>('PATCH', `/v1/shipping-rates/${light.body.id}`, {
        body: { max_weight_grams: 1000 },
      });
      assert.deepEqual([grown.status, grown.body.code], [409, 'shipping_rate_overlap']);
      const shrunk = await mine('PATCH', `/v1/shipping-rates/${light.body.id}`, {
        body: { min_weight_grams: 10, max_weight_grams: 500 },
      });
      assert.equal(shrunk.status, 200, JSON.stringify(shrunk.body));
      assert.deepEqual(await rowCounts(ctx), before);
      // Another tenant's rates are not in the way.
      assert.equal((await shipping(other, { countries: ['US'] })).status, 201);
    });

    it('lets one of several concurrent overlapping rates in', async () => {
      const mine = await freshTenant();
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          shipping(mine, { name: i % 2 ? 'Racer' : 'racer', countries: ['JP'] }),
        ),
      );
      assert.deepEqual(
        results.map((r) => r.status).sort(),
        [201, 409, 409, 409, 409, 409],
        JSON.stringify(results.map((r) => r.body)),
      );
    });

    it('creates, reads, changes, lists and deletes tax rates, one per country and state', async () => {
      const mine = await freshTenant();
      const post = (body: Record<string, unknown>) =>
        mine<OrProblem<TaxRateObject>>('POST', '/v1/tax-rates', {
          body: { name: 'Tax', rate_bps: 1000, inclusive: false, shipping_taxable: false, ...body },
        });
      const us = await post({ name: 'US', country: 'US', rate_bps: 0 });
      assert.equal(us.status, 201, JSON.stringify(us.body));
      const ca = await post({ name: 'California', country: 'US', state: 'CA', rate_bps: 725 });
      assert.equal(ca.status, 201);
      assert.match(ca.body.id, /^txr_[0-9A-Za-z]{24}$/);
      assert.deepEqual(
        { ...ca.body, created: undefined, updated: undefined },
        {
          id: ca.body.id,
          name: 'California',
          country: 'US',
          state: 'CA',
          rate_bps: 725,
          inclusive: false,
          shipping_taxable: false,
          created: undefined,
          updated: undefined,
          livemode: true,
        },
      );
      const de = await post({
        name: 'VAT',
        country: 'DE',
        rate_bps: 1900,
        inclusive: true,
        shipping_taxable: true,
      });
      assert.equal(de.status, 201);
      for (const body of [
        { country: 'US' },
        { country: 'US', state: 'ca' },
        { country: 'US', state: ' CA ' },
        { country: 'DE', state: null },
      ]) {
        const res = await post(body);
        assert.deepEqual([res.status, res.body.code], [409, 'duplicate_tax_rate'], JSON.stringify(body));
      }
      const ny = await post({ country: 'US', state: 'NY' });
      const moved = await mine<Problem>('PATCH', `/v1/tax-rates/${ny.body.id}`, { body: { state: 'Ca' } });
      assert.deepEqual([moved.status, moved.body.code], [409, 'duplicate_tax_rate']);
      const renamed = await mine<TaxRateObject>('PATCH', `/v1/tax-rates/${ny.body.id}`, {
        body: { state: 'New York', rate_bps: 400 },
      });
      // A US state is its ISO 3166-2 code, given as the code or the name.
      assert.deepEqual([renamed.status, renamed.body.state, renamed.body.rate_bps], [200, 'NY', 400]);
      // Another tenant may have its own US rate.
      const theirs = await other<TaxRateObject>('POST', '/v1/tax-rates', {
        body: { name: 'US', country: 'US', rate_bps: 1, inclusive: false, shipping_taxable: false },
      });
      assert.equal(theirs.status, 201);
      assert.equal((await other('GET', `/v1/tax-rates/${ca.body.id}`)).status, 404);

      const list = await mine<Page<TaxRateObject>>('GET', '/v1/tax-rates?country=US');
      assert.deepEqual(
        [list.body.total, list.body.data.map((r) => r.id)],
        [3, [ny.body.id, ca.body.id, us.body.id]],
      );
      assert.equal((await mine<Page<TaxRateObject>>('GET', '/v1/tax-rates')).body.total, 4);
      assert.equal((await mine('DELETE', `/v1/tax-rates/${us.body.id}`)).status, 204);
      // Deleted, its place is free again.
      assert.equal((await post({ country: 'US' })).status, 201);
    });

    it("stores a tax rate's state in one form: the subdivision's code where known, else normalised text", async () => {
      const mine = await freshTenant();
      const post = (body: Record<string, unknown>) =>
        mine<OrProblem<TaxRateObject>>('POST', '/v1/tax-rates', {
          body: { name: 'Tax', rate_bps: 500, inclusive: false, shipping_taxable: false, ...body },
        });
      const quebec = await post({ country: 'CA', state: 'Que\u0301bec' });
      assert.deepEqual([quebec.status, quebec.body.state], [201, 'QC'], JSON.stringify(quebec.body));
      const california = await post({ country: 'US', state: 'ca\u200b' });
      assert.deepEqual([california.status, california.body.state], [201, 'CA']);
      // The same state however it is written: one rate.
      for (const state of ['CA', 'California', 'US-CA', '\uff23\uff21', '\u2060ca']) {
        const twin = await post({ country: 'US', state });
        assert.deepEqual([twin.status, twin.body.code], [409, 'duplicate_tax_rate'], state);
      }
      // Guernsey's regions have no ISO 3166-2 codes in the data: its states are text.
      const guernsey = await post({ country: 'GG', state: '  St.\u200b  Peter  Port ' });
      assert.deepEqual([guernsey.status, guernsey.body.state], [201, 'St. Peter Port']);
      assert.equal((await post({ country: 'GG', state: 'st. peter port' })).body.code, 'duplicate_tax_rate');
      // A change of country checks the state against the new country, and changes nothing when refused.
      const moved = await mine<Problem>('PATCH', `/v1/tax-rates/${california.body.id}`, {
        body: { country: 'DE' },
      });
      assert.equal(moved.status, 400);
      assert.deepEqual(
        moved.body.errors?.map((e) => e.field),
        ['state'],
      );
      const kept = await mine<TaxRateObject>('GET', `/v1/tax-rates/${california.body.id}`);
      assert.deepEqual([kept.body.country, kept.body.state], ['US', 'CA']);
      const bavaria = await mine<TaxRateObject>('PATCH', `/v1/tax-rates/${california.body.id}`, {
        body: { country: 'DE', state: 'bayern' },
      });
      assert.deepEqual([bavaria.status, bavaria.body.country, bavaria.body.state], [200, 'DE', 'BY']);
    });

    it('refuses bad tax rates naming each field; concurrent duplicates make one', async () => {
      const before = await rowCounts(ctx);
      const base = { name: 'Tax', country: 'US', rate_bps: 100, inclusive: false, shipping_taxable: false };
      for (const [body, field] of [
        [{ ...base, country: 'XX' }, 'country'],
        [{ ...base, country: 'us' }, 'country'],
        [{ ...base, rate_bps: 10_001 }, 'rate_bps'],
        [{ ...base, rate_bps: -1 }, 'rate_bps'],
        [{ ...base, rate_bps: 1.5 }, 'rate_bps'],
        [{ ...base, state: '' }, 'state'],
        [{ ...base, state: '\u200b' }, 'state'],
        [{ ...base, state: 'XX' }, 'state'],
        [{ ...base, state: 'Calif' }, 'state'],
        [{ ...base, country: 'CA', state: 'CA' }, 'state'],
        [{ ...base, inclusive: 'yes' }, 'inclusive'],
        [{ name: 'Tax', country: 'US', rate_bps: 100 }, 'inclusive'],
      ] as const) {
        const res = await api<Problem>('POST', '/v1/tax-rates', { body });
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        assert.ok(
          res.body.errors?.some((e) => e.field === field),
          `${field}: ${JSON.stringify(res.body)}`,
        );
      }
      assert.deepEqual(await rowCounts(ctx), before);
      const mine = await freshTenant();
      const results = await Promise.all(
        ['QC', 'qc', 'Qc', ' QC'].map((state) =>
          mine<Problem>('POST', '/v1/tax-rates', { body: { ...base, country: 'CA', state } }),
        ),
      );
      assert.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409, 409]);
    });
  });
}
