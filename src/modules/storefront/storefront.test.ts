import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery } from 'kysely';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import { sentQueries } from '../../../test/helpers/queries.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import { firstVariants } from '../products/index.js';
import type { ProductObject } from '../products/products.schemas.js';
import type { StoreProductObject, StoreShippingRateList } from './storefront.schemas.js';

const PRODUCT_KEYS = [
  'available',
  'category',
  'currency',
  'description',
  'handle',
  'id',
  'images',
  'livemode',
  'media',
  'name',
  'options',
  'price',
  'price_max',
  'tags',
  'variants',
  'variants_has_more',
];
const VARIANT_KEYS = ['available', 'compare_at_price', 'id', 'image', 'options', 'price', 'title'];

const keys = (value: unknown) => Object.keys(value as object).sort();

/** Every key anywhere in a JSON value, however deep. */
function allKeys(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) allKeys(item, into);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      into.add(key);
      allKeys(item, into);
    }
  }
  return into;
}

for (const dialect of DIALECTS) {
  describe(`storefront catalog (${dialect})`, () => {
    let ctx: TestContext;
    let admin: Client;
    let shop: Client;
    let other: Client;
    let tee: ProductObject;
    let mug: ProductObject;
    let draft: ProductObject;
    let archived: ProductObject;
    let soldOut: ProductObject;

    const create = async (body: Record<string, unknown>, as: Client = admin) => {
      const res = await as<ProductObject>('POST', '/v1/products', { body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };

    before(async () => {
      ctx = await createTestContext(dialect);
      const tenant = await createTenant(ctx);
      admin = client(ctx.app, tenant.apiKey.key);
      // A server-rendered shop's key: it may read the catalog, nothing more.
      const key = await admin<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'shop', permissions: ['read:products'] },
      });
      assert.equal(key.status, 201, JSON.stringify(key.body));
      shop = client(ctx.app, key.body.key);
      other = client(ctx.app, (await createTenant(ctx)).apiKey.key);

      tee = await create({
        name: 'Classic Tee',
        description: 'Heavy cotton.',
        category: 'apparel',
        tags: ['cotton'],
        media: [{ url: 'https://cdn.example.com/tee.jpg', alt: 'The Classic Tee, folded' }],
        attributes: { supplier: 'secret-mill' },
        options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
        variants: [
          { options: { Size: 'S' }, sku: 'TEE-S', price: 2000, stock: 0, weight_grams: 180 },
          {
            options: { Size: 'M' },
            sku: 'TEE-M',
            price: 2200,
            compare_at_price: 2500,
            stock: 4,
            image: 'https://cdn.example.com/tee-m.jpg',
          },
          { options: { Size: 'L' }, sku: 'TEE-L', price: 2400, stock: 0, cost: 700 },
        ],
      });
      mug = await create({ name: 'Mug', category: 'kitchen', sku: 'MUG', price: 900, stock: 2 });
      soldOut = await create({ name: 'Kettle', category: 'kitchen', price: 3000, stock: 0 });
      draft = await create({
        name: 'Secret Mug',
        category: 'kitchen',
        price: 100,
        stock: 5,
        status: 'draft',
      });
      archived = await create({
        name: 'Old Mug',
        category: 'kitchen',
        price: 50,
        stock: 5,
        status: 'archived',
      });
    });
    after(() => ctx.close());

    it('shows a product with exactly what a shopper may see, by id and by handle', async () => {
      const byId = await shop<StoreProductObject>('GET', `/v1/store/products/${tee.id}`);
      assert.equal(byId.status, 200, JSON.stringify(byId.body));
      assert.deepEqual(byId.body, {
        id: tee.id,
        handle: 'classic-tee',
        name: 'Classic Tee',
        description: 'Heavy cotton.',
        category: 'apparel',
        images: ['https://cdn.example.com/tee.jpg'],
        media: [{ url: 'https://cdn.example.com/tee.jpg', alt: 'The Classic Tee, folded' }],
        tags: ['cotton'],
        options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
        price: 2000,
        price_max: 2400,
        currency: 'USD',
        available: true,
        variants: (tee.variants ?? []).map((variant) => ({
          id: variant.id,
          title: variant.title,
          options: variant.options,
          price: variant.price,
          compare_at_price: variant.compare_at_price,
          image: variant.title === 'M' ? 'https://cdn.example.com/tee-m.jpg' : null,
          available: variant.stock > 0,
        })),
        variants_has_more: false,
        livemode: true,
      });
      assert.deepEqual(
        byId.body.variants.map((v) => [v.title, v.available]),
        [
          ['S', false],
          ['M', true],
          ['L', false],
        ],
      );
      const byHandle = await shop<StoreProductObject>('GET', '/v1/store/products/classic-tee');
      assert.equal(byHandle.status, 200);
      assert.deepEqual(byHandle.body, byId.body);
      // Never stock counts, SKUs, weights, attributes, statuses or times.
      const seen = allKeys(byId.body);
      for (const hidden of [
        'stock',
        'sku',
        'weight_grams',
        'barcode',
        'attributes',
        'status',
        'created',
        'cost',
      ]) {
        assert.equal(seen.has(hidden), false, hidden);
      }
      assert.equal(JSON.stringify(byId.body).includes('secret-mill'), false);
    });

    it('lists active products only, each with the exact shopper keys', async () => {
      const list = await shop<Page<StoreProductObject>>('GET', '/v1/store/products?sort=created');
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.body.data.map((product) => product.id),
        [tee.id, mug.id, soldOut.id],
      );
      assert.equal(list.body.total, 3);
      assert.deepEqual(keys(list.body), [
        'data',
        'has_more',
        'limit',
        'next_cursor',
        'offset',
        'page',
        'total',
      ]);
      for (const product of list.body.data) {
        assert.deepEqual(keys(product), PRODUCT_KEYS);
        for (const variant of product.variants) assert.deepEqual(keys(variant), VARIANT_KEYS);
      }
      assert.deepEqual(
        list.body.data.map((product) => [product.handle, product.available, product.variants.length]),
        [
          ['classic-tee', true, 3],
          ['mug', true, 1],
          ['kettle', false, 1],
        ],
      );
      const seen = allKeys(list.body.data);
      for (const hidden of ['stock', 'sku', 'attributes', 'status', 'variant_count']) {
        assert.equal(seen.has(hidden), false, hidden);
      }
    });

    it('answers 404 for a draft, archived, unknown or other tenant’s product, by id or handle', async () => {
      for (const product of [draft, archived]) {
        for (const path of [product.id, product.handle]) {
          const res = await shop<Problem>('GET', `/v1/store/products/${path}`);
          assert.equal(res.status, 404, path);
          assert.equal(res.body.code, 'not_found');
          assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        }
      }
      for (const path of ['prod_nope', 'no-such-thing']) {
        assert.equal((await shop('GET', `/v1/store/products/${path}`)).status, 404, path);
      }
      assert.equal((await other('GET', `/v1/store/products/${tee.id}`)).status, 404);
      assert.equal((await other('GET', '/v1/store/products/classic-tee')).status, 404);
      // A long handle is found like any other.
      const long = await create({ name: 'Long', handle: 'l'.repeat(100), price: 100, stock: 1 });
      const found = await shop<StoreProductObject>('GET', `/v1/store/products/${'l'.repeat(100)}`);
      assert.equal(found.body.id, long.id);
      assert.equal((await admin('DELETE', `/v1/products/${long.id}`)).status, 204);
    });

    it('filters by category and text, sorts and pages like the admin list', async () => {
      const kitchen = await shop<Page<StoreProductObject>>(
        'GET',
        '/v1/store/products?category=kitchen&sort=price',
      );
      assert.deepEqual([kitchen.body.total, kitchen.body.data.map((p) => p.name)], [2, ['Mug', 'Kettle']]);
      const found = await shop<Page<StoreProductObject>>('GET', '/v1/store/products?q=mug');
      assert.deepEqual(
        found.body.data.map((p) => p.id),
        [mug.id],
      );
      const pages: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `/v1/store/products?sort=name&limit=1${cursor === null ? '' : `&cursor=${cursor}`}`;
        const res: { status: number; body: Page<StoreProductObject> } = await shop<Page<StoreProductObject>>(
          'GET',
          query,
        );
        assert.equal(res.status, 200);
        pages.push(...res.body.data.map((p) => p.name));
        cursor = res.body.next_cursor;
      } while (cursor !== null);
      assert.deepEqual(pages, ['Classic Tee', 'Kettle', 'Mug']);
      const second = await shop<Page<StoreProductObject>>(
        'GET',
        '/v1/store/products?sort=-price&limit=1&page=2',
      );
      assert.deepEqual(
        second.body.data.map((p) => p.name),
        ['Classic Tee'],
      );
    });

    it('refuses bad parameters with 400 naming the field', async () => {
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['sort=stock', 'sort'],
        ['cursor=nonsense', 'cursor'],
        ['status=draft', 'status'],
        ['in_stock=true', 'in_stock'],
        ['category=', 'category'],
      ] as const) {
        const res = await shop<Problem>('GET', `/v1/store/products?${query}`);
        assert.equal(res.status, 400, query);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        assert.ok(
          res.body.errors?.some((error) => error.field === field),
          `${query}: ${JSON.stringify(res.body)}`,
        );
      }
    });

    it('lists a product’s first 100 variants, and all of them on its own page', async () => {
      const sizes = Array.from({ length: 11 }, (_, i) => `S${i}`);
      const colors = Array.from({ length: 10 }, (_, i) => `C${i}`);
      const big = await create({
        name: 'Big Sock Range',
        category: 'socks',
        options: [
          { name: 'Size', values: sizes },
          { name: 'Color', values: colors },
        ],
        variants: sizes.flatMap((size) =>
          colors.map((color) => ({ options: { Size: size, Color: color }, price: 500, stock: 1 })),
        ),
      });
      const listed = await shop<Page<StoreProductObject>>('GET', '/v1/store/products?category=socks');
      const [item] = listed.body.data;
      assert.deepEqual([item?.variants.length, item?.variants_has_more], [100, true]);
      const own = await shop<StoreProductObject>('GET', `/v1/store/products/${big.handle}`);
      assert.deepEqual([own.body.variants.length, own.body.variants_has_more], [110, false]);
      assert.deepEqual(
        own.body.variants.slice(0, 100).map((variant) => variant.id),
        item?.variants.map((variant) => variant.id),
      );
    });

    it('follows every change at once: stock, status and handle (the read cache and ETags)', async () => {
      const first = await shop<StoreProductObject>('GET', `/v1/store/products/${mug.id}`);
      const etag = String(first.headers.etag);
      assert.match(etag, /^"/);
      const again = await shop('GET', `/v1/store/products/${mug.id}`, { headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304);

      // Sold out by the merchant: unavailable at the next read.
      assert.equal((await admin('PATCH', `/v1/products/${mug.id}`, { body: { stock: 0 } })).status, 200);
      const sold = await shop<StoreProductObject>('GET', `/v1/store/products/${mug.id}`, {
        headers: { 'if-none-match': etag },
      });
      assert.equal(sold.status, 200);
      assert.deepEqual([sold.body.available, sold.body.variants[0]?.available], [false, false]);
      // A new handle finds it; the old one no longer does.
      assert.equal(
        (await admin('PATCH', `/v1/products/${mug.id}`, { body: { handle: 'coffee-mug', stock: 2 } })).status,
        200,
      );
      assert.equal((await shop('GET', '/v1/store/products/mug')).status, 404);
      const renamed = await shop<StoreProductObject>('GET', '/v1/store/products/coffee-mug');
      assert.deepEqual([renamed.body.id, renamed.body.available], [mug.id, true]);
      // Made a draft: gone from the list and its page.
      const before = await shop<Page<StoreProductObject>>('GET', '/v1/store/products?category=kitchen');
      assert.ok(before.body.data.some((p) => p.id === mug.id));
      assert.equal(
        (await admin('PATCH', `/v1/products/${mug.id}`, { body: { status: 'draft' } })).status,
        200,
      );
      const afterDraft = await shop<Page<StoreProductObject>>('GET', '/v1/store/products?category=kitchen');
      assert.equal(
        afterDraft.body.data.some((p) => p.id === mug.id),
        false,
      );
      assert.equal((await shop('GET', '/v1/store/products/coffee-mug')).status, 404);
      assert.equal(
        (await admin('PATCH', `/v1/products/${mug.id}`, { body: { status: 'active' } })).status,
        200,
      );
    });

    it('shows the handle to a tenant pinned to an older version too: the storefront is new', async () => {
      const tenant = await createTenant(ctx, { apiVersion: '2026-12-15' });
      const old = client(ctx.app, tenant.apiKey.key);
      const product = await create({ name: 'Old Shop Lamp', price: 4000, stock: 1 }, old);
      assert.equal('handle' in product, false);
      const seen = await old<StoreProductObject>('GET', `/v1/store/products/${product.id}`);
      assert.deepEqual(
        [seen.body.handle, keys(seen.body)],
        ['old-shop-lamp', PRODUCT_KEYS.filter((key) => key !== 'livemode')],
      );
    });

    it('reads a page in as many queries for 20 products as for 2, the variants by product', async () => {
      const tenant = await createTenant(ctx);
      const many = client(ctx.app, tenant.apiKey.key);
      for (let i = 0; i < 20; i++) {
        await create(
          {
            name: `Sock ${i}`,
            options: [{ name: 'Size', values: ['S', 'M'] }],
            variants: [
              { options: { Size: 'S' }, price: 500, stock: 1 },
              { options: { Size: 'M' }, price: 500, stock: 0 },
            ],
          },
          many,
        );
      }
      const executor = ctx.deps.store.db.getExecutor();
      const execute = executor.executeQuery.bind(executor);
      let queries = 0;
      executor.executeQuery = <R>(query: CompiledQuery<R>) => {
        queries += 1;
        return execute(query);
      };
      // The fewest of three reads: a commit elsewhere (the usage meter's flush, every second) makes
      // the next read take the catalog version from the store once more.
      const count = async (limit: number) => {
        const counts: number[] = [];
        for (let i = 0; i < 3; i++) {
          ctx.deps.readCache.clear();
          const before = queries;
          const res = await many<Page<StoreProductObject>>('GET', `/v1/store/products?limit=${limit}`);
          assert.deepEqual([res.status, res.body.data.length], [200, limit]);
          counts.push(queries - before);
        }
        return Math.min(...counts);
      };
      try {
        const two = await count(2);
        assert.ok(two >= 3, `${two} queries`);
        assert.equal(await count(20), two);
      } finally {
        executor.executeQuery = execute;
      }
      // SQLite reads a page's variants through the (product_id, position) index, not every
      // variant of the store through the tenant's SKU index.
      if (dialect === 'sqlite') {
        const page = await many<Page<StoreProductObject>>('GET', '/v1/store/products?limit=20');
        const ids = page.body.data.map((product) => product.id);
        const [query] = await sentQueries(ctx.deps.store.db, (db) =>
          firstVariants(db, tenant.tenant.id, ids, 100),
        );
        assert.ok(query);
        const plan = await ctx.deps.store.db.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`EXPLAIN QUERY PLAN ${query.sql}`, [...query.parameters]),
        );
        const steps = plan.rows.map((row) => row.detail).join('\n');
        assert.match(steps, /product_variants_product_position_idx/, steps);
        assert.doesNotMatch(steps, /product_variants_tenant_sku_idx/, steps);
      }
    });

    it('needs a key that may read the catalog', async () => {
      const none = await client(ctx.app)<Problem>('GET', '/v1/store/products');
      assert.equal(none.status, 401);
      const key = await admin<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'orders only', permissions: ['read:orders'] },
      });
      const ordersOnly = client(ctx.app, key.body.key);
      for (const path of [
        '/v1/store/products',
        `/v1/store/products/${tee.id}`,
        '/v1/store/shipping-rates?country=DE',
      ]) {
        const res = await ordersOnly<Problem>('GET', path);
        assert.equal(res.status, 403, path);
        assert.equal(res.body.code, 'insufficient_permissions');
      }
    });
  });

  describe(`storefront shipping rates (${dialect})`, () => {
    let ctx: TestContext;
    let admin: Client;

    before(async () => {
      ctx = await createTestContext(dialect);
      admin = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      for (const body of [
        { name: 'Express', countries: ['DE', 'AT'], price: 1500, currency: 'USD' },
        {
          name: 'Standard',
          countries: ['DE'],
          price: 500,
          currency: 'USD',
          free_over: 5000,
          max_weight_grams: 2000,
        },
        { name: 'Heavy', countries: ['DE'], price: 900, currency: 'USD', min_weight_grams: 2001 },
        { name: 'World', countries: ['*'], price: 2500, currency: 'USD' },
        { name: 'Euro Standard', countries: ['DE'], price: 450, currency: 'EUR' },
      ]) {
        const res = await admin('POST', '/v1/shipping-rates', { body });
        assert.equal(res.status, 201, JSON.stringify(res.body));
      }
    });
    after(() => ctx.close());

    const rates = async (query: string) => {
      const res = await admin<StoreShippingRateList>('GET', `/v1/store/shipping-rates?${query}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data;
    };

    it('lists the rates to a country in the store’s currency, cheapest first, or the rest of the world’s', async () => {
      const de = await rates('country=DE');
      assert.deepEqual(
        de.map((rate) => [rate.name, rate.amount, rate.currency]),
        [
          ['Standard', 500, 'USD'],
          ['Heavy', 900, 'USD'],
          ['Express', 1500, 'USD'],
        ],
      );
      assert.deepEqual(keys(de[0]), [
        'amount',
        'currency',
        'free_over',
        'id',
        'livemode',
        'max_weight_grams',
        'min_weight_grams',
        'name',
      ]);
      assert.deepEqual(
        [de[0]?.free_over, de[0]?.max_weight_grams, de[1]?.min_weight_grams],
        [5000, 2000, 2001],
      );
      assert.match(de[0]?.id ?? '', /^shr_/);
      assert.deepEqual(
        (await rates('country=AT')).map((rate) => rate.name),
        ['Express'],
      );
      assert.deepEqual(
        (await rates('country=FR')).map((rate) => rate.name),
        ['World'],
      );
      assert.deepEqual(
        (await rates('country=DE&currency=EUR')).map((rate) => [rate.name, rate.amount, rate.currency]),
        [['Euro Standard', 450, 'EUR']],
      );
      assert.deepEqual(await rates('country=FR&currency=EUR'), []);
      // Another tenant has none.
      const other = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      const empty = await other<StoreShippingRateList>('GET', '/v1/store/shipping-rates?country=DE');
      assert.deepEqual(empty.body, { data: [] });
    });

    it('needs an ISO 3166-1 country: 400 naming country otherwise', async () => {
      for (const query of ['', 'country=', 'country=de', 'country=DEU', 'country=XX', 'country=D%00']) {
        const res = await admin<Problem>('GET', `/v1/store/shipping-rates?${query}`);
        assert.equal(res.status, 400, query);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        assert.ok(
          res.body.errors?.some((error) => error.field === 'country'),
          `${query}: ${JSON.stringify(res.body)}`,
        );
      }
      const currency = await admin<Problem>('GET', '/v1/store/shipping-rates?country=DE&currency=XYZ');
      assert.equal(currency.status, 400);
      assert.ok(
        currency.body.errors?.some((error) => error.field === 'currency'),
        JSON.stringify(currency.body),
      );
    });
  });
}
