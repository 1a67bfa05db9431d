import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/helpers/context.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';

/**
 * Migration 0064 on a store whose test mode posted its test money against live's platform accounts
 * (as the release before it did): those postings move to test mode's own accounts, live's stay, and
 * the ledger checks pass.
 */

const T0 = Date.parse('2027-01-05T09:00:00.000Z');

for (const dialect of DIALECTS) {
  describe(`migration 0064, test money on accounts of its own (${dialect})`, () => {
    it('moves test mode’s platform postings to test accounts and leaves live’s where they are', async () => {
      const store = await upgradeFrom(dialect, '0061_image_alts', async (old) => {
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated, mode, live_tenant_id)
          VALUES ('ten_l', 'L', 'pro', 'USD', '2027-01-20', ${T0}, ${T0}, 'live', NULL),
                 ('ten_t', 'L', 'pro', 'USD', '2027-01-20', ${T0}, ${T0}, 'test', 'ten_l')`.execute(old);
        await sql`INSERT INTO ledger_accounts (id, type, tenant_id, currency, balance, postings, created, updated)
          VALUES ('wal_l', 'wallet', 'ten_l', 'USD', 500, 1, ${T0}, ${T0}),
                 ('wal_t', 'wallet', 'ten_t', 'USD', 200, 2, ${T0}, ${T0}),
                 ('platform_funding_USD', 'funding', NULL, 'USD', NULL, NULL, ${T0}, ${T0}),
                 ('platform_clearing_USD', 'clearing', NULL, 'USD', NULL, NULL, ${T0}, ${T0})`.execute(old);
        await sql`INSERT INTO ledger_entries (id, type, currency, created)
          VALUES ('je_l', 'adjustment', 'USD', ${T0}), ('je_t1', 'adjustment', 'USD', ${T0 + 1}),
                 ('je_t2', 'payment', 'USD', ${T0 + 2}), ('je_t3', 'adjustment', 'USD', ${T0 + 3})`.execute(
          old,
        );
        await sql`INSERT INTO ledger_postings (id, entry_id, account_id, tenant_id, type, currency, amount, seq,
            balance_after, description, source_id, created)
          VALUES ('txn_l1', 'je_l', 'wal_l', 'ten_l', 'adjustment', 'USD', 500, 1, 500, 'Opening', NULL, ${T0}),
                 ('txn_l2', 'je_l', 'platform_funding_USD', NULL, 'adjustment', 'USD', -500, NULL, NULL, 'Opening', NULL, ${T0}),
                 ('txn_t1', 'je_t1', 'wal_t', 'ten_t', 'adjustment', 'USD', 300, 1, 300, 'Test funds', NULL, ${T0 + 1}),
                 ('txn_t2', 'je_t1', 'platform_funding_USD', NULL, 'adjustment', 'USD', -300, NULL, NULL, 'Test funds', NULL, ${T0 + 1}),
                 ('txn_t3', 'je_t2', 'wal_t', 'ten_t', 'payment', 'USD', -100, 2, 200, 'Refund', 'ord_t', ${T0 + 2}),
                 ('txn_t4', 'je_t2', 'platform_clearing_USD', NULL, 'payment', 'USD', 100, NULL, NULL, 'Refund', 'ord_t', ${T0 + 2})`.execute(
          old,
        );
        // An entry of test mode's without a wallet of it cannot be told apart: it stays (none is made).
        await sql`INSERT INTO ledger_postings (id, entry_id, account_id, tenant_id, type, currency, amount, seq,
            balance_after, description, source_id, created)
          VALUES ('txn_t5', 'je_t3', 'platform_funding_USD', NULL, 'adjustment', 'USD', 1, NULL, NULL, 'x', NULL, ${T0 + 3}),
                 ('txn_t6', 'je_t3', 'platform_funding_USD', NULL, 'adjustment', 'USD', -1, NULL, NULL, 'x', NULL, ${T0 + 3})`.execute(
          old,
        );
      });
      try {
        const db = store.deps.store.db;
        const accounts = await db
          .selectFrom('ledger_accounts')
          .select(['id', 'mode'])
          .orderBy('id')
          .execute();
        assert.deepEqual(
          accounts.map((a) => [a.id, a.mode]),
          [
            ['platform_clearing_USD', 'live'],
            ['platform_funding_USD', 'live'],
            ['platform_test_clearing_USD', 'test'],
            ['platform_test_funding_USD', 'test'],
            ['wal_l', 'live'],
            ['wal_t', 'test'],
          ],
        );
        const postings = await db
          .selectFrom('ledger_postings')
          .select(['id', 'account_id'])
          .orderBy('id')
          .execute();
        assert.deepEqual(
          postings.map((p) => [p.id, p.account_id]),
          [
            ['txn_l1', 'wal_l'],
            ['txn_l2', 'platform_funding_USD'],
            ['txn_t1', 'wal_t'],
            ['txn_t2', 'platform_test_funding_USD'],
            ['txn_t3', 'wal_t'],
            ['txn_t4', 'platform_test_clearing_USD'],
            ['txn_t5', 'platform_funding_USD'],
            ['txn_t6', 'platform_funding_USD'],
          ],
        );
        const report = await store.deps.wallet.verify();
        assert.deepEqual(report.violations, []);
        // And new test money goes to the same test account.
        await store.deps.wallet.credit('ten_t', { amount: 50, currency: 'USD' });
        const { rows } = await sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM ledger_postings
          WHERE account_id = 'platform_test_funding_USD'`.execute(db);
        assert.equal(Number(rows[0]?.n), 2);
        assert.deepEqual((await store.deps.wallet.verify()).violations, []);
      } finally {
        await store.close();
      }
    });
  });
}
