import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import { allMigrations } from '../../db/migrate.js';
import { loadModules } from '../../kernel/modules.js';
import type { ProductObject } from './products.schemas.js';

const T0 = Date.parse('2027-01-12T00:00:00.000Z');
const LATEST = { headers: { 'x-service-version': '2027-01-20' } };
const A = 'https://cdn.example.com/mug-front.jpg';
const B = 'https://cdn.example.com/mug-back.jpg';

/** The migration this store stops before: the one 0061 follows, whichever module declares it. */
async function lastBefore0061(): Promise<string> {
  const names = Object.keys(allMigrations(await loadModules()));
  const at = names.indexOf('0061_image_alts');
  assert.ok(at > 0, 'migration 0061_image_alts is registered');
  return names[at - 1] as string;
}

/**
 * A store written before migration 0061: a product with two images and the event of its creation,
 * as the release before wrote them; this release starts on it.
 */
for (const dialect of DIALECTS) {
  describe(`migration 0061 to images' alt text (${dialect})`, () => {
    it('keeps every image, in order, with no alt text, and takes alt text after', async () => {
      const store = await upgradeFrom(dialect, await lastBefore0061(), async (old) => {
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                VALUES ('ten_a', 'A', 'free', 'USD', '2027-01-20', ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
                VALUES ('usr_a', 'ten_a', 'o@a.example.com', 'O', 'owner', NULL, ${T0}, ${T0})`.execute(old);
        const images = JSON.stringify([A, B]);
        await sql`INSERT INTO products (id, tenant_id, handle, name, description, sku, price, currency, category,
                  stock, status, images, attributes, tags, options, variant_count, price_max, search_extra,
                  created, updated)
                VALUES ('prod_AAAAAAAAAAAAAAAAAAAAAAA1', 'ten_a', 'mug', 'Mug', NULL, 'MUG-1', 900, 'USD', NULL,
                  3, 'active', ${images}, '{}', '[]', '[]', 1, 900, 'MUG-1', ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO product_variants (id, tenant_id, product_id, sku, sku_key, title, options,
                  option_key, price, compare_at_price, stock, weight_grams, barcode, position, created, updated)
                VALUES ('var_AAAAAAAAAAAAAAAAAAAAAAA1', 'ten_a', 'prod_AAAAAAAAAAAAAAAAAAAAAAA1', 'MUG-1', 'mug-1',
                  'Default', '{}', '[]', 900, NULL, 3, NULL, NULL, 1, ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO product_counts (tenant_id, category, status, in_stock, n)
                VALUES ('ten_a', '', 'active', 1, 1)`.execute(old);
        const object = JSON.stringify({
          id: 'prod_AAAAAAAAAAAAAAAAAAAAAAA1',
          handle: 'mug',
          name: 'Mug',
          images: [A, B],
        });
        await sql`INSERT INTO events (id, tenant_id, type, object_type, object_id, data, created)
                VALUES ('evt_before', 'ten_a', 'product.created', 'product', 'prod_AAAAAAAAAAAAAAAAAAAAAAA1',
                  ${object}, ${T0})`.execute(old);
      });
      try {
        const api = await store.clientFor('ten_a', 'usr_a');
        const path = '/v1/products/prod_AAAAAAAAAAAAAAAAAAAAAAA1';
        const product = await api<ProductObject>('GET', path, LATEST);
        assert.equal(product.status, 200, JSON.stringify(product.body));
        assert.deepEqual(product.body.images, [A, B]);
        assert.deepEqual(product.body.media, [
          { url: A, alt: null },
          { url: B, alt: null },
        ]);
        // The event written before reads with media too.
        const event = await api<{ data: { object: ProductObject } }>('GET', '/v1/events/evt_before', LATEST);
        assert.equal(event.status, 200, JSON.stringify(event.body));
        assert.deepEqual(event.body.data.object.media, [
          { url: A, alt: null },
          { url: B, alt: null },
        ]);
        // The new column takes writes.
        const changed = await api<ProductObject>('PATCH', path, {
          body: { media: [{ url: B, alt: 'The mug from behind' }, { url: A }] },
          ...LATEST,
        });
        assert.equal(changed.status, 200, JSON.stringify(changed.body));
        assert.deepEqual(changed.body.media, [
          { url: B, alt: 'The mug from behind' },
          { url: A, alt: null },
        ]);
      } finally {
        await store.close();
      }
    });
  });
}
