import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS, client } from '../../../test/helpers/context.js';
import type { Page } from '../../../test/helpers/responses.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import type { ApiKey } from './api-keys.schemas.js';
import { hashKey } from './api-keys.service.js';

/**
 * Migration 0037 on a store an earlier release wrote (migrations up to 0036): its keys become
 * secret keys without origins and work exactly as before (a live one, an expiring one, a revoked
 * one), and publishable keys are made beside them.
 */

const T0 = Date.parse('2026-12-20T09:00:00.000Z');
const LIVE = `sk_live_${'L'.repeat(36)}live`;
const REVOKED = `sk_live_${'R'.repeat(36)}gone`;

for (const dialect of DIALECTS) {
  describe(`migration 0037 to publishable keys (${dialect})`, () => {
    it('keeps every existing key a working secret key and makes publishable keys beside them', async () => {
      const store = await upgradeFrom(dialect, '0036_redact_refund_reasons', async (old) => {
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                VALUES ('ten_k', 'K', 'free', 'USD', '2026-12-15', ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
                VALUES ('usr_k', 'ten_k', 'o@example.com', 'O', 'owner', NULL, ${T0}, ${T0})`.execute(old);
        const permissions = JSON.stringify(['read:keys', 'write:keys', 'read:products']);
        for (const [id, raw, revoked] of [
          ['key_live', LIVE, null],
          ['key_gone', REVOKED, T0 + 1000],
        ] as const) {
          await sql`INSERT INTO api_keys (id, tenant_id, user_id, name, key_hash, last4, permissions, created,
                    updated, last_used, expires_at, revoked_at)
                  VALUES (${id}, 'ten_k', 'usr_k', ${id}, ${hashKey(raw)}, ${raw.slice(-4)}, ${permissions},
                    ${T0}, ${T0}, NULL, NULL, ${revoked})`.execute(old);
        }
      });
      try {
        const api = client(store.app, LIVE);
        // The old key works, in its tenant's pinned version: the shape it always had.
        const pinned = await api<Page<Record<string, unknown>>>('GET', '/v1/api-keys');
        assert.equal(pinned.status, 200);
        assert.deepEqual(
          pinned.body.data.map((k) => k.id),
          ['key_live'],
        );
        assert.ok(!('type' in (pinned.body.data[0] ?? {})));
        const latest = { 'x-service-version': '2027-01-20' };
        const listed = await api<Page<ApiKey>>('GET', '/v1/api-keys', { headers: latest });
        const [key] = listed.body.data;
        assert.equal(key?.type, 'secret');
        assert.deepEqual(key?.allowed_origins, []);
        assert.equal(key?.key, 'sk_live_****_****_****_live');
        assert.deepEqual(key?.permissions, ['read:keys', 'write:keys', 'read:products']);
        // The revoked one stays revoked.
        assert.equal((await client(store.app, REVOKED)('GET', '/v1/api-keys')).status, 401);

        const made = await api<ApiKey>('POST', '/v1/api-keys', {
          headers: latest,
          body: { type: 'publishable', name: 'Shop', allowed_origins: ['https://shop.example.com'] },
        });
        assert.equal(made.status, 201);
        assert.equal(made.body.type, 'publishable');
        assert.equal(await store.deps.apiKeys.originAllowed('https://shop.example.com'), true);
        const shop = await store.app.inject({
          method: 'GET',
          url: '/v1/api-keys',
          headers: { authorization: `Bearer ${made.body.key}`, origin: 'https://shop.example.com' },
        });
        assert.equal(shop.statusCode, 403);
        assert.equal(shop.json<{ code: string }>().code, 'publishable_key_not_allowed');
      } finally {
        await store.close();
      }
    });
  });
}
