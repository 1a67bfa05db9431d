import { type Kysely, sql } from 'kysely';

/**
 * Test money apart from live money on the ledger.
 *
 * `ledger_accounts` gains `mode` (`live` or `test`): a wallet's is its store's, and test mode has
 * platform accounts of its own (`platform_test_funding_USD`, `platform_test_clearing_USD`), so no
 * account of live's ever holds a posting of test mode's. Until now a test store's funding, reset,
 * payments and refunds posted against live's platform accounts: their platform postings move to
 * the test accounts of the same type and currency, made here. Platform accounts cache nothing (their
 * balance is the sum of their postings), so the move changes no cached figure, and every entry
 * still balances.
 *
 * Frozen: plain SQL, no module code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('ledger_accounts')
    .addColumn('mode', 'text', (c) => c.notNull().defaultTo('live'))
    .execute();
  await sql`UPDATE ledger_accounts SET mode = 'test'
    WHERE type = 'wallet' AND tenant_id IN (SELECT id FROM tenants WHERE mode = 'test')`.execute(db);

  // Entries of a test store's wallet, and the platform accounts their other postings are on.
  const testEntries = sql`SELECT p.entry_id FROM ledger_postings p
    JOIN ledger_accounts a ON a.id = p.account_id
    WHERE a.type = 'wallet' AND a.mode = 'test'`;
  const { rows } = await sql<{ id: string; type: string; currency: string; created: number | string }>`
    SELECT a.id, a.type, a.currency, MIN(p.created) AS created
    FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id
    WHERE a.type <> 'wallet' AND a.mode = 'live' AND p.entry_id IN (${testEntries})
    GROUP BY a.id, a.type, a.currency`.execute(db);
  for (const account of rows) {
    const testId = `platform_test_${account.type}_${account.currency}`;
    const created = Number(account.created);
    await sql`INSERT INTO ledger_accounts (id, type, tenant_id, currency, balance, postings, created, updated, mode)
      VALUES (${testId}, ${account.type}, NULL, ${account.currency}, NULL, NULL, ${created}, ${created}, 'test')
      ON CONFLICT (id) DO NOTHING`.execute(db);
    await sql`UPDATE ledger_postings SET account_id = ${testId}
      WHERE account_id = ${account.id} AND entry_id IN (${testEntries})`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // Test postings go back to live's platform account of the same type and currency.
  await sql`INSERT INTO ledger_accounts (id, type, tenant_id, currency, balance, postings, created, updated, mode)
    SELECT 'platform_' || type || '_' || currency, type, NULL, currency, NULL, NULL, created, updated, 'live'
    FROM ledger_accounts WHERE type <> 'wallet' AND mode = 'test'
    ON CONFLICT (id) DO NOTHING`.execute(db);
  await sql`UPDATE ledger_postings SET account_id = (
      SELECT 'platform_' || a.type || '_' || a.currency FROM ledger_accounts a WHERE a.id = ledger_postings.account_id)
    WHERE account_id IN (SELECT id FROM ledger_accounts WHERE type <> 'wallet' AND mode = 'test')`.execute(
    db,
  );
  await sql`DELETE FROM ledger_accounts WHERE type <> 'wallet' AND mode = 'test'`.execute(db);
  await db.schema.alterTable('ledger_accounts').dropColumn('mode').execute();
}
