import { type RawBuilder, sql } from 'kysely';
import pg from 'pg';
import type { Db } from './store.js';

/** The store's callbacks around commits (`commitCallbacks` in store.ts). */
export interface CommitCallbacks {
  /** Runs a use case with its own callbacks, then the work registered to run before its commit. */
  collect<T>(trx: Db, fn: (trx: Db) => Promise<T>): Promise<[T, (() => void)[]]>;
  /** Runs now the work registered so far to run before the commit. */
  flush(trx: Db): Promise<void>;
  /** The transaction has committed: work registered to run before its commit is refused from now on. */
  close(trx: Db): void;
}

/**
 * PostgreSQL transactions on one pool connection each, BEGIN and COMMIT sent by hand (rather than
 * through Kysely's `transaction()`), so that a use case may end its transaction with its last
 * statement and the COMMIT in one message (`commitWith`): one round trip where there were two.
 * A row that statement locks (the product a flash sale's shoppers all buy) is then held for no
 * round trip to the process at all, only while PostgreSQL runs the statement and commits.
 */
export function createPgTransactions(db: Db, committed: CommitCallbacks) {
  /** The transactions open on this process's connections, and whether each still is. */
  const open = new WeakMap<Db, { open: boolean }>();

  return {
    /** One attempt of `fn` in a transaction: committed, or rolled back and its error thrown. */
    async attempt<T>(fn: (trx: Db) => Promise<T>): Promise<[T, (() => void)[]]> {
      return db.connection().execute(async (conn) => {
        await sql`BEGIN`.execute(conn);
        const state = { open: true };
        open.set(conn, state);
        try {
          const done = await committed.collect(conn, fn);
          if (state.open) await sql`COMMIT`.execute(conn);
          return done;
        } catch (error) {
          // Committed (`commitWith`) before the use case failed: never to be tried again.
          if (!state.open)
            throw new Error('the use case failed after its commit (commitWith)', { cause: error });
          // A statement that failed left the transaction aborted (or a COMMIT that failed ended it).
          await sql`ROLLBACK`.execute(conn).catch(() => undefined);
          throw error;
        } finally {
          open.delete(conn);
        }
      });
    },

    /**
     * Ends `trx`'s transaction with `statement`: what waits for the commit (`beforeCommit`) is
     * written first, then the statement and COMMIT go as one message (the simple query protocol,
     * so the statement carries its values inline: build it with `inline`). If the statement
     * fails, nothing after it runs and the transaction rolls back as after any failed statement.
     * The use case does nothing with `trx` after it.
     */
    async commitWith(trx: Db, statement: RawBuilder<unknown>): Promise<void> {
      const state = open.get(trx);
      if (!state?.open) throw new Error('commitWith: not in an open transaction');
      await committed.flush(trx);
      const compiled = statement.compile(trx);
      if (compiled.parameters.length > 0) {
        throw new Error('commitWith: the statement must carry its values inline (`inline`)');
      }
      await sql.raw(`${compiled.sql}; COMMIT`).execute(trx);
      state.open = false;
      committed.close(trx);
    },
  };
}

/**
 * A value written into a statement for `commitWith`: strings through node-postgres's
 * `escapeLiteral`, which doubles quotes and backslashes (an `E'...'` literal), so merchant text (a
 * product's name, a SKU) reads as itself whatever the server's `standard_conforming_strings`;
 * numbers, booleans and null as Kysely writes them. Statements with parameters keep them.
 * PostgreSQL's syntax (`E'...'`): for statements only PostgreSQL runs (a take, a wallet credit
 * sent with the COMMIT); SQLite's callers of `commitWith` may pass parameters.
 */
export function inline(value: string | number | boolean | null): RawBuilder<unknown> {
  if (typeof value === 'string') return sql.raw(pg.escapeLiteral(value));
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
  return sql.lit(value);
}
