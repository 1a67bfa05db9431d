import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sqliteFile } from '../db/store.js';
import type { Deps } from '../deps.js';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../test/helpers/context.js';
import { upload } from '../../test/helpers/imports.js';
import { caller, type ServerProcess, SKIP_IN_UNIT_RUN } from '../../test/helpers/process.js';
import { twoServers } from '../../test/helpers/two-servers.js';
import type { Page } from '../../test/helpers/responses.js';
import type { OrderObject } from '../modules/orders/orders.schemas.js';
import type { ProductObject } from '../modules/products/products.schemas.js';
import type { VariantObject } from '../modules/products/variants.schemas.js';

async function catalogVersion(deps: Deps, tenantId: string): Promise<number> {
  const row = await deps.store.db
    .selectFrom('catalog_versions')
    .select('version')
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return Number(row?.version ?? 0);
}

for (const dialect of DIALECTS) {
  describe(`the catalog read cache (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let tenantId: string;
    let key: string;

    before(async () => {
      ctx = await createTestContext(dialect);
      const tenant = await createTenant(ctx);
      tenantId = tenant.tenant.id;
      key = tenant.apiKey.key;
      api = client(ctx.app, key);
    });
    after(() => ctx.close());

    /** The answer to `url` now, and the answer computed afresh: they must be the same bytes. */
    async function sameAsFresh(url: string, what: string): Promise<string> {
      const served = await api('GET', url);
      assert.equal(served.status, 200, `${url}: ${served.raw.body}`);
      ctx.deps.readCache.clear();
      const fresh = await api('GET', url);
      assert.equal(served.raw.body, fresh.raw.body, `${url} after ${what}`);
      assert.equal(served.headers.etag, fresh.headers.etag, `${url} after ${what}`);
      return served.raw.body;
    }

    it('answers a repeated read from the cache while the catalog version holds', async () => {
      const made = await api<ProductObject>('POST', '/v1/products', {
        body: { name: 'Cached kettle', price: 3000, stock: 4, category: 'cache-kettles' },
      });
      const url = '/v1/products?category=cache-kettles';
      const first = await api<Page<ProductObject>>('GET', url);
      assert.equal(first.body.data[0]?.stock, 4);
      // A write behind the triggers' back, the version then put back as it was: only a cached
      // answer can still say 4.
      const version = await catalogVersion(ctx.deps, tenantId);
      await ctx.deps.store.db
        .updateTable('products')
        .set({ stock: 99 })
        .where('id', '=', made.body.id)
        .execute();
      assert.equal(await catalogVersion(ctx.deps, tenantId), version + 1, 'the write moved the version');
      await ctx.deps.store.db
        .updateTable('catalog_versions')
        .set({ version })
        .where('tenant_id', '=', tenantId)
        .execute();
      const cached = await api<Page<ProductObject>>('GET', url);
      assert.equal(cached.body.data[0]?.stock, 4, 'served from the cache');
      assert.equal(cached.headers.etag, first.headers.etag);
      const notModified = await api('GET', url, { headers: { 'if-none-match': String(first.headers.etag) } });
      assert.equal(notModified.status, 304);
      // Any version other than the entry's: read again.
      await ctx.deps.store.db
        .updateTable('catalog_versions')
        .set({ version: version + 2 })
        .where('tenant_id', '=', tenantId)
        .execute();
      const reread = await api<Page<ProductObject>>('GET', url);
      assert.equal(reread.body.data[0]?.stock, 99);
      assert.notEqual(reread.headers.etag, first.headers.etag);
    });

    it('never answers from before a write: products, variants, orders, cancellations, refunds, imports', async () => {
      const shirt = await api<ProductObject>('POST', '/v1/products', {
        body: {
          name: 'Cache tee',
          category: 'cache-tees',
          options: [{ name: 'Size', values: ['S', 'M'] }],
          variants: [
            { sku: 'CACHE-S', options: { Size: 'S' }, price: 1500, stock: 5 },
            { sku: 'CACHE-M', options: { Size: 'M' }, price: 1600, stock: 5 },
          ],
        },
      });
      assert.equal(shirt.status, 201, shirt.raw.body);
      const id = shirt.body.id;
      const small = shirt.body.variants?.[0] as VariantObject;
      const urls = [
        '/v1/products?category=cache-tees',
        '/v1/products?category=cache-tees&expand=variants',
        `/v1/products/${id}`,
        `/v1/products/${id}/variants`,
        `/v1/products/${id}/variants/${small.id}`,
      ];
      const steps: [string, () => Promise<unknown>][] = [
        [
          'a change of the product',
          () => api('PATCH', `/v1/products/${id}`, { body: { name: 'Cache tee 2' } }),
        ],
        [
          'a change of a variant',
          () => api('PATCH', `/v1/products/${id}/variants/${small.id}`, { body: { price: 1450 } }),
        ],
        [
          'a new variant',
          () =>
            api('PATCH', `/v1/products/${id}`, {
              body: { options: [{ name: 'Size', values: ['S', 'M', 'L'] }] },
            }),
        ],
      ];
      let order: OrderObject | undefined;
      steps.push(
        [
          'an order',
          async () => {
            const res = await api<OrderObject>('POST', '/v1/orders', {
              body: {
                items: [{ variant_id: small.id, quantity: 2 }],
                customer: { email: 'cache@example.com' },
                payment_method: 'pm_card_visa',
              },
            });
            assert.equal(res.status, 201, res.raw.body);
            order = res.body;
          },
        ],
        [
          'a refund with restock',
          () =>
            api('POST', `/v1/orders/${order?.id}/refunds`, {
              body: { items: [{ variant_id: small.id, quantity: 1 }], restock: true },
            }),
        ],
        ['a cancellation', () => api('POST', `/v1/orders/${order?.id}/cancel`)],
        [
          'an import',
          async () => {
            const file = `handle,name,option1_name,option1_value,sku,price,stock\n${id},,Size,S,CACHE-S,1450,42\n`;
            const res = await upload(ctx, key, 'resource=products', file);
            assert.equal(res.status, 202);
            await ctx.deps.importRunner.drain();
          },
        ],
        [
          'a deleted variant',
          () => api('DELETE', `/v1/products/${id}/variants/${shirt.body.variants?.[1]?.id}`),
        ],
      );
      for (const url of urls) await sameAsFresh(url, 'nothing');
      for (const [what, write] of steps) {
        // Every answer cached first, then the write, then every answer again.
        for (const url of urls) await api('GET', url);
        await write();
        for (const url of urls) await sameAsFresh(url, what);
      }
      const final = await api<ProductObject>('GET', `/v1/products/${id}/variants/${small.id}`);
      assert.equal((final.body as unknown as VariantObject).stock, 42, 'the import set the stock');
      await api('DELETE', `/v1/products/${id}`);
      assert.equal((await api('GET', `/v1/products/${id}`)).status, 404);
      const listed = await api<Page<ProductObject>>('GET', '/v1/products?category=cache-tees');
      assert.equal(listed.body.total, 0);
    });

    it(
      'sees at once a commit by another connection to the store (SQLite)',
      { skip: dialect !== 'sqlite' },
      async () => {
        // Another process writing the same file (the operator CLI, a second server): its commits
        // reach this process through the store's commit marks, not through any code of this one.
        const made = await api<ProductObject>('POST', '/v1/products', {
          body: { name: 'Shared stool', price: 1200, stock: 10, category: 'cache-stools' },
        });
        const other = new SqliteDatabase(sqliteFile(ctx.config.dataDir));
        try {
          for (let stock = 9; stock >= 0; stock--) {
            await api('GET', '/v1/products?category=cache-stools');
            await api('GET', `/v1/products/${made.body.id}`);
            other.prepare('UPDATE products SET stock = ? WHERE id = ?').run(stock, made.body.id);
            const page = await api<Page<ProductObject>>('GET', '/v1/products?category=cache-stools');
            assert.equal(page.body.data[0]?.stock, stock, 'the list');
            const one = await api<ProductObject>('GET', `/v1/products/${made.body.id}`);
            assert.equal(one.body.stock, stock, 'the product');
          }
        } finally {
          other.close();
        }
      },
    );

    it('keeps each version, tenant and query apart', async () => {
      const other = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      await api('POST', '/v1/products', {
        body: { name: 'Versioned vase', price: 2500, category: 'cache-vases' },
      });
      const url = '/v1/products?category=cache-vases';
      const latest = await api<Page<Record<string, unknown>>>('GET', url);
      const older = await api<Page<Record<string, unknown>>>('GET', url, {
        headers: { 'x-service-version': '2026-11-21' },
      });
      assert.ok('variants' in (latest.body.data[0] ?? {}) || 'options' in (latest.body.data[0] ?? {}));
      assert.ok(!('options' in (older.body.data[0] ?? {})), 'the older version has no options');
      assert.equal((await other<Page<unknown>>('GET', url)).body.total, 0, "another tenant's page");
      const again = await api<Page<Record<string, unknown>>>('GET', url, {
        headers: { 'x-service-version': '2026-11-21' },
      });
      assert.equal(again.raw.body, older.raw.body);
    });
  });
}

// On PostgreSQL the way several processes run; on SQLite two servers on one file, which the
// commit marks keep exact too.
for (const dialect of DIALECTS) {
  describe(
    `the catalog read cache across two server processes (${dialect})`,
    { skip: SKIP_IN_UNIT_RUN },
    () => {
      const two = twoServers(dialect);

      it('a read in one process after a write acknowledged by the other sees the write', async () => {
        const tenant = await two.deps.tenants.create({ name: 'Two caches', email: 'cache2@example.com' });
        const call = caller(tenant.apiKey.key);
        const [a, b] = two.servers as [ServerProcess, ServerProcess];
        const made = await call<ProductObject>(a, 'POST', '/v1/products', {
          name: 'Shared lamp',
          price: 4000,
          stock: 30,
          category: 'two-caches',
        });
        assert.equal(made.status, 201);
        const id = (made.body as ProductObject).id;
        for (let round = 1; round <= 12; round++) {
          // Both processes hold the answer; one takes an order; the other answers at once.
          const [reader, writer] = round % 2 ? [b, a] : [a, b];
          await call(reader, 'GET', '/v1/products?category=two-caches');
          await call(reader, 'GET', `/v1/products/${id}`);
          await call(writer, 'GET', `/v1/products/${id}`);
          const order = await call(writer, 'POST', '/v1/orders', {
            items: [{ product_id: id, quantity: 1 }],
            customer: { email: `round${round}@example.com` },
          });
          assert.equal(order.status, 201, JSON.stringify(order.body));
          const page = await call<Page<ProductObject>>(reader, 'GET', '/v1/products?category=two-caches');
          assert.equal((page.body as Page<ProductObject>).data[0]?.stock, 30 - round, `round ${round}, list`);
          const one = await call<ProductObject>(reader, 'GET', `/v1/products/${id}`);
          assert.equal((one.body as ProductObject).stock, 30 - round, `round ${round}, object`);
        }
      });
    },
  );
}
