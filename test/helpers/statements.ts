import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import type { TestContext } from './context.js';

/**
 * The SQL statements a piece of work sends to a test context's store, in order, as the driver
 * runs them: on PostgreSQL every query a connection to the context's database sends (each one
 * round trip: BEGIN and COMMIT included), on SQLite every prepared statement run against the
 * context's file. Counted below Kysely, so nothing a repository builds is missed. Work of other
 * stores in the process is not counted.
 */
export async function statementsOf(
  ctx: Pick<TestContext, 'dialect'> & { store: Pick<TestContext['store'], 'env' | 'dataDir'> },
  work: () => Promise<unknown>,
): Promise<string[]> {
  const sent: string[] = [];
  const record = (text: unknown) => sent.push(String(text).replace(/\s+/g, ' ').trim());
  if (ctx.dialect === 'postgres') {
    const database = new URL(ctx.store.env.DATABASE_URL ?? '').pathname.slice(1);
    const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
    const original = proto.query;
    proto.query = function (this: pg.Client, ...args: unknown[]) {
      if (this.database === database) {
        const first = args[0];
        record(typeof first === 'string' ? first : (first as { text?: unknown } | undefined)?.text);
      }
      return original.apply(this, args);
    };
    try {
      await work();
    } finally {
      proto.query = original;
    }
    return sent;
  }
  const file = path.resolve(ctx.store.dataDir, 'store.sqlite');
  const scratch = new SqliteDatabase(':memory:');
  const proto = Object.getPrototypeOf(scratch.prepare('SELECT 1')) as Record<
    string,
    (this: { source: string; database: { name: string } }, ...args: unknown[]) => unknown
  >;
  scratch.close();
  const methods = ['run', 'get', 'all', 'iterate'] as const;
  const originals = methods.map((method) => proto[method]);
  methods.forEach((method, i) => {
    const original = originals[i] as (typeof proto)[string];
    proto[method] = function (...args: unknown[]) {
      if (path.resolve(this.database.name) === file) record(this.source);
      return original.apply(this, args);
    };
  });
  try {
    await work();
  } finally {
    methods.forEach((method, i) => {
      proto[method] = originals[i] as (typeof proto)[string];
    });
  }
  return sent;
}

/**
 * The statements split by transaction: those outside any, and each transaction's (BEGIN to COMMIT).
 * A statement sent with its COMMIT in one message (`store.commitWith`, PostgreSQL: `...; COMMIT`) is
 * one round trip that ends its transaction: counted once.
 */
export function byTransaction(statements: readonly string[]): { outside: number; transactions: number[] } {
  let outside = 0;
  const transactions: number[] = [];
  let open: number | undefined;
  for (const statement of statements) {
    const word = statement.split(' ')[0]?.toUpperCase();
    if (word === 'BEGIN') {
      open = 1;
    } else if (open !== undefined) {
      open += 1;
      if (word === 'COMMIT' || word === 'ROLLBACK' || endsWithCommit(statement)) {
        transactions.push(open);
        open = undefined;
      }
    } else {
      outside += 1;
    }
  }
  return { outside, transactions };
}

/**
 * SQLite: the writes that wait for the disk (its `synchronous = FULL` fsync): each COMMIT, and
 * each write outside a transaction that does not run between `PRAGMA synchronous = NORMAL` and
 * `FULL` (src/db/store.ts `unsynced`).
 */
export function durableWrites(statements: readonly string[]): number {
  let durable = 0;
  let inTransaction = false;
  let unsynced = false;
  for (const statement of statements) {
    const upper = statement.toUpperCase();
    if (upper.startsWith('BEGIN')) inTransaction = true;
    else if (upper.startsWith('COMMIT')) {
      inTransaction = false;
      if (!unsynced) durable += 1;
    } else if (upper.startsWith('ROLLBACK')) inTransaction = false;
    else if (upper.startsWith('PRAGMA SYNCHRONOUS = NORMAL')) unsynced = true;
    else if (upper.startsWith('PRAGMA SYNCHRONOUS = FULL')) unsynced = false;
    else if (!inTransaction && !unsynced && /^(INSERT|UPDATE|DELETE)/.test(upper)) durable += 1;
  }
  return durable;
}

/** Whether a statement was sent with the COMMIT that follows it (`store.commitWith`). */
export function endsWithCommit(statement: string): boolean {
  return /; COMMIT$/i.test(statement);
}
