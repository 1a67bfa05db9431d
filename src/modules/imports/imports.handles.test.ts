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
import { csv, exportOf, importFile } from '../../../test/helpers/imports.js';
import type { Page } from '../../../test/helpers/responses.js';
import type { ProductObject } from '../products/products.schemas.js';

/** Product handles in and out of files: the `handle` column, Shopify's `Handle` and `URL handle`. */
for (const dialect of DIALECTS) {
  describe(`handles in imports and exports (${dialect})`, () => {
    let ctx: TestContext;

    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    async function shop(): Promise<{ key: string; api: Client }> {
      const key = (await createTenant(ctx, { currency: 'USD' })).apiKey.key;
      return { key, api: client(ctx.app, key) };
    }

    /** Each product's name and handle, by name (an import's products share their creation time). */
    async function handles(api: Client): Promise<[string, string][]> {
      const page = await api<Page<ProductObject>>('GET', '/v1/products?sort=name&limit=100');
      return page.body.data.map((product) => [product.name, product.handle]);
    }

    it('names new products by the file’s handle when it is one, numbered when taken, else by the name', async () => {
      const { key, api } = await shop();
      assert.equal(
        (await api('POST', '/v1/products', { body: { name: 'Existing', handle: 'taken-one', price: 1 } }))
          .status,
        201,
      );
      const done = await importFile(
        ctx,
        key,
        'resource=products',
        csv([
          ['handle', 'name', 'sku', 'price'],
          ['summer-tee', 'Summer Tee', 'ST-1', 1000],
          ['taken-one', 'Clash', 'CL-1', 1000],
          ['prod_OldExportId', 'Old Export Row', 'OE-1', 1000],
          ['Winter Tee', 'Winter Tee', 'WT-1', 1000],
        ]),
      );
      assert.deepEqual([done.status, done.created_count, done.error_count], ['succeeded', 4, 0]);
      assert.deepEqual(await handles(api), [
        ['Clash', 'taken-one-2'],
        ['Existing', 'taken-one'],
        ['Old Export Row', 'old-export-row'],
        ['Summer Tee', 'summer-tee'],
        ['Winter Tee', 'winter-tee'],
      ]);
      // Updating by SKU leaves a product's handle as it is.
      const again = await importFile(
        ctx,
        key,
        'resource=products',
        csv([
          ['handle', 'sku', 'price'],
          ['another-handle', 'ST-1', 1100],
        ]),
      );
      assert.deepEqual([again.status, again.updated_count], ['succeeded', 1]);
      assert.deepEqual((await handles(api))[3], ['Summer Tee', 'summer-tee']);
    });

    it('exports each product’s handle, and a file exported imports into another store with them', async () => {
      const { key, api } = await shop();
      for (const body of [
        { name: 'Desk Lamp', handle: 'lamp', sku: 'LAMP', price: 4000, stock: 2 },
        {
          name: 'Sock',
          options: [{ name: 'Size', values: ['S', 'M'] }],
          variants: [
            { options: { Size: 'S' }, sku: 'SOCK-S', price: 500 },
            { options: { Size: 'M' }, sku: 'SOCK-M', price: 500 },
          ],
        },
      ]) {
        assert.equal((await api('POST', '/v1/products', { body })).status, 201);
      }
      const file = await exportOf(ctx, key, 'products');
      const rows = file.trim().split(/\r?\n/).slice(1);
      assert.deepEqual(
        rows.map((row) => row.split(',')[0]),
        ['lamp', 'sock', 'sock'],
      );
      const target = await shop();
      const done = await importFile(ctx, target.key, 'resource=products', file);
      assert.deepEqual([done.status, done.created_count], ['succeeded', 3]);
      assert.deepEqual(await handles(target.api), [
        ['Desk Lamp', 'lamp'],
        ['Sock', 'sock'],
      ]);
    });

    for (const column of ['Handle', 'URL handle']) {
      it(`takes a Shopify file’s ${column} as the handle`, async () => {
        const { key, api } = await shop();
        const done = await importFile(
          ctx,
          key,
          'resource=products',
          csv([
            [column, 'Title', 'Option1 Name', 'Option1 Value', 'Variant SKU', 'Variant Price', 'Status'],
            ['linen-shirt', 'Linen Shirt', 'Size', 'S', 'LS-S', '45.00', 'active'],
            ['linen-shirt', '', '', 'M', 'LS-M', '45.00', ''],
            ['mug', 'Ceramic Mug', 'Title', 'Default Title', 'MUG', '12.00', 'active'],
          ]),
        );
        assert.deepEqual([done.format, done.status, done.error_count], ['shopify', 'succeeded', 0]);
        assert.deepEqual(await handles(api), [
          ['Ceramic Mug', 'mug'],
          ['Linen Shirt', 'linen-shirt'],
        ]);
      });
    }
  });
}
