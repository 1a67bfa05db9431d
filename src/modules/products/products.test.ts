import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../lib/clock.js';
import {
  type ApiResponse,
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  whileResponsesAreRefused,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import type { ProductObject } from './products.schemas.js';

async function countEvents(ctx: TestContext, type: string, objectId: string): Promise<number> {
  const { n } = await ctx.deps.store.db
    .selectFrom('events')
    .where('type', '=', type)
    .where('object_id', '=', objectId)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** Walks every page of a listing by cursor and returns the ids in order. */
async function walk(api: Client, url: string): Promise<string[]> {
  const ids: string[] = [];
  let next: string | null = null;
  const sep = url.includes('?') ? '&' : '?';
  for (let guard = 0; guard < 1000; guard++) {
    const page: ApiResponse<Page<ProductObject>> = await api<Page<ProductObject>>(
      'GET',
      next === null ? url : `${url}${sep}cursor=${encodeURIComponent(next)}`,
    );
    assert.equal(page.status, 200, JSON.stringify(page.body));
    ids.push(...page.body.data.map((p) => p.id));
    next = page.body.next_cursor;
    if (next === null) return ids;
  }
  throw new Error('cursor walk did not end');
}

for (const dialect of DIALECTS) {
  describe(`products (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock();
    let api: Client;
    let other: Client;

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
      api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      other = client(ctx.app, (await createTenant(ctx, { currency: 'EUR' })).apiKey.key);
    });
    after(() => ctx.close());

    const create = async (body: Record<string, unknown>, as: Client = api) => {
      const res = await as<ProductObject>('POST', '/v1/products', { body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };

    it('creates, reads, changes and deletes a product, with an event for each change', async () => {
      const created = await create({
        name: 'Trail Runner 2',
        description: 'A light trail shoe.',
        sku: 'TR2-BLK-42',
        price: 12999,
        currency: 'USD',
        category: 'shoes',
        stock: 12,
        status: 'active',
        images: ['https://cdn.example.com/tr2.png'],
        attributes: { color: 'black', size: '42' },
        tags: ['running', 'trail'],
      });
      assert.match(created.id, /^prod_[0-9A-Za-z]{24}$/);
      assert.deepEqual(
        { ...created, id: undefined, created: undefined, updated: undefined, variants: undefined },
        {
          id: undefined,
          handle: 'trail-runner-2',
          name: 'Trail Runner 2',
          description: 'A light trail shoe.',
          sku: 'TR2-BLK-42',
          price: 12999,
          price_max: 12999,
          currency: 'USD',
          category: 'shoes',
          stock: 12,
          status: 'active',
          images: ['https://cdn.example.com/tr2.png'],
          media: [{ url: 'https://cdn.example.com/tr2.png', alt: null }],
          attributes: { color: 'black', size: '42' },
          tags: ['running', 'trail'],
          options: [],
          seo: { title: null, description: null },
          variant_count: 1,
          variants: undefined,
          variants_has_more: false,
          created: undefined,
          updated: undefined,
          livemode: true,
        },
      );
      // Without options, one Default variant holds the product's SKU, price and stock.
      const [only] = created.variants ?? [];
      assert.deepEqual(
        { ...only, id: undefined, created: undefined, updated: undefined },
        {
          id: undefined,
          product_id: created.id,
          sku: 'TR2-BLK-42',
          title: 'Default',
          options: {},
          price: 12999,
          compare_at_price: null,
          currency: 'USD',
          stock: 12,
          weight_grams: null,
          barcode: null,
          image: null,
          cost: null,
          requires_shipping: true,
          taxable: true,
          position: 1,
          created: undefined,
          updated: undefined,
          // An object of its own (its routes answer it alone), so nested it says its mode too.
          livemode: true,
        },
      );
      assert.match(only?.id ?? '', /^var_[0-9A-Za-z]{24}$/);
      assert.equal(created.created, new Date(clock.now()).toISOString());

      const got = await api<ProductObject>('GET', `/v1/products/${created.id}`);
      assert.deepEqual(got.body, created);

      clock.advance(1000);
      const patched = await api<ProductObject>('PATCH', `/v1/products/${created.id}`, {
        body: { price: 9999, category: null, attributes: { color: 'blue' } },
      });
      assert.equal(patched.status, 200);
      assert.equal(patched.body.price, 9999);
      assert.equal(patched.body.category, null);
      assert.deepEqual(patched.body.attributes, { color: 'blue' });
      assert.equal(patched.body.name, 'Trail Runner 2');
      assert.equal(patched.body.updated, new Date(clock.now()).toISOString());
      assert.equal(patched.body.created, created.created);

      const events = await api<Page<{ type: string; data: { object: ProductObject } }>>(
        'GET',
        '/v1/events?type=product.updated',
      );
      const updated = events.body.data.find((e) => e.data.object.id === created.id);
      assert.equal(updated?.data.object.price, 9999);

      const deleted = await api('DELETE', `/v1/products/${created.id}`);
      assert.equal(deleted.status, 204);
      assert.equal((await api('GET', `/v1/products/${created.id}`)).status, 404);
      assert.equal((await api('DELETE', `/v1/products/${created.id}`)).status, 404);
      assert.equal(await countEvents(ctx, 'product.created', created.id), 1);
      assert.equal(await countEvents(ctx, 'product.updated', created.id), 1);
      assert.equal(await countEvents(ctx, 'product.deleted', created.id), 1);
    });

    it('answers a retry for the product it created when the first answer could not be stored', async () => {
      const send = () =>
        api<ProductObject>('POST', '/v1/products', {
          body: { name: 'Once only', price: 700 },
          headers: { 'idempotency-key': 'product-once-only' },
        });
      assert.ok((await whileResponsesAreRefused(ctx.deps.store.db, dialect, send)).status >= 500);
      const retried = await send();
      assert.equal(retried.status, 201, JSON.stringify(retried.body));
      const stored = await ctx.deps.store.db
        .selectFrom('products')
        .select('id')
        .where('name', '=', 'Once only')
        .execute();
      assert.deepEqual(stored, [{ id: retried.body.id }], 'one product');
      assert.equal(await countEvents(ctx, 'product.created', retried.body.id), 1);
      assert.equal((await send()).headers['idempotent-replayed'], 'true');
    });

    it('defaults the currency to the tenant’s, stock to 0 and status to active', async () => {
      const euro = await create({ name: 'Euro thing', price: 500 }, other);
      assert.equal(euro.currency, 'EUR');
      assert.equal(euro.stock, 0);
      assert.equal(euro.status, 'active');
      assert.equal(euro.sku, null);
      assert.deepEqual([euro.images, euro.attributes, euro.tags], [[], {}, []]);
    });

    it('validates every field and names it', async () => {
      const base = { name: 'Valid', price: 100 };
      const cases: [Record<string, unknown>, string][] = [
        [{ ...base, name: '' }, 'name'],
        [{ ...base, name: '   ' }, 'name'],
        [{ ...base, name: 'x'.repeat(256) }, 'name'],
        // Names, categories, tags and attribute keys are one line without control characters;
        // descriptions and attribute values may break lines but hold no other control character.
        [{ ...base, name: 'nul\u0000tail' }, 'name'],
        [{ ...base, name: 'two\nlines' }, 'name'],
        [{ ...base, category: '   ' }, 'category'],
        [{ ...base, tags: ['  '] }, 'tags[0]'],
        [{ ...base, description: 'bell\u0007' }, 'description'],
        [{ ...base, attributes: { 'bad\tkey': 'x' } }, 'attributes'],
        [{ ...base, attributes: { color: 'esc\u001b[31m' } }, 'attributes.color'],
        [{ price: 100 }, 'name'],
        [{ name: 'No price' }, 'price'],
        [{ ...base, price: -1 }, 'price'],
        [{ ...base, price: 1.5 }, 'price'],
        [{ ...base, price: '100' }, 'price'],
        [{ ...base, currency: 'usd' }, 'currency'],
        [{ ...base, currency: 'ABC' }, 'currency'],
        [{ ...base, stock: -1 }, 'stock'],
        [{ ...base, stock: 2.5 }, 'stock'],
        [{ ...base, status: 'deleted' }, 'status'],
        [{ ...base, images: ['http://cdn.example.com/a.png'] }, 'images[0]'],
        [{ ...base, images: ['not a url'] }, 'images[0]'],
        [{ ...base, images: ['https://user:pw@cdn.example.com/a.png'] }, 'images[0]'],
        [{ ...base, attributes: { size: 42 } }, 'attributes.size'],
        [{ ...base, attributes: { nested: { a: 'b' } } }, 'attributes.nested'],
        [{ ...base, attributes: 'color=red' }, 'attributes'],
        [{ ...base, tags: ['a', 'a'] }, 'tags'],
        [{ ...base, sku: 'has space' }, 'sku'],
        [{ ...base, id: 'prod_mine' }, 'id'],
        [{ ...base, created: '2020-01-01T00:00:00Z' }, 'created'],
      ];
      for (const [body, field] of cases) {
        const res = await api<Problem>('POST', '/v1/products', { body });
        assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.status}`);
        assert.equal(res.body.code, 'validation_failed');
        assert.ok(
          res.body.errors?.some((e) => e.field === field),
          `${JSON.stringify(body)} should name ${field}: ${JSON.stringify(res.body.errors)}`,
        );
      }
      const controlled = await api<Problem>('POST', '/v1/products', { body: { ...base, name: 'a\u0000' } });
      assert.deepEqual(controlled.body.errors, [
        {
          field: 'name',
          message: 'must be one line of text without control or formatting characters; it holds U+0000',
        },
      ]);
      // A nullable field that fails says so once, without "must be null".
      const badSku = await api<Problem>('POST', '/v1/products', { body: { ...base, sku: 'has space' } });
      assert.deepEqual(
        badSku.body.errors?.map((e) => e.field),
        ['sku'],
      );
      // Line ends and tabs are text.
      await create({ name: 'Multi-line description', price: 1, description: 'one\r\ntwo\n\tthree' });
      const target = await create({ name: 'Patch target', price: 100 });
      for (const [body, field] of [
        [{}, 'body'],
        [{ price: -5 }, 'price'],
        [{ stock: null }, 'stock'],
        [{ name: null }, 'name'],
        [{ id: 'prod_x' }, 'id'],
        [{ currency: 'ZZZ' }, 'currency'],
      ] as [Record<string, unknown>, string][]) {
        const res = await api<Problem>('PATCH', `/v1/products/${target.id}`, { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.ok(
          res.body.errors?.some((e) => e.field === field),
          JSON.stringify(res.body.errors),
        );
      }
    });

    it('keeps SKUs unique per tenant, also against concurrent writers', async () => {
      await create({ name: 'First', price: 1, sku: 'UNIQ-1' });
      const dup = await api<Problem>('POST', '/v1/products', {
        body: { name: 'Second', price: 1, sku: 'UNIQ-1' },
      });
      assert.equal(dup.status, 409);
      assert.equal(dup.body.code, 'duplicate_sku');
      // Another tenant may use the same SKU.
      await create({ name: 'Theirs', price: 1, sku: 'UNIQ-1' }, other);

      const second = await create({ name: 'Second', price: 1, sku: 'UNIQ-2' });
      const clash = await api<Problem>('PATCH', `/v1/products/${second.id}`, { body: { sku: 'UNIQ-1' } });
      assert.equal(clash.status, 409);
      assert.equal(clash.body.code, 'duplicate_sku');
      // Setting a product's own SKU again is no conflict.
      assert.equal(
        (await api('PATCH', `/v1/products/${second.id}`, { body: { sku: 'UNIQ-2' } })).status,
        200,
      );

      const racers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          api<Problem>('POST', '/v1/products', { body: { name: `Racer ${i}`, price: 1, sku: 'RACE-1' } }),
        ),
      );
      assert.deepEqual(racers.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409]);
      for (const r of racers.filter((r) => r.status === 409)) assert.equal(r.body.code, 'duplicate_sku');
    });

    it('answers 404 for another tenant’s product, and leaves it alone', async () => {
      const theirs = await create({ name: 'Not yours', price: 700, stock: 3 }, other);
      assert.equal((await api<Problem>('GET', `/v1/products/${theirs.id}`)).body.code, 'not_found');
      assert.equal((await api('GET', `/v1/products/${theirs.id}`)).status, 404);
      assert.equal((await api('PATCH', `/v1/products/${theirs.id}`, { body: { stock: 0 } })).status, 404);
      assert.equal((await api('DELETE', `/v1/products/${theirs.id}`)).status, 404);
      assert.equal((await api('GET', '/v1/products/prod_doesnotexist')).status, 404);
      const still = await other<ProductObject>('GET', `/v1/products/${theirs.id}`);
      assert.equal(still.body.stock, 3);
      const mine = await api<Page<ProductObject>>('GET', '/v1/products?limit=100');
      assert.ok(!mine.body.data.some((p) => p.id === theirs.id));
    });

    it('emits product.outofstock once per transition to 0 by an edit, and nothing for a no-op edit', async () => {
      const p = await create({ name: 'Edit to zero', price: 10, stock: 4 });
      const zero = await api<ProductObject>('PATCH', `/v1/products/${p.id}`, { body: { stock: 0 } });
      assert.equal(zero.body.stock, 0);
      assert.equal(await countEvents(ctx, 'product.outofstock', p.id), 1);
      // Already 0: not a transition, and not a change at all.
      const again = await api<ProductObject>('PATCH', `/v1/products/${p.id}`, { body: { stock: 0 } });
      assert.equal(again.status, 200);
      assert.equal(await countEvents(ctx, 'product.outofstock', p.id), 1);
      assert.equal(await countEvents(ctx, 'product.updated', p.id), 1);
      await api('PATCH', `/v1/products/${p.id}`, { body: { stock: 2 } });
      await api('PATCH', `/v1/products/${p.id}`, { body: { stock: 0, name: 'Edit to zero again' } });
      assert.equal(await countEvents(ctx, 'product.outofstock', p.id), 2);
      assert.equal(await countEvents(ctx, 'product.updated', p.id), 3);
      // Created at 0 is not a transition.
      const empty = await create({ name: 'Born empty', price: 10, stock: 0 });
      assert.equal(await countEvents(ctx, 'product.outofstock', empty.id), 0);
    });
  });

  describe(`GET /products (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock();
    let api: Client;
    let key: string;
    let all: ProductObject[];

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
      key = (await createTenant(ctx)).apiKey.key;
      api = client(ctx.app, key);
      // Someone else's catalog must never show up or count.
      const stranger = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      await stranger('POST', '/v1/products', {
        body: { name: 'Shoe of a stranger', price: 5, category: 'shoes' },
      });
      const specs = [
        { name: 'Alpine Boot', category: 'shoes', price: 15000, stock: 3 },
        { name: 'Beach Sandal', category: 'shoes', price: 2500, stock: 0 },
        { name: 'City Sneaker', category: 'shoes', price: 8900, stock: 10, status: 'draft' },
        {
          name: 'Denim Jacket',
          category: 'apparel',
          price: 8900,
          stock: 5,
          description: 'Washed 100% cotton',
        },
        { name: 'Evening Dress', category: 'apparel', price: 22000, stock: 0, status: 'archived' },
        { name: 'Fleece', category: 'apparel', price: 4500, stock: 7, sku: 'FLC_01' },
        { name: 'Gift card', price: 2500, stock: 1000 },
        { name: 'Hiking Sock', category: 'shoes', price: 1200, stock: 40 },
      ];
      all = [];
      for (const [i, spec] of specs.entries()) {
        // Two pairs share a creation instant, so the id must break the tie.
        if (i % 3 !== 2) clock.advance(1000);
        const res = await api<ProductObject>('POST', '/v1/products', { body: spec });
        assert.equal(res.status, 201);
        all.push(res.body);
      }
    });
    after(() => ctx.close());

    const byCreatedDesc = (a: ProductObject, b: ProductObject) =>
      b.created.localeCompare(a.created) || (b.id < a.id ? -1 : 1);

    it('lists newest first by default, with the full envelope', async () => {
      const res = await api<Page<ProductObject>>('GET', '/v1/products');
      assert.equal(res.status, 200);
      assert.deepEqual(
        res.body.data.map((p) => p.id),
        [...all].sort(byCreatedDesc).map((p) => p.id),
      );
      assert.deepEqual(
        { ...res.body, data: undefined },
        { data: undefined, total: 8, page: 1, limit: 20, offset: 0, has_more: false, next_cursor: null },
      );
    });

    it('takes the parameters from a JSON body on the GET, from the query string, or both (query wins)', async () => {
      const shoes = all.filter((p) => p.category === 'shoes').sort(byCreatedDesc);
      const byBody = await api<Page<ProductObject>>('GET', '/v1/products', {
        body: { limit: 2, offset: 0, category: 'shoes' },
      });
      assert.equal(byBody.status, 200, JSON.stringify(byBody.body));
      assert.deepEqual(
        byBody.body.data.map((p) => p.id),
        shoes.slice(0, 2).map((p) => p.id),
      );
      assert.equal(byBody.body.total, 4);
      assert.equal(byBody.body.limit, 2);
      assert.equal(byBody.body.has_more, true);

      const byQuery = await api<Page<ProductObject>>('GET', '/v1/products?limit=2&offset=0&category=shoes');
      assert.deepEqual(byQuery.body, byBody.body);

      const both = await api<Page<ProductObject>>('GET', '/v1/products?category=apparel&limit=1', {
        body: { category: 'shoes', limit: 3, offset: 1 },
      });
      assert.equal(both.status, 200);
      assert.equal(both.body.total, 3, 'the query string category wins');
      assert.equal(both.body.limit, 1, 'the query string limit wins');
      assert.equal(both.body.offset, 1, 'the body gives what the query string does not');
      assert.equal(both.body.data[0]?.category, 'apparel');

      // curl -X GET -H 'Content-Type: application/json' with and without a body.
      const headerOnly = await ctx.app.inject({
        method: 'GET',
        url: '/v1/products',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      });
      assert.equal(headerOnly.statusCode, 200);
      const raw = await ctx.app.inject({
        method: 'GET',
        url: '/v1/products',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json; charset=utf-8' },
        payload: '{"category":"shoes"}',
      });
      assert.equal(raw.statusCode, 200);
      assert.equal(raw.json<Page<ProductObject>>().total, 4);
    });

    it('validates a GET body like the query string: strict types, no unknown fields', async () => {
      const cases: [unknown, string][] = [
        [{ nope: 1 }, 'nope'],
        [{ limit: '10' }, 'limit'],
        [{ limit: 0 }, 'limit'],
        [{ in_stock: 'true' }, 'in_stock'],
        [{ sort: 'popular' }, 'sort'],
        [[1, 2], 'body'],
      ];
      for (const [body, field] of cases) {
        const res = await api<Problem>('GET', '/v1/products', { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.code, 'validation_failed');
        assert.ok(
          res.body.errors?.some((e) => e.field === field),
          JSON.stringify(res.body),
        );
      }
      const badJson = await api<Problem>('GET', '/v1/products', {
        payload: '{"limit":',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(badJson.status, 400);
      assert.equal(badJson.body.code, 'invalid_json');
      const text = await api<Problem>('GET', '/v1/products', {
        payload: 'limit=5',
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(text.status, 415);
      assert.equal(text.body.code, 'unsupported_media_type');
      const huge = await api<Problem>('GET', '/v1/products', {
        payload: JSON.stringify({ q: 'x'.repeat(1024 * 1024) }),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(huge.status, 413);
    });

    it('answers 400 naming the field for every invalid parameter', async () => {
      const first = await api<Page<ProductObject>>('GET', '/v1/products?limit=2');
      const cursor = first.body.next_cursor ?? '';
      const forged = Buffer.from(JSON.stringify(['-created', 'yesterday', 'prod_x', 2])).toString(
        'base64url',
      );
      const cases: [string, string][] = [
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['limit=ten', 'limit'],
        ['offset=-1', 'offset'],
        ['page=0', 'page'],
        ['sort=popular', 'sort'],
        ['sort=-name', 'sort'],
        ['cursor=garbage', 'cursor'],
        [`cursor=${forged}`, 'cursor'],
        [`cursor=${cursor}&sort=price`, 'cursor'],
        [`cursor=${cursor}&offset=4`, 'cursor'],
        ['status=deleted', 'status'],
        ['min_price=-1', 'min_price'],
        ['max_price=1.5', 'max_price'],
        // Past the largest price (and PostgreSQL's bigint): a 400, as on SQLite.
        ['min_price=99999999999999999999', 'min_price'],
        ['max_price=1e30', 'max_price'],
        ['max_price=10000000001', 'max_price'],
        ['min_price=10&max_price=5', 'min_price'],
        ['in_stock=maybe', 'in_stock'],
        ['color=red', 'color'],
      ];
      for (const [query, field] of cases) {
        const res = await api<Problem>('GET', `/v1/products?${query}`);
        assert.equal(res.status, 400, `${query} -> ${res.status}`);
        assert.equal(res.body.code, 'validation_failed');
        assert.ok(
          res.body.errors?.some((e) => e.field === field),
          `${query}: ${JSON.stringify(res.body)}`,
        );
      }
    });

    it('filters by category, status, text, price and stock, with exact totals', async () => {
      const check = async (query: string, expected: (p: ProductObject) => boolean) => {
        const res = await api<Page<ProductObject>>('GET', `/v1/products?limit=100&${query}`);
        assert.equal(res.status, 200, `${query}: ${JSON.stringify(res.body)}`);
        const want = all.filter(expected).sort(byCreatedDesc);
        assert.deepEqual(
          res.body.data.map((p) => p.name),
          want.map((p) => p.name),
          query,
        );
        assert.equal(res.body.total, want.length, `${query} total`);
      };
      await check('category=shoes', (p) => p.category === 'shoes');
      await check('category=none', () => false);
      await check('status=draft', (p) => p.status === 'draft');
      await check('status=active&category=apparel', (p) => p.status === 'active' && p.category === 'apparel');
      await check('in_stock=true', (p) => p.stock > 0);
      await check('in_stock=false', (p) => p.stock === 0);
      await check('in_stock=false&category=shoes', (p) => p.stock === 0 && p.category === 'shoes');
      await check('min_price=2500&max_price=8900', (p) => p.price >= 2500 && p.price <= 8900);
      await check('max_price=2500&category=shoes', (p) => p.price <= 2500 && p.category === 'shoes');
      await check('q=SNEAKER', (p) => p.name === 'City Sneaker');
      await check('q=boo', (p) => p.name === 'Alpine Boot');
      await check('q=cotton', (p) => p.name === 'Denim Jacket');
      await check('q=100%25', (p) => p.name === 'Denim Jacket');
      await check('q=C_0', (p) => p.sku === 'FLC_01');
      await check('q=_', (p) => p.sku === 'FLC_01');
      await check('q=shoe&status=active', () => false);
    });

    it('sorts by created, price and name, ties broken by id, and cursors walk every row once', async () => {
      const sorted: Record<string, ProductObject[]> = {
        '-created': [...all].sort(byCreatedDesc),
        created: [...all].sort((a, b) => a.created.localeCompare(b.created) || (a.id < b.id ? -1 : 1)),
        price: [...all].sort((a, b) => a.price - b.price || (a.id < b.id ? -1 : 1)),
        '-price': [...all].sort((a, b) => b.price - a.price || (b.id < a.id ? -1 : 1)),
        name: [...all].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1)),
      };
      for (const [sort, want] of Object.entries(sorted)) {
        const res = await api<Page<ProductObject>>('GET', `/v1/products?sort=${sort}`);
        const got = res.body.data.map((p) => p.name);
        assert.deepEqual(
          got,
          want.map((p) => p.name),
          sort,
        );
        const walked = await walk(api, `/v1/products?sort=${sort}&limit=3`);
        assert.deepEqual(
          walked,
          res.body.data.map((p) => p.id),
          `cursor walk for ${sort}`,
        );
      }
      const filtered = await walk(api, '/v1/products?sort=-price&category=shoes&limit=1');
      assert.deepEqual(
        filtered,
        sorted['-price']?.filter((p) => p.category === 'shoes').map((p) => p.id),
      );
    });

    it('pages by offset or page with has_more, page and next_cursor', async () => {
      const want = [...all].sort(byCreatedDesc).map((p) => p.id);
      const second = await api<Page<ProductObject>>('GET', '/v1/products?limit=3&page=2');
      assert.deepEqual(
        second.body.data.map((p) => p.id),
        want.slice(3, 6),
      );
      assert.equal(second.body.offset, 3);
      assert.equal(second.body.page, 2);
      assert.equal(second.body.has_more, true);
      const next = await api<Page<ProductObject>>(
        'GET',
        `/v1/products?limit=3&cursor=${second.body.next_cursor ?? ''}`,
      );
      assert.deepEqual(
        next.body.data.map((p) => p.id),
        want.slice(6),
      );
      assert.equal(next.body.offset, 6);
      assert.equal(next.body.page, 3);
      assert.equal(next.body.has_more, false);
      assert.equal(next.body.next_cursor, null);
      const beyond = await api<Page<ProductObject>>('GET', '/v1/products?offset=50');
      assert.deepEqual(beyond.body.data, []);
      assert.equal(beyond.body.total, 8);
    });
  });

  describe(`search and read plans (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    const made: ProductObject[] = [];

    before(async () => {
      ctx = await createTestContext(dialect);
      api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      for (let i = 0; i < 60; i++) {
        const res = await api<ProductObject>('POST', '/v1/products', {
          body: {
            name: i % 6 === 0 ? `Gadget ${i}` : `Widget ${i}`,
            sku: `W-${i}`,
            price: 100 * i,
            description: i === 7 ? 'Ünïcode Straße edition' : null,
          },
        });
        made.push(res.body);
      }
    });
    after(() => ctx.close());

    const names = async (query: string) => {
      const res = await api<Page<ProductObject>>('GET', `/v1/products?limit=100&${query}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.total, res.body.data.length, query);
      return res.body.data.map((p) => p.name).sort();
    };
    const expect = (pick: (p: ProductObject, i: number) => boolean) =>
      made
        .filter(pick)
        .map((p) => p.name)
        .sort();

    it('answers the same whether a filter is read through its index or by walking the sort', async () => {
      // Nearly every row matches: the sort's index is walked. Few match: the filter's index is used.
      assert.deepEqual(
        await names('q=widget'),
        expect((p) => p.name.startsWith('Widget')),
      );
      assert.deepEqual(
        await names('q=gadget 1'),
        expect((p) => /^Gadget 1/.test(p.name)),
      );
      assert.deepEqual(
        await names('q=w-5'),
        expect((p) => p.sku?.startsWith('W-5') === true),
      );
      assert.deepEqual(
        await names('min_price=0'),
        expect(() => true),
      );
      assert.deepEqual(
        await names('min_price=5000&max_price=5200'),
        expect((p) => p.price >= 5000 && p.price <= 5200),
      );
      assert.deepEqual(
        await names('q=straße'),
        expect((_, i) => i === 7),
      );
      assert.deepEqual(
        await names('q=widget&max_price=900&sort=-price'),
        expect((p) => p.name.startsWith('Widget') && p.price <= 900),
      );
      const walk = await api<Page<ProductObject>>('GET', '/v1/products?q=dget&limit=7&sort=price');
      assert.equal(walk.body.total, 60);
      assert.deepEqual(
        walk.body.data.map((p) => p.price),
        [0, 100, 200, 300, 400, 500, 600],
      );
    });

    it('pages by name with a cursor also past the longest names', async () => {
      const category = 'longest-names';
      const longest = ['é'.repeat(200), '😀'.repeat(200), '"'.repeat(200)];
      for (const name of longest) {
        const res = await api('POST', '/v1/products', { body: { name, price: 1, category } });
        assert.equal(res.status, 201);
      }
      const walked: string[] = [];
      let url = `/v1/products?category=${category}&sort=name&limit=1`;
      for (;;) {
        const page = await api<Page<ProductObject>>('GET', url);
        assert.equal(page.status, 200, JSON.stringify(page.body));
        walked.push(...page.body.data.map((p) => p.name));
        if (!page.body.next_cursor) break;
        url = `/v1/products?category=${category}&sort=name&limit=1&cursor=${page.body.next_cursor}`;
      }
      assert.deepEqual(walked, [...longest].sort());
    });

    it('searches case-insensitively in every script, not only ASCII', async () => {
      const created = await api<ProductObject>('POST', '/v1/products', {
        body: { name: 'Émile Crème Brûlée', price: 700, description: 'ÄÖÜ straße' },
      });
      assert.equal(created.status, 201);
      for (const q of ['Émile', 'émile', 'ÉMILE', 'Émi', 'ém', 'CRÈME', 'äöü', 'ÄÖÜ']) {
        assert.deepEqual(await names(`q=${encodeURIComponent(q)}`), ['Émile Crème Brûlée'], q);
      }
      await api('DELETE', `/v1/products/${created.body.id}`);
    });

    it('keeps the search index in step with edits and deletes, and refuses control characters', async () => {
      const target = made[5] as ProductObject;
      await api('PATCH', `/v1/products/${target.id}`, { body: { name: 'Sprocket deluxe' } });
      assert.deepEqual(await names('q=sprocket'), ['Sprocket deluxe']);
      assert.ok(!(await names('q=widget 5')).includes(target.name));
      await api('PATCH', `/v1/products/${target.id}`, {
        body: { sku: 'SPR-XYZ', description: 'now with gears' },
      });
      assert.deepEqual(await names('q=spr-xyz'), ['Sprocket deluxe']);
      assert.deepEqual(await names('q=with gears'), ['Sprocket deluxe']);
      await api('DELETE', `/v1/products/${target.id}`);
      assert.deepEqual(await names('q=sprocket'), []);
      // An empty search box filters nothing.
      const everything = await names('sort=name');
      assert.ok(everything.length > 1);
      assert.deepEqual(await names('sort=name&q='), everything);
      const res = await api<Problem>('GET', `/v1/products?q=${encodeURIComponent('a\nb')}`);
      assert.equal(res.status, 400);
      assert.equal(res.body.errors?.[0]?.field, 'q');
    });
  });

  describe(`product counts (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;

    before(async () => {
      ctx = await createTestContext(dialect);
      api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
    });
    after(() => ctx.close());

    it('keeps the counts behind `total` equal to a real count through every kind of write', async () => {
      // A deterministic pseudo-random walk of creates, edits, deletes, orders and cancels.
      let seed = 7;
      const rand = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed % n;
      };
      const categories = ['a', 'b', null];
      const statuses = ['active', 'draft', 'archived'];
      const ids: string[] = [];
      const orders: string[] = [];
      for (let step = 0; step < 120; step++) {
        const action = rand(6);
        const target = ids[rand(Math.max(ids.length, 1))];
        if (action <= 1 || target === undefined) {
          const res = await api<ProductObject>('POST', '/v1/products', {
            body: {
              name: `P${step}`,
              price: 100,
              stock: rand(3),
              category: categories[rand(3)],
              status: statuses[rand(3)],
            },
          });
          ids.push(res.body.id);
        } else if (action === 2) {
          await api('PATCH', `/v1/products/${target}`, {
            body: { stock: rand(3), category: categories[rand(3)], status: statuses[rand(3)] },
          });
        } else if (action === 3 && rand(3) === 0) {
          await api('DELETE', `/v1/products/${target}`);
          ids.splice(ids.indexOf(target), 1);
        } else if (action === 4) {
          const res = await api<{ id: string }>('POST', '/v1/orders', {
            body: { items: [{ product_id: target, quantity: 1 }], customer: { email: 'c@example.com' } },
          });
          if (res.status === 201) orders.push(res.body.id);
        } else if (orders.length > 0) {
          await api('POST', `/v1/orders/${orders.splice(rand(orders.length), 1)[0]}/cancel`);
        }
      }
      const queries = [''];
      for (const c of ['a', 'b']) queries.push(`category=${c}`);
      for (const s of statuses) queries.push(`status=${s}`);
      for (const c of ['a', 'b'])
        for (const s of statuses)
          for (const st of ['true', 'false']) {
            queries.push(`category=${c}&status=${s}&in_stock=${st}`);
          }
      queries.push('in_stock=true', 'in_stock=false', 'status=active&in_stock=false');
      for (const query of queries) {
        const counted = await api<Page<ProductObject>>('GET', `/v1/products?limit=100&${query}`);
        // min_price=0 matches everything but forces a real COUNT: the two must agree.
        const scanned = await api<Page<ProductObject>>('GET', `/v1/products?limit=100&min_price=0&${query}`);
        assert.equal(counted.body.total, scanned.body.total, query);
        assert.equal(counted.body.total, counted.body.data.length, query);
      }
    });
  });
}
