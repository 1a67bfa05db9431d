import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import { exportOf } from '../../../test/helpers/imports.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import { PRODUCT_COLUMNS } from '../exports/exports.columns.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import { MAX_PRICE, type ProductObject } from './products.schemas.js';
import type { VariantObject } from './variants.schemas.js';

const SIZES = ['S', 'M', 'L'];
const COLORS = ['Black', 'White'];

/** A T-shirt in three sizes and two colours, one variant per combination. */
function tshirt(prefix: string, extra: Record<string, unknown> = {}) {
  return {
    name: `${prefix} T-shirt`,
    options: [
      { name: 'Size', values: SIZES },
      { name: 'Color', values: COLORS },
    ],
    variants: COLORS.flatMap((color, c) =>
      SIZES.map((size, s) => ({
        sku: `${prefix}-${color}-${size}`.toUpperCase(),
        options: { Size: size, Color: color },
        price: 2000 + s * 100 + c * 10,
        stock: 5,
      })),
    ),
    ...extra,
  };
}

async function tableCounts(ctx: TestContext): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ['products', 'product_variants', 'events'] as const) {
    const { n } = await ctx.deps.store.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    counts[table] = Number(n);
  }
  return counts;
}

for (const dialect of DIALECTS) {
  describe(`options and variants (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;

    before(async () => {
      ctx = await createTestContext(dialect);
      api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
    });
    after(() => ctx.close());

    const create = async (body: Record<string, unknown>) => {
      const res = await api<ProductObject>('POST', '/v1/products', { body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };

    it('creates a product with its options and variants in one request', async () => {
      const product = await create(tshirt('one'));
      assert.deepEqual(product.options, [
        { name: 'Size', values: SIZES },
        { name: 'Color', values: COLORS },
      ]);
      assert.equal(product.sku, null);
      assert.equal(product.price, 2000);
      assert.equal(product.price_max, 2210);
      assert.equal(product.stock, 30);
      assert.equal(product.variant_count, 6);
      assert.equal(product.variants_has_more, false);
      const variants = product.variants ?? [];
      assert.deepEqual(
        variants.map((v) => [v.title, v.position, v.sku, v.price, v.currency]),
        [
          ['S / Black', 1, 'ONE-BLACK-S', 2000, 'USD'],
          ['M / Black', 2, 'ONE-BLACK-M', 2100, 'USD'],
          ['L / Black', 3, 'ONE-BLACK-L', 2200, 'USD'],
          ['S / White', 4, 'ONE-WHITE-S', 2010, 'USD'],
          ['M / White', 5, 'ONE-WHITE-M', 2110, 'USD'],
          ['L / White', 6, 'ONE-WHITE-L', 2210, 'USD'],
        ],
      );
      assert.deepEqual(variants[1]?.options, { Size: 'M', Color: 'Black' });
      assert.equal(variants[0]?.product_id, product.id);
      const got = await api<ProductObject>('GET', `/v1/products/${product.id}`);
      assert.deepEqual(got.body, product);
    });

    it('refuses bad options and variants with a 400 naming the field, and writes nothing', async () => {
      const base = tshirt('bad');
      const cases: [Record<string, unknown>, string][] = [
        [
          {
            ...base,
            options: [
              { name: 'Size', values: SIZES },
              { name: 'size', values: COLORS },
            ],
          },
          'options[1].name',
        ],
        [{ ...base, options: [{ name: 'Size', values: ['S', 's'] }] }, 'options[0].values[1]'],
        [{ ...base, options: [{ name: 'Size', values: ['S', 'S'] }] }, 'options[0].values[1]'],
        [
          {
            ...base,
            options: [1, 2, 3, 4].map((n) => ({ name: `O${n}`, values: ['a'] })),
          },
          'options',
        ],
        [
          { ...base, variants: [{ options: { Size: 'S', Color: 'Black', Fit: 'Slim' }, price: 1 }] },
          'variants[0].options.Fit',
        ],
        [{ ...base, variants: [{ options: { Size: 'S' }, price: 1 }] }, 'variants[0].options.Color'],
        [
          { ...base, variants: [{ options: { Size: 'XL', Color: 'Black' }, price: 1 }] },
          'variants[0].options.Size',
        ],
        [
          {
            ...base,
            variants: [
              { options: { Size: 'S', Color: 'Black' }, price: 1 },
              { options: { Color: 'Black', Size: 'S' }, price: 2 },
            ],
          },
          'variants[1].options',
        ],
        [{ ...base, variants: [] }, 'variants'],
        [{ ...base, sku: 'X-1' }, 'sku'],
        [{ ...base, price: 100 }, 'price'],
        [{ ...base, stock: 1 }, 'stock'],
        [{ name: 'Plain', price: 100, variants: [{ options: {}, price: 1 }] }, 'variants'],
        [{ name: 'Plain' }, 'price'],
        [
          {
            ...base,
            options: [{ name: 'N', values: Array.from({ length: 100 }, (_, i) => `v${i}`) }],
            variants: Array.from({ length: 2049 }, (_, i) => ({ options: { N: `v${i % 100}` }, price: 1 })),
          },
          'variants',
        ],
      ];
      const before = await tableCounts(ctx);
      for (const [body, field] of cases) {
        const res = await api<Problem>('POST', '/v1/products', { body });
        assert.equal(res.status, 400, `${field}: ${JSON.stringify(res.body).slice(0, 300)}`);
        assert.equal(res.body.code, 'validation_failed');
        assert.ok(
          res.body.errors?.some((e) => e.field === field),
          `${field}: ${JSON.stringify(res.body.errors)}`,
        );
      }
      assert.deepEqual(await tableCounts(ctx), before);
    });

    it('keeps SKUs unique per tenant across all variants, case-insensitively; all or nothing', async () => {
      await create(tshirt('sku'));
      const plain = await create({ name: 'Plain mug', sku: 'MUG-SKU', price: 500 });
      const before = await tableCounts(ctx);
      const clash = tshirt('other');
      (clash.variants[4] as { sku: string }).sku = 'sku-white-m';
      const res = await api<Problem>('POST', '/v1/products', { body: clash });
      assert.equal(res.status, 409);
      assert.equal(res.body.code, 'duplicate_sku');
      const twice = tshirt('twice');
      (twice.variants[1] as { sku: string }).sku = 'twice-black-s';
      assert.equal((await api<Problem>('POST', '/v1/products', { body: twice })).body.code, 'duplicate_sku');
      assert.equal(
        (await api<Problem>('POST', '/v1/products', { body: { name: 'M', sku: 'mug-sku', price: 1 } }))
          .status,
        409,
      );
      assert.equal(
        (await api<Problem>('PATCH', `/v1/products/${plain.id}`, { body: { sku: 'SKU-BLACK-S' } })).status,
        409,
      );
      assert.deepEqual(await tableCounts(ctx), before);
      // Another tenant may use the same SKU.
      const other = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      assert.equal(
        (await other('POST', '/v1/products', { body: { name: 'M', sku: 'MUG-SKU', price: 1 } })).status,
        201,
      );
    });

    it("a product without options: its sku, price and stock are its one variant's, both ways", async () => {
      const mug = await create({ name: 'Mug', sku: 'MUG-1', price: 900, stock: 4 });
      const variant = mug.variants?.[0] as VariantObject;
      const patched = await api<ProductObject>('PATCH', `/v1/products/${mug.id}`, {
        body: { price: 950, stock: 0, sku: 'MUG-2' },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.deepEqual(
        [
          patched.body.variants?.[0]?.price,
          patched.body.variants?.[0]?.stock,
          patched.body.variants?.[0]?.sku,
        ],
        [950, 0, 'MUG-2'],
      );
      const events = await api<
        Page<{ type: string; data: { object: ProductObject; variant?: VariantObject } }>
      >('GET', '/v1/events?type=product.outofstock');
      const soldOut = events.body.data.filter((e) => e.data.object.id === mug.id);
      assert.equal(soldOut.length, 1);
      assert.equal(soldOut[0]?.data.variant?.id, variant.id);
      const viaVariant = await api<VariantObject>('PATCH', `/v1/products/${mug.id}/variants/${variant.id}`, {
        body: { price: 990, stock: 7, weight_grams: 350, barcode: '0123456789012' },
      });
      assert.equal(viaVariant.status, 200);
      const after = (await api<ProductObject>('GET', `/v1/products/${mug.id}`)).body;
      assert.deepEqual([after.price, after.price_max, after.stock, after.sku], [990, 990, 7, 'MUG-2']);
      assert.equal(after.variants?.[0]?.weight_grams, 350);
      const last = await api<Problem>('DELETE', `/v1/products/${mug.id}/variants/${variant.id}`);
      assert.equal(last.status, 409);
      assert.equal(last.body.code, 'invalid_state_transition');
      const second = await api<Problem>('POST', `/v1/products/${mug.id}/variants`, {
        body: { options: {}, price: 1 },
      });
      assert.equal(second.status, 400);
      assert.equal(second.body.errors?.[0]?.field, 'options');
    });

    it("a product without options takes its variant's compare_at_price, weight_grams and barcode; the export writes them", async () => {
      const { key } = (await createTenant(ctx)).apiKey;
      const shop = client(ctx.app, key);
      const created = await shop<ProductObject>('POST', '/v1/products', {
        body: {
          name: 'Kettle',
          sku: 'KET-1',
          price: 4500,
          compare_at_price: 5900,
          stock: 3,
          weight_grams: 1200,
          barcode: '4006381333931',
        },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const fields = (v: VariantObject | undefined) => [
        v?.sku,
        v?.price,
        v?.compare_at_price,
        v?.stock,
        v?.weight_grams,
        v?.barcode,
      ];
      assert.equal(created.body.variant_count, 1);
      assert.deepEqual(fields(created.body.variants?.[0]), ['KET-1', 4500, 5900, 3, 1200, '4006381333931']);
      const got = await shop<ProductObject>('GET', `/v1/products/${created.body.id}`);
      assert.deepEqual(got.body, created.body);
      const variantId = created.body.variants?.[0]?.id as string;
      const variant = await shop<VariantObject>(
        'GET',
        `/v1/products/${created.body.id}/variants/${variantId}`,
      );
      assert.deepEqual(fields(variant.body), ['KET-1', 4500, 5900, 3, 1200, '4006381333931']);

      const exported = async () => {
        const rows = parse(await exportOf(ctx, key, 'products')) as string[][];
        assert.deepEqual(rows[0], [...PRODUCT_COLUMNS]);
        assert.equal(rows.length, 2);
        return ['sku', 'price', 'compare_at_price', 'stock', 'weight_grams', 'barcode'].map(
          (name) => rows[1]?.[PRODUCT_COLUMNS.indexOf(name as never)],
        );
      };
      assert.deepEqual(await exported(), ['KET-1', '4500', '5900', '3', '1200', '4006381333931']);

      // PATCH of the product changes them on its one variant, as it does sku, price and stock.
      const patched = await shop<ProductObject>('PATCH', `/v1/products/${created.body.id}`, {
        body: { compare_at_price: null, weight_grams: 1150, barcode: '0012345678905' },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.deepEqual(fields(patched.body.variants?.[0]), ['KET-1', 4500, null, 3, 1150, '0012345678905']);
      assert.equal(patched.body.variants?.[0]?.id, variantId);
      const updated = await shop<Page<{ type: string; data: { object: ProductObject } }>>(
        'GET',
        '/v1/events?type=product.updated',
      );
      assert.deepEqual(
        updated.body.data.map((e) => fields(e.data.object.variants?.[0])),
        [['KET-1', 4500, null, 3, 1150, '0012345678905']],
      );
      // The same values again: no write, no event.
      const again = await shop<ProductObject>('PATCH', `/v1/products/${created.body.id}`, {
        body: { compare_at_price: null, weight_grams: 1150 },
      });
      assert.equal(again.status, 200);
      assert.equal((await shop<Page<unknown>>('GET', '/v1/events?type=product.updated')).body.data.length, 1);
      assert.deepEqual(await exported(), ['KET-1', '4500', '', '3', '1150', '0012345678905']);
      // Absent, they are null, as on a variant.
      const plain = await create({ name: 'Plain kettle', price: 100 });
      assert.deepEqual(fields(plain.variants?.[0]), [null, 100, null, 0, null, null]);
    });

    it('refuses a bad compare_at_price, weight_grams or barcode, or one given to a product with options, naming it', async () => {
      const mug = await create({ name: 'Bounded mug', price: 900, weight_grams: 300 });
      const shirt = await create(tshirt('bounds'));
      const base = { name: 'Bounded', price: 100 };
      const bad: [Record<string, unknown>, string][] = [
        [{ compare_at_price: -1 }, 'compare_at_price'],
        [{ compare_at_price: 1.5 }, 'compare_at_price'],
        [{ compare_at_price: '100' }, 'compare_at_price'],
        [{ compare_at_price: MAX_PRICE + 1 }, 'compare_at_price'],
        [{ weight_grams: -1 }, 'weight_grams'],
        [{ weight_grams: 2.5 }, 'weight_grams'],
        [{ weight_grams: 10_000_001 }, 'weight_grams'],
        [{ barcode: '' }, 'barcode'],
        [{ barcode: 'has space' }, 'barcode'],
        [{ barcode: 'x'.repeat(65) }, 'barcode'],
        [{ barcode: 4006381333931 }, 'barcode'],
      ];
      // Each variant of a product with options has its own, like its price (null included).
      const withOptions: [Record<string, unknown>, string][] = [
        [{ compare_at_price: 3000 }, 'compare_at_price'],
        [{ weight_grams: 180 }, 'weight_grams'],
        [{ barcode: '0012345678905' }, 'barcode'],
        [{ barcode: null }, 'barcode'],
      ];
      const before = await tableCounts(ctx);
      const requests: [string, string, Record<string, unknown>, string][] = [
        ...bad.map(([body, field]): [string, string, Record<string, unknown>, string] => [
          'POST',
          '/v1/products',
          { ...base, ...body },
          field,
        ]),
        ...bad.map(([body, field]): [string, string, Record<string, unknown>, string] => [
          'PATCH',
          `/v1/products/${mug.id}`,
          body,
          field,
        ]),
        ...withOptions.map(([body, field]): [string, string, Record<string, unknown>, string] => [
          'POST',
          '/v1/products',
          tshirt('refused', body),
          field,
        ]),
        ...withOptions.map(([body, field]): [string, string, Record<string, unknown>, string] => [
          'PATCH',
          `/v1/products/${shirt.id}`,
          body,
          field,
        ]),
      ];
      for (const [method, url, body, field] of requests) {
        const res = await api<Problem>(method as 'POST' | 'PATCH', url, { body });
        const what = `${method} ${JSON.stringify(body).slice(0, 80)}`;
        assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body).slice(0, 300)}`);
        assert.equal(res.body.code, 'validation_failed');
        assert.ok(
          res.body.errors?.some((e) => e.field === field),
          `${what} should name ${field}: ${JSON.stringify(res.body.errors)}`,
        );
      }
      assert.deepEqual(await tableCounts(ctx), before);
      assert.deepEqual((await api<ProductObject>('GET', `/v1/products/${mug.id}`)).body, mug);
      assert.deepEqual((await api<ProductObject>('GET', `/v1/products/${shirt.id}`)).body, shirt);
    });

    it('lists, adds, reads, changes, moves and deletes variants; the product follows', async () => {
      const shirt = await create(tshirt('crud'));
      const page1 = await api<Page<VariantObject>>('GET', `/v1/products/${shirt.id}/variants?limit=4`);
      assert.equal(page1.status, 200);
      assert.equal(page1.body.total, 6);
      assert.equal(page1.body.data.length, 4);
      const page2 = await api<Page<VariantObject>>(
        'GET',
        `/v1/products/${shirt.id}/variants?limit=4&cursor=${encodeURIComponent(page1.body.next_cursor ?? '')}`,
      );
      assert.deepEqual(
        [...page1.body.data, ...page2.body.data].map((v) => v.position),
        [1, 2, 3, 4, 5, 6],
      );
      assert.equal(page2.body.next_cursor, null);

      // A new value first, then its variant, placed second.
      const options = [
        { name: 'Size', values: [...SIZES, 'XL'] },
        { name: 'Color', values: COLORS },
      ];
      const widened = await api<ProductObject>('PATCH', `/v1/products/${shirt.id}`, { body: { options } });
      assert.equal(widened.status, 200);
      assert.equal(widened.body.variant_count, 6);
      const xl = await api<VariantObject>('POST', `/v1/products/${shirt.id}/variants`, {
        body: { sku: 'CRUD-XL', options: { Size: 'XL', Color: 'Black' }, price: 1500, stock: 2, position: 2 },
      });
      assert.equal(xl.status, 201, JSON.stringify(xl.body));
      assert.equal(xl.body.title, 'XL / Black');
      assert.equal(xl.body.position, 2);
      const dup = await api<Problem>('POST', `/v1/products/${shirt.id}/variants`, {
        body: { options: { Size: 'XL', Color: 'Black' }, price: 1 },
      });
      assert.equal(dup.status, 400);
      assert.equal(dup.body.errors?.[0]?.field, 'options');
      let product = (await api<ProductObject>('GET', `/v1/products/${shirt.id}`)).body;
      assert.deepEqual(
        [product.price, product.price_max, product.stock, product.variant_count],
        [1500, 2210, 32, 7],
      );
      assert.deepEqual(
        product.variants?.map((v) => v.position),
        [1, 2, 3, 4, 5, 6, 7],
      );
      assert.equal(product.variants?.[1]?.id, xl.body.id);

      const got = await api<VariantObject>('GET', `/v1/products/${shirt.id}/variants/${xl.body.id}`);
      assert.deepEqual(got.body, xl.body);
      const moved = await api<VariantObject>('PATCH', `/v1/products/${shirt.id}/variants/${xl.body.id}`, {
        body: { position: 7, price: 3000, options: { Size: 'XL', Color: 'White' } },
      });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      assert.deepEqual([moved.body.position, moved.body.title], [7, 'XL / White']);
      product = (await api<ProductObject>('GET', `/v1/products/${shirt.id}`)).body;
      assert.deepEqual([product.price, product.price_max], [2000, 3000]);
      assert.deepEqual(
        product.variants?.map((v) => v.position),
        [1, 2, 3, 4, 5, 6, 7],
      );
      assert.equal(product.variants?.[6]?.id, xl.body.id);

      const first = product.variants?.[0] as VariantObject;
      assert.equal((await api('DELETE', `/v1/products/${shirt.id}/variants/${first.id}`)).status, 204);
      product = (await api<ProductObject>('GET', `/v1/products/${shirt.id}`)).body;
      assert.deepEqual(
        product.variants?.map((v) => v.position),
        [1, 2, 3, 4, 5, 6],
      );
      assert.equal(product.stock, 27);
      assert.equal((await api('GET', `/v1/products/${shirt.id}/variants/${first.id}`)).status, 404);
      assert.equal((await api('GET', `/v1/products/prod_nope/variants`)).status, 404);
    });

    it('changes options: a removed value deletes its variants, an added option gives every variant its first value', async () => {
      const shirt = await create(tshirt('opts'));
      const narrowed = await api<ProductObject>('PATCH', `/v1/products/${shirt.id}`, {
        body: {
          options: [
            { name: 'Size', values: ['S', 'M'] },
            { name: 'Color', values: COLORS },
          ],
        },
      });
      assert.equal(narrowed.status, 200, JSON.stringify(narrowed.body));
      assert.equal(narrowed.body.variant_count, 4);
      assert.equal(narrowed.body.stock, 20);
      assert.deepEqual(
        narrowed.body.variants?.map((v) => [v.title, v.position]),
        [
          ['S / Black', 1],
          ['M / Black', 2],
          ['S / White', 3],
          ['M / White', 4],
        ],
      );
      const fit = await api<ProductObject>('PATCH', `/v1/products/${shirt.id}`, {
        body: {
          options: [
            { name: 'Color', values: COLORS },
            { name: 'Size', values: ['S', 'M'] },
            { name: 'Fit', values: ['Regular', 'Slim'] },
          ],
        },
      });
      assert.equal(fit.status, 200);
      assert.deepEqual(fit.body.variants?.[0]?.options, { Color: 'Black', Size: 'S', Fit: 'Regular' });
      assert.equal(fit.body.variants?.[0]?.title, 'Black / S / Regular');
      assert.match(
        (await api<Page<ProductObject>>('GET', `/v1/products?q=slim&limit=100`)).body.data
          .map((p) => p.id)
          .join(),
        new RegExp(shirt.id),
      );

      // Dropping Color would leave two variants per size.
      const before = await tableCounts(ctx);
      const collide = await api<Problem>('PATCH', `/v1/products/${shirt.id}`, {
        body: { options: [{ name: 'Size', values: ['S', 'M'] }] },
      });
      assert.equal(collide.status, 400);
      assert.equal(collide.body.errors?.[0]?.field, 'options');
      const empty = await api<Problem>('PATCH', `/v1/products/${shirt.id}`, {
        body: { options: [{ name: 'Size', values: ['XXL'] }] },
      });
      assert.equal(empty.status, 409);
      const readOnly = await api<Problem>('PATCH', `/v1/products/${shirt.id}`, { body: { price: 5 } });
      assert.equal(readOnly.status, 400);
      assert.equal(readOnly.body.errors?.[0]?.field, 'price');
      assert.deepEqual(await tableCounts(ctx), before);

      // Down to one variant, then no options: it becomes the Default variant, its SKU the product's.
      const single = await create({
        name: 'Poster',
        options: [{ name: 'Size', values: ['A3'] }],
        variants: [{ sku: 'POSTER-A3', options: { Size: 'A3' }, price: 1200, stock: 3 }],
      });
      const plain = await api<ProductObject>('PATCH', `/v1/products/${single.id}`, { body: { options: [] } });
      assert.equal(plain.status, 200);
      assert.deepEqual(
        [plain.body.sku, plain.body.variants?.[0]?.title, plain.body.variants?.[0]?.options],
        ['POSTER-A3', 'Default', {}],
      );
      // And back: a plain product takes options, its variant the first value.
      const sized = await api<ProductObject>('PATCH', `/v1/products/${single.id}`, {
        body: { options: [{ name: 'Size', values: ['A2', 'A3'] }] },
      });
      assert.deepEqual([sized.body.sku, sized.body.variants?.[0]?.title], [null, 'A2']);
    });

    it('searches variant SKUs and option values; in_stock means any variant; expand=variants', async () => {
      const shirt = await create(
        tshirt('srch', {
          options: [
            { name: 'Size', values: SIZES },
            { name: 'Color', values: ['Chartreuse', 'White'] },
          ],
          variants: [
            { sku: 'SRCH-ZQX-1', options: { Size: 'S', Color: 'Chartreuse' }, price: 100, stock: 0 },
            { sku: 'SRCH-2', options: { Size: 'M', Color: 'White' }, price: 100, stock: 1 },
          ],
        }),
      );
      const ids = async (query: string) =>
        (await api<Page<ProductObject>>('GET', `/v1/products?limit=100&${query}`)).body.data.map((p) => p.id);
      assert.ok((await ids('q=zqx')).includes(shirt.id));
      assert.ok((await ids('q=chartreuse')).includes(shirt.id));
      assert.ok((await ids('in_stock=true')).includes(shirt.id));
      assert.ok(!(await ids('in_stock=false')).includes(shirt.id));
      const plainList = await api<Page<ProductObject>>('GET', '/v1/products?limit=1');
      assert.equal(plainList.body.data[0]?.variants, undefined);
      assert.equal('variants_has_more' in (plainList.body.data[0] ?? {}), false);
      const expanded = await api<Page<ProductObject>>('GET', '/v1/products?limit=100&expand=variants');
      const item = expanded.body.data.find((p) => p.id === shirt.id);
      assert.deepEqual(
        item?.variants?.map((v) => v.sku),
        ['SRCH-ZQX-1', 'SRCH-2'],
      );
      for (const product of expanded.body.data) assert.equal(product.variants?.length, product.variant_count);
    });

    it('orders a variant by variant_id; product_id only for a product with one variant', async () => {
      const shirt = await create(tshirt('ord'));
      const mBlack = shirt.variants?.[1] as VariantObject;
      const mug = await create({ name: 'Order mug', sku: 'ORD-MUG', price: 700, stock: 3 });
      const res = await api<OrderObject>('POST', '/v1/orders', {
        body: {
          items: [
            { variant_id: mBlack.id, quantity: 2 },
            { product_id: mug.id, quantity: 1 },
          ],
          customer: { email: 'v@example.com' },
        },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.deepEqual(
        res.body.items.map((i) => [i.product_id, i.variant_id, i.name, i.variant_title, i.sku, i.unit_price]),
        [
          [shirt.id, mBlack.id, 'ord T-shirt', 'M / Black', 'ORD-BLACK-M', 2100],
          [mug.id, mug.variants?.[0]?.id, 'Order mug', 'Default', 'ORD-MUG', 700],
        ],
      );
      assert.equal(res.body.subtotal, 4900);
      let variant = (await api<VariantObject>('GET', `/v1/products/${shirt.id}/variants/${mBlack.id}`)).body;
      assert.equal(variant.stock, 3);
      assert.equal((await api<ProductObject>('GET', `/v1/products/${shirt.id}`)).body.stock, 28);

      const byProduct = await api<Problem>('POST', '/v1/orders', {
        body: { items: [{ product_id: shirt.id, quantity: 1 }], customer: { email: 'v@example.com' } },
      });
      assert.equal(byProduct.status, 400);
      assert.equal(byProduct.body.errors?.[0]?.field, 'items[0].variant_id');
      const short = await api<Problem>('POST', '/v1/orders', {
        body: { items: [{ variant_id: mBlack.id, quantity: 4 }], customer: { email: 'v@example.com' } },
      });
      assert.equal(short.status, 422);
      assert.equal(short.body.code, 'insufficient_stock');
      assert.equal((short.body as Problem & { variant_id?: string }).variant_id, mBlack.id);
      const unknown = await api<Problem>('POST', '/v1/orders', {
        body: { items: [{ variant_id: 'var_nope', quantity: 1 }], customer: { email: 'v@example.com' } },
      });
      assert.equal(unknown.status, 404);

      // Renamed and repriced afterwards, the order keeps its snapshot; cancelling restocks the variant.
      await api('PATCH', `/v1/products/${shirt.id}/variants/${mBlack.id}`, {
        body: { price: 1, sku: 'RENAMED' },
      });
      const cancelled = await api<OrderObject>('POST', `/v1/orders/${res.body.id}/cancel`);
      assert.equal(cancelled.status, 200);
      assert.deepEqual(cancelled.body.items[0]?.sku, 'ORD-BLACK-M');
      variant = (await api<VariantObject>('GET', `/v1/products/${shirt.id}/variants/${mBlack.id}`)).body;
      assert.equal(variant.stock, 5);
      assert.equal((await api<ProductObject>('GET', `/v1/products/${shirt.id}`)).body.stock, 30);
    });

    it('concurrent orders on one variant: exactly its stock succeeds, one product.outofstock', async () => {
      const shirt = await create(tshirt('race'));
      const target = shirt.variants?.[4] as VariantObject;
      const attempts = await Promise.all(
        Array.from({ length: 12 }, () =>
          api<OrderObject>('POST', '/v1/orders', {
            body: {
              items: [{ variant_id: target.id, quantity: 1 }],
              customer: { email: 'race@example.com' },
            },
          }),
        ),
      );
      assert.equal(attempts.filter((r) => r.status === 201).length, 5);
      assert.ok(attempts.every((r) => r.status === 201 || r.status === 422));
      const product = (await api<ProductObject>('GET', `/v1/products/${shirt.id}`)).body;
      assert.equal(product.stock, 25);
      assert.equal(product.variants?.[4]?.stock, 0);
      const { n } = await ctx.deps.store.db
        .selectFrom('events')
        .where('type', '=', 'product.outofstock')
        .where('object_id', '=', shirt.id)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(n), 1);
      const events = await api<Page<{ data: { object: ProductObject; variant?: VariantObject } }>>(
        'GET',
        '/v1/events?type=product.outofstock&limit=100',
      );
      const event = events.body.data.find((e) => e.data.object.id === shirt.id);
      assert.equal(event?.data.variant?.id, target.id);
      assert.equal(event?.data.variant?.stock, 0);
    });

    it('the OpenAPI request examples of products and variants work as printed', async () => {
      const shop = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      // One example is served as `example`, several as `examples` with a `value` each.
      type Body = Record<string, unknown>;
      type Media = { example?: Body; examples?: Record<string, { value: Body }> };
      type Doc = {
        paths: Record<string, { post: { requestBody: { content: { 'application/json': Media } } } }>;
      };
      const doc = (await shop<Doc>('GET', '/v1/openapi.json')).body;
      const examples = (path: string) => {
        const media = doc.paths[path]?.post.requestBody.content['application/json'];
        if (media?.example) return [media.example];
        return Object.values(media?.examples ?? {}).map((example) => example.value);
      };
      const products = examples('/v1/products');
      assert.equal(products.length, 2);
      let withOptions: ProductObject | undefined;
      for (const body of products) {
        const res = await shop<ProductObject>('POST', '/v1/products', { body });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        if (res.body.variant_count > 1) withOptions = res.body;
      }
      assert.ok(withOptions, 'an example with options');
      const [variant] = examples('/v1/products/{id}/variants');
      const added = await shop<VariantObject>('POST', `/v1/products/${withOptions.id}/variants`, {
        body: variant,
      });
      assert.equal(added.status, 201, JSON.stringify(added.body));
      assert.equal(added.body.title, 'L / White');
    });

    it('a product of 2,048 variants: created at once, paged, ordered, its first 100 shown', async () => {
      const colors = Array.from({ length: 32 }, (_, i) => `Color ${i}`);
      const sizes = Array.from({ length: 64 }, (_, i) => `Size ${i}`);
      const big = await create({
        name: 'Big grid',
        options: [
          { name: 'Color', values: colors },
          { name: 'Size', values: sizes },
        ],
        variants: colors.flatMap((color, c) =>
          sizes.map((size, s) => ({
            sku: `BIG-${c}-${s}`,
            options: { Color: color, Size: size },
            price: 100 + s,
            stock: 1,
          })),
        ),
      });
      assert.equal(big.variant_count, 2048);
      assert.equal(big.variants?.length, 100);
      assert.equal(big.variants_has_more, true);
      assert.equal(big.stock, 2048);
      let seen = 0;
      let cursor: string | null = null;
      do {
        const page: { body: Page<VariantObject> } = await api<Page<VariantObject>>(
          'GET',
          `/v1/products/${big.id}/variants?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        seen += page.body.data.length;
        cursor = page.body.next_cursor;
      } while (cursor !== null);
      assert.equal(seen, 2048);
      const full = await api<Problem>('POST', `/v1/products/${big.id}/variants`, {
        body: { options: { Color: 'Color 0', Size: 'Size 0' }, price: 1 },
      });
      assert.equal(full.status, 400);
      const last = await api<Page<VariantObject>>(
        'GET',
        `/v1/products/${big.id}/variants?offset=2047&limit=1`,
      );
      const order = await api<OrderObject>('POST', '/v1/orders', {
        body: {
          items: [{ variant_id: last.body.data[0]?.id, quantity: 1 }],
          customer: { email: 'big@example.com' },
        },
      });
      assert.equal(order.status, 201);
      assert.equal(order.body.items[0]?.variant_title, 'Color 31 / Size 63');
      assert.equal((await api<ProductObject>('GET', `/v1/products/${big.id}`)).body.stock, 2047);
      assert.equal((await api('DELETE', `/v1/products/${big.id}`)).status, 204);
      const { n } = await ctx.deps.store.db
        .selectFrom('product_variants')
        .where('product_id', '=', big.id)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(n), 0);
    });
  });
}
