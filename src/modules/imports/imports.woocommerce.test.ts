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
import { csv, importFile } from '../../../test/helpers/imports.js';
import type { Page } from '../../../test/helpers/responses.js';
import type { ProductObject } from '../products/products.schemas.js';
import { splitEscapedList, weightToGrams } from './imports.values.js';

/**
 * WooCommerce's product export, imported as it is. fixtures/woocommerce-products.csv is
 * WooCommerce's own sample export, woocommerce/woocommerce, sample-data/sample_products.csv at
 * commit 3f371da79ebdb83a1fc4cd9a00c332500df16aeb, whole: 25 rows, counted by hand:
 *
 * - 14 simple products (2 of them `simple, downloadable, virtual`: the album and the single);
 * - 2 variable products: the V-neck tee (line 2) with 3 variations (lines 17-19) that choose a
 *   Color and leave Size open, and the hoodie (line 3) with 4 variations (lines 20-22 and 26,
 *   after two other products) of Color and Logo;
 * - a grouped product (line 24) and an external one (line 25), which have no equivalent here.
 *
 * Weights are in pounds (`Weight (lbs)`), a sale price is the price and its regular price the one
 * struck through, and a variation without weight has its product's.
 */

const FILE = fs.readFileSync(new URL('./fixtures/woocommerce-products.csv', import.meta.url));

describe('WooCommerce values', () => {
  it('reads its list cells and weights', () => {
    assert.deepEqual(splitEscapedList('Clothing > Hoodies, Clothing'), ['Clothing > Hoodies', 'Clothing']);
    assert.deepEqual(splitEscapedList('Red\\, dark, Blue'), ['Red, dark', 'Blue']);
    assert.deepEqual(weightToGrams('.5', 'lbs'), { value: 227 });
    assert.deepEqual(weightToGrams('1.2', 'kg'), { value: 1200 });
    assert.deepEqual(weightToGrams('3', 'oz'), { value: 85 });
    assert.match(String((weightToGrams('heavy', 'kg') as { error: string }).error), /must be a weight in kg/);
  });
});

for (const dialect of DIALECTS) {
  describe(`WooCommerce product exports (${dialect})`, () => {
    let ctx: TestContext;

    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    async function shop(): Promise<{ key: string; api: Client }> {
      const key = (await createTenant(ctx, { currency: 'USD' })).apiKey.key;
      return { key, api: client(ctx.app, key) };
    }

    async function catalog(api: Client): Promise<Map<string, ProductObject>> {
      const page = await api<Page<ProductObject>>('GET', '/v1/products?expand=variants&limit=100');
      return new Map(page.body.data.map((product) => [product.name, product]));
    }

    it('imports the sample export: simple and variable products, variations wherever they are', async () => {
      const { key, api } = await shop();
      const done = await importFile(ctx, key, 'resource=products&on_error=skip', FILE);
      assert.deepEqual(
        [done.format, done.status, done.rows_total, done.created_count, done.error_count],
        // 14 simple products, 2 variable products and their 7 variations; the grouped and external refused.
        ['woocommerce', 'succeeded', 25, 23, 2],
      );
      assert.deepEqual(done.errors, [
        {
          line: 24,
          column: 'Type',
          message:
            'is a grouped product, which has no price or stock of its own: its products come in on their own rows',
        },
        {
          line: 25,
          column: 'Type',
          message: 'is an external product, sold on another site: a store here sells what it holds',
        },
      ]);
      for (const column of [
        'Short description',
        'In stock?',
        'Length (in)',
        'External URL',
        'Attribute 1 visible',
      ]) {
        assert.ok(done.ignored_columns.includes(column), column);
      }
      for (const column of ['Weight (lbs)', 'Attribute 2 value(s)', 'Sale price', 'Parent', 'Tax status']) {
        assert.ok(!done.ignored_columns.includes(column), column);
      }
      const products = await catalog(api);
      assert.equal(products.size, 16);

      const hoodie = products.get('Hoodie') as ProductObject;
      assert.deepEqual(
        [hoodie.handle, hoodie.category, hoodie.status, hoodie.images.length, hoodie.attributes],
        ['hoodie', 'Hoodies', 'active', 4, {}],
      );
      assert.deepEqual(hoodie.options, [
        { name: 'Color', values: ['Red', 'Green', 'Blue'] },
        { name: 'Logo', values: ['No', 'Yes'] },
      ]);
      assert.deepEqual(
        hoodie.variants?.map((v) => [v.sku, v.title, v.price, v.compare_at_price, v.weight_grams, v.taxable]),
        [
          // On sale: 42.00, 45.00 struck through; the variations weigh what the product does (1.5 lb).
          ['woo-hoodie-red', 'Red / No', 4200, 4500, 680, true],
          ['woo-hoodie-green', 'Green / No', 4500, null, 680, true],
          ['woo-hoodie-blue', 'Blue / No', 4500, null, 680, true],
          ['woo-hoodie-blue-logo', 'Blue / Yes', 4500, null, 680, true],
        ],
      );
      assert.equal(
        hoodie.variants?.[3]?.image,
        'https://woocommercecore.mystagingwebsite.com/wp-content/uploads/2017/12/hoodie-with-logo-2.jpg',
      );

      // Every variation leaves Size open: it is the product's attribute, not an option.
      const vneck = products.get('V-Neck T-Shirt') as ProductObject;
      assert.deepEqual(vneck.options, [{ name: 'Color', values: ['Red', 'Green', 'Blue'] }]);
      assert.deepEqual(vneck.attributes, { Size: 'Large, Medium, Small' });
      assert.deepEqual(
        vneck.variants?.map((v) => [v.title, v.price]),
        [
          ['Red', 2000],
          ['Green', 2000],
          ['Blue', 1500],
        ],
      );

      const belt = products.get('Belt') as ProductObject;
      assert.deepEqual(
        [
          belt.sku,
          belt.price,
          belt.variants?.[0]?.compare_at_price,
          belt.variants?.[0]?.weight_grams,
          belt.category,
        ],
        ['woo-belt', 5500, 6500, 544, 'Accessories'],
      );
      const beanie = products.get('Beanie') as ProductObject;
      assert.deepEqual(beanie.attributes, { Color: 'Red' });
      assert.match(beanie.description ?? '', /^Pellentesque habitant morbi/);
      // Virtual products are not shipped.
      const album = products.get('Album') as ProductObject;
      assert.deepEqual(
        [album.price, album.variants?.[0]?.requires_shipping, album.variants?.[0]?.weight_grams],
        [1500, false, null],
      );
      assert.equal(products.get('T-Shirt')?.variants?.[0]?.requires_shipping, true);
      // No product manages stock in the sample: none comes in with units.
      assert.equal(
        [...products.values()].reduce((sum, product) => sum + product.stock, 0),
        0,
      );

      // The same file again finds every product by its SKUs and changes nothing.
      const again = await importFile(ctx, key, 'resource=products&on_error=skip', FILE);
      assert.deepEqual(
        [again.created_count, again.updated_count, again.unchanged_count, again.error_count],
        [0, 0, 23, 2],
      );
    });

    it('refuses a variation whose product is not in the file, and one that leaves an option open', async () => {
      const { key } = await shop();
      const header = [
        'ID',
        'Type',
        'SKU',
        'Name',
        'Published',
        'Regular price',
        'Parent',
        'Attribute 1 name',
        'Attribute 1 value(s)',
        'Attribute 2 name',
        'Attribute 2 value(s)',
      ];
      const file = csv([
        header,
        [10, 'variable', 'CAP', 'Cap', 1, '', '', 'Color', 'Red, Blue', 'Size', 'S, M'],
        [11, 'variation', 'CAP-RED-S', 'Cap - Red, S', 1, '12.50', 'id:10', 'Color', 'Red', 'Size', 'S'],
        [12, 'variation', 'CAP-BLUE', 'Cap - Blue', 1, '12.50', 'id:10', 'Color', 'Blue', 'Size', ''],
        [13, 'variation', 'LOST-1', 'Lost', 1, '3', 'id:99', 'Color', 'Red', '', ''],
      ]);
      const done = await importFile(ctx, key, 'resource=products&on_error=skip', file);
      assert.deepEqual(done.errors, [
        {
          line: 4,
          column: 'Attribute 2 value(s)',
          message:
            "leaves Size open (any Size), but other variations of the product choose one: here each variation has a value of each of its product's options",
        },
        {
          line: 5,
          column: 'Parent',
          message:
            'names no variable product of the file ("id:99"): a variation\'s Parent is its product\'s SKU, or id: and its ID',
        },
      ]);
      assert.equal(done.created_count, 2);
    });
  });
}
