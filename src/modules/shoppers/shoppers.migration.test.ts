import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';

/**
 * Migration 0040 on a store an earlier release wrote (migrations up to 0036): its customers get no
 * login, so none can be claimed by a sign-up; each gets one through a password reset, and new
 * shoppers sign up beside them. Nothing of the existing customers changes.
 */

const T0 = Date.parse('2026-12-20T09:00:00.000Z');

for (const dialect of DIALECTS) {
  describe(`migration 0040 to shopper logins (${dialect})`, () => {
    it('leaves existing customers without a login, to be given one by a reset', async () => {
      const store = await upgradeFrom(dialect, '0036_redact_refund_reasons', async (old) => {
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
                VALUES ('ten_m', 'M', 'free', 'USD', '2026-12-15', ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
                VALUES ('usr_m', 'ten_m', 'o@example.com', 'O', 'owner', NULL, ${T0}, ${T0})`.execute(old);
        for (const [id, email] of [
          ['cus_old1', 'Old@Example.com'],
          ['cus_old2', 'other@example.com'],
        ] as const) {
          await sql`INSERT INTO customers (id, tenant_id, email, email_key, name, phone, addresses, tags, note,
                    metadata, marketing_consent, orders_count, total_spent, total_spent_sort, last_order_at,
                    redacted, created, updated)
                  VALUES (${id}, 'ten_m', ${email}, ${email.toLowerCase()}, 'Old Name', NULL, '[]', '["vip"]',
                    'A note', '{}', 0, 0, '{}', 0, NULL, 0, ${T0}, ${T0})`.execute(old);
        }
        await sql`INSERT INTO customer_counts (tenant_id, tag, n) VALUES ('ten_m', '', 2), ('ten_m', 'vip', 2)`.execute(
          old,
        );
      });
      try {
        const api = await store.clientFor('ten_m', 'usr_m');
        const logins = await store.deps.store.db
          .selectFrom('customer_logins')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        assert.equal(Number(logins.n), 0);

        const claim = await api<Problem>('POST', '/v1/store/customers', {
          body: { email: 'old@example.com', password: 'someone else’s password' },
        });
        assert.deepEqual([claim.status, claim.body.code], [409, 'duplicate_email']);
        const refused = await api<Problem>('POST', '/v1/store/sessions', {
          body: { email: 'old@example.com', password: 'someone else’s password' },
        });
        assert.deepEqual([refused.status, refused.body.code], [401, 'invalid_credentials']);

        assert.equal(
          (await api('POST', '/v1/store/customers/password-reset', { body: { email: 'old@example.com' } }))
            .status,
          202,
        );
        const events = await api<Page<{ data: { object: { id: string }; reset_token: string } }>>(
          'GET',
          '/v1/events?type=customer.password_reset',
        );
        const [event] = events.body.data;
        assert.equal(event?.data.object.id, 'cus_old1');
        const confirmed = await api<{ token: string; customer: { id: string; email: string } }>(
          'POST',
          '/v1/store/customers/password-reset/confirm',
          { body: { reset_token: event.data.reset_token, password: 'the owner’s own password' } },
        );
        assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
        assert.deepEqual(confirmed.body.customer.email, 'Old@Example.com');
        const me = await api<{ id: string }>('GET', '/v1/store/customers/me', {
          headers: { 'x-customer-token': confirmed.body.token },
        });
        assert.equal(me.body.id, 'cus_old1');

        const fresh = await api<{ id: string }>('POST', '/v1/store/customers', {
          body: { email: 'new@example.com', password: 'a new shopper password' },
        });
        assert.equal(fresh.status, 201);
        const old = await api<{ email: string; tags: string[]; note: string }>(
          'GET',
          '/v1/customers/cus_old2',
        );
        assert.deepEqual(
          [old.body.email, old.body.tags, old.body.note],
          ['other@example.com', ['vip'], 'A note'],
        );
        const list = await api<Page<unknown>>('GET', '/v1/customers');
        assert.equal(list.body.total, 3);
      } finally {
        await store.close();
      }
    });
  });
}
