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
import { exportOf, importFile, JSONL } from '../../../test/helpers/imports.js';
import type { ProductObject } from '../products/products.schemas.js';
import { CUSTOMER_COLUMNS, ORDER_COLUMNS, PRODUCT_COLUMNS } from './exports.columns.js';

/** An export with the ids an import renews replaced by their order of appearance. */
function withoutIds(text: string): string {
  const ids = new Map<string, string>();
  return text.replace(/\b(prod|cus|var)_[0-9A-Za-z]{24}\b/g, (id) => {
    if (!ids.has(id)) ids.set(id, `<id ${ids.size + 1}>`);
    return ids.get(id) as string;
  });
}

/** A catalog that exercises every column and every hard case of a CSV cell. */
async function seedCatalog(api: Client): Promise<void> {
  const bodies: Record<string, unknown>[] = [
    {
      name: 'Round Tee',
      description: 'Soft, "heavy" cotton.\nTwo lines, one comma.',
      category: 'apparel',
      tags: ['summer', 'has, comma', ' spaced'],
      media: [
        { url: 'https://cdn.example.com/tee.jpg', alt: 'The "Round" tee, folded' },
        { url: 'https://cdn.example.com/tee,2.jpg' },
      ],
      attributes: { material: 'cotton', fit: 'relaxed' },
      options: [
        { name: 'Size', values: ['S', 'M', 'L'] },
        { name: 'Color', values: ['Black', 'White'] },
      ],
      variants: [
        {
          sku: 'RT-S-BLK',
          options: { Size: 'S', Color: 'Black' },
          price: 2500,
          stock: 3,
          compare_at_price: 3000,
        },
        { sku: 'RT-M-BLK', options: { Size: 'M', Color: 'Black' }, price: 2500, stock: 0, weight_grams: 180 },
        {
          sku: 'RT-L-WHT',
          options: { Size: 'L', Color: 'White' },
          price: 2700,
          stock: 9,
          barcode: '0012345678905',
        },
      ],
    },
    {
      name: '=HYPERLINK("http://evil.example")',
      sku: 'RT-FORMULA',
      price: 100,
      status: 'draft',
      tags: ['-sale', '@home'],
    },
    {
      name: 'Euro Mug',
      sku: 'RT-MUG',
      price: 1250,
      currency: 'EUR',
      stock: 40,
      status: 'archived',
      description: '',
    },
    {
      name: 'No SKU Poster',
      options: [{ name: 'Format', values: ['A3', 'A2'] }],
      variants: [
        { options: { Format: 'A3' }, price: 1500 },
        { options: { Format: 'A2' }, price: 2500, stock: 2 },
      ],
    },
    {
      // What a store moved in from elsewhere holds: SEO fields, variant images, costs and flags.
      name: 'Gift Voucher',
      seo: { title: 'Gift Voucher | Store', description: 'Give a choice, "any" amount.\nNo expiry.' },
      options: [{ name: 'Amount', values: ['25', '50'] }],
      variants: [
        {
          sku: 'GV-25',
          options: { Amount: '25' },
          price: 2500,
          image: 'https://cdn.example.com/voucher,25.png',
          cost: 0,
          requires_shipping: false,
          taxable: false,
        },
        { sku: 'GV-50', options: { Amount: '50' }, price: 5000, cost: 120, requires_shipping: true },
      ],
    },
  ];
  for (const body of bodies) {
    const res = await api('POST', '/v1/products', { body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }
  // A change after creation: the export shows the product as it is now.
  const list = await api<{ data: ProductObject[] }>('GET', '/v1/products?q=Euro');
  const mug = list.body.data[0] as ProductObject;
  assert.equal((await api('PATCH', `/v1/products/${mug.id}`, { body: { stock: 41 } })).status, 200);
}

async function seedCustomers(api: Client): Promise<void> {
  const bodies: Record<string, unknown>[] = [
    {
      email: 'Ada@Example.com',
      name: 'Ada Lovelace',
      phone: '+442079460000',
      tags: ['vip', 'press, uk'],
      note: 'Prefers email.\nNo calls.',
      metadata: { crm: '42', 'source list': 'fair' },
      marketing_consent: true,
      addresses: [
        {
          name: 'Ada Lovelace',
          line1: '12 St James Square',
          city: 'London',
          postal_code: 'SW1Y 4JH',
          country: 'GB',
        },
        {
          line1: '1 Main St',
          line2: 'Apt 2',
          city: 'Boston',
          state: 'MA',
          postal_code: '02110',
          country: 'US',
          phone: '+16175550100',
        },
      ],
    },
    { email: 'grace@example.com' },
    { email: 'alan@example.com', name: '+Alan', tags: ['=cmd'] },
  ];
  for (const body of bodies) {
    const res = await api('POST', '/v1/customers', { body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }
}

for (const dialect of DIALECTS) {
  describe(`exports (${dialect})`, () => {
    let ctx: TestContext;
    let key: string;
    let api: Client;

    before(async () => {
      ctx = await createTestContext(dialect, { imports: { batchRows: 3 } });
      key = (await createTenant(ctx)).apiKey.key;
      api = client(ctx.app, key);
      await seedCatalog(api);
      await seedCustomers(api);
    });
    after(() => ctx.close());

    it('exports products as CSV with our columns, one row per variant, formulas escaped', async () => {
      const text = await exportOf(ctx, key, 'products');
      const res = await ctx.app.inject({
        method: 'GET',
        url: '/v1/exports/products',
        headers: { authorization: `Bearer ${key}` },
      });
      assert.match(String(res.headers['content-type']), /^text\/csv; charset=utf-8/);
      assert.match(
        String(res.headers['content-disposition']),
        /^attachment; filename="products-\d{4}-\d{2}-\d{2}\.csv"$/,
      );
      assert.ok(text.includes('\r\n'), 'RFC 4180 line ends');
      const rows = parse(text) as string[][];
      assert.deepEqual(rows[0], [...PRODUCT_COLUMNS]);
      assert.equal(rows.length, 1 + 3 + 1 + 1 + 2 + 2);
      const column = (row: string[] | undefined, name: string) =>
        row?.[PRODUCT_COLUMNS.indexOf(name as never)];
      const [, tee, teeM, teeL, formula, mug] = rows;
      assert.equal(column(tee, 'handle'), column(teeL, 'handle'));
      assert.equal(column(tee, 'name'), 'Round Tee');
      assert.equal(column(teeM, 'name'), '');
      assert.equal(column(tee, 'tags'), 'summer, "has, comma", " spaced"');
      assert.equal(column(tee, 'attributes'), '{"material":"cotton","fit":"relaxed"}');
      assert.deepEqual(
        [
          'option1_name',
          'option1_value',
          'option2_name',
          'option2_value',
          'sku',
          'price',
          'compare_at_price',
          'stock',
        ].map((name) => column(tee, name)),
        ['Size', 'S', 'Color', 'Black', 'RT-S-BLK', '2500', '3000', '3'],
      );
      assert.equal(column(teeL, 'barcode'), '0012345678905');
      assert.equal(column(formula, 'name'), `'=HYPERLINK("http://evil.example")`);
      assert.equal(column(formula, 'tags'), "'-sale, @home");
      assert.deepEqual(
        ['currency', 'stock', 'status'].map((name) => column(mug, name)),
        ['EUR', '41', 'archived'],
      );
      const [voucher25, voucher50] = rows.slice(-2);
      assert.deepEqual(
        ['seo_title', 'seo_description', 'image', 'cost', 'requires_shipping', 'taxable'].map((name) =>
          column(voucher25, name),
        ),
        [
          'Gift Voucher | Store',
          'Give a choice, "any" amount.\nNo expiry.',
          'https://cdn.example.com/voucher,25.png',
          '0',
          'false',
          'false',
        ],
      );
      assert.deepEqual(
        ['seo_title', 'image', 'cost', 'requires_shipping', 'taxable'].map((name) => column(voucher50, name)),
        ['', '', '120', 'true', 'true'],
      );
    });

    it('leaves out the columns a tenant pinned to an older version does not know', async () => {
      const res = await ctx.app.inject({
        method: 'GET',
        url: '/v1/exports/products?format=jsonl',
        headers: { authorization: `Bearer ${key}`, 'x-service-version': '2026-12-15' },
      });
      assert.equal(res.statusCode, 200);
      const header = parse(
        (
          await ctx.app.inject({
            method: 'GET',
            url: '/v1/exports/products',
            headers: { authorization: `Bearer ${key}`, 'x-service-version': '2026-12-15' },
          })
        ).body,
      )[0] as string[];
      const gone = [
        'image_alts',
        'stock_by_location',
        'seo_title',
        'seo_description',
        'image',
        'cost',
        'requires_shipping',
        'taxable',
      ];
      assert.deepEqual(
        header,
        PRODUCT_COLUMNS.filter((name) => !gone.includes(name)),
      );
      for (const line of res.body.trim().split('\n')) {
        assert.deepEqual(Object.keys(JSON.parse(line) as object), header);
      }
    });

    it('round-trips: export, import into an empty store, export again gives the same bytes but for ids', async () => {
      for (const format of ['csv', 'jsonl'] as const) {
        for (const resource of ['products', 'customers'] as const) {
          const first = await exportOf(ctx, key, resource, format);
          const emptyKey = (await createTenant(ctx)).apiKey.key;
          const done = await importFile(
            ctx,
            emptyKey,
            `resource=${resource}`,
            first,
            format === 'csv' ? 'text/csv' : JSONL,
          );
          assert.equal(done.status, 'succeeded', `${format} ${resource}: ${JSON.stringify(done.errors)}`);
          assert.equal(done.created_count, done.rows_total);
          const second = await exportOf(ctx, emptyKey, resource, format);
          assert.equal(withoutIds(second), withoutIds(first), `${format} ${resource}`);
          if (resource === 'products') {
            // Images' alt text is written and read back.
            const tee = await client(ctx.app, emptyKey)<{ data: ProductObject[] }>(
              'GET',
              '/v1/products?q=Round%20Tee',
            );
            assert.deepEqual(tee.body.data[0]?.media, [
              { url: 'https://cdn.example.com/tee.jpg', alt: 'The "Round" tee, folded' },
              { url: 'https://cdn.example.com/tee,2.jpg', alt: null },
            ]);
          }
          // And into the store it came from: every row is found and nothing changes.
          const again = await importFile(
            ctx,
            key,
            `resource=${resource}`,
            first,
            format === 'csv' ? 'text/csv' : JSONL,
          );
          if (resource === 'customers') {
            assert.deepEqual(
              [again.unchanged_count, again.error_count],
              [again.rows_total, 0],
              `${format} ${resource}`,
            );
          } else {
            // The poster's variants have no SKU to be found by: it comes in as a new product.
            const skuless =
              format === 'csv'
                ? (parse(first) as string[][]).filter((row) => row[PRODUCT_COLUMNS.indexOf('sku')] === '')
                    .length
                : first.split('\n').filter((line) => line.includes('"sku":null')).length;
            assert.ok(skuless >= 2);
            assert.deepEqual(
              [again.unchanged_count, again.created_count, again.error_count],
              [again.rows_total - skuless, skuless, 0],
              `${format} ${resource}`,
            );
          }
        }
      }
    });

    it('exports JSON Lines with typed values, the same columns as keys', async () => {
      const text = await exportOf(ctx, key, 'customers', 'jsonl');
      const lines = text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      assert.deepEqual(Object.keys(lines[0] ?? {}), [...CUSTOMER_COLUMNS]);
      const ada = lines.filter((line) => line.email === 'Ada@Example.com');
      assert.equal(ada.length, 2);
      assert.deepEqual(
        [ada[0]?.tags, ada[0]?.marketing_consent, ada[0]?.metadata, ada[1]?.name, ada[1]?.address_state],
        [['vip', 'press, uk'], true, { crm: '42', 'source list': 'fair' }, null, 'MA'],
      );
    });

    it('exports orders, a row per line', async () => {
      const product = await api<ProductObject>('POST', '/v1/products', {
        body: { name: 'Order Export Lamp', sku: 'OE-LAMP', price: 4000, stock: 10 },
      });
      const order = await api<{ id: string }>('POST', '/v1/orders', {
        body: {
          items: [{ product_id: product.body.id, quantity: 2 }],
          customer: { email: 'buyer@example.com', name: 'Buyer' },
          shipping_address: { line1: '1 Road', city: 'Paris', country: 'FR' },
          payment_method: 'pm_card_visa',
        },
      });
      assert.equal(order.status, 201, JSON.stringify(order.body));
      const rows = parse(await exportOf(ctx, key, 'orders')) as string[][];
      assert.deepEqual(rows[0], [...ORDER_COLUMNS]);
      const line = rows.find((row) => row[0] === order.body.id) as string[];
      const value = (name: string) => line[ORDER_COLUMNS.indexOf(name as never)];
      assert.deepEqual(
        [
          'status',
          'customer_email',
          'quantity',
          'unit_price',
          'line_total',
          'sku',
          'shipping_city',
          'shipping_country',
          'currency',
        ].map(value),
        ['paid', 'buyer@example.com', '2', '4000', '8000', 'OE-LAMP', 'Paris', 'FR', 'USD'],
      );
      const jsonl = (await exportOf(ctx, key, 'orders', 'jsonl')).trimEnd().split('\n');
      const first = JSON.parse(jsonl[0] as string) as Record<string, unknown>;
      assert.deepEqual(Object.keys(first), [...ORDER_COLUMNS]);
    });

    it('streams across pages: many products, and a product with more variants than a read holds', async () => {
      const other = (await createTenant(ctx)).apiKey.key;
      const otherApi = client(ctx.app, other);
      const sizes = Array.from({ length: 40 }, (_, i) => `W${i + 1}`);
      const lengths = Array.from({ length: 30 }, (_, i) => `L${i + 1}`);
      const big = await otherApi('POST', '/v1/products', {
        body: {
          name: 'Many Variants Jeans',
          options: [
            { name: 'Waist', values: sizes },
            { name: 'Length', values: lengths },
          ],
          variants: sizes.flatMap((waist) =>
            lengths.map((length) => ({ options: { Waist: waist, Length: length }, price: 5000 })),
          ),
        },
      });
      assert.equal(big.status, 201);
      const rows: string[] = ['handle,name,sku,price'];
      for (let i = 0; i < 520; i++) rows.push(`p${i},Paged ${i},PAGED-${i},${100 + i}`);
      const done = await importFile(ctx, other, 'resource=products', `${rows.join('\n')}\n`);
      assert.equal(done.created_count, 520);
      const exported = parse(await exportOf(ctx, other, 'products')) as string[][];
      assert.equal(exported.length, 1 + 1200 + 520);
      const names = exported
        .slice(1)
        .map((row) => row[1])
        .filter((name) => name !== '');
      assert.deepEqual(names, [
        'Many Variants Jeans',
        ...Array.from({ length: 520 }, (_, i) => `Paged ${i}`),
      ]);
      const [first, second] = ['option1_value', 'option2_value'].map((column) =>
        (exported[0] as string[]).indexOf(column),
      ) as [number, number];
      const waists = exported.slice(1, 1201).map((row) => `${row[first]}/${row[second]}`);
      assert.equal(new Set(waists).size, 1200);
    });

    it('needs the read permission of what it exports', async () => {
      const res = await api<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'exports', permissions: ['read:products'] },
      });
      const only = client(ctx.app, res.body.key);
      assert.equal((await only('GET', '/v1/exports/products')).status, 200);
      const refused = await only<{ required_permission: string }>('GET', '/v1/exports/customers');
      assert.deepEqual([refused.status, refused.body.required_permission], [403, 'read:customers']);
      assert.equal((await only('GET', '/v1/exports/products?format=xml')).status, 400);
    });
  });
}
