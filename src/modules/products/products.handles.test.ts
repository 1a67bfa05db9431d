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
import type { Page, Problem } from '../../../test/helpers/responses.js';
import { isHandle, slugify } from './products.handles.js';
import type { ProductObject } from './products.schemas.js';

for (const dialect of LOGIC_ONLY) {
  describe(`handles made from names (${dialect})`, () => {
    it('lowercases, drops accents and apostrophes, and joins words with one hyphen', () => {
      const cases: [string, string][] = [
        ['Classic Tee', 'classic-tee'],
        ['  Classic   Tee!! ', 'classic-tee'],
        ['Crème Brûlée', 'creme-brulee'],
        ['Straße Ærø Œuvre Łódź', 'strasse-aero-oeuvre-lodz'],
        ["Men's Tee", 'mens-tee'],
        ['Salt & Pepper / 2-pack', 'salt-pepper-2-pack'],
        ['ＡＢＣ ① ﬁne', 'abc-1-fine'],
        ['Ä-b--c', 'a-b-c'],
        ['Чайник', 'product'],
        ['日本茶', 'product'],
        ['---', 'product'],
      ];
      for (const [name, handle] of cases) assert.equal(slugify(name), handle, name);
    });

    it('keeps a long name to 240 characters, without a hyphen at the end', () => {
      const handle = slugify(`${'a'.repeat(239)} bcd`);
      assert.equal(handle, 'a'.repeat(239));
      assert.equal(slugify('x'.repeat(300)).length, 240);
      for (const name of ['x'.repeat(300), 'Classic Tee', 'Чайник']) assert.ok(isHandle(slugify(name)));
    });

    it('accepts lowercase a-z, 0-9 and hyphens, 1 to 255 of them', () => {
      for (const good of ['a', 'classic-tee', '2026-edition', 'x'.repeat(255)])
        assert.ok(isHandle(good), good);
      for (const bad of ['', 'Classic-Tee', 'classic tee', 'classic_tee', 'crème', 'x'.repeat(256), 'a/b']) {
        assert.ok(!isHandle(bad), bad);
      }
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`product handles (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;

    before(async () => {
      ctx = await createTestContext(dialect);
      api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
    });
    after(() => ctx.close());

    const create = async (body: Record<string, unknown>, as: Client = api) => {
      const res = await as<ProductObject>('POST', '/v1/products', { body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };

    it('makes a handle from the name, numbered when taken, and keeps it when the name changes', async () => {
      const first = await create({ name: 'Classic Tee', price: 1000 });
      const second = await create({ name: 'Classic  tee!', price: 1000 });
      const third = await create({ name: 'CLASSIC TEE', price: 1000 });
      assert.deepEqual(
        [first.handle, second.handle, third.handle],
        ['classic-tee', 'classic-tee-2', 'classic-tee-3'],
      );
      // A name whose own handle looks numbered does not disturb the numbering of the others.
      assert.equal((await create({ name: 'Classic Tee 2', price: 1000 })).handle, 'classic-tee-2-2');
      assert.equal((await create({ name: 'Classic Tee Shirt', price: 1000 })).handle, 'classic-tee-shirt');
      assert.equal((await create({ name: 'Classic Tee', price: 1000 })).handle, 'classic-tee-4');
      // A freed handle is the first free again.
      assert.equal((await api('DELETE', `/v1/products/${second.id}`)).status, 204);
      assert.equal((await create({ name: 'Classic Tee', price: 1000 })).handle, 'classic-tee-2');

      const renamed = await api<ProductObject>('PATCH', `/v1/products/${first.id}`, {
        body: { name: 'Vintage Tee' },
      });
      assert.equal(renamed.status, 200);
      assert.equal(renamed.body.handle, 'classic-tee');
      assert.equal((await api<ProductObject>('GET', `/v1/products/${first.id}`)).body.handle, 'classic-tee');
    });

    it('takes a given handle, and refuses one another product has with 409 naming handle', async () => {
      const shop = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      const given = await create({ name: 'Mug', handle: 'the-mug', price: 900 }, shop);
      assert.equal(given.handle, 'the-mug');
      const taken = await shop<Problem>('POST', '/v1/products', {
        body: { name: 'Other mug', handle: 'the-mug', price: 900 },
      });
      assert.equal(taken.status, 409);
      assert.match(String(taken.headers['content-type']), /^application\/problem\+json/);
      assert.equal(taken.body.code, 'handle_taken');
      assert.deepEqual(
        taken.body.errors?.map((error) => error.field),
        ['handle'],
      );
      // Nothing was written.
      const all = await shop<Page<ProductObject>>('GET', '/v1/products');
      assert.deepEqual(
        all.body.data.map((product) => product.handle),
        ['the-mug'],
      );
      // Another tenant may use the same handle.
      assert.equal((await create({ name: 'Mug', handle: 'the-mug', price: 900 })).handle, 'the-mug');
      // A name made into a taken handle is numbered instead.
      assert.equal((await create({ name: 'The Mug', price: 900 }, shop)).handle, 'the-mug-2');
    });

    it('refuses a malformed handle with 400 naming handle, on create and on change', async () => {
      const product = await create({ name: 'Lamp', price: 4000 });
      for (const handle of ['', 'Lamp', 'desk lamp', 'desk_lamp', 'lámpara', 'x'.repeat(256), 7]) {
        const created = await api<Problem>('POST', '/v1/products', {
          body: { name: 'Lamp', handle, price: 1 },
        });
        assert.equal(created.status, 400, JSON.stringify(handle));
        assert.equal(created.body.code, 'validation_failed');
        assert.ok(
          created.body.errors?.some((error) => error.field === 'handle'),
          JSON.stringify(created.body),
        );
        const changed = await api<Problem>('PATCH', `/v1/products/${product.id}`, { body: { handle } });
        assert.equal(changed.status, 400, JSON.stringify(handle));
        assert.ok(
          changed.body.errors?.some((error) => error.field === 'handle'),
          JSON.stringify(changed.body),
        );
      }
      assert.equal((await api<ProductObject>('GET', `/v1/products/${product.id}`)).body.handle, 'lamp');
    });

    it('changes a handle by PATCH: free ones are taken, a taken one is 409 and changes nothing', async () => {
      const shop = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      const bag = await create({ name: 'Bag', price: 3000 }, shop);
      const tote = await create({ name: 'Tote', price: 2000 }, shop);
      const changed = await shop<ProductObject>('PATCH', `/v1/products/${bag.id}`, {
        body: { handle: 'weekender-bag' },
      });
      assert.equal(changed.status, 200);
      assert.equal(changed.body.handle, 'weekender-bag');
      // Its own handle again: no change, no event.
      const events = async () =>
        (await shop<Page<{ type: string }>>('GET', '/v1/events?type=product.updated')).body.total;
      const before = await events();
      assert.equal(
        (await shop('PATCH', `/v1/products/${bag.id}`, { body: { handle: 'weekender-bag' } })).status,
        200,
      );
      assert.equal(await events(), before);

      const clash = await shop<Problem>('PATCH', `/v1/products/${tote.id}`, {
        body: { handle: 'weekender-bag', name: 'Big tote' },
      });
      assert.equal(clash.status, 409);
      assert.equal(clash.body.code, 'handle_taken');
      assert.deepEqual(
        clash.body.errors?.map((error) => error.field),
        ['handle'],
      );
      const unchanged = await shop<ProductObject>('GET', `/v1/products/${tote.id}`);
      assert.deepEqual([unchanged.body.handle, unchanged.body.name], ['tote', 'Tote']);
      // The freed handle goes to the next product of that name.
      assert.equal((await create({ name: 'Bag', price: 3000 }, shop)).handle, 'bag');
      // The event of a change carries the new handle.
      const [event] = (
        await shop<Page<{ data: { object: ProductObject } }>>(
          'GET',
          '/v1/events?type=product.updated&limit=1',
        )
      ).body.data;
      assert.equal(event?.data.object.handle, 'weekender-bag');
    });

    it('gives concurrent products of one name distinct handles, all of them created', async () => {
      const shop = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      const made = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          shop<ProductObject>('POST', '/v1/products', { body: { name: 'Rush Hoodie', price: 5000 + i } }),
        ),
      );
      for (const res of made) assert.equal(res.status, 201, JSON.stringify(res.body));
      const handles = made.map((res) => res.body.handle).sort();
      assert.deepEqual(handles, [
        'rush-hoodie',
        'rush-hoodie-2',
        'rush-hoodie-3',
        'rush-hoodie-4',
        'rush-hoodie-5',
        'rush-hoodie-6',
        'rush-hoodie-7',
        'rush-hoodie-8',
      ]);
      // And concurrent requests for one given handle: one wins, the others are 409.
      const given = await Promise.all(
        Array.from({ length: 4 }, () =>
          shop<ProductObject | Problem>('POST', '/v1/products', {
            body: { name: 'Limited', handle: 'limited-drop', price: 100 },
          }),
        ),
      );
      assert.deepEqual(given.map((res) => res.status).sort(), [201, 409, 409, 409]);
      for (const res of given) {
        if (res.status === 409) assert.equal((res.body as Problem).code, 'handle_taken');
      }
    });

    it('lists the product of a handle', async () => {
      const shop = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      const kettle = await create({ name: 'Kettle', price: 3000 }, shop);
      await create({ name: 'Kettle XL', price: 3500 }, shop);
      const found = await shop<Page<ProductObject>>('GET', '/v1/products?handle=kettle');
      assert.equal(found.status, 200);
      assert.deepEqual([found.body.total, found.body.data.map((p) => p.id)], [1, [kettle.id]]);
      const none = await shop<Page<ProductObject>>('GET', '/v1/products?handle=teapot');
      assert.deepEqual([none.body.total, none.body.data.length], [0, 0]);
      const bad = await shop<Problem>('GET', '/v1/products?handle=Kettle');
      assert.equal(bad.status, 400);
      assert.ok(bad.body.errors?.some((error) => error.field === 'handle'));
    });

    it('is absent for a tenant pinned to 2026-12-15, in answers, lists and events', async () => {
      const tenant = await createTenant(ctx, { apiVersion: '2026-12-15' });
      const old = client(ctx.app, tenant.apiKey.key);
      const created = await old<ProductObject>('POST', '/v1/products', {
        body: { name: 'Old Shop Mug', price: 900 },
      });
      assert.equal(created.status, 201);
      assert.equal(created.headers['x-service-version'], '2026-12-15');
      assert.equal('handle' in created.body, false);
      const keysNow = Object.keys(created.body).sort();
      assert.deepEqual(
        keysNow,
        [
          'attributes',
          'category',
          'created',
          'currency',
          'description',
          'id',
          'images',
          'name',
          'options',
          'price',
          'price_max',
          'sku',
          'status',
          'stock',
          'tags',
          'updated',
          'variant_count',
          'variants',
          'variants_has_more',
        ].sort(),
      );
      const got = await old<ProductObject>('GET', `/v1/products/${created.body.id}`);
      assert.deepEqual(Object.keys(got.body).sort(), keysNow);
      const list = await old<Page<ProductObject>>('GET', '/v1/products');
      for (const item of list.body.data) assert.equal('handle' in item, false);
      const [event] = (await old<Page<{ data: { object: ProductObject } }>>('GET', '/v1/events')).body.data;
      assert.equal(event?.data.object.id, created.body.id);
      assert.equal('handle' in (event?.data.object ?? {}), false);
      // The same tenant asking for the latest version sees it; the store made one all the same.
      const latest = await old<ProductObject>('GET', `/v1/products/${created.body.id}`, {
        headers: { 'x-service-version': '2027-01-20' },
      });
      assert.equal(latest.body.handle, 'old-shop-mug');
    });
  });
}
