import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';

/** Locations, stock levels and adjustments; orders taking units from several locations. */

interface Level {
  location_id: string;
  on_hand: number;
  committed: number;
  available: number;
}
interface Made {
  id: string;
  variants: { id: string; stock: number }[];
}

for (const dialect of DIALECTS) {
  describe(`inventory (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;

    before(async () => {
      ctx = await createTestContext(dialect);
      api = client(ctx.app, (await createTenant(ctx, { currency: 'USD' })).apiKey.key);
    });
    after(() => ctx.close());

    async function product(stock: number): Promise<{ productId: string; variantId: string }> {
      const made = await api<Made>('POST', '/v1/products', {
        body: { name: 'Mug', price: 1_200, currency: 'USD', stock },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      return { productId: made.body.id, variantId: made.body.variants[0]?.id ?? '' };
    }

    async function levels(productId: string, variantId: string): Promise<Level[]> {
      const read = await api<{ data: Level[] }>(
        'GET',
        `/v1/products/${productId}/variants/${variantId}/inventory`,
      );
      assert.equal(read.status, 200, JSON.stringify(read.body));
      return read.body.data;
    }

    async function home(): Promise<string> {
      const list = await api<{ data: { id: string; default: boolean }[] }>('GET', '/v1/locations');
      return list.body.data.find((row) => row.default)?.id ?? '';
    }

    /** The levels at `ids`, in that order, as [on_hand, committed, available]. */
    async function at(productId: string, variantId: string, ids: string[]): Promise<number[][]> {
      const rows = await levels(productId, variantId);
      return ids.map((id) => {
        const row = rows.find((candidate) => candidate.location_id === id);
        return row ? [row.on_hand, row.committed, row.available] : [];
      });
    }

    async function variantStock(productId: string): Promise<number> {
      const read = await api<Made & { stock: number }>('GET', `/v1/products/${productId}`);
      return read.body.variants[0]?.stock ?? -1;
    }

    async function location(body: Record<string, unknown>): Promise<string> {
      const made = await api<{ id: string }>('POST', '/v1/locations', { body });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      return made.body.id;
    }

    async function adjust(body: Record<string, unknown>) {
      return api<{ on_hand: number; delta: number }>('POST', '/v1/inventory/adjustments', { body });
    }

    it('a new store has one default location, holding the stock a product is made with', async () => {
      const list = await api<{ data: { id: string; default: boolean; fulfills_online_orders: boolean }[] }>(
        'GET',
        '/v1/locations',
      );
      assert.equal(list.status, 200);
      assert.equal(list.body.data.length, 1);
      assert.equal(list.body.data[0]?.default, true);
      assert.match(list.body.data[0]?.id ?? '', /^loc_/);
      const { productId, variantId } = await product(7);
      assert.deepEqual(
        (await levels(productId, variantId)).map((row) => [
          row.location_id,
          row.on_hand,
          row.committed,
          row.available,
        ]),
        [[list.body.data[0]?.id, 7, 0, 7]],
      );
    });

    it('adjusts at a location, records it, and keeps stock the sum over fulfilling locations', async () => {
      const { productId, variantId } = await product(3);
      const shop = await location({ name: 'Shop', fulfills_online_orders: false });
      const warehouse = await location({ name: 'Warehouse' });
      assert.equal(
        (await adjust({ variant_id: variantId, location_id: warehouse, delta: 5, reason: 'received' }))
          .status,
        201,
      );
      const set = await adjust({ variant_id: variantId, location_id: shop, set: 4 });
      assert.equal(set.status, 201);
      assert.deepEqual([set.body.on_hand, set.body.delta], [4, 4]);
      assert.equal(await variantStock(productId), 8, 'the shop does not fulfil online orders');
      assert.deepEqual(await at(productId, variantId, [await home(), shop, warehouse]), [
        [3, 0, 3],
        [4, 0, 4],
        [5, 0, 5],
      ]);
      // The shop starts fulfilling: its units join the stock; stops again: they leave it.
      assert.equal(
        (await api('PATCH', `/v1/locations/${shop}`, { body: { fulfills_online_orders: true } })).status,
        200,
      );
      assert.equal(await variantStock(productId), 12);
      assert.equal(
        (await api('PATCH', `/v1/locations/${shop}`, { body: { fulfills_online_orders: false } })).status,
        200,
      );
      assert.equal(await variantStock(productId), 8);
      // A stock PATCH works on the default location.
      const patched = await api('PATCH', `/v1/products/${productId}`, { body: { stock: 10 } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.deepEqual(
        (await at(productId, variantId, [await home(), shop, warehouse])).map((row) => row[0]),
        [5, 4, 5],
      );
      // Not below what the other fulfilling locations have: 5 at the warehouse.
      const below = await api('PATCH', `/v1/products/${productId}`, { body: { stock: 4 } });
      assert.equal(below.status, 400, JSON.stringify(below.body));
      assert.match(JSON.stringify(below.body), /"field":"stock"/);
      assert.equal(await variantStock(productId), 10);
      const listed = await api<{ data: { location_id: string }[]; total: number }>(
        'GET',
        `/v1/inventory/adjustments?variant_id=${variantId}`,
      );
      assert.equal(listed.body.total, 2);
      assert.equal(listed.body.data[0]?.location_id, shop, 'newest first');
    });

    it('refuses bad adjustments naming the field, and changes nothing', async () => {
      const { productId, variantId } = await product(2);
      const warehouse = await location({ name: 'Spare' });
      const both = await adjust({ variant_id: variantId, location_id: warehouse, delta: 1, set: 3 });
      assert.equal(both.status, 400);
      const none = await adjust({ variant_id: variantId, location_id: warehouse });
      assert.equal(none.status, 400);
      const below = await adjust({ variant_id: variantId, location_id: warehouse, delta: -1 });
      assert.equal(below.status, 400, JSON.stringify(below.body));
      assert.match(JSON.stringify(below.body), /"field":"delta"/);
      assert.equal((await adjust({ variant_id: 'var_nope', location_id: warehouse, delta: 1 })).status, 404);
      assert.equal((await adjust({ variant_id: variantId, location_id: 'loc_nope', delta: 1 })).status, 404);
      assert.equal(await variantStock(productId), 2);
    });

    it('another tenant’s location is 404, for reading, changing, deleting and adjusting', async () => {
      const other = client(ctx.app, (await createTenant(ctx, { currency: 'USD' })).apiKey.key);
      const theirs = await other<{ id: string }>('POST', '/v1/locations', { body: { name: 'Theirs' } });
      assert.equal(theirs.status, 201);
      const id = theirs.body.id;
      assert.equal((await api('GET', `/v1/locations/${id}`)).status, 404);
      assert.equal((await api('PATCH', `/v1/locations/${id}`, { body: { name: 'Mine' } })).status, 404);
      assert.equal((await api('DELETE', `/v1/locations/${id}`)).status, 404);
      const { variantId } = await product(1);
      assert.equal((await adjust({ variant_id: variantId, location_id: id, delta: 1 })).status, 404);
      assert.equal((await other('GET', `/v1/locations/${id}`)).status, 200);
    });

    it('a location with stock cannot be deleted; an empty one can; the default one never', async () => {
      const { variantId } = await product(0);
      const full = await location({ name: 'Full' });
      await adjust({ variant_id: variantId, location_id: full, delta: 2 });
      const refused = await api<{ code: string }>('DELETE', `/v1/locations/${full}`);
      assert.equal(refused.status, 409);
      assert.equal(refused.body.code, 'location_has_stock');
      await adjust({ variant_id: variantId, location_id: full, set: 0 });
      assert.equal((await api('DELETE', `/v1/locations/${full}`)).status, 204);
      assert.equal((await api('GET', `/v1/locations/${full}`)).status, 404);
      const homeId = await home();
      assert.equal((await api('DELETE', `/v1/locations/${homeId}`)).status, 409);
      const stop = await api('PATCH', `/v1/locations/${homeId}`, { body: { fulfills_online_orders: false } });
      assert.equal(stop.status, 400);
    });

    it('orders commit from the default location first, then the next, and give back on cancel', async () => {
      const { productId, variantId } = await product(2);
      const second = await location({ name: 'Second' });
      await adjust({ variant_id: variantId, location_id: second, delta: 3 });
      const order = await api<{ id: string }>('POST', '/v1/orders', {
        body: { customer: { email: 'a@example.com' }, items: [{ variant_id: variantId, quantity: 4 }] },
      });
      assert.equal(order.status, 201, JSON.stringify(order.body));
      const ids = [await home(), second];
      assert.deepEqual(await at(productId, variantId, ids), [
        [2, 2, 0],
        [3, 2, 1],
      ]);
      assert.equal(await variantStock(productId), 1);
      const short = await api<{ code: string }>('POST', '/v1/orders', {
        body: { customer: { email: 'a@example.com' }, items: [{ variant_id: variantId, quantity: 2 }] },
      });
      assert.equal(short.status, 422);
      assert.equal(short.body.code, 'insufficient_stock');
      assert.equal((await api('POST', `/v1/orders/${order.body.id}/cancel`)).status, 200);
      assert.deepEqual(await at(productId, variantId, ids), [
        [2, 0, 2],
        [3, 0, 3],
      ]);
      assert.equal(await variantStock(productId), 5);
    });

    it('makes locations asked for at once, each at its own place in the store order', async () => {
      const made = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          api<{ id: string }>('POST', '/v1/locations', { body: { name: `Pop-up ${i}` } }),
        ),
      );
      assert.deepEqual(
        made.map((res) => res.status),
        made.map(() => 201),
        JSON.stringify(made.find((res) => res.status !== 201)?.body),
      );
      const listed = await api<{ data: { id: string }[] }>('GET', '/v1/locations?limit=100');
      const ids = new Set(listed.body.data.map((location) => location.id));
      for (const res of made) assert.ok(ids.has(res.body.id));
      for (const res of made) assert.equal((await api('DELETE', `/v1/locations/${res.body.id}`)).status, 204);
    });

    it('concurrent orders against stock split over two locations never oversell', async () => {
      const { productId, variantId } = await product(3);
      const second = await location({ name: 'Overflow' });
      await adjust({ variant_id: variantId, location_id: second, delta: 4 });
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          api('POST', '/v1/orders', {
            body: {
              customer: { email: `c${i}@example.com` },
              items: [{ variant_id: variantId, quantity: 1 }],
            },
          }),
        ),
      );
      const made = results.filter((result) => result.status === 201).length;
      assert.equal(made, 7, JSON.stringify(results.map((result) => result.status)));
      assert.ok(results.every((result) => result.status === 201 || result.status === 422));
      assert.deepEqual(await at(productId, variantId, [await home(), second]), [
        [3, 3, 0],
        [4, 4, 0],
      ]);
      assert.equal(await variantStock(productId), 0);
    });

    it('needs read:inventory and write:inventory', async () => {
      const limited = await api<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'Reader', permissions: ['read:inventory'] },
      });
      assert.equal(limited.status, 201, JSON.stringify(limited.body));
      const reader = client(ctx.app, limited.body.key);
      assert.equal((await reader('GET', '/v1/locations')).status, 200);
      assert.equal((await reader('POST', '/v1/locations', { body: { name: 'No' } })).status, 403);
    });
  });
}
