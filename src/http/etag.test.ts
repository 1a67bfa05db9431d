import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  LOGIC_ONLY,
  type TestContext,
} from '../../test/helpers/context.js';
import type { ProductObject } from '../modules/products/products.schemas.js';
import { noneMatch } from './etag.js';

describe('If-None-Match', () => {
  it('holds a tag alone, in a list, weak or strong, or as *', () => {
    const tag = '"abc"';
    for (const header of ['"abc"', 'W/"abc"', '"x", "abc"', '"x",W/"abc" ', '*']) {
      assert.equal(noneMatch(header, tag), true, header);
    }
    for (const header of [undefined, '', '"abcd"', 'abc', '"x", "y"', 'W/"ab"']) {
      assert.equal(noneMatch(header, tag), false, String(header));
    }
  });
});

for (const dialect of LOGIC_ONLY) {
  describe(`conditional GETs (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;

    before(async () => {
      ctx = await createTestContext(dialect);
      api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
    });
    after(() => ctx.close());

    async function tagOf(url: string, headers: Record<string, string> = {}): Promise<string> {
      const res = await api('GET', url, { headers });
      assert.equal(res.status, 200, `${url}: ${res.raw.body}`);
      const tag = res.headers.etag;
      assert.match(String(tag), /^"[\w-]{27}"$/, `${url}: ${String(tag)}`);
      return String(tag);
    }

    it('tags list and object answers; 304 with no body for the tag the client holds', async () => {
      const made = await api<ProductObject>('POST', '/v1/products', {
        body: { name: 'Tagged mug', price: 1200, stock: 3 },
      });
      assert.equal(made.status, 201);
      assert.equal(made.headers.etag, undefined, 'a POST carries no ETag');
      for (const url of ['/v1/products', `/v1/products/${made.body.id}`, '/v1/users/me']) {
        const tag = await tagOf(url);
        const again = await api('GET', url, { headers: { 'if-none-match': tag } });
        assert.equal(again.status, 304, url);
        assert.equal(again.raw.body, '', url);
        assert.equal(again.headers.etag, tag, url);
        const listed = await api('GET', url, { headers: { 'if-none-match': `"other", W/${tag}` } });
        assert.equal(listed.status, 304, url);
        const other = await api('GET', url, { headers: { 'if-none-match': '"other"' } });
        assert.equal(other.status, 200, url);
        assert.equal(other.headers.etag, tag, 'the same bytes, the same tag');
      }
    });

    it('never keeps a tag past a change of what it describes', async () => {
      const made = await api<ProductObject>('POST', '/v1/products', {
        body: { name: 'Changing lamp', price: 4000, stock: 2, category: 'etag-lamps' },
      });
      const object = `/v1/products/${made.body.id}`;
      const list = '/v1/products?category=etag-lamps';
      const before = [await tagOf(object), await tagOf(list)];
      // An order moves its stock: the object and the page it is on change.
      const order = await api('POST', '/v1/orders', {
        body: { items: [{ product_id: made.body.id, quantity: 1 }], customer: { email: 'e@example.com' } },
      });
      assert.equal(order.status, 201, order.raw.body);
      const afterOrder = [await tagOf(object), await tagOf(list)];
      assert.notEqual(afterOrder[0], before[0]);
      assert.notEqual(afterOrder[1], before[1]);
      for (const [i, url] of [object, list].entries()) {
        const stale = await api<ProductObject>('GET', url, {
          headers: { 'if-none-match': before[i] as string },
        });
        assert.equal(stale.status, 200, url);
      }
      // Another version of the same data is other bytes: another tag.
      const older = await tagOf(object, { 'x-service-version': '2026-11-21' });
      assert.notEqual(older, afterOrder[0]);
      // A page of the same list is other bytes too.
      assert.notEqual(await tagOf(`${list}&limit=1&offset=1`), afterOrder[1]);
    });

    it('tags no error', async () => {
      const missing = await api('GET', '/v1/products/prod_missing');
      assert.equal(missing.status, 404);
      assert.equal(missing.headers.etag, undefined);
    });
  });
}
