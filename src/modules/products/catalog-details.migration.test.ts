import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import { allMigrations } from '../../db/migrate.js';
import { loadModules } from '../../kernel/modules.js';
import type { ImportObject } from '../imports/imports.schemas.js';
import type { ProductObject } from './products.schemas.js';

const T0 = Date.parse('2027-01-10T00:00:00.000Z');
const LATEST = { headers: { 'x-service-version': '2027-01-20' } };

/** The migration this store stops before: the one 0046 follows, whichever module declares it. */
async function lastBefore0046(): Promise<string> {
  const names = Object.keys(allMigrations(await loadModules()));
  const at = names.indexOf('0046_catalog_details');
  assert.ok(at > 0, 'migration 0046_catalog_details is registered');
  return names[at - 1] as string;
}

/**
 * A store written before migration 0046 (variants without image, cost or flags, products without
 * SEO fields, an import without ignored columns); this release starts on it.
 */
for (const dialect of DIALECTS) {
  describe(`migration 0046 to catalog details (${dialect})`, () => {
    it('keeps every variant shipped and taxed, with no image or cost, and every import ignoring nothing', async () => {
      const store = await upgradeFrom(dialect, await lastBefore0046(), async (old) => {
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                VALUES ('ten_a', 'A', 'free', 'USD', '2027-01-20', ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
                VALUES ('usr_a', 'ten_a', 'o@a.example.com', 'O', 'owner', NULL, ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO products (id, tenant_id, handle, name, description, sku, price, currency, category,
                  stock, status, images, attributes, tags, options, variant_count, price_max, search_extra,
                  created, updated)
                VALUES ('prod_AAAAAAAAAAAAAAAAAAAAAAA1', 'ten_a', 'mug', 'Mug', NULL, 'MUG-1', 900, 'USD', NULL,
                  3, 'active', '[]', '{}', '[]', '[]', 1, 900, 'MUG-1', ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO product_variants (id, tenant_id, product_id, sku, sku_key, title, options,
                  option_key, price, compare_at_price, stock, weight_grams, barcode, position, created, updated)
                VALUES ('var_AAAAAAAAAAAAAAAAAAAAAAA1', 'ten_a', 'prod_AAAAAAAAAAAAAAAAAAAAAAA1', 'MUG-1', 'mug-1',
                  'Default', '{}', '[]', 900, NULL, 3, 410, '4006381333931', 1, ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO product_counts (tenant_id, category, status, in_stock, n)
                VALUES ('ten_a', '', 'active', 1, 1)`.execute(old);
        await sql`INSERT INTO imports (id, tenant_id, resource, format, mode, dry_run, on_error, status, phase,
                  position, rows_total, rows_processed, created_count, updated_count, unchanged_count,
                  error_count, byte_size, chunk_count, claimed_by, lease_until, attempts, created, updated,
                  started_at, finished_at)
                VALUES ('imp_AAAAAAAAAAAAAAAAAAAAAAA1', 'ten_a', 'products', 'shopify', 'upsert', 0, 'abort',
                  'succeeded', 'done', 1, 1, 1, 1, 0, 0, 0, 120, 0, NULL, NULL, 1, ${T0}, ${T0}, ${T0},
                  ${T0})`.execute(old);
      });
      try {
        const api = await store.clientFor('ten_a', 'usr_a');
        const product = await api<ProductObject>('GET', '/v1/products/prod_AAAAAAAAAAAAAAAAAAAAAAA1', LATEST);
        assert.equal(product.status, 200, JSON.stringify(product.body));
        assert.deepEqual(product.body.seo, { title: null, description: null });
        const [variant] = product.body.variants ?? [];
        assert.deepEqual(
          [
            variant?.sku,
            variant?.barcode,
            variant?.image,
            variant?.cost,
            variant?.requires_shipping,
            variant?.taxable,
          ],
          ['MUG-1', '4006381333931', null, null, true, true],
        );
        const imported = await api<ImportObject>('GET', '/v1/imports/imp_AAAAAAAAAAAAAAAAAAAAAAA1', LATEST);
        assert.equal(imported.status, 200, JSON.stringify(imported.body));
        assert.deepEqual(imported.body.ignored_columns, []);
        // The new columns take writes: the variant stops requiring shipping and gets a cost.
        const changed = await api<ProductObject>('PATCH', '/v1/products/prod_AAAAAAAAAAAAAAAAAAAAAAA1', {
          body: { requires_shipping: false, cost: 350, seo: { title: 'Mug | A' } },
          ...LATEST,
        });
        assert.equal(changed.status, 200, JSON.stringify(changed.body));
        assert.deepEqual(
          [changed.body.variants?.[0]?.requires_shipping, changed.body.variants?.[0]?.cost, changed.body.seo],
          [false, 350, { title: 'Mug | A', description: null }],
        );
      } finally {
        await store.close();
      }
    });
  });
}
