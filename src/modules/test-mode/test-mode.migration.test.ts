import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS, client } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import { hashKey } from '../api-keys/api-keys.service.js';

/**
 * Migration 0053 on a store an earlier release wrote (migrations up to 0046): the store is live,
 * its key a live key that works as before, and its test mode is made the first time it is asked for.
 */

const T0 = Date.parse('2026-12-20T09:00:00.000Z');
const LIVE = `sk_live_${'M'.repeat(36)}mode`;

for (const dialect of DIALECTS) {
  describe(`migration 0053 to test mode (${dialect})`, () => {
    it('keeps every store live and every key a live key, and opens test mode beside them', async () => {
      const store = await upgradeFrom(dialect, '0046_catalog_details', async (old) => {
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                VALUES ('ten_m', 'M', 'pro', 'USD', '2027-01-20', ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
                VALUES ('usr_m', 'ten_m', 'm@example.com', 'M', 'owner', NULL, ${T0}, ${T0})`.execute(old);
        const permissions = JSON.stringify(['read:keys', 'write:keys', 'read:products', 'write:products']);
        await sql`INSERT INTO api_keys (id, tenant_id, user_id, name, key_hash, last4, permissions, created,
                  updated, last_used, expires_at, revoked_at)
                VALUES ('key_m', 'ten_m', 'usr_m', 'old', ${hashKey(LIVE)}, ${LIVE.slice(-4)}, ${permissions},
                  ${T0}, ${T0}, NULL, NULL, NULL)`.execute(old);
      });
      try {
        const rows = await store.deps.store.db
          .selectFrom('tenants')
          .select(['id', 'mode', 'live_tenant_id'])
          .execute();
        assert.deepEqual(rows, [{ id: 'ten_m', mode: 'live', live_tenant_id: null }]);
        const api = client(store.app, LIVE);
        const keys = await api<{ data: { id: string; mode: string; livemode: boolean }[] }>(
          'GET',
          '/v1/api-keys',
        );
        assert.equal(keys.status, 200);
        assert.deepEqual(
          keys.body.data.map((k) => [k.id, k.mode, k.livemode]),
          [['key_m', 'live', true]],
        );
        const product = await api<{ id: string; livemode: boolean }>('POST', '/v1/products', {
          body: { name: 'Lamp', price: 4000 },
        });
        assert.deepEqual([product.status, product.body.livemode], [201, true]);
        // Test mode, made when first asked for: its own store, without live's product.
        const made = await api<{ key: string }>('POST', '/v1/api-keys', {
          body: { name: 'test', mode: 'test', permissions: ['read:products'] },
        });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        const test = client(store.app, made.body.key);
        assert.equal((await test('GET', `/v1/products/${product.body.id}`)).status, 404);
        const paired = await store.deps.store.db
          .selectFrom('tenants')
          .select(['mode', 'live_tenant_id'])
          .where('id', '!=', 'ten_m')
          .execute();
        assert.deepEqual(paired, [{ mode: 'test', live_tenant_id: 'ten_m' }]);
      } finally {
        await store.close();
      }
    });
  });
}
