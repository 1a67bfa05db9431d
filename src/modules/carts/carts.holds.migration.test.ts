import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import type { CartObject } from './carts.schemas.js';

const MINUTE = 60_000;

/**
 * A store whose carts were made before migration 0043: they hold no stock, and the open ones its
 * shopper left before the upgrade (past the store's `abandoned_after_minutes`) are not announced
 * by the first sweep after it, while one still within its time is left to be announced.
 */
for (const dialect of DIALECTS) {
  describe(`migration 0043: stock holds and abandoned carts (${dialect})`, () => {
    it('starts every cart without a hold, and takes carts long left as announced', async () => {
      const now = Date.now();
      const store = await upgradeFrom(dialect, '0041_store_settings', async (old) => {
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated,
                  storefront_abandoned_after_minutes)
                VALUES ('ten_h', 'H', 'free', 'USD', '2027-01-20', ${now}, ${now}, 60)`.execute(old);
        await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
                VALUES ('usr_h', 'ten_h', 'o@example.com', 'O', 'owner', NULL, ${now}, ${now})`.execute(old);
        for (const [id, status, updated] of [
          ['cart_left', 'open', now - 3 * 60 * MINUTE],
          ['cart_recent', 'open', now - 10 * MINUTE],
          ['cart_done', 'completed', now - 3 * 60 * MINUTE],
        ] as const) {
          await sql`INSERT INTO carts (id, tenant_id, status, currency, email, customer_id, discount_codes,
                    shipping_address, shipping_rate_id, order_id, checkout, checkout_started, created, updated,
                    completed_at)
                  VALUES (${id}, 'ten_h', ${status}, 'USD', 'kim@example.com', NULL, '[]', NULL, NULL, NULL,
                    NULL, NULL, ${updated}, ${updated}, NULL)`.execute(old);
          await sql`INSERT INTO cart_lines (id, cart_id, tenant_id, variant_id, product_id, name, variant_title,
                    sku, quantity, position, created)
                  VALUES (${`cli_${id}`}, ${id}, 'ten_h', 'var_OLDOLDOLDOLDOLDOLDOLDOLD1',
                    'prod_OLDOLDOLDOLDOLDOLDOLDOLD1', 'Old thing', 'Default', NULL, 1, 0, ${updated})`.execute(
            old,
          );
        }
      });
      try {
        const rows = await store.deps.store.db
          .selectFrom('carts')
          .select(['id', 'hold_lines', 'hold_expires', 'hold_ip'])
          .select((eb) => eb('abandoned_at', 'is not', null).as('announced'))
          .orderBy('id')
          .execute();
        assert.deepEqual(
          rows.map((r) => [r.id, r.hold_lines, r.hold_expires, r.hold_ip, Boolean(r.announced)]),
          [
            ['cart_done', null, null, null, false],
            ['cart_left', null, null, null, true],
            ['cart_recent', null, null, null, false],
          ],
        );
        assert.equal(await store.deps.cartSweeps.announceAbandoned(), 0, 'nothing due on upgrade');
        assert.equal(await store.deps.cartSweeps.releaseHolds(), 0);

        const api = await store.clientFor('ten_h', 'usr_h');
        const cart = await api<CartObject>('GET', '/v1/carts/cart_recent');
        assert.equal(cart.status, 200, JSON.stringify(cart.body));
        assert.deepEqual([cart.body.status, cart.body.hold], ['open', null]);
        const abandoned = await api<{ data: CartObject[] }>('GET', '/v1/carts?status=abandoned');
        assert.deepEqual(
          abandoned.body.data.map((c) => c.id),
          ['cart_left'],
        );
      } finally {
        await store.close();
      }
    });
  });
}
