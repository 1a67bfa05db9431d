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
import { importFile, upload } from '../../../test/helpers/imports.js';
import type { Page } from '../../../test/helpers/responses.js';
import type { ProductObject } from '../products/products.schemas.js';
import { joinList, splitList } from '../exports/exports.columns.js';
import { decimalToMinor, htmlToText } from './imports.values.js';

/** A Shopify product export as Shopify writes it: variants on continuation rows, an image-only row. */
const FIXTURE = fs.readFileSync(new URL('./fixtures/shopify-products.csv', import.meta.url), 'utf8');

describe('Shopify values', () => {
  it('reads HTML descriptions as plain text', () => {
    assert.equal(
      htmlToText(
        '<p>Soft, <strong>organic</strong> cotton &amp; a relaxed fit.</p><ul><li>One</li><li>Two</li></ul>',
      ),
      'Soft, organic cotton & a relaxed fit.\n\n- One\n- Two',
    );
    assert.equal(
      htmlToText('<p>Holds 350&nbsp;ml.<br>Dishwasher safe.</p>'),
      'Holds 350 ml.\nDishwasher safe.',
    );
    assert.equal(
      htmlToText(
        '<h2>Care</h2><style>p{}</style><p>Cold &#233;&#x263A; 5 < 6 &bogus;<script>alert(1)</script></p>',
      ),
      'Care\n\nCold é☺ 5 < 6 &bogus;',
    );
    assert.equal(htmlToText('<p>unclosed <b'), 'unclosed <b');
  });

  it('converts decimal prices to minor units of the store’s currency', () => {
    assert.deepEqual(decimalToMinor('19.99', 'USD'), { value: 1999 });
    assert.deepEqual(decimalToMinor('5', 'USD'), { value: 500 });
    assert.deepEqual(decimalToMinor('1999', 'JPY'), { value: 1999 });
    assert.deepEqual(decimalToMinor('1999.00', 'JPY'), { value: 1999 });
    assert.deepEqual(decimalToMinor('1.250', 'KWD'), { value: 1250 });
    assert.deepEqual(decimalToMinor('1.2', 'BHD'), { value: 1200 });
    assert.deepEqual(decimalToMinor('100', 'HUF'), { value: 10000 });
    assert.match(String((decimalToMinor('19.5', 'JPY') as { error: string }).error), /JPY has no minor unit/);
    assert.match(
      String((decimalToMinor('19.999', 'USD') as { error: string }).error),
      /more than 2 decimals/,
    );
    assert.match(String((decimalToMinor('1,299.00', 'USD') as { error: string }).error), /must be a price/);
    assert.match(String((decimalToMinor('-1', 'USD') as { error: string }).error), /must be a price/);
  });

  it('writes and reads lists in one cell', () => {
    for (const items of [['a', 'b'], ['has, comma', 'quote "q"', ' lead', 'trail '], ['']]) {
      assert.deepEqual(
        splitList(joinList(items)),
        items.filter((item) => item !== ''),
      );
    }
    assert.deepEqual(splitList('cotton, summer,  tees ,'), ['cotton', 'summer', 'tees']);
  });
});

for (const dialect of DIALECTS) {
  describe(`Shopify product exports (${dialect})`, () => {
    let ctx: TestContext;
    let key: string;
    let api: Client;

    before(async () => {
      ctx = await createTestContext(dialect);
      key = (await createTenant(ctx, { currency: 'USD' })).apiKey.key;
      api = client(ctx.app, key);
    });
    after(() => ctx.close());

    it('imports a Shopify export as it comes: options, variants, prices, stock, status, tags, description', async () => {
      const done = await importFile(ctx, key, 'resource=products', FIXTURE);
      assert.equal(done.format, 'shopify');
      assert.deepEqual(
        [done.status, done.rows_total, done.created_count, done.unchanged_count, done.error_count],
        ['succeeded', 8, 7, 1, 0],
      );
      const products = (await api<Page<ProductObject>>('GET', '/v1/products?expand=variants&limit=10')).body
        .data;
      const byName = new Map(products.map((product) => [product.name, product]));
      const tee = byName.get('Organic Cotton Tee') as ProductObject;
      assert.deepEqual(
        [tee.description, tee.category, tee.tags, tee.status, tee.attributes, tee.currency],
        [
          'Soft, organic cotton & a relaxed fit.\n\n- 100% organic cotton\n- Machine wash cold',
          'T-Shirts',
          ['cotton', 'summer', 'tees'],
          'active',
          { vendor: 'Acme Apparel' },
          'USD',
        ],
      );
      assert.deepEqual(tee.options, [
        { name: 'Size', values: ['S', 'M'] },
        { name: 'Color', values: ['Black', 'White'] },
      ]);
      assert.deepEqual(
        tee.variants?.map((v) => [
          v.sku,
          v.title,
          v.price,
          v.compare_at_price,
          v.stock,
          v.weight_grams,
          v.barcode,
        ]),
        [
          ['TEE-S-BLK', 'S / Black', 2500, 3000, 12, 180, '0012345678905'],
          ['TEE-M-BLK', 'M / Black', 2500, 3000, 8, 190, '0012345678912'],
          ['TEE-S-WHT', 'S / White', 2500, null, 0, 180, null],
          // Oversold in Shopify (-2): none in stock here.
          ['TEE-M-WHT', 'M / White', 2750, null, 0, 190, null],
        ],
      );
      const mug = byName.get('Ceramic Mug') as ProductObject;
      assert.deepEqual(
        [
          mug.options,
          mug.sku,
          mug.price,
          mug.stock,
          mug.status,
          mug.category,
          mug.description,
          mug.variants?.[0]?.weight_grams,
        ],
        [[], 'MUG-350', 1499, 40, 'draft', 'Mugs', 'Holds 350 ml.\nDishwasher safe.', 410],
      );
      const card = byName.get('Gift Card') as ProductObject;
      assert.deepEqual(
        [
          card.status,
          card.tags,
          card.description,
          card.options,
          card.variants?.map((v) => [v.sku, v.price, v.stock]),
        ],
        [
          'archived',
          [],
          null,
          [{ name: 'Denomination', values: ['$10', '$50'] }],
          [
            ['GIFT-10', 1000, 0],
            ['GIFT-50', 5000, 0],
          ],
        ],
      );
      // Images in their positions, the variants' own, costs and flags (a gift card is not shipped or taxed).
      assert.deepEqual(tee.images, [
        'https://cdn.shopify.com/s/files/1/0000/0001/products/tee-black.jpg?v=1700000000',
        'https://cdn.shopify.com/s/files/1/0000/0001/products/tee-white.jpg?v=1700000000',
        'https://cdn.shopify.com/s/files/1/0000/0001/products/tee-detail.jpg?v=1700000000',
      ]);
      // Each image's `Image Alt Text`, by hand: the tee's three rows give one each, the mug's none.
      assert.deepEqual(
        tee.media.map((m) => m.alt),
        ['Black tee', 'White tee', 'Stitching detail'],
      );
      assert.deepEqual(
        (byName.get('Ceramic Mug') as ProductObject).media.map((m) => [m.url.split('?')[0], m.alt]),
        [['https://cdn.shopify.com/s/files/1/0000/0001/products/mug.jpg', null]],
      );
      assert.ok(!done.ignored_columns.includes('Image Alt Text'));
      assert.deepEqual(tee.seo, { title: 'Organic Cotton Tee', description: 'A soft organic tee' });
      const image = (name: string) =>
        `https://cdn.shopify.com/s/files/1/0000/0001/products/${name}?v=1700000000`;
      assert.deepEqual(
        tee.variants?.map((v) => [v.image, v.cost]),
        [
          [image('tee-black.jpg'), 950],
          [image('tee-black.jpg'), 950],
          [image('tee-white.jpg'), 950],
          [image('tee-white.jpg'), 950],
        ],
      );
      assert.deepEqual(
        card.variants?.map((v) => [v.requires_shipping, v.taxable]),
        [
          [false, false],
          [false, false],
        ],
      );
      // The same export again changes nothing: every row is found by its SKU.
      const again = await importFile(ctx, key, 'resource=products', FIXTURE);
      assert.deepEqual([again.created_count, again.updated_count, again.unchanged_count], [0, 0, 8]);
    });

    it('converts prices in the store’s currency, and names Shopify’s columns in errors', async () => {
      const yen = (await createTenant(ctx, { currency: 'JPY' })).apiKey.key;
      const file = FIXTURE.replace('25.00,30.00', '2500,3000.5')
        .replace('14.99', '1499')
        .replaceAll(',9.50,', ',950,')
        .replace(',4.10,', ',410,');
      const done = await importFile(ctx, yen, 'resource=products&on_error=skip', file);
      assert.deepEqual(done.errors, [
        {
          line: 2,
          column: 'Variant Compare At Price',
          message: 'has decimals, but JPY has no minor unit: "3000.5"',
        },
        ...[3, 4].map((line) => ({
          line,
          column: null,
          message: "not imported: the product's first row (line 2) has errors",
        })),
        { line: 5, column: 'Variant Price', message: 'has decimals, but JPY has no minor unit: "27.50"' },
        { line: 6, column: null, message: "not imported: the product's first row (line 2) has errors" },
      ]);
      const mug = (await client(ctx.app, yen)<Page<ProductObject>>('GET', '/v1/products?q=Mug')).body.data[0];
      assert.deepEqual([mug?.price, mug?.currency], [1499, 'JPY']);
      const gift = (
        await client(ctx.app, yen)<Page<ProductObject>>('GET', '/v1/products?q=Gift&expand=variants')
      ).body.data[0];
      // "10.00" in JPY: the zero decimals are allowed.
      assert.deepEqual(
        gift?.variants?.map((v) => v.price),
        [10, 50],
      );
    });

    it('recognises a Shopify header only for products', async () => {
      const res = await upload(ctx, key, 'resource=customers', FIXTURE);
      assert.equal(res.body.format, 'csv');
      await ctx.deps.importRunner.drain();
    });
  });
}
