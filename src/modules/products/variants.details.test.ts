import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  LOGIC_ONLY,
  type TestContext,
} from '../../../test/helpers/context.js';
import { csv, importFile, upload } from '../../../test/helpers/imports.js';
import type { OrProblem, Page, Problem } from '../../../test/helpers/responses.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { ProductObject } from './products.schemas.js';
import { barcodeProblem, skuProblem } from './variants.codes.js';
import type { VariantObject } from './variants.schemas.js';

/**
 * What version 2027-01-20 adds to the catalog: a variant's image, cost, `requires_shipping` and
 * `taxable` (which pricing honours), a product's SEO fields, and SKUs and barcodes checked as a
 * scanner and a warehouse read them; older versions see none of it and keep their old rules.
 */

const LATEST = { 'x-service-version': '2027-01-20' };
const DETAILS = ['image', 'cost', 'requires_shipping', 'taxable'];
const keys = (value: unknown) => Object.keys(value as object);
type ProblemWithErrors = Problem & { errors?: { field: string; message: string }[] };

describe('product codes', () => {
  it('accepts GTINs, UPC-E and ISBNs whose check digit holds, and says what is wrong with the others', () => {
    for (const code of [
      '4006381333931',
      '0012345678905',
      '96385074',
      '04252614',
      '123456789012',
      '10012345678902',
    ]) {
      assert.equal(barcodeProblem(code), undefined, code);
    }
    for (const code of ['0-306-40615-2', '080442957X', '978-0-306-40615-7'])
      assert.equal(barcodeProblem(code), undefined);
    assert.equal(
      barcodeProblem('4006381333932'),
      'is not a valid GTIN, EAN, UPC or ISBN: its check digit is 2, but its other digits make it 1',
    );
    assert.match(
      String(barcodeProblem('3.65275E+11')),
      /^is a number in scientific notation \(3\.65275E\+11\)/,
    );
    assert.match(String(barcodeProblem('1,22328E+11')), /scientific notation/);
    assert.match(String(barcodeProblem('12345')), /have 8, 12, 13 or 14 digits/);
    assert.equal(barcodeProblem('0-306-40615-3'), 'is not a valid ISBN-10: its check digit does not match');
    assert.equal(skuProblem('SRT_COT_111'), undefined);
    // A spreadsheet always writes the exponent's sign: a code such as 12E5 is a code.
    assert.equal(skuProblem('12E5'), undefined);
    assert.match(String(skuProblem('7.77979E+11')), /scientific notation/);
  });
});

for (const dialect of LOGIC_ONLY) {
  describe(`variant details and checked codes (${dialect})`, () => {
    let ctx: TestContext;
    let latest: Client;
    let pinned: Client;
    let pinnedKey: string;

    before(async () => {
      ctx = await createTestContext(dialect);
      latest = client(ctx.app, (await createTenant(ctx, { apiVersion: '2027-01-20' })).apiKey.key);
      pinnedKey = (await createTenant(ctx, { apiVersion: '2026-12-15' })).apiKey.key;
      pinned = client(ctx.app, pinnedKey);
    });
    after(() => ctx.close());

    it('keeps an image, a cost, the flags and SEO fields; a product with options takes them per variant', async () => {
      const created = await latest<ProductObject>('POST', '/v1/products', {
        body: {
          name: 'E-book',
          sku: 'EBOOK-1',
          price: 1200,
          image: 'https://cdn.example.com/ebook.png',
          cost: 150,
          requires_shipping: false,
          taxable: false,
          seo: { title: 'The E-book', description: 'Read it anywhere.' },
        },
        headers: LATEST,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual(created.body.seo, { title: 'The E-book', description: 'Read it anywhere.' });
      const [only] = created.body.variants ?? [];
      assert.deepEqual(
        [only?.image, only?.cost, only?.requires_shipping, only?.taxable],
        ['https://cdn.example.com/ebook.png', 150, false, false],
      );
      const patched = await latest<ProductObject>('PATCH', `/v1/products/${created.body.id}`, {
        body: { taxable: true, image: null, seo: { description: null } },
        headers: LATEST,
      });
      assert.deepEqual(
        [patched.body.variants?.[0]?.taxable, patched.body.variants?.[0]?.image, patched.body.seo],
        [true, null, { title: 'The E-book', description: null }],
      );
      const tee = await latest<ProductObject>('POST', '/v1/products', {
        body: {
          name: 'Tee',
          options: [{ name: 'Size', values: ['S', 'M'] }],
          variants: [
            { sku: 'T-S', options: { Size: 'S' }, price: 2000, cost: 700 },
            { sku: 'T-M', options: { Size: 'M' }, price: 2000, image: 'https://cdn.example.com/m.png' },
          ],
        },
        headers: LATEST,
      });
      assert.equal(tee.status, 201, JSON.stringify(tee.body));
      assert.deepEqual(
        tee.body.variants?.map((v) => [v.cost, v.image, v.requires_shipping, v.taxable]),
        [
          [700, null, true, true],
          [null, 'https://cdn.example.com/m.png', true, true],
        ],
      );
      const refused = await latest<Problem>('PATCH', `/v1/products/${tee.body.id}`, {
        body: { cost: 1 },
        headers: LATEST,
      });
      assert.equal(refused.status, 400);
      const variant = tee.body.variants?.[1] as VariantObject;
      const changed = await latest<VariantObject>(
        'PATCH',
        `/v1/products/${tee.body.id}/variants/${variant.id}`,
        {
          body: { cost: 650, requires_shipping: false },
          headers: LATEST,
        },
      );
      assert.deepEqual(
        [changed.status, changed.body.cost, changed.body.requires_shipping],
        [200, 650, false],
      );
      const bad = await latest<ProblemWithErrors>(
        'PATCH',
        `/v1/products/${tee.body.id}/variants/${variant.id}`,
        {
          body: { image: 'https://user:pw@cdn.example.com/m.png' },
          headers: LATEST,
        },
      );
      assert.deepEqual([bad.status, bad.body.errors?.[0]?.field], [400, 'image']);
    });

    it('refuses mangled SKUs and barcodes from 2027-01-20 with 422 naming the field; older versions as before', async () => {
      const cases: ['POST', string, Record<string, unknown>, string][] = [
        ['POST', '/v1/products', { name: 'Mug', price: 900, barcode: '3.65275E+11' }, 'barcode'],
        ['POST', '/v1/products', { name: 'Mug', price: 900, sku: '4.6347E+11' }, 'sku'],
        [
          'POST',
          '/v1/products',
          {
            name: 'Cap',
            options: [{ name: 'Size', values: ['S'] }],
            variants: [{ options: { Size: 'S' }, price: 900, barcode: '4006381333932' }],
          },
          'variants[0].barcode',
        ],
      ];
      for (const [method, path, body, field] of cases) {
        const res = await latest<ProblemWithErrors>(method, path, { body, headers: LATEST });
        assert.equal(res.status, 422, JSON.stringify(res.body));
        assert.equal(res.body.code, 'invalid_product_code');
        assert.deepEqual(
          res.body.errors?.map((error) => error.field),
          [field],
        );
        // A tenant pinned to 2026-12-15 keeps the rules it had: any printable text.
        const old = await pinned<ProductObject>(method, path, {
          body: { ...body, ...('sku' in body ? { sku: `OLD-${String(body.sku)}` } : {}) },
        });
        assert.equal(old.status, 201, JSON.stringify(old.body));
      }
      const mug = await latest<ProductObject>('POST', '/v1/products', {
        body: { name: 'Mug', price: 900, barcode: '4006381333931' },
        headers: LATEST,
      });
      assert.equal(mug.status, 201);
      const patched = await latest<ProblemWithErrors>('PATCH', `/v1/products/${mug.body.id}`, {
        body: { barcode: '400638133393' },
        headers: LATEST,
      });
      assert.deepEqual([patched.status, patched.body.errors?.[0]?.field], [422, 'barcode']);
      const variantId = mug.body.variants?.[0]?.id as string;
      const viaVariant = await latest<ProblemWithErrors>(
        'PATCH',
        `/v1/products/${mug.body.id}/variants/${variantId}`,
        { body: { sku: '1.2E+9' }, headers: LATEST },
      );
      assert.deepEqual([viaVariant.status, viaVariant.body.errors?.[0]?.field], [422, 'sku']);
    });

    it('shows older versions none of the new fields: products, variants, events, imports', async () => {
      const created = await pinned<ProductObject>('POST', '/v1/products', {
        body: { name: 'Lamp', sku: 'LAMP-OLD', price: 4000, stock: 1, cost: 900 },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal('seo' in created.body, false);
      for (const variant of created.body.variants ?? []) {
        for (const field of DETAILS) assert.equal(field in variant, false, field);
      }
      const id = created.body.id;
      const variantId = created.body.variants?.[0]?.id as string;
      const variants = await pinned<Page<VariantObject>>('GET', `/v1/products/${id}/variants`);
      for (const field of DETAILS) assert.equal(field in (variants.body.data[0] as object), false, field);
      const one = await pinned<VariantObject>('GET', `/v1/products/${id}/variants/${variantId}`);
      assert.deepEqual(
        keys(one.body).filter((key) => DETAILS.includes(key)),
        [],
      );
      const now = await pinned<VariantObject>('GET', `/v1/products/${id}/variants/${variantId}`, {
        headers: LATEST,
      });
      assert.deepEqual([now.body.cost, now.body.requires_shipping], [900, true]);
      // product.outofstock names its variant in data.variant: without the new fields before 2027-01-20.
      await pinned('PATCH', `/v1/products/${id}`, { body: { stock: 0 } });
      type EventPage = Page<{ type: string; data: { object: ProductObject; variant?: VariantObject } }>;
      const events = await pinned<EventPage>('GET', '/v1/events?type=product.outofstock');
      const event = events.body.data[0];
      assert.ok(event?.data.variant);
      assert.equal('seo' in event.data.object, false);
      for (const field of DETAILS) assert.equal(field in (event.data.variant as object), false, field);
      const fresh = await pinned<EventPage>('GET', '/v1/events?type=product.outofstock', { headers: LATEST });
      assert.equal(fresh.body.data[0]?.data.variant?.cost, 900);
      // An import: no ignored_columns, and a WooCommerce file is a CSV.
      const file = csv([
        ['ID', 'Type', 'SKU', 'Name', 'Published', 'Regular price', 'Parent', 'Meta: x'],
        [1, 'simple', 'WOO-OLD-1', 'Woo thing', 1, '5', '', ''],
      ]);
      const queued = await upload(ctx, pinnedKey, 'resource=products', file);
      assert.equal(queued.status, 202);
      const body = queued.body as Record<string, unknown>;
      assert.deepEqual([body.format, 'ignored_columns' in body], ['csv', false]);
      await ctx.deps.importRunner.drain();
      const seen = await pinned<Record<string, unknown>>('GET', `/v1/imports/${String(body.id)}`, {
        headers: LATEST,
      });
      assert.deepEqual([seen.body.format, seen.body.ignored_columns], ['woocommerce', ['Meta: x']]);
    });

    it('never shows a cost to shoppers', async () => {
      const key = (await createTenant(ctx, { apiVersion: '2027-01-20' })).apiKey.key;
      const shop = client(ctx.app, key);
      await shop('POST', '/v1/products', {
        body: { name: 'Secret Cost Mug', price: 900, cost: 12345 },
        headers: LATEST,
      });
      const answer = await shop<Page<Record<string, unknown>>>('GET', '/v1/store/products', {
        headers: LATEST,
      });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.data.length, 1);
      assert.equal(JSON.stringify(answer.body).includes('12345'), false);
      assert.equal(JSON.stringify(answer.body).includes('"cost"'), false);
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`what ships and what is taxed (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let key: string;

    before(async () => {
      ctx = await createTestContext(dialect);
      key = (await createTenant(ctx, { apiVersion: '2027-01-20', currency: 'USD' })).apiKey.key;
      api = client(ctx.app, key);
    });
    after(() => ctx.close());

    it('only lines that require shipping weigh and need a rate; untaxable lines get no tax', async () => {
      // Imported as a store moves in: a parcel item, a download, a gift card that is not taxed.
      const done = await importFile(
        ctx,
        key,
        'resource=products',
        csv([
          ['handle', 'name', 'sku', 'price', 'stock', 'weight_grams', 'requires_shipping', 'taxable'],
          ['lamp', 'Lamp', 'LAMP', 4000, 5, 900, 'true', 'true'],
          ['ebook', 'E-book', 'EBOOK', 1000, 100, 300, 'false', 'true'],
          ['gift-card', 'Gift card', 'GIFT', 2500, 100, '', 'false', 'false'],
        ]),
      );
      assert.deepEqual([done.status, done.created_count], ['succeeded', 3]);
      const products = (await api<Page<ProductObject>>('GET', '/v1/products', { headers: LATEST })).body.data;
      const id = (name: string) => products.find((product) => product.name === name)?.id as string;
      const post = async (path: string, body: unknown) => {
        const res = await api<{ id: string }>('POST', path, { body, headers: LATEST });
        assert.equal(res.status, 201, JSON.stringify(res.body));
      };
      // The light band takes a parcel up to 1 kg: the lamp alone, not the lamp and the e-book's 300 g.
      await post('/v1/shipping-rates', {
        name: 'Light',
        countries: ['US'],
        price: 500,
        currency: 'USD',
        max_weight_grams: 1000,
      });
      await post('/v1/tax-rates', {
        name: 'Sales tax',
        country: 'US',
        rate_bps: 1000,
        inclusive: false,
        shipping_taxable: false,
      });
      const address = {
        line1: '1 Main St',
        city: 'Boston',
        state: 'MA',
        postal_code: '02110',
        country: 'US',
      };
      const preview = async (items: [string, number][]) => {
        const res = await api<OrProblem<OrderObject>>('POST', '/v1/orders/preview', {
          body: {
            items: items.map(([name, quantity]) => ({ product_id: id(name), quantity })),
            customer: { email: 'buyer@example.com' },
            shipping_address: address,
          },
          headers: LATEST,
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body as OrderObject;
      };
      const mixed = await preview([
        ['Lamp', 1],
        ['E-book', 2],
      ]);
      assert.deepEqual(
        [mixed.shipping?.name, mixed.shipping_total, mixed.items.map((item) => item.tax), mixed.total],
        ['Light', 500, [400, 200], 4000 + 2000 + 500 + 600],
      );
      // Nothing to ship: no shipping at all, and the untaxable gift card no tax.
      const digital = await preview([
        ['E-book', 1],
        ['Gift card', 1],
      ]);
      assert.deepEqual(
        [digital.shipping, digital.shipping_total, digital.items.map((item) => item.tax), digital.total],
        [null, 0, [100, 0], 1000 + 2500 + 100],
      );
    });
  });
}
