import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { client, DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import { allMigrations } from '../../db/migrate.js';
import { loadModules } from '../../kernel/modules.js';
import { complete, newCart } from '../carts/carts.test-kit.js';
import type { OrderObject } from '../orders/index.js';

const T0 = Date.parse('2027-01-12T00:00:00.000Z');
const PRODUCT = 'prod_AAAAAAAAAAAAAAAAAAAAAAA1';
const VARIANT = 'var_AAAAAAAAAAAAAAAAAAAAAAA1';

/** The migration this store stops before: the one 0069 follows, whichever module declares it. */
async function lastBefore0069(): Promise<string> {
  const names = Object.keys(allMigrations(await loadModules()));
  const at = names.indexOf('0069_stock_take');
  assert.ok(at > 0, 'migration 0069_stock_take is registered');
  assert.equal(names[at + 1], '0070_ledger_entry_applied');
  return names[at - 1] as string;
}

/**
 * A store written before migrations 0069 and 0070 (PostgreSQL's `take_stock_as_read` and
 * `ledger_entry_applied`): a product of one variant with stock, as the release before wrote it.
 * This release starts on it and sells from it, paid; on PostgreSQL through both functions.
 */
for (const dialect of DIALECTS) {
  describe(`migrations 0069 and 0070 to selling in one round trip (${dialect})`, () => {
    it('sells from the stock the store held, paid, its stock and wallet exact', async () => {
      const store = await upgradeFrom(dialect, await lastBefore0069(), async (old) => {
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                VALUES ('ten_a', 'A', 'free', 'USD', '2027-01-20', ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
                VALUES ('usr_a', 'ten_a', 'o@a.example.com', 'O', 'owner', NULL, ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO products (id, tenant_id, handle, name, description, sku, price, currency, category,
                  stock, status, images, attributes, tags, options, variant_count, price_max, search_extra,
                  created, updated)
                VALUES (${PRODUCT}, 'ten_a', 'mug', 'Mug', NULL, 'MUG-1', 900, 'USD', NULL,
                  5, 'active', '[]', '{}', '[]', '[]', 1, 900, 'MUG-1', ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO product_variants (id, tenant_id, product_id, sku, sku_key, title, options,
                  option_key, price, compare_at_price, stock, weight_grams, barcode, position, created, updated)
                VALUES (${VARIANT}, 'ten_a', ${PRODUCT}, 'MUG-1', 'mug-1',
                  'Default', '{}', '[]', 900, NULL, 5, NULL, NULL, 1, ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO product_counts (tenant_id, category, status, in_stock, n)
                VALUES ('ten_a', '', 'active', 1, 1)`.execute(old);
      });
      try {
        const db = store.deps.store.db;
        if (dialect === 'postgres') {
          const { rows } = await sql<{ name: string }>`SELECT proname AS name FROM pg_proc
            WHERE proname IN ('take_stock_as_read', 'ledger_entry_applied')
              AND pronamespace = current_schema()::regnamespace ORDER BY proname`.execute(db);
          assert.deepEqual(
            rows.map((row) => row.name),
            ['ledger_entry_applied', 'take_stock_as_read'],
          );
          await assert.rejects(sql`SELECT ledger_entry_applied(false)`.execute(db), { code: 'CPL01' });
        }
        const api = await store.clientFor('ten_a', 'usr_a');
        // A shopper's completion (on PostgreSQL its stock taken with the COMMIT), then an order
        // through the API: both paid, their wallet credits sent with the COMMIT.
        const key = await api<{ key: string }>('POST', '/v1/api-keys', {
          body: { type: 'publishable', name: 'Shop', allowed_origins: [] },
        });
        assert.equal(key.status, 201, JSON.stringify(key.body));
        const shopper = client(store.app, key.body.key);
        const cart = await newCart(shopper, {
          email: 'shopper@example.com',
          lines: [{ variant_id: VARIANT, quantity: 2 }],
        });
        const completed = await complete(shopper, cart);
        assert.equal(completed.status, 201, JSON.stringify(completed.body));
        const order = await api<OrderObject>('POST', '/v1/orders', {
          body: {
            customer: { email: 'buyer@example.com' },
            items: [{ variant_id: VARIANT, quantity: 1 }],
            payment_method: 'pm_card_visa',
          },
        });
        assert.equal(order.status, 201, JSON.stringify(order.body));
        assert.deepEqual([completed.body.status, order.body.status], ['paid', 'paid']);
        const product = await api<{ stock: number }>('GET', `/v1/products/${PRODUCT}`);
        assert.equal(product.body.stock, 2);
        const wallet = await api<{ available: number }>('GET', '/v1/wallet/balance?currency=USD');
        assert.equal(wallet.status, 200, JSON.stringify(wallet.body));
        assert.equal(wallet.body.available, 2_700);
        assert.equal((await store.deps.wallet.verify()).ok, true);
      } finally {
        await store.close();
      }
    });
  });
}
