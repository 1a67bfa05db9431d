import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import { allErrors, importFile } from '../../../test/helpers/imports.js';
import type { Page } from '../../../test/helpers/responses.js';
import type { ProductObject } from '../products/products.schemas.js';
import { shopifyLayout } from './imports.shopify.js';

/**
 * Shopify's product exports of every layout, from public repositories, imported as they are and
 * counted against what the file holds (counted by hand):
 *
 * - fixtures/shopify-classic.csv: a store's export of the classic layout (no `Product Category`),
 *   PacktPublishing/Shopify-Theme-Customization-with-Liquid, products_export_1.csv at commit
 *   fed453a04d588c839748cebaebf07af0518f8dc2, whole: 21 rows, 20 products (19 of one variant,
 *   gardening-gloves of two), no SKU, one image each (the gloves two).
 * - fixtures/shopify-classic-template.csv: Shopify's older product template (no `Status`, `http`
 *   image URLs), Text-Connects/DemoProducts, product_template.csv at commit
 *   ce1a7f59514f5714bc02f621ded44b72cbe742fa, whole: 4 rows, 2 products.
 * - fixtures/shopify-2024.csv: a store's export of the 2024 layout (`Product Category`, `Option1
 *   Linked To`, metafields), YadaYada's shopify-variant-splitter, products_export_1.csv at commit
 *   e86a1d7eb834d9326f65e9301085af3164244367, its first 45 lines (header and 44 rows, the first
 *   two products whole): mustache-wax, 7 variants and 26 images (19 image-only rows), and the KENT
 *   comb, 1 variant and 18 images (17 image-only rows); barcodes written as `'0850064060010`.
 * - fixtures/shopify-2024-template-excel.csv: Shopify's 2024 product template after a spreadsheet
 *   saved it (every barcode in scientific notation), kcohen1997/Shopify-Product-CSV-File-Forward-Fill,
 *   product_template.csv at commit d4859023282d23b7e12bb7c3f805555ece56cd21, whole: 17 rows.
 * - fixtures/shopify-current.csv: a store's file of the current layout (`URL handle`,
 *   `Description`, `SKU`, `Price`...), sahraandbeyond/sahra-beyond, product_template.csv at commit
 *   75ccddc1a436b8af7fddc221039e9bd40c1c690e, whole: 24 rows, 3 tees of 8 variants (Size x Fit).
 * - fixtures/shopify-current-template.csv: Shopify's current product template,
 *   theteleporter/hirachu, product_template.csv at commit
 *   a2af701001148c41adc70419e8ad96624508d146, whole: 15 rows; its sample barcodes fail their
 *   check digit.
 */

const fixture = (name: string): Buffer => fs.readFileSync(new URL(`./fixtures/${name}.csv`, import.meta.url));
const headerOf = (name: string): string[] =>
  (fixture(name).toString('utf8').split(/\r?\n/, 1)[0] ?? '').split(',');

async function catalog(api: Client): Promise<Map<string, ProductObject>> {
  const page = await api<Page<ProductObject>>('GET', '/v1/products?expand=variants&limit=100');
  assert.equal(page.status, 200);
  return new Map(page.body.data.map((product) => [product.handle, product]));
}

describe('Shopify layouts', () => {
  it('tells the three layouts apart by their header', () => {
    assert.equal(shopifyLayout(headerOf('shopify-classic')), 'classic');
    assert.equal(shopifyLayout(headerOf('shopify-2024')), '2024');
    assert.equal(shopifyLayout(headerOf('shopify-current')), 'current');
  });
});

for (const dialect of DIALECTS) {
  describe(`Shopify exports of every layout, as real stores wrote them (${dialect})`, () => {
    let ctx: TestContext;

    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    async function shop(currency = 'USD'): Promise<{ key: string; api: Client }> {
      const key = (await createTenant(ctx, { currency })).apiKey.key;
      return { key, api: client(ctx.app, key) };
    }

    it('the classic layout: 20 products, their prices, stock, images and vendors', async () => {
      const { key, api } = await shop();
      const done = await importFile(ctx, key, 'resource=products', fixture('shopify-classic'));
      assert.deepEqual(
        [
          done.format,
          done.status,
          done.rows_total,
          done.created_count,
          done.unchanged_count,
          done.error_count,
        ],
        ['shopify', 'succeeded', 21, 21, 0, 0],
      );
      // The file has an `Image Alt Text` column, empty on each of its 21 image rows.
      assert.ok(!done.ignored_columns.includes('Image Alt Text'));
      assert.ok(done.ignored_columns.includes('Variant Inventory Policy'));
      assert.ok(!done.ignored_columns.includes('Cost per item'));
      const products = await catalog(api);
      assert.equal(products.size, 20);
      const lamp = products.get('floor-lamp') as ProductObject;
      assert.deepEqual(
        [lamp.name, lamp.description, lamp.category, lamp.tags, lamp.attributes, lamp.status, lamp.images],
        [
          'Floor Lamp',
          'Black floor lamp',
          'Indoor',
          ['Black', 'Lamp'],
          { vendor: 'Company 123' },
          'active',
          [
            'https://cdn.shopify.com/s/files/1/0559/0089/7434/products/photo-1494438639946-1ebd1d20bf85.jpg?v=1623104890',
          ],
        ],
      );
      assert.deepEqual(
        lamp.variants?.map((v) => [
          v.sku,
          v.price,
          v.compare_at_price,
          v.stock,
          v.weight_grams,
          v.requires_shipping,
          v.taxable,
        ]),
        [[null, 6999, 8500, 1, 0, true, true]],
      );
      const gloves = products.get('gardening-gloves') as ProductObject;
      assert.deepEqual(gloves.options, [{ name: 'Color', values: ['Green', 'Yellow'] }]);
      assert.deepEqual(
        gloves.variants?.map((v) => [v.title, v.price, v.stock]),
        [
          ['Green', 999, 1],
          ['Yellow', 1599, 3],
        ],
      );
      assert.equal(gloves.images.length, 2);
      const media = [...products.values()].flatMap((product) => product.media);
      assert.equal(media.length, 21);
      assert.ok(media.every((image) => image.alt === null));
      // The file's stock, summed by hand: 1+6+5+1+5+5+0+6+8+2+4+1+5+3+0+1+2+4+2+1+3.
      const stock = [...products.values()].reduce((sum, product) => sum + product.stock, 0);
      assert.equal(stock, 65);
      const armchairs = products.get('black-armchairs') as ProductObject;
      assert.match(armchairs.description ?? '', /^Description\n\nLorem ipsum dolor sit amet/);
    });

    it('the classic template: http images as https, SEO fields, a barcode that is no GTIN refused', async () => {
      const { key, api } = await shop();
      const done = await importFile(
        ctx,
        key,
        'resource=products&on_error=skip',
        fixture('shopify-classic-template'),
      );
      assert.deepEqual([done.created_count, done.error_count], [3, 1]);
      assert.deepEqual(done.errors, [
        {
          line: 2,
          column: 'Variant Barcode',
          message: 'is not a GTIN, EAN, UPC or ISBN: those have 8, 12, 13 or 14 digits (an ISBN-10 has 10)',
        },
      ]);
      const products = await catalog(api);
      assert.deepEqual([...products.keys()], ['example-t-shirt']);
      const tee = products.get('example-t-shirt') as ProductObject;
      assert.deepEqual(tee.images, [
        'https://cdn.shopify.com/s/images/shopify_shirt.png?e6948ca4d9028f9e734b8202cc472e3b89aae0f3',
      ]);
      // Its one image row's `Image Alt Text` (line 3).
      assert.deepEqual(
        tee.media.map((image) => image.alt),
        ['A black t-shirt with the shopify logo'],
      );
      assert.deepEqual(tee.seo, {
        title: 'Our awesome T-shirt in 70 characters or less.',
        description: 'A great description of your products in 160 characters or less',
      });
      assert.deepEqual(
        tee.variants?.map((v) => [v.sku, v.title, v.price, v.compare_at_price, v.weight_grams]),
        [
          [null, 'Lithograph - Height: 9" x Width: 12"', 2500, null, 3629],
          ['example-shirt-s', 'Small', 1999, 2499, 200],
          ['example-shirt-m', 'Medium', 1999, 2499, 200],
        ],
      );
    });

    it('the 2024 layout: every image in its position, barcodes without their quote, the flags kept', async () => {
      const { key, api } = await shop();
      const done = await importFile(ctx, key, 'resource=products', fixture('shopify-2024'));
      assert.deepEqual(
        [done.status, done.rows_total, done.created_count, done.unchanged_count, done.error_count],
        ['succeeded', 44, 8, 36, 0],
      );
      for (const column of [
        'Option1 Linked To',
        'Hold level (product.metafields.shopify.hold-level)',
        'Gift Card',
      ]) {
        assert.ok(done.ignored_columns.includes(column), column);
      }
      const products = await catalog(api);
      const wax = products.get('mustache-wax') as ProductObject;
      assert.equal(wax.images.length, 26);
      // `Image Alt Text` is empty on all 44 image rows: no image has alt text.
      assert.ok(!done.ignored_columns.includes('Image Alt Text'));
      const media = [...products.values()].flatMap((product) => product.media);
      assert.equal(media.length, 44);
      assert.ok(media.every((image) => image.alt === null));
      assert.equal(
        wax.images[0],
        'https://cdn.shopify.com/s/files/1/0605/9048/9644/files/790459bd.jpg?v=1760646579',
      );
      assert.equal(
        wax.images[25],
        'https://cdn.shopify.com/s/files/1/0605/9048/9644/files/fc9de414.jpg?v=1760646579',
      );
      assert.deepEqual(
        wax.options.map((option) => [option.name, option.values.length]),
        [
          ['size', 3],
          ['style', 4],
        ],
      );
      assert.deepEqual(
        wax.variants?.map((v) => [v.sku, v.price, v.barcode, v.requires_shipping, v.taxable]),
        [
          ['og1oz-light-black-usa', 1599, '0850064060010', false, false],
          ['stmw-med-neutral-backroom-1oz-usa', 1799, '0850064060096', false, false],
          ['stmw-med-neutral-bayrum-1oz-usa', 1599, '0850064060034', false, false],
          ['stmw-med-neutral-bayrum-tube-half-oz', 1799, '0850064060102', false, false],
          ['stmw-med-neutral-bayrum2-2oz-usa', 2599, '0850064060089', false, false],
          ['stmw-med-neutral-citrus-1oz-usa', 1599, '0850064060003', false, false],
          ['stmw-med-neutral-citrus-2oz-usa', 2599, '0198168866924', false, false],
        ],
      );
      assert.equal(
        wax.variants?.[0]?.image,
        'https://cdn.shopify.com/s/files/1/0605/9048/9644/files/8f420f93.jpg?v=1760646579',
      );
      assert.deepEqual(
        [wax.category, wax.attributes],
        ['Uncategorized', { vendor: 'State Trooper Stache Wax' }],
      );
      const comb = [...products.values()].find((product) => product.name.startsWith('KENT')) as ProductObject;
      assert.deepEqual(
        [comb.handle.length, comb.status, comb.images.length, comb.variants?.[0]?.title],
        [163, 'draft', 18, 'A-Tortoiseshell / 1 Pack'],
      );
      // Imported again: every row is found by its SKU and nothing changes.
      const again = await importFile(ctx, key, 'resource=products', fixture('shopify-2024'));
      assert.deepEqual([again.created_count, again.updated_count, again.unchanged_count], [0, 0, 44]);
    });

    it('a 2024 template a spreadsheet saved: a dry run names every mangled barcode, and nothing is written', async () => {
      const { key, api } = await shop();
      const done = await importFile(
        ctx,
        key,
        'resource=products&dry_run=true',
        fixture('shopify-2024-template-excel'),
      );
      assert.deepEqual([done.status, done.rows_total, done.error_count], ['failed', 17, 17]);
      const errors = await allErrors(api, done.id);
      const mangled = errors.filter((error) => error.column === 'Variant Barcode');
      // Every variant row but the pants' image-only row (line 17, not imported with its product).
      assert.deepEqual(
        mangled.map((error) => error.line),
        [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18],
      );
      assert.match(mangled[0]?.message ?? '', /^is a number in scientific notation \(3\.65275E\+11\)/);
      // Its `Image Alt Text` (11 images with alt text) is read, not ignored; nothing is written here.
      assert.ok(!done.ignored_columns.includes('Image Alt Text'));
      assert.deepEqual(errors.find((error) => error.line === 17)?.column, null);
      assert.equal((await catalog(api)).size, 0);
    });

    it('the templates’ alt text, counted by hand, with their sample barcodes set aside', async () => {
      // The files as they are but for the barcode column's name, so that the barcodes (which fail,
      // above) are ignored and the products are written.
      const aside = (name: string, column: string) =>
        fixture(name).toString('utf8').replace(`,${column},`, `,${column} (set aside),`);
      const excel = await shop();
      const done = await importFile(
        ctx,
        excel.key,
        'resource=products',
        aside('shopify-2024-template-excel', 'Variant Barcode'),
      );
      assert.equal(done.status, 'succeeded', JSON.stringify(done.errors));
      const products = await catalog(excel.api);
      // 11 image rows, each with its `Image Alt Text`: the shirt's 6, the pants' 4, the hat's 1.
      assert.deepEqual(
        ['example-shirt', 'example-pants', 'example-hat'].map((handle) =>
          products.get(handle)?.media.map((image) => image.alt),
        ),
        [
          [
            'A rack of T-Shirts',
            'T-Shirt color swatches',
            'Green T-Shirt',
            'Blue T-Shirt',
            'Gray T-Shirt',
            'Purple T-Shirt',
          ],
          [
            'A rack of jeans',
            'Small tapered stone wash jeans',
            'Medium tapered stone wash jeans',
            'Large tapered stone wash jeans',
          ],
          ['Gray Heather Beanie'],
        ],
      );
      // The current template gives all 12 rows of its T-shirt an `Image alt text`, but only the first
      // an image: the T-shirt has that one, with its text; the alt text of rows without an image is not read.
      const current = await shop();
      const template = await importFile(
        ctx,
        current.key,
        'resource=products',
        aside('shopify-current-template', 'Barcode'),
      );
      assert.equal(template.status, 'succeeded', JSON.stringify(template.errors));
      const band = (await catalog(current.api)).get('physical-product-the-band-t-shirt');
      assert.deepEqual(band?.media, [
        {
          url: band?.images[0],
          alt: 'Green t-shirt with The Band graphic',
        },
      ]);
      assert.match(band?.images[0] ?? '', /forest-hiker\.jpg/);
    });

    it('the current layout: URL handle, Description, SKU, Price, images and SEO, in the store’s currency', async () => {
      const { key, api } = await shop('AED');
      const done = await importFile(ctx, key, 'resource=products', fixture('shopify-current'));
      assert.deepEqual(
        [done.format, done.status, done.rows_total, done.created_count, done.error_count],
        ['shopify', 'succeeded', 24, 24, 0],
      );
      for (const column of ['Continue selling when out of stock', 'Option1 Linked To']) {
        assert.ok(done.ignored_columns.includes(column), column);
      }
      for (const column of [
        'URL handle',
        'Product image URL',
        'Image alt text',
        'Charge tax',
        'SEO description',
      ]) {
        assert.ok(!done.ignored_columns.includes(column), column);
      }
      const products = await catalog(api);
      assert.deepEqual([...products.keys()].sort(), [
        'al-quaa-galaxy-tee',
        'hajar-mountain-tee',
        'liwa-dune-tee',
      ]);
      const tee = products.get('al-quaa-galaxy-tee') as ProductObject;
      assert.deepEqual(
        [tee.name, tee.currency, tee.category, tee.status, tee.tags, tee.attributes, tee.images],
        [
          'Al Quaa Galaxy Tee',
          'AED',
          'T-Shirt',
          'active',
          ['place:Al Quaa', 'placeurl:al-quaa-desert', 'theme:#181109', 'dark'],
          { vendor: 'Sahra & Beyond' },
          [
            'https://www.sahraandbeyond.ae/shirts/design-black-front.jpg',
            'https://www.sahraandbeyond.ae/shirts/design-black-back.jpg',
          ],
        ],
      );
      assert.equal(tee.seo.title, 'Al Quaa Galaxy Tee | Sahra & Beyond');
      // `Image alt text`, by hand: each of the 6 image rows (a front and a back per tee) gives one.
      assert.deepEqual(
        ['al-quaa-galaxy-tee', 'liwa-dune-tee', 'hajar-mountain-tee'].map((handle) =>
          products.get(handle)?.media.map((image) => image.alt),
        ),
        [
          ['Al Quaa Galaxy Tee — front', 'Al Quaa Galaxy Tee — back'],
          ['Liwa Dune Tee — front', 'Liwa Dune Tee — back'],
          ['Hajar Mountains Tee — front', 'Hajar Mountains Tee — back'],
        ],
      );
      assert.deepEqual(tee.options, [
        { name: 'Size', values: ['S', 'M', 'L', 'XL'] },
        { name: 'Fit', values: ['Regular', 'Oversized'] },
      ]);
      assert.equal(tee.variant_count, 8);
      for (const variant of tee.variants ?? []) {
        assert.deepEqual(
          [variant.price, variant.stock, variant.weight_grams, variant.requires_shipping, variant.taxable],
          [14900, 25, 220, true, true],
        );
      }
      assert.equal(tee.stock, 200);
    });

    it('reads a file’s prices in the currency the store chose, changed before its first order', async () => {
      const { key, api } = await shop('USD');
      const changed = await api<{ currency: string }>('PATCH', '/v1/settings', {
        body: { currency: 'JPY' },
        headers: { 'x-service-version': '2027-01-20' },
      });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      const done = await importFile(ctx, key, 'resource=products', fixture('shopify-current'));
      assert.equal(done.created_count, 24);
      const tee = (await catalog(api)).get('liwa-dune-tee') as ProductObject;
      // 149 yen: JPY has no minor unit.
      assert.deepEqual([tee.currency, tee.price, tee.price_max], ['JPY', 149, 149]);
    });

    it('Shopify’s current template: its sample barcodes fail their check digit, each named by line', async () => {
      const { key, api } = await shop();
      const done = await importFile(
        ctx,
        key,
        'resource=products&on_error=skip',
        fixture('shopify-current-template'),
      );
      assert.deepEqual([done.rows_total, done.created_count, done.error_count], [15, 0, 15]);
      const errors = await allErrors(api, done.id);
      assert.deepEqual(
        errors.map((error) => [error.line, error.column]),
        [...Array.from({ length: 15 }, (_, i) => [i + 2, 'Barcode'])],
      );
      assert.equal(errors[0]?.message, 'is not a valid ISBN-10: its check digit does not match');
      assert.ok(!done.ignored_columns.includes('Image alt text'));
      assert.equal(
        errors[12]?.message,
        'is not a valid GTIN, EAN, UPC or ISBN: its check digit is 1, but its other digits make it 5',
      );
    });
  });
}
