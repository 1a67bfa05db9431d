import { type Migration, Migrator, sql } from 'kysely';
import { loadModules } from '../kernel/modules.js';
import { migrations as houseMigrations } from './migrations/index.js';
import type { Db, Store } from './store.js';

/** What declares migrations besides src/db/migrations/: a module's manifest. */
export interface MigrationSource {
  name: string;
  migrations?: Readonly<Record<string, Migration>>;
}

/** A migration's name: its number in the one list all share, then what it does. */
const MIGRATION_NAME = /^(\d{4})_[a-z0-9_]+$/;

/**
 * Every migration, in name order: src/db/migrations/ (the house's) and each module's own (its
 * manifest's `migrations`). The names are what a store records as applied, so they never change;
 * the numbers make the order total: a number two migrations take, or a name without one, fails
 * (the start, as the migrator asks first), naming them.
 */
export function allMigrations(modules: readonly MigrationSource[]): Record<string, Migration> {
  const byNumber = new Map<string, string>();
  const found: [string, Migration][] = [];
  const sources = [{ name: 'src/db/migrations', migrations: houseMigrations }, ...modules];
  for (const source of sources) {
    for (const [name, migration] of Object.entries(source.migrations ?? {})) {
      const number = MIGRATION_NAME.exec(name)?.[1];
      if (number === undefined) {
        throw new Error(`migration ${name} (${source.name}) must be named NNNN_what_it_does`);
      }
      const taken = byNumber.get(number);
      if (taken !== undefined) {
        throw new Error(`migration number ${number} is taken twice: ${taken} and ${name} (${source.name})`);
      }
      byNumber.set(number, `${name} (${source.name})`);
      found.push([name, migration]);
    }
  }
  return Object.fromEntries(found.sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * Applies pending migrations: the house's and those of `modules` (by default every module found).
 * Idempotent. On PostgreSQL a session-level advisory lock, keyed by the current schema, serialises
 * processes that start at the same moment, so the second one finds the work done instead of racing
 * on CREATE TABLE. The migrations run on that lock's connection,
 * without the lock and statement timeouts requests have: the second process waits as long as the
 * first takes, and an index build on a large table runs to its end.
 */
export async function migrateToLatest(store: Store, modules?: readonly MigrationSource[]): Promise<void> {
  const migrations = allMigrations(modules ?? (await loadModules()));
  const provider = { getMigrations: async () => migrations };
  const run = async (db: Db) => {
    // Kysely looks for its bookkeeping tables by name across schemas: name ours explicitly.
    const migrator = new Migrator({
      db,
      provider,
      // Modules add migrations independently; one that sorts before an applied one still runs.
      allowUnorderedMigrations: true,
      ...(store.schema ? { migrationTableSchema: store.schema } : {}),
    });
    let { error, results } = await migrator.migrateToLatest();
    // Kysely's migrator reads the catalog of every schema to find its tables: a schema another
    // deployment (or test run) drops meanwhile fails that read (`isCatalogRace`). Nothing was
    // applied then (no results); reading again is safe.
    for (let attempt = 1; attempt < 5 && isCatalogRace(error) && results === undefined; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      ({ error, results } = await migrator.migrateToLatest());
    }
    if (error) {
      const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
      throw new Error(
        `Migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
  if (store.dialect === 'sqlite') return run(store.db);
  await store.db.connection().execute(async (conn) => {
    await sql`SET lock_timeout = 0`.execute(conn);
    await sql`SET statement_timeout = 0`.execute(conn);
    try {
      await sql`SELECT pg_advisory_lock(hashtext(current_schema()))`.execute(conn);
      try {
        await run(conn);
      } finally {
        await sql`SELECT pg_advisory_unlock(hashtext(current_schema()))`.execute(conn);
      }
    } finally {
      // Back to the pool's settings before the connection goes back to the pool.
      await sql`RESET lock_timeout`.execute(conn);
      await sql`RESET statement_timeout`.execute(conn);
    }
  });
}

/**
 * A catalog read failed because another schema went away meanwhile (see migrateToLatest): the
 * schema (3F000), one of its tables (42P01), or a column of one, which the read names to ask for
 * its sequence (42703, "column ... of relation ... does not exist").
 */
export function isCatalogRace(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === '3F000' || code === '42P01' || code === '42703';
}
