import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import { allMigrations } from '../../db/migrate.js';
import { loadModules } from '../../kernel/modules.js';

const T0 = Date.parse('2027-01-10T00:00:00.000Z');
const LATEST = { headers: { 'x-service-version': '2027-01-20' } };
const PRODUCT = 'prod_MMMMMMMMMMMMMMMMMMMMMMM1';
const VARIANT = 'var_MMMMMMMMMMMMMMMMMMMMMMM1';

/** The migration this store stops before: the one 0047 follows, whichever module declares it. */
async function lastBefore0047(): Promise<string> {
  const names = Object.keys(allMigrations(await loadModules()));
  const at = names.indexOf('0047_locations');
  assert.ok(at > 0, 'migration 0047_locations is registered');
  return names[at - 1] as string;
}

/**
 * A store written before migrations 0047-0049 (no locations, stock on variants, an order placed and
 * not shipped, one shipped whole); this release starts on it.
 */
for (const dialect of DIALECTS) {
  describe(`migrations 0047-0049: locations, stock levels, fulfilments (${dialect})`, () => {
    it('gives the store a default location holding all its stock, open orders’ units committed', async () => {
      const store = await upgradeFrom(dialect, await lastBefore0047(), async (old) => {
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                VALUES ('ten_m', 'M', 'free', 'USD', '2026-12-15', ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
                VALUES ('usr_m', 'ten_m', 'o@m.example.com', 'O', 'owner', NULL, ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO products (id, tenant_id, handle, name, description, sku, price, currency, category,
                  stock, status, images, attributes, tags, options, variant_count, price_max, search_extra,
                  created, updated)
                VALUES (${PRODUCT}, 'ten_m', 'mug', 'Mug', NULL, 'MUG-1', 900, 'USD', NULL,
                  3, 'active', '[]', '{}', '[]', '[]', 1, 900, 'MUG-1', ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO product_variants (id, tenant_id, product_id, sku, sku_key, title, options,
                  option_key, price, compare_at_price, stock, weight_grams, barcode, position, created, updated)
                VALUES (${VARIANT}, 'ten_m', ${PRODUCT}, 'MUG-1', 'mug-1',
                  'Default', '{}', '[]', 900, NULL, 3, 410, NULL, 1, ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO product_counts (tenant_id, category, status, in_stock, n)
                VALUES ('ten_m', '', 'active', 1, 1)`.execute(old);
        await sql`INSERT INTO customers (id, tenant_id, email, email_key, name, phone, addresses, tags, note,
                  metadata, marketing_consent, orders_count, total_spent, total_spent_sort, last_order_at, redacted,
                  created, updated)
                VALUES ('cus_m', 'ten_m', 'kim@example.com', 'kim@example.com', 'Kim', NULL, '[]', '[]', NULL, '{}',
                  0, 2, '{"USD":2700}', 2700, ${T0}, 0, ${T0}, ${T0})`.execute(old);
        for (const [id, status, quantity, shippedAt] of [
          ['ord_open', 'pending', 2, null],
          ['ord_gone', 'shipped', 1, T0],
        ] as const) {
          await sql`INSERT INTO orders (id, tenant_id, status, currency, subtotal, total, customer_email,
                    customer_name, customer_id, shipping_address, metadata, payment_id, carrier, tracking_number,
                    restocked, created, updated, paid_at, shipped_at, delivered_at, cancelled_at, refunded_at)
                  VALUES (${id}, 'ten_m', ${status}, 'USD', ${900 * quantity}, ${900 * quantity}, 'kim@example.com',
                    'Kim', 'cus_m', NULL, '{}', NULL, 'UPS', NULL, 0, ${T0}, ${T0}, NULL, ${shippedAt}, NULL, NULL,
                    NULL)`.execute(old);
          await sql`INSERT INTO order_items (order_id, position, tenant_id, product_id, variant_id, variant_title,
                    name, sku, category, quantity, unit_price, total, discount, tax, paid, refunded_quantity)
                  VALUES (${id}, 0, 'ten_m', ${PRODUCT}, ${VARIANT}, 'Default', 'Mug', 'MUG-1', NULL, ${quantity},
                    900, ${900 * quantity}, 0, 0, ${900 * quantity}, 0)`.execute(old);
        }
      });
      try {
        const api = await store.clientFor('ten_m', 'usr_m');
        const locations = await api<{ data: { id: string; default: boolean; name: string }[] }>(
          'GET',
          '/v1/locations',
        );
        assert.equal(locations.status, 200, JSON.stringify(locations.body));
        assert.deepEqual(
          locations.body.data.map((row) => [row.id, row.default, row.name]),
          [['loc_m', true, 'Default location']],
        );
        const levels = async () =>
          (
            await api<{
              data: { location_id: string; on_hand: number; committed: number; available: number }[];
            }>('GET', `/v1/products/${PRODUCT}/variants/${VARIANT}/inventory`)
          ).body.data;
        const shown = async () =>
          (await levels()).map((row) => [row.location_id, row.on_hand, row.committed, row.available]);
        assert.deepEqual(await shown(), [['loc_m', 5, 2, 3]]);

        const shipped = await api<Record<string, unknown>>('GET', '/v1/orders/ord_gone', LATEST);
        assert.equal(shipped.body.fulfillment_status, 'fulfilled');
        assert.deepEqual(shipped.body.fulfillments, []);
        const open = await api<Record<string, unknown>>('GET', '/v1/orders/ord_open', LATEST);
        assert.equal(open.body.fulfillment_status, 'unfulfilled');
        const pinned = await api<Record<string, unknown>>('GET', '/v1/orders/ord_open');
        assert.ok(!('fulfillment_status' in pinned.body), 'the store’s pinned version sees the old shape');

        // The open order's cancel gives its committed units back; a return of the shipped unit is possible.
        assert.equal((await api('POST', '/v1/orders/ord_open/cancel')).status, 200);
        assert.deepEqual(await shown(), [['loc_m', 5, 0, 5]]);
        const made = await api('POST', '/v1/orders/ord_gone/returns', {
          body: { items: [{ variant_id: VARIANT, quantity: 1 }] },
        });
        assert.equal(made.status, 201, JSON.stringify(made.body));
      } finally {
        await store.close();
      }
    });
  });
}
