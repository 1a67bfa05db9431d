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
import { allErrors, csv, exportOf, importFile } from '../../../test/helpers/imports.js';

/** Product imports read `stock_by_location`: units on hand set at each location named. */

interface Store {
  key: string;
  api: Client;
  locations: Map<string, string>;
}
interface Level {
  location_id: string;
  on_hand: number;
  committed: number;
}

/** The `stock_by_location` and `stock` of each SKU in a products CSV export. */
function stockColumns(text: string): Map<string, { stock: string; byLocation: string }> {
  const rows = text.trim().split('\n');
  const header = (rows[0] as string).split(',');
  const out = new Map<string, { stock: string; byLocation: string }>();
  for (const row of rows.slice(1)) {
    // Cells of these files hold no line break; a quoted one may hold commas.
    const cells = [...row.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)].map((match) => match[1] as string);
    const cell = (name: string) => cells[header.indexOf(name)] ?? '';
    out.set(cell('sku'), { stock: cell('stock'), byLocation: cell('stock_by_location') });
  }
  return out;
}

for (const dialect of DIALECTS) {
  describe(`imports of stock by location (${dialect})`, () => {
    let ctx: TestContext;

    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    async function store(names: { name: string; fulfills: boolean }[]): Promise<Store> {
      const made = await createTenant(ctx, { currency: 'USD' });
      const api = client(ctx.app, made.apiKey.key);
      for (const { name, fulfills } of names) {
        const res = await api('POST', '/v1/locations', { body: { name, fulfills_online_orders: fulfills } });
        assert.equal(res.status, 201, JSON.stringify(res.body));
      }
      const list = await api<{ data: { id: string; name: string }[] }>('GET', '/v1/locations');
      return {
        key: made.apiKey.key,
        api,
        locations: new Map(list.body.data.map((row) => [row.name, row.id])),
      };
    }

    async function variantOf(s: Store, sku: string): Promise<{ productId: string; variantId: string }> {
      const res = await s.api<{ data: { id: string; variants: { id: string; sku: string }[] }[] }>(
        'GET',
        `/v1/products?expand=variants&q=${encodeURIComponent(sku)}`,
      );
      for (const product of res.body.data) {
        const variant = product.variants.find((row) => row.sku === sku);
        if (variant) return { productId: product.id, variantId: variant.id };
      }
      throw new Error(`no variant ${sku}`);
    }

    /** On hand at each location by name (those with a level), and the variant's stock. */
    async function levels(s: Store, sku: string): Promise<{ onHand: Record<string, number>; stock: number }> {
      const { productId, variantId } = await variantOf(s, sku);
      const read = await s.api<{ data: Level[] }>(
        'GET',
        `/v1/products/${productId}/variants/${variantId}/inventory`,
      );
      const names = new Map([...s.locations].map(([name, id]) => [id, name]));
      const onHand = Object.fromEntries(
        read.body.data.map((level) => [names.get(level.location_id) as string, level.on_hand]),
      );
      const variant = await s.api<{ stock: number }>(
        'GET',
        `/v1/products/${productId}/variants/${variantId}`,
      );
      return { onHand, stock: variant.body.stock };
    }

    async function adjustments(s: Store, sku: string): Promise<{ delta: number; reason: string | null }[]> {
      const { variantId } = await variantOf(s, sku);
      const res = await s.api<{ data: { delta: number; reason: string | null; location_id: string }[] }>(
        'GET',
        `/v1/inventory/adjustments?variant_id=${variantId}`,
      );
      return res.body.data.map(({ delta, reason }) => ({ delta, reason }));
    }

    const LOCATIONS = [
      { name: 'Warehouse', fulfills: true },
      { name: 'Shop', fulfills: false },
    ];

    it('a file exported from one store gives another the same stock per location, and re-imports unchanged', async () => {
      const from = await store(LOCATIONS);
      const made = await from.api('POST', '/v1/products', {
        body: {
          name: 'Hoodie',
          currency: 'USD',
          options: [{ name: 'Size', values: ['S', 'M'] }],
          variants: [
            { sku: 'LOC-HOOD-S', options: { Size: 'S' }, price: 4000, stock: 5 },
            { sku: 'LOC-HOOD-M', options: { Size: 'M' }, price: 4000, stock: 0 },
          ],
        },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const cap = await from.api('POST', '/v1/products', {
        body: { name: 'Cap', currency: 'USD', sku: 'LOC-CAP', price: 1500, stock: 3 },
      });
      assert.equal(cap.status, 201, JSON.stringify(cap.body));
      const { variantId: small } = await variantOf(from, 'LOC-HOOD-S');
      const { variantId: medium } = await variantOf(from, 'LOC-HOOD-M');
      for (const [variant, name, set] of [
        [small, 'Warehouse', 4],
        [small, 'Shop', 2],
        [medium, 'Shop', 7],
      ] as const) {
        const res = await from.api('POST', '/v1/inventory/adjustments', {
          body: { variant_id: variant, location_id: from.locations.get(name), set },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
      }
      const exported = await exportOf(ctx, from.key, 'products');
      const columns = stockColumns(exported);
      assert.deepEqual(columns.get('LOC-HOOD-S'), {
        stock: '9',
        byLocation: '"{""Default location"":5,""Warehouse"":4,""Shop"":2}"',
      });

      const to = await store(LOCATIONS);
      const imported = await importFile(ctx, to.key, 'resource=products', exported);
      assert.equal(imported.status, 'succeeded', JSON.stringify(imported.errors));
      assert.equal(imported.created_count, 3);
      assert.deepEqual(await levels(to, 'LOC-HOOD-S'), {
        onHand: { 'Default location': 5, Warehouse: 4, Shop: 2 },
        stock: 9,
      });
      assert.deepEqual(await levels(to, 'LOC-HOOD-M'), {
        onHand: { 'Default location': 0, Warehouse: 0, Shop: 7 },
        stock: 0,
      });
      assert.deepEqual(await levels(to, 'LOC-CAP'), {
        onHand: { 'Default location': 3, Warehouse: 0, Shop: 0 },
        stock: 3,
      });
      const cart = await to.api<{ stock: number }>(
        'GET',
        `/v1/products/${(await variantOf(to, 'LOC-CAP')).productId}`,
      );
      assert.equal(cart.body.stock, 3);
      const hoodie = await to.api<{ stock: number }>(
        'GET',
        `/v1/products/${(await variantOf(to, 'LOC-HOOD-S')).productId}`,
      );
      assert.equal(hoodie.body.stock, 9, "the product's stock is its variants'");
      assert.deepEqual(
        (await adjustments(to, 'LOC-HOOD-S')).sort((a, b) => a.delta - b.delta),
        [
          { delta: 2, reason: 'import' },
          { delta: 4, reason: 'import' },
        ],
        'the other locations are set by adjustments with reason import',
      );
      assert.deepEqual(stockColumns(await exportOf(ctx, to.key, 'products')), columns, 'the same export');

      // The store's own export imported again changes nothing.
      const again = await importFile(
        ctx,
        to.key,
        'resource=products',
        await exportOf(ctx, to.key, 'products'),
      );
      assert.deepEqual([again.status, again.updated_count, again.unchanged_count], ['succeeded', 0, 3]);
      assert.equal((await adjustments(to, 'LOC-HOOD-S')).length, 2, 'no adjustment for units as they are');

      // A file of SKUs and units per location moves only what it names.
      const moved = await importFile(
        ctx,
        to.key,
        'resource=products',
        csv([
          ['handle', 'sku', 'stock', 'stock_by_location'],
          ['x', 'LOC-CAP', '99', JSON.stringify({ Warehouse: 6, 'Default location': 1 })],
        ]),
      );
      assert.deepEqual([moved.status, moved.updated_count], ['succeeded', 1], JSON.stringify(moved.errors));
      assert.deepEqual(await levels(to, 'LOC-CAP'), {
        onHand: { 'Default location': 1, Warehouse: 6, Shop: 0 },
        stock: 7,
      });
      assert.deepEqual(
        (await adjustments(to, 'LOC-CAP')).sort((a, b) => a.delta - b.delta),
        [
          { delta: -2, reason: 'import' },
          { delta: 6, reason: 'import' },
        ],
      );
    });

    it('a location the store does not have, a bad count or fewer than committed is a row error; nothing changes', async () => {
      const s = await store([{ name: 'Warehouse', fulfills: true }]);
      const res = await s.api('POST', '/v1/products', {
        body: { name: 'Mug', currency: 'USD', sku: 'LOC-MUG', price: 900, stock: 5 },
      });
      assert.equal(res.status, 201);
      const order = await s.api<{ status: string }>('POST', '/v1/orders', {
        body: {
          customer: { email: 'buyer@example.com' },
          items: [{ variant_id: (await variantOf(s, 'LOC-MUG')).variantId, quantity: 3 }],
          payment_method: 'pm_card_visa',
        },
      });
      assert.equal(order.status, 201, JSON.stringify(order.body));
      const file = csv([
        ['handle', 'name', 'sku', 'price', 'stock_by_location'],
        ['mug', 'Mug', 'LOC-MUG', '900', JSON.stringify({ 'Default location': 2 })],
        ['bowl', 'Bowl', 'LOC-BOWL', '900', JSON.stringify({ Attic: 2, Warehouse: 1 })],
        ['jug', 'Jug', 'LOC-JUG', '900', JSON.stringify({ Warehouse: -1 })],
        ['cup', 'Cup', 'LOC-CUP', '900', JSON.stringify({ Warehouse: 4 })],
      ]);
      for (const query of ['resource=products&dry_run=true', 'resource=products']) {
        const done = await importFile(ctx, s.key, query, file);
        assert.equal(done.status, 'failed', 'on_error=abort: a dry run shows the errors too');
        assert.deepEqual(await allErrors(s.api, done.id), [
          {
            line: 2,
            column: 'stock_by_location',
            message: 'gives Default location 2 on hand, fewer than the 3 committed to orders there',
          },
          {
            line: 3,
            column: 'stock_by_location',
            message:
              'names the location "Attic", which the store does not have (its locations are Default location, Warehouse)',
          },
          {
            line: 4,
            column: 'stock_by_location',
            message: 'must be a JSON object of whole numbers from 0, such as {"Default location": 3}',
          },
        ]);
      }
      assert.deepEqual(await levels(s, 'LOC-MUG'), {
        onHand: { 'Default location': 5, Warehouse: 0 },
        stock: 2,
      });
      const cup = await s.api<{ data: unknown[] }>('GET', '/v1/products?q=LOC-CUP');
      assert.equal(cup.body.data.length, 0, 'abort: nothing written');

      // With on_error=skip the good row goes in, JSON Lines alike.
      const skip = await importFile(
        ctx,
        s.key,
        'resource=products&on_error=skip',
        `${JSON.stringify({ handle: 'cup', name: 'Cup', sku: 'LOC-CUP', price: 900, stock_by_location: { Warehouse: 4 } })}\n`,
        'application/x-ndjson',
      );
      assert.deepEqual([skip.status, skip.created_count], ['succeeded', 1], JSON.stringify(skip.errors));
      assert.deepEqual(await levels(s, 'LOC-CUP'), {
        onHand: { 'Default location': 0, Warehouse: 4 },
        stock: 4,
      });
    });
  });
}
