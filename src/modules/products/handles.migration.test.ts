import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import type { ProductObject } from './products.schemas.js';

const T0 = Date.parse('2026-12-20T00:00:00.000Z');
const LATEST = { headers: { 'x-service-version': '2027-01-20' } };

/**
 * A store of release v2.5 (migrations up to 0036) holding products, two tenants of which have
 * products of one name; then the server of this release starts on it and migration 0038 gives
 * every product its handle.
 */
for (const dialect of DIALECTS) {
  describe(`migration 0038 to product handles (${dialect})`, () => {
    it('gives every product a handle from its name, unique per tenant, oldest first', async () => {
      const store = await upgradeFrom(dialect, '0036_redact_refund_reasons', async (old) => {
        for (const tenant of ['ten_a', 'ten_b']) {
          await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                  VALUES (${tenant}, ${tenant}, 'free', 'USD', '2026-12-15', ${T0}, ${T0})`.execute(old);
          await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
                  VALUES (${`usr_${tenant}`}, ${tenant}, ${`o@${tenant}.example.com`}, 'O', 'owner', NULL,
                    ${T0}, ${T0})`.execute(old);
        }
        // Inserted out of creation order: the oldest of a name keeps the plain handle.
        const products: [string, string, string, number][] = [
          ['prod_AAAAAAAAAAAAAAAAAAAAAAA3', 'ten_a', 'Classic Tee', T0 + 3000],
          ['prod_AAAAAAAAAAAAAAAAAAAAAAA1', 'ten_a', 'Classic Tee', T0 + 1000],
          ['prod_AAAAAAAAAAAAAAAAAAAAAAA2', 'ten_a', 'Classic Tee 2', T0 + 2000],
          ['prod_AAAAAAAAAAAAAAAAAAAAAAA4', 'ten_a', 'Crème Brûlée', T0 + 4000],
          ['prod_AAAAAAAAAAAAAAAAAAAAAAA5', 'ten_a', 'Чайник', T0 + 5000],
          ['prod_AAAAAAAAAAAAAAAAAAAAAAA6', 'ten_a', 'Classic Tee', T0 + 6000],
          ['prod_BBBBBBBBBBBBBBBBBBBBBBB1', 'ten_b', 'Classic Tee', T0 + 1000],
        ];
        for (const [id, tenant, name, created] of products) {
          await sql`INSERT INTO products (id, tenant_id, name, description, sku, price, currency, category,
                    stock, status, images, attributes, tags, options, variant_count, price_max, search_extra,
                    created, updated)
                  VALUES (${id}, ${tenant}, ${name}, NULL, NULL, 1000, 'USD', NULL, 3, 'active', '[]', '{}',
                    '[]', '[]', 1, 1000, '', ${created}, ${created})`.execute(old);
          await sql`INSERT INTO product_variants (id, tenant_id, product_id, sku, sku_key, title, options,
                    option_key, price, compare_at_price, stock, weight_grams, barcode, position, created, updated)
                  VALUES (${`var_${id.slice(5)}`}, ${tenant}, ${id}, NULL, NULL, 'Default', '{}', '[]', 1000, NULL,
                    3, NULL, NULL, 1, ${created}, ${created})`.execute(old);
        }
        await sql`INSERT INTO product_counts (tenant_id, category, status, in_stock, n)
                VALUES ('ten_a', '', 'active', 1, 6), ('ten_b', '', 'active', 1, 1)`.execute(old);
        // Events of a product still there and of one deleted since, as v2.5 wrote them.
        const object = (id: string, name: string) =>
          JSON.stringify({ id, name, description: null, sku: null, price: 1000, status: 'active' });
        for (const [event, id, name] of [
          ['evt_kept', 'prod_AAAAAAAAAAAAAAAAAAAAAAA4', 'Crème Brûlée'],
          ['evt_gone', 'prod_GONEGONEGONEGONEGONEGO1', 'Gone Lamp'],
        ] as const) {
          await sql`INSERT INTO events (id, tenant_id, type, object_type, object_id, data, created)
                  VALUES (${event}, 'ten_a', 'product.updated', 'product', ${id}, ${object(id, name)},
                    ${T0 + 7000})`.execute(old);
        }
      });

      try {
        const a = await store.clientFor('ten_a', 'usr_ten_a');
        const b = await store.clientFor('ten_b', 'usr_ten_b');
        const handles = async (api: typeof a) =>
          (
            await api<Page<ProductObject>>('GET', '/v1/products?sort=created&limit=100', LATEST)
          ).body.data.map((product) => [product.id.slice(-1), product.handle]);
        assert.deepEqual(await handles(a), [
          ['1', 'classic-tee'],
          ['2', 'classic-tee-2'],
          ['3', 'classic-tee-3'],
          ['4', 'creme-brulee'],
          ['5', 'product'],
          ['6', 'classic-tee-4'],
        ]);
        assert.deepEqual(await handles(b), [['1', 'classic-tee']]);

        // The tenants, pinned to 2026-12-15, see their products as before.
        const pinned = await a<Page<ProductObject>>('GET', '/v1/products');
        assert.equal(pinned.headers['x-service-version'], '2026-12-15');
        for (const product of pinned.body.data) assert.equal('handle' in product, false);

        // The index holds: a new product of the name is numbered on, a taken handle is refused.
        const next = await a<ProductObject>('POST', '/v1/products', {
          body: { name: 'Classic Tee', price: 1200 },
          ...LATEST,
        });
        assert.equal(next.status, 201, JSON.stringify(next.body));
        assert.equal(next.body.handle, 'classic-tee-5');
        const taken = await a<Problem>('PATCH', '/v1/products/prod_AAAAAAAAAAAAAAAAAAAAAAA4', {
          body: { handle: 'classic-tee' },
        });
        assert.equal(taken.status, 409);
        assert.equal(taken.body.code, 'handle_taken');
        // Stored events read as new ones in 2027-01-20, and as they were in 2026-12-15.
        for (const [event, handle] of [
          ['evt_kept', 'creme-brulee'],
          ['evt_gone', 'gone-lamp'],
        ] as const) {
          const latest = await a<{ data: { object: ProductObject } }>('GET', `/v1/events/${event}`, LATEST);
          assert.equal(latest.status, 200, JSON.stringify(latest.body));
          assert.deepEqual(Object.keys(latest.body.data.object).slice(0, 3), ['id', 'handle', 'name']);
          assert.equal(latest.body.data.object.handle, handle);
          const before = await a<{ data: { object: ProductObject } }>('GET', `/v1/events/${event}`);
          assert.equal('handle' in before.body.data.object, false);
        }
        // Found by handle in the storefront's catalog.
        const found = await a<{ id: string }>('GET', '/v1/store/products/creme-brulee');
        assert.equal(found.status, 200, JSON.stringify(found.body));
        assert.equal(found.body.id, 'prod_AAAAAAAAAAAAAAAAAAAAAAA4');
      } finally {
        await store.close();
      }
    });
  });
}
