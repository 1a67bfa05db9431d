import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../db/store.js';
import { client, DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import type { CartObject } from './carts.schemas.js';

/**
 * A store with carts, discounts and a catalog version made before migration 0044: its carts start
 * at revision 0 and its tenants at pricing version 0 beside the catalog version they had, and from
 * then on every write of what a cart is priced from moves them, the older rows' writes as the new
 * ones', and a pricing write leaves the catalog version alone.
 */

async function versions(db: Db, tenantId: string): Promise<[number, number] | undefined> {
  const row = await db
    .selectFrom('catalog_versions')
    .select(['version', 'pricing_version'])
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return row === undefined ? undefined : [Number(row.version), Number(row.pricing_version)];
}

async function revision(db: Db, cartId: string): Promise<number> {
  const row = await db
    .selectFrom('carts')
    .select('revision')
    .where('id', '=', cartId)
    .executeTakeFirstOrThrow();
  return Number(row.revision);
}

for (const dialect of DIALECTS) {
  describe(`migration 0044: pricing versions and cart revisions (${dialect})`, () => {
    it('starts existing carts at revision 0 and moves the versions at the first write', async () => {
      const now = Date.now();
      const store = await upgradeFrom(dialect, '0043_cart_holds', async (old) => {
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                VALUES ('ten_p', 'P', 'free', 'USD', '2027-01-20', ${now}, ${now})`.execute(old);
        await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
                VALUES ('usr_p', 'ten_p', 'o@example.com', 'O', 'owner', NULL, ${now}, ${now})`.execute(old);
        await sql`INSERT INTO carts (id, tenant_id, status, currency, email, customer_id, discount_codes,
                  shipping_address, shipping_rate_id, order_id, checkout, checkout_started, created, updated,
                  completed_at)
                VALUES ('cart_old', 'ten_p', 'open', 'USD', 'kim@example.com', NULL, '["OLD10"]', NULL, NULL,
                  NULL, NULL, NULL, ${now}, ${now}, NULL)`.execute(old);
        await sql`INSERT INTO cart_lines (id, cart_id, tenant_id, variant_id, product_id, name, variant_title,
                  sku, quantity, position, created)
                VALUES ('cli_old', 'cart_old', 'ten_p', 'var_OLDOLDOLDOLDOLDOLDOLDOLD1',
                  'prod_OLDOLDOLDOLDOLDOLDOLDOLD1', 'Old thing', 'Default', NULL, 1, 0, ${now})`.execute(old);
        await sql`INSERT INTO catalog_versions (tenant_id, version) VALUES ('ten_p', 7)`.execute(old);
        await sql`INSERT INTO discounts (id, tenant_id, code, code_key, automatic, type, value, currency,
                  minimum_subtotal, applies_to, starts_at, ends_at, usage_limit, usage_limit_per_customer,
                  times_used, combinable, enabled, created, updated)
                VALUES ('disc_old', 'ten_p', 'OLD10', 'OLD10', 0, 'percentage', 1000, NULL, NULL, NULL, NULL,
                  NULL, NULL, NULL, 0, 0, 1, ${now}, ${now})`.execute(old);
      });
      try {
        const { db } = store.deps.store;
        assert.equal(await revision(db, 'cart_old'), 0);
        assert.deepEqual(await versions(db, 'ten_p'), [7, 0]);

        const api = await store.clientFor('ten_p', 'usr_p');
        const before = await api<CartObject>('GET', '/v1/carts/cart_old');
        assert.equal(before.status, 200, JSON.stringify(before.body));
        assert.equal(before.body.lines[0]?.available, false, 'its variant is gone');

        const changed = await api('PATCH', '/v1/discounts/disc_old', { body: { value: 1500 } });
        assert.equal(changed.status, 200, JSON.stringify(changed.body));
        assert.deepEqual(await versions(db, 'ten_p'), [7, 1]);
        const settings = await api('PATCH', '/v1/settings', { body: { name: 'P shop' } });
        assert.equal(settings.status, 200, JSON.stringify(settings.body));
        assert.deepEqual(await versions(db, 'ten_p'), [7, 2]);

        await db.updateTable('cart_lines').set({ quantity: 2 }).where('id', '=', 'cli_old').execute();
        assert.equal(await revision(db, 'cart_old'), 1, 'a write of a line');
        await db
          .updateTable('carts')
          .set({ email: 'lee@example.com' })
          .where('id', '=', 'cart_old')
          .execute();
        assert.equal(await revision(db, 'cart_old'), 2, 'a write of the cart');
        await db.deleteFrom('cart_lines').where('id', '=', 'cli_old').execute();
        assert.equal(await revision(db, 'cart_old'), 3, 'a line removed');

        // A store without a row yet: its first pricing write makes it, at catalog version 0.
        const fresh = await store.deps.tenants.create({ name: 'Q', email: 'q@example.com' });
        const q = client(store.app, fresh.apiKey.key);
        assert.equal(await versions(db, fresh.tenant.id), undefined);
        const rate = await q('POST', '/v1/tax-rates', {
          body: { name: 'VAT', country: 'DE', rate_bps: 1900, inclusive: true, shipping_taxable: true },
        });
        assert.equal(rate.status, 201, JSON.stringify(rate.body));
        assert.deepEqual(await versions(db, fresh.tenant.id), [0, 1]);
        const made = await q('POST', '/v1/products', { body: { name: 'Lamp', price: 100 } });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        const [catalog, pricing] = (await versions(db, fresh.tenant.id)) ?? [];
        assert.ok(catalog !== undefined && catalog > 0, 'a product moves the catalog version');
        assert.equal(pricing, 1, 'and leaves the pricing version');
      } finally {
        await store.close();
      }
    });
  });
}
