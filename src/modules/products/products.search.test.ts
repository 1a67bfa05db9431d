import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { loadConfig } from '../../config.js';
import { migrateToLatest } from '../../db/migrate.js';
import { migrateStoreTo } from '../../../test/helpers/upgrade.js';
import { type Db, type DialectName, openStore } from '../../db/store.js';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  freshStore,
  type TestContext,
} from '../../../test/helpers/context.js';
import { sentQueries } from '../../../test/helpers/queries.js';
import type { Page } from '../../../test/helpers/responses.js';
import { countProducts, listProducts } from './products.repository.js';
import type { ProductObject } from './products.schemas.js';

const WINDOW = { limit: 100, offset: 0, cursor: undefined };

/** Names `q` finds through the repository, read through the search index or by walking the sort. */
async function found(db: Db, dialect: DialectName, tenantId: string, q: string, filterIndexes: boolean) {
  const rows = await listProducts(db, tenantId, { q }, 'created', WINDOW, { dialect, filterIndexes });
  return rows.map((row) => row.name).sort();
}

/** Cases of the fold: lower-casing maps a word-final `Σ` to `ς` and `İ` to `i` + U+0307. */
const BAG = 'ΚΑΣΑΣ bag';
const CITY = 'Émile İstanbul ΣΟΦΙΑ';
const TOTE = 'Canvas tote';
const SNEAKER = 'MixedCase Sneaker';
const SEARCHES: [string, string[]][] = [
  ['ΚΑΣΑΣ', [BAG, TOTE]],
  ['ΚΑΣ', [BAG, TOTE]],
  ['κασας', [BAG, TOTE]],
  ['κασασ', [BAG, TOTE]],
  ['ΚΑΣΑΣ BAG', [BAG]],
  ['ΑΣ BAG', [BAG]],
  ['ΜΙΚΡΟΣ ΚΑΣ', [TOTE]],
  ['ΚΑΣΑΣΑ', []],
  ['İSTANBUL', [CITY]],
  ['istanbul', [CITY]],
  ['İstanbul', [CITY]],
  ['ISTANBUL', [CITY]],
  ['İSTANBUL ΣΟΦΙΑ', [CITY]],
  ['σοφια', [CITY]],
  ['istanbulx', []],
  ['émile', [CITY]],
  ['Émile', [CITY]],
  ['ÉMILE', [CITY]],
  ['mIXEDcASE sNEAK', [SNEAKER]],
  ['mixedcase', [SNEAKER]],
];

for (const dialect of DIALECTS) {
  describe(`product search fold (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let tenantId: string;

    before(async () => {
      ctx = await createTestContext(dialect);
      const tenant = await createTenant(ctx);
      tenantId = tenant.tenant.id;
      api = client(ctx.app, tenant.apiKey.key);
      for (const body of [
        { name: BAG, price: 100 },
        { name: CITY, price: 100 },
        { name: TOTE, price: 100, description: 'μικρος κασας' },
        { name: SNEAKER, price: 100, sku: 'MX-1' },
      ]) {
        const res = await api('POST', '/v1/products', { body });
        assert.equal(res.status, 201, JSON.stringify(res.body));
      }
    });
    after(() => ctx.close());

    it('finds Greek final sigma and Turkish İ in any case, as a substring, alike on every store', async () => {
      const expected = Object.fromEntries(SEARCHES.map(([q, names]) => [q, [...names].sort()]));
      const answered: Record<string, string[]> = {};
      const counted: Record<string, number> = {};
      const read: Record<string, Record<string, string[]>> = { index: {}, walk: {} };
      for (const [q] of SEARCHES) {
        const res = await api<Page<ProductObject>>('GET', `/v1/products?q=${encodeURIComponent(q)}`);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        answered[q] = res.body.data.map((p) => p.name).sort();
        counted[q] = res.body.total;
        read.index[q] = await found(ctx.deps.store.db, dialect, tenantId, q, true);
        read.walk[q] = await found(ctx.deps.store.db, dialect, tenantId, q, false);
      }
      assert.deepEqual(answered, expected);
      assert.deepEqual(counted, Object.fromEntries(SEARCHES.map(([q, names]) => [q, names.length])));
      assert.deepEqual(read, { index: expected, walk: expected });
    });
  });

  describe(`product search plans (${dialect})`, () => {
    let ctx: TestContext;
    let tenantId: string;

    before(async () => {
      ctx = await createTestContext(dialect);
      const { tenant } = await createTenant(ctx);
      tenantId = tenant.id;
      // About the size from which PostgreSQL reads a search through the trigram index rather
      // than through the tenant's rows.
      for (let i = 0; i < 1200; i++) {
        await ctx.deps.products.create(tenant, { name: i === 600 ? CITY : `Filler ${i}`, price: 100 });
      }
      // As autovacuum would: row estimates, and the GIN index's pending entries merged into it.
      if (dialect === 'postgres') await sql`VACUUM ANALYZE products`.execute(ctx.deps.store.db);
    });
    after(() => ctx.close());

    it('reads a search through the search index, which holds the folded text', async () => {
      const db = ctx.deps.store.db;
      const [query] = await sentQueries(db, async (db) =>
        assert.deepEqual(await found(db, dialect, tenantId, 'İSTANBUL', true), [CITY]),
      );
      assert.ok(query);
      const explain = dialect === 'sqlite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN';
      const plan = await db.executeQuery<Record<string, string>>(
        CompiledQuery.raw(`${explain} ${query.sql}`, [...query.parameters]),
      );
      const steps = plan.rows.map((row) => (dialect === 'sqlite' ? row.detail : row['QUERY PLAN']));
      const index =
        dialect === 'sqlite'
          ? /products_search VIRTUAL TABLE INDEX/
          : /Bitmap Index Scan on products_search_idx/;
      assert.ok(
        steps.some((step) => step !== undefined && index.test(step)),
        steps.join('\n'),
      );
    });
  });

  describe(`product search fold, migrated store (${dialect})`, () => {
    it('finds products written before migration 0017 with the new fold', async () => {
      const fresh = await freshStore(dialect);
      const config = loadConfig(fresh.env);
      const store = openStore({ ...config, dataDir: config.dataDir });
      try {
        await migrateStoreTo(store, '0016_transfer_receiver');
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                VALUES ('ten_m', 'M', 'free', 'USD', '2026-11-21', 1, 1)`.execute(store.db);
        for (const [id, name, description] of [
          ['prod_1', BAG, null],
          ['prod_2', CITY, null],
          ['prod_3', TOTE, 'μικρος κασας'],
          ['prod_4', SNEAKER, null],
        ]) {
          await sql`INSERT INTO products (id, tenant_id, name, description, sku, price, currency, category, stock,
                    status, images, attributes, tags, created, updated)
                  VALUES (${id}, 'ten_m', ${name}, ${description}, NULL, 100, 'USD', NULL, 0, 'active', '[]',
                    '{}', '[]', 1, 1)`.execute(store.db);
        }
        await migrateToLatest(store);
        const answered: Record<string, [string[], number]> = {};
        for (const [q] of SEARCHES) {
          answered[q] = [
            await found(store.db, store.dialect, 'ten_m', q, true),
            await countProducts(store.db, store.dialect, 'ten_m', { q }),
          ];
        }
        assert.deepEqual(
          answered,
          Object.fromEntries(SEARCHES.map(([q, names]) => [q, [[...names].sort(), names.length]])),
        );
      } finally {
        await store.close();
        await fresh.drop();
      }
    });
  });
}
