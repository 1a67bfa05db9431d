import { sql } from 'kysely';
import type { Db, Store } from '../../db/store.js';
import { AUDIT_LISTS } from '../audit/index.js';
import { REQUEST_LOG_LIST } from '../request-logs/index.js';

/**
 * What a reset of test mode deletes, found from the schema rather than listed by hand: every table
 * with a `tenant_id` column is a store's data, so a module's new table is reset without a change
 * here. The few exceptions are named below, each with why; test-mode.reset.test.ts fails for a
 * table that is neither a store's data nor named here.
 */

/** Tables with `tenant_id` that a reset keeps. */
export const KEPT_TABLES: Readonly<Record<string, string>> = {
  users: 'the people who sign in (a test store has none of its own)',
  api_keys: 'the keys: made per mode, a reset must not lock its caller out',
  api_key_origins: 'the publishable keys’ origins',
  console_sessions: 'who is signed in to the console',
  idempotency_keys: 'the answers of requests in flight, the reset’s own among them',
  catalog_versions: 'numbers that only grow: the answers kept in memory rely on them',
  usage_daily: 'metering: the calls made, which a reset does not unmake',
  usage_apps_daily: 'metering of plugins’ calls',
  audit_chains: 'the audit log is a hash chain: never cut',
  audit_entries: 'the audit log is a hash chain: never cut',
  request_logs: 'what was asked, kept its 30 days',
  ledger_accounts: 'the ledger is append-only: a reset zeroes the test wallets with an entry instead',
  ledger_postings: 'the ledger is append-only (see ledger_accounts)',
  wallet_transfers: 'entries of the ledger, which is append-only',
};

/** Tables without `tenant_id`: the platform's, or a store's reached through another table. */
export const NOT_STORE_TABLES: Readonly<Record<string, string>> = {
  tenants: 'the stores themselves: a reset keeps the test store',
  kysely_migration: 'the migrator’s',
  kysely_migration_lock: 'the migrator’s',
  sqlite_sequence: 'SQLite’s',
  console_throttle: 'sign-in throttling by address',
  plugins: 'the marketplace’s listings (by their developer’s store, in neither mode)',
  plugin_revisions: 'the marketplace’s listings’ revisions',
  ledger_entries: 'the ledger is append-only',
  analytics_queue: 'reached through events: deleted with the test store’s events',
  import_chunks: 'reached through imports: deleted with the test store’s imports',
};

/** Tables whose rows other tables' delete triggers write (the kept totals): deleted last. */
const LAST = ['list_count_deltas', 'list_counts'];

/**
 * The kept totals' lists that count rows a reset keeps (the request log's: `request_logs` and its
 * filters' `request_logs:<filter>`; the audit log's `audit:<filter>`): kept with those rows, or the
 * logs' totals would count nothing.
 */
const KEPT_LISTS = [REQUEST_LOG_LIST, AUDIT_LISTS];

/** What a reset's delete from `table` also requires of a row: kept totals of kept rows stay. */
export function resetCondition(table: string) {
  if (!LAST.includes(table)) return sql``;
  return sql.join(
    KEPT_LISTS.map((list) => sql` AND list <> ${list} AND list NOT LIKE ${`${list}:%`}`),
    sql``,
  );
}

/** A search index's own tables (SQLite FTS5: `<table>_search`, `_search_data`, ...): kept by triggers. */
export function isSearchIndex(table: string): boolean {
  return /_search(_(config|data|docsize|idx|content))?$/.test(table);
}

export interface SchemaTables {
  /** Every base table of the store's schema. */
  all: string[];
  /** Those with a `tenant_id` column. */
  withTenant: Set<string>;
  /** Each table's referenced tables (its foreign keys). */
  references: Map<string, Set<string>>;
}

/** The store's tables, which have `tenant_id`, and their foreign keys, read from the schema. */
export async function schemaTables(store: Store, db: Db): Promise<SchemaTables> {
  const references = new Map<string, Set<string>>();
  const withTenant = new Set<string>();
  let all: string[];
  if (store.dialect === 'sqlite') {
    const rows = await sql<{ name: string }>`
      SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`.execute(db);
    all = rows.rows.map((r) => r.name);
    for (const table of all) {
      const columns = await sql<{ name: string }>`SELECT name FROM pragma_table_info(${table})`.execute(db);
      if (columns.rows.some((c) => c.name === 'tenant_id')) withTenant.add(table);
      const keys = await sql<{
        table: string;
      }>`SELECT "table" FROM pragma_foreign_key_list(${table})`.execute(db);
      references.set(table, new Set(keys.rows.map((k) => k.table)));
    }
  } else {
    const rows = await sql<{ table_name: string }>`
      SELECT table_name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`.execute(db);
    all = rows.rows.map((r) => r.table_name);
    const tenantColumns = await sql<{ table_name: string }>`
      SELECT table_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND column_name = 'tenant_id'`.execute(db);
    const tables = new Set(all);
    for (const row of tenantColumns.rows) if (tables.has(row.table_name)) withTenant.add(row.table_name);
    const keys = await sql<{ table_name: string; referenced: string }>`
      SELECT tc.table_name, ccu.table_name AS referenced
      FROM information_schema.table_constraints tc
      JOIN information_schema.constraint_column_usage ccu
        ON ccu.constraint_name = tc.constraint_name AND ccu.constraint_schema = tc.constraint_schema
      WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = current_schema()`.execute(db);
    for (const table of all) references.set(table, new Set());
    for (const key of keys.rows) references.get(key.table_name)?.add(key.referenced);
  }
  return { all, withTenant, references };
}

/**
 * The tables a reset deletes a store's rows from, in an order the foreign keys allow (a table
 * before the tables it references), the kept totals last.
 */
export function resetOrder(schema: SchemaTables): string[] {
  const remaining = new Set(
    [...schema.withTenant].filter((t) => !(t in KEPT_TABLES) && !LAST.includes(t) && !isSearchIndex(t)),
  );
  const order: string[] = [];
  while (remaining.size > 0) {
    const next = [...remaining].find(
      (table) =>
        ![...remaining].some((other) => other !== table && schema.references.get(other)?.has(table) === true),
    );
    // A cycle of foreign keys: none of ours has one; fail loudly rather than delete half.
    if (next === undefined)
      throw new Error(`test-mode reset: foreign keys form a cycle among ${[...remaining].join(', ')}`);
    order.push(next);
    remaining.delete(next);
  }
  return [...order, ...LAST.filter((t) => schema.withTenant.has(t))];
}

/** Tables neither a store's data (`tenant_id`), kept, nor named as the platform's: a reset would miss them. */
export function unclassifiedTables(schema: SchemaTables): string[] {
  return schema.all.filter((t) => !schema.withTenant.has(t) && !(t in NOT_STORE_TABLES) && !isSearchIndex(t));
}
