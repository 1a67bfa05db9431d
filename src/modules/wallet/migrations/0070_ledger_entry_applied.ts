import { type Kysely, sql, SqliteAdapter } from 'kysely';

/**
 * PostgreSQL: `ledger_entry_applied(ok)`, which fails (SQLSTATE `CPL01`) unless `ok` (release
 * v2.6, issue 43). A ledger entry sent with its transaction's COMMIT in one message
 * (`postEntryAndCommit`, src/modules/wallet/wallet.ledger.ts) ends with it: a wallet that did not
 * take its posting then rolls the transaction back instead of committing it without its entry.
 *
 * SQLite needs none: there the entry is written statement by statement and checked between them.
 * Frozen: plain SQL, no module code.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`
    CREATE FUNCTION ledger_entry_applied(ok boolean) RETURNS boolean LANGUAGE plpgsql AS $$
    BEGIN
      IF ok IS NOT TRUE THEN
        RAISE EXCEPTION 'a wallet did not take its posting' USING ERRCODE = 'CPL01';
      END IF;
      RETURN true;
    END $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`DROP FUNCTION ledger_entry_applied(boolean)`.execute(db);
}
