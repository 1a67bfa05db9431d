import { type Kysely, SqliteAdapter, sql } from 'kysely';

/** How the search text is folded: lower-cased (0003), or by the search fold (this migration). */
interface Fold {
  sqlite: (text: string) => string;
  postgres: (text: string) => string;
}

/** 0003's search text: lower() on both stores (SQLite's FTS5 table folds case itself). */
const LOWER: Fold = {
  sqlite: (text) => `lower(${text})`,
  postgres: (text) => `lower(${text})`,
};

/**
 * The search fold: lower-cased, then `ς` as `σ` and U+0307 dropped, so `ΚΑΣ` finds `ΚΑΣΑΣ` and
 * `istanbul` finds `İstanbul`. On SQLite `search_fold` (src/db/store.ts); on PostgreSQL in SQL,
 * where translate() deletes U+0307, which has no counterpart in its third argument. The products
 * repository queries these same expressions.
 */
const SEARCH_FOLD: Fold = {
  sqlite: (text) => `search_fold(${text})`,
  postgres: (text) => `translate(lower(${text}), '\u03c2\u0307', '\u03c3')`,
};

/** The fields `q` searches, joined by a newline, as 0003 defines them. */
function searchFields(prefix: string, newline: string): string {
  return `${prefix}name || ${newline} || coalesce(${prefix}sku, '') || ${newline} || coalesce(${prefix}description, '')`;
}

/**
 * Product search folds `q` and the searched text alike on both stores (Greek final sigma and
 * Turkish `İ` included): PostgreSQL's trigram index is rebuilt on the folded text, and SQLite's
 * FTS5 table, which narrows the rows a search reads, holds the folded text, so it never drops a
 * row the search matches.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await foldSearchWith(db, SEARCH_FOLD);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await foldSearchWith(db, LOWER);
}

async function foldSearchWith(db: Kysely<unknown>, fold: Fold): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) await refillSqliteSearch(db, fold.sqlite);
  else await rebuildPostgresSearch(db, fold.postgres);
}

/**
 * SQLite: the triggers that keep the contentless FTS5 table current insert the folded text, and
 * the table is filled again from every product. In one transaction, so no search in between reads
 * a half-filled table (SQLite runs migrations outside one).
 */
async function refillSqliteSearch(db: Kysely<unknown>, fold: (text: string) => string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const trigger of ['products_search_insert', 'products_search_update']) {
      await sql`DROP TRIGGER IF EXISTS ${sql.id(trigger)}`.execute(trx);
    }
    const insert = `INSERT INTO products_search(rowid, text) VALUES (new.seq, ${fold(searchFields('new.', 'char(10)'))});`;
    await sql
      .raw(`CREATE TRIGGER products_search_insert AFTER INSERT ON products BEGIN ${insert} END`)
      .execute(trx);
    await sql
      .raw(
        `CREATE TRIGGER products_search_update AFTER UPDATE OF name, sku, description ON products BEGIN ` +
          `DELETE FROM products_search WHERE rowid = old.seq; ${insert} END`,
      )
      .execute(trx);
    await sql`INSERT INTO products_search(products_search) VALUES ('delete-all')`.execute(trx);
    await sql
      .raw(
        `INSERT INTO products_search(rowid, text) SELECT seq, ${fold(searchFields('', 'char(10)'))} FROM products`,
      )
      .execute(trx);
  });
}

/**
 * PostgreSQL: the trigram index on the search text is built again on the folded text, where 0003
 * could build one (pg_trgm installed); without it search works by scanning, as before.
 */
async function rebuildPostgresSearch(db: Kysely<unknown>, fold: (text: string) => string): Promise<void> {
  await sql`DROP INDEX IF EXISTS products_search_idx`.execute(db);
  const installed = await sql<{ schema: string }>`
    SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'pg_trgm'`.execute(db);
  const schema = installed.rows[0]?.schema;
  if (schema === undefined) return;
  await sql
    .raw(
      `CREATE INDEX products_search_idx ON products USING gin ((${fold(searchFields('', 'chr(10)'))}) "${schema.replaceAll('"', '""')}".gin_trgm_ops)`,
    )
    .execute(db);
}
