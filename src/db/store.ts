import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  PostgresDialect,
  type RawBuilder,
  SqliteDialect,
  type SqliteDatabase as SqliteConnection,
  type SqliteStatement,
  sql,
} from 'kysely';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import { isStalePlan, PreparingClient } from './pg-prepared.js';
import { ensurePrivateDir, ensurePrivateFile } from '../lib/private-files.js';
import { type CommitMarks, commitMarks } from './commit-mark.js';
import type { Database } from './schema.js';
import { createListener } from './pg-listener.js';
import { withoutRowLocks } from './row-locks.js';
import { createPgTransactions } from './pg-transaction.js';
import { createTenantShare } from './tenant-share.js';

/**
 * The one module that knows which database is underneath. Everything else talks to `Store`:
 * a Kysely instance plus the few operations whose SQL or semantics differ per dialect.
 */

export type DialectName = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;

export interface Store {
  readonly dialect: DialectName;
  readonly db: Db;
  /** The PostgreSQL schema tables live in (`public` unless DATABASE_SCHEMA says otherwise). */
  readonly schema: string | undefined;
  /**
   * Runs `fn` in one write transaction. SQLite takes the write lock up front (BEGIN IMMEDIATE) so
   * two writers never deadlock on a lock upgrade; PostgreSQL retries serialization failures and
   * deadlocks with backoff, so callers never see them.
   */
  transaction<T>(fn: (trx: Db) => Promise<T>): Promise<T>;
  /**
   * Runs `fn`, a write outside any transaction, without waiting for the disk: for bookkeeping whose
   * loss in a power cut is harmless because whatever depends on it commits durably after it (a
   * request's claim of its Idempotency-Key before its use case commits). SQLite: its statements run
   * with `synchronous = NORMAL`, and the next durable commit writes them to disk too (the WAL is
   * written in order). PostgreSQL: `fn` on the store as is.
   */
  unsynced<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /**
   * Ends the transaction `trx` belongs to with `statement`, its values inline (`inline`, src/db/pg-transaction.ts): what
   * waits for the commit is written first, then the statement, then the COMMIT. PostgreSQL sends
   * the statement and the COMMIT as one message, so a row it locks is held for no round trip to
   * the process (src/db/pg-transaction.ts); SQLite runs the statement, then the COMMIT. The use
   * case does nothing with `trx` after it; if the statement fails, the transaction rolls back.
   */
  commitWith(trx: Db, statement: RawBuilder<unknown>): Promise<void>;
  /**
   * Calls `fn` once the transaction `trx` belongs to has committed: never when it rolls back, and
   * on PostgreSQL only for the attempt that committed. Outside a transaction, at once. `fn` must
   * not throw: the change is committed by then.
   */
  afterCommit(trx: Db, fn: () => void): void;
  /**
   * Runs `fn` in the transaction `trx` belongs to, once its use case is done and just before its
   * COMMIT (in the order registered): writes that take a row every change of a store takes (the
   * audit chain's head) hold it only for the commit. Outside a transaction, at once.
   */
  beforeCommit(trx: Db, fn: () => Promise<void>): Promise<void>;
  /**
   * Runs now what `trx`'s transaction registered so far to run before its COMMIT (what is
   * registered later still runs at the commit): for a use case whose last statement takes a row
   * every change of a store takes (the store's wallet), so that row is held only for that
   * statement and the commit. Outside a transaction, nothing.
   */
  flushBeforeCommit(trx: Db): Promise<void>;
  /**
   * SQLite: marks of the last commit by any connection of any process, read without a
   * transaction (src/db/commit-mark.ts), for caches that must see every commit at once.
   * Undefined on PostgreSQL.
   */
  readonly commitMarks: CommitMarks | undefined;
  /**
   * Tells every process on this database about `payload` on `topic` once `trx` commits (PostgreSQL
   * NOTIFY, transactional: a rolled-back change notifies no one). SQLite serves one process, which
   * acts on its own changes directly, so there it does nothing.
   */
  notify(trx: Db, topic: string, payload: string): Promise<void>;
  /**
   * Calls `onMessage` for every notification on `topic`, from any process. `onGap` runs whenever
   * notifications may have been missed (the listening connection was lost and is back): a
   * listener that caches must then drop what it holds. The listener stops with `close()`.
   */
  listen(topic: string, onMessage: (payload: string) => void, onGap: () => void): void;
  /**
   * Runs `fn`, and everything it starts, as `tenantId`'s: on PostgreSQL the tenant then holds or
   * waits for at most its share of the pool (`DATABASE_TENANT_CONNECTIONS`), so requests of one
   * tenant stuck on a row lock leave the rest of the pool to the others (src/db/tenant-share.ts).
   * `ahead`: its waits for a connection go ahead of the tenant's other new requests (a cart's
   * completion). Undefined on SQLite, whose one connection serves one statement at a time and is
   * never held across a wait.
   */
  readonly asTenant: (<T>(tenantId: string, fn: () => T, ahead?: boolean) => T) | undefined;
  /**
   * Runs `fn`, and everything it starts, outside the share of the tenant running: for the
   * bookkeeping that ends a request already answered (its Idempotency-Key), which must not queue
   * behind the tenant's own waiting requests.
   */
  outsideTenant<T>(fn: () => T): T;
  /**
   * Resolves when the store can serve requests; otherwise rejects, within `READY_TIMEOUT_MS`, with
   * an error `storeUnavailable` names (unreachable, refusing new connections, or no answer in time).
   */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface StoreOptions {
  databaseUrl?: string | undefined;
  databaseSchema?: string | undefined;
  dataDir: string;
  poolSize?: number;
  /** How long a statement waits for a lock: PostgreSQL's `lock_timeout`, SQLite's busy timeout. */
  databaseLockTimeoutMs?: number;
  /** How long one statement may run on PostgreSQL (`statement_timeout`). */
  databaseStatementTimeoutMs?: number;
  /** Pool connections one tenant may hold or wait for at once (default: half the pool). */
  databaseTenantConnections?: number | undefined;
  /** PostgreSQL: each statement prepared once per connection (src/db/pg-prepared.ts; default true). */
  databasePreparedStatements?: boolean;
}

export const DEFAULT_LOCK_TIMEOUT_MS = 5_000;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
/** How long `ping` (and so `/readyz`) takes at most to say the store is not ready. */
export const READY_TIMEOUT_MS = 2_000;

// int8 (COUNT, SUM of integers, epoch milliseconds, minor units) and numeric (SUM of int8) as
// numbers: every value we keep stays far below 2^53.
pg.types.setTypeParser(20, (value) => Number(value));
pg.types.setTypeParser(1700, (value) => Number(value));

const RETRYABLE_PG_CODES = new Set(['40001', '40P01']);
const MAX_TX_ATTEMPTS = 8;

/** Serialization failures, deadlocks, and a prepared statement made stale by a migration (pg-prepared.ts). */
function isRetryable(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    (RETRYABLE_PG_CODES.has(String((error as { code: unknown }).code)) || isStalePlan(error))
  );
}

/**
 * Why the store cannot serve a request right now, a transient condition the HTTP layer answers
 * with 503 and `Retry-After` so clients retry (never a bug, never a 500):
 * - `unreachable`: refused or lost connection, server shutting down or restarting (PostgreSQL
 *   class 08, 57P01-57P02, socket errors, pg's own connection messages);
 * - `refusing_connections`: the server is up but takes no new connection (class 53 insufficient
 *   resources, e.g. 53300 too many connections for the role or in all; 57P03 cannot connect now);
 * - `lock_timeout`: a statement waited for a lock longer than `DATABASE_LOCK_TIMEOUT_MS`
 *   (PostgreSQL 55P03; SQLite's busy timeout, SQLITE_BUSY);
 * - `statement_timeout`: a statement ran longer than `DATABASE_STATEMENT_TIMEOUT_MS`, or was
 *   cancelled (57014);
 * - `busy`: no pool connection came free in time (every one in use, or new ones not made);
 * - `tenant_busy`: the tenant's share of the pool stayed taken (src/db/tenant-share.ts);
 * - `no_answer`: the database did not answer `ping` within READY_TIMEOUT_MS.
 */
export type StoreUnavailableReason =
  | 'unreachable'
  | 'refusing_connections'
  | 'lock_timeout'
  | 'statement_timeout'
  | 'busy'
  | 'tenant_busy'
  | 'no_answer';

/** A refusal of our own making: the tenant's share stayed taken, or the store did not answer in time. */
export class StoreUnavailableError extends Error {
  constructor(
    readonly reason: StoreUnavailableReason,
    message: string,
  ) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}

const UNREACHABLE_PG_CODES = new Set(['57P01', '57P02']);
const REFUSING_PG_CODES = new Set(['57P03']);
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable)/;
/** pg-pool's answer to a request that waited CONNECT_TIMEOUT_MS in its queue. */
const POOL_WAIT_MESSAGE = /^timeout exceeded when trying to connect/;

function reasonOfCode(code: string): StoreUnavailableReason | undefined {
  if (code === '55P03' || code.startsWith('SQLITE_BUSY')) return 'lock_timeout';
  if (code === '57014') return 'statement_timeout';
  if (REFUSING_PG_CODES.has(code) || (code.length === 5 && code.startsWith('53')))
    return 'refusing_connections';
  if (UNREACHABLE_PG_CODES.has(code) || code.startsWith('08') || UNAVAILABLE_SOCKET_CODES.has(code)) {
    return 'unreachable';
  }
  return undefined;
}

export function storeUnavailable(error: unknown, depth = 0): StoreUnavailableReason | undefined {
  if (typeof error !== 'object' || error === null || depth > 3) return undefined;
  if (error instanceof StoreUnavailableError) return error.reason;
  const { code, message, errors, cause } = error as {
    code?: unknown;
    message?: unknown;
    errors?: unknown;
    cause?: unknown;
  };
  const byCode = typeof code === 'string' ? reasonOfCode(code) : undefined;
  if (byCode) return byCode;
  if (typeof message === 'string') {
    if (UNAVAILABLE_MESSAGES.test(message)) return 'unreachable';
    if (POOL_WAIT_MESSAGE.test(message)) return 'busy';
  }
  // net.connect to several addresses fails with an AggregateError; wrappers keep the original as cause.
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const reason = storeUnavailable(inner, depth + 1);
      if (reason) return reason;
    }
  }
  return cause === undefined ? undefined : storeUnavailable(cause, depth + 1);
}

export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'store.sqlite');
}

/**
 * Kysely prepares every query it runs, and preparing costs more than running a typical indexed
 * query (a tenth of a product page's CPU time). The least recently used 1,000 statements are kept
 * by SQL text instead; SQLite prepares one again by itself after a schema change, and Kysely's
 * SQLite driver runs one query at a time, so a kept statement is never in use twice.
 */
function keepingStatements(database: SqliteConnection): SqliteConnection {
  const statements = new LRUCache<string, SqliteStatement>({ max: 1_000 });
  return {
    close: () => database.close(),
    prepare(text) {
      let statement = statements.get(text);
      if (statement === undefined) {
        statement = database.prepare(text);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

/** Runs and takes out each of `list` in order, with what each adds to it meanwhile. */
async function runAll(list: (() => Promise<void>)[]): Promise<void> {
  for (let next = list.shift(); next !== undefined; next = list.shift()) await next();
}

/** The `afterCommit` and `beforeCommit` callbacks of the transactions open in this process. */
function commitCallbacks() {
  const open = new WeakMap<Db, (() => void)[]>();
  const closing = new WeakMap<Db, (() => Promise<void>)[]>();
  /** Transactions ended by `commitWith` while their use case still runs. */
  const closed = new WeakSet<Db>();
  return {
    /**
     * Runs `fn` with its own list of callbacks for `trx`, then the work registered to run before
     * its commit, and returns its result and the list.
     */
    async collect<T>(trx: Db, fn: (trx: Db) => Promise<T>): Promise<[T, (() => void)[]]> {
      const callbacks: (() => void)[] = [];
      const before: (() => Promise<void>)[] = [];
      open.set(trx, callbacks);
      closing.set(trx, before);
      try {
        const result = await fn(trx);
        // What it registers runs too (a write before the commit may register another).
        await runAll(before);
        return [result, callbacks];
      } finally {
        open.delete(trx);
        closing.delete(trx);
        closed.delete(trx);
      }
    },
    async before(trx: Db, fn: () => Promise<void>): Promise<void> {
      if (closed.has(trx)) throw new Error('beforeCommit: the transaction has committed (commitWith)');
      const list = closing.get(trx);
      if (list) list.push(fn);
      else await fn();
    },
    close(trx: Db): void {
      closed.add(trx);
    },
    async flush(trx: Db): Promise<void> {
      const list = closing.get(trx);
      if (list) await runAll(list);
    },
    add(trx: Db, fn: () => void): void {
      const callbacks = open.get(trx);
      if (callbacks) callbacks.push(fn);
      else fn();
    },
  };
}

/**
 * The case fold product search compares with, on both sides of the comparison: lower-cased, then
 * `ς` as `σ` and COMBINING DOT ABOVE (U+0307) dropped. JavaScript lower-cases a word-final `Σ` to
 * `ς` and `İ` to `i` + U+0307, so without the last two steps `ΚΑΣ` would not find `ΚΑΣΑΣ`, nor
 * `istanbul` find `İstanbul`. PostgreSQL folds the same way in SQL (`pgFold` in src/db/search.ts).
 */
export function searchFold(text: string): string {
  return text.toLowerCase().replaceAll('\u03c2', '\u03c3').replaceAll('\u0307', '');
}

function openSqlite(dataDir: string, lockTimeoutMs: number): Store {
  ensurePrivateDir(dataDir);
  // The store holds webhook signing secrets: 0600, and SQLite creates its -wal and -shm alike.
  const file = sqliteFile(dataDir);
  for (const part of [file, `${file}-wal`, `${file}-shm`]) ensurePrivateFile(part, { create: part === file });
  const database = new SqliteDatabase(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma('foreign_keys = ON');
  // A write waits this long for another process's write (the operator CLI), then fails SQLITE_BUSY:
  // 503 with Retry-After. better-sqlite3 waits synchronously, so this is also how long the process stalls.
  database.pragma(`busy_timeout = ${Math.trunc(lockTimeoutMs)}`);
  // Product search folds with this, since SQLite's own lower() folds ASCII only ('É' stays 'É').
  database.function('search_fold', { deterministic: true }, (text: unknown) =>
    typeof text === 'string' ? searchFold(text) : text,
  );
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: keepingStatements(database) }),
    plugins: [withoutRowLocks],
  });
  const committed = commitCallbacks();
  // A new database in WAL mode has no WAL-index (`-shm`) until its first read: read once first.
  database.prepare('SELECT count(*) FROM sqlite_master').get();
  const marks = commitMarks(file);
  return {
    dialect: 'sqlite',
    db,
    schema: undefined,
    commitMarks: marks,
    asTenant: undefined,
    outsideTenant: (fn) => fn(),
    async notify() {},
    listen() {},
    async transaction(fn) {
      // Kysely's SQLite driver has one connection guarded by a mutex: holding it for the whole
      // transaction keeps other in-process queries out until COMMIT.
      const [result, callbacks] = await db.connection().execute(async (conn) => {
        await sql`BEGIN IMMEDIATE`.execute(conn);
        try {
          const done = await committed.collect(conn, fn);
          // Unless `commitWith` committed already.
          if (database.inTransaction) await sql`COMMIT`.execute(conn);
          return done;
        } catch (error) {
          if (database.inTransaction) await sql`ROLLBACK`.execute(conn);
          throw error;
        }
      });
      for (const callback of callbacks) callback();
      return result;
    },
    async commitWith(trx, statement) {
      await committed.flush(trx);
      await statement.execute(trx);
      await sql`COMMIT`.execute(trx);
      committed.close(trx);
    },
    afterCommit: committed.add,
    beforeCommit: committed.before,
    flushBeforeCommit: committed.flush,
    unsynced(fn) {
      return db.connection().execute(async (conn) => {
        await sql`PRAGMA synchronous = NORMAL`.execute(conn);
        try {
          return await fn(conn);
        } finally {
          await sql`PRAGMA synchronous = FULL`.execute(conn);
        }
      });
    },
    async ping() {
      await sql`SELECT 1`.execute(db);
    },
    async close() {
      await db.destroy();
      marks.close();
    },
  };
}

/** How long PostgreSQL lets a session sit idle inside a transaction before ending it. */
const IDLE_IN_TRANSACTION_MS = 30_000;

/** How long a request waits for a pool connection. */
const CONNECT_TIMEOUT_MS = 5_000;
/**
 * How long a request beyond its tenant's share waits for one of the share's connections: twice
 * the pool's wait, since queueing behind the tenant's own burst is to be expected (transfers from
 * one wallet run one at a time), unlike finding no connection at all.
 */
const TENANT_WAIT_MS = 2 * CONNECT_TIMEOUT_MS;
/**
 * A tenant may have this many requests per connection of its share waiting for one; past that a
 * request is refused at once rather than queued (its wait is bounded by TENANT_WAIT_MS anyway).
 */
const QUEUED_PER_CONNECTION = 64;
/** While new connections fail, `ping` tries one at most this often. */
const PROBE_INTERVAL_MS = 1_000;

interface PostgresOptions {
  poolSize: number;
  lockTimeoutMs: number;
  statementTimeoutMs: number;
  tenantConnections: number | undefined;
  preparedStatements: boolean;
}

/** Rejects with `no_answer` when `work` has not settled within `ms`. */
async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new StoreUnavailableError('no_answer', `The database did not answer within ${ms} ms.`)),
      ms,
    );
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

function openPostgres(url: string, schema: string | undefined, options: PostgresOptions): Store {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // A process that stops mid-transaction (frozen, partitioned) must not hold its row locks for
    // ever: the server ends such a session after 30 s idle in a transaction, and the others go on.
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    // No statement waits on a lock, or runs, without end: it fails 55P03 or 57014, answered 503
    // with Retry-After, and its connection goes back to the pool.
    lock_timeout: options.lockTimeoutMs,
    statement_timeout: options.statementTimeoutMs,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
    ...(options.preparedStatements ? { Client: PreparingClient as unknown as typeof pg.Client } : {}),
  });
  // An idle client losing its server (restart, network) must not crash the process, and neither
  // may a checked-out one between two queries (pg-pool listens on idle clients only): its next
  // query fails (503 service_unavailable) and the pool drops it on release.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  // Whether a new connection failed (the server refusing or gone) since `ping` last made one
  // itself: connections the pool already holds may still answer while new ones are refused, so
  // `ping` then tries a new one before it says ready.
  let connectFailed = false;
  const perTenant = options.tenantConnections ?? Math.max(1, Math.floor(options.poolSize / 2));
  const share = createTenantShare<pg.PoolClient>(
    () =>
      pool.connect().catch((error: unknown) => {
        const reason = storeUnavailable(error);
        if (reason === 'unreachable' || reason === 'refusing_connections') connectFailed = true;
        throw error;
      }),
    {
      perTenant,
      waitMs: TENANT_WAIT_MS,
      queueLimit: perTenant * QUEUED_PER_CONNECTION,
      refuse: (why) =>
        new StoreUnavailableError(
          'tenant_busy',
          why === 'queue_full'
            ? 'Too many requests of this tenant are waiting for the database.'
            : `No connection of this tenant's share came free within ${TENANT_WAIT_MS} ms.`,
        ),
    },
  );
  pool.on('release', (_error, client) => share.released(client));
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: { connect: share.connect, end: () => pool.end() } }),
  });

  let pinging: Promise<void> | undefined;
  /** A connection of its own, outside the pool: whether the server takes new ones right now. */
  let probing: Promise<void> | undefined;
  let lastProbe: { at: number; error: unknown } | undefined;
  function probe(): Promise<void> {
    if (probing) return probing;
    if (lastProbe && Date.now() - lastProbe.at < PROBE_INTERVAL_MS) return Promise.reject(lastProbe.error);
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: READY_TIMEOUT_MS });
    client.on('error', () => undefined);
    probing = client
      .connect()
      .then(
        () => {
          connectFailed = false;
          lastProbe = undefined;
        },
        (error: unknown) => {
          lastProbe = { at: Date.now(), error };
          throw error;
        },
      )
      .finally(() => {
        probing = undefined;
        client.end().catch(() => undefined);
      });
    return probing;
  }

  // Channels are per schema: several deployments (or test runs) can share one database.
  const channel = (topic: string) => `cp_${schema ?? 'public'}_${topic}`;
  const listener = createListener(url);
  const committed = commitCallbacks();
  const transactions = createPgTransactions(db, committed);
  return {
    dialect: 'postgres',
    db,
    schema: schema ?? 'public',
    commitMarks: undefined,
    asTenant: share.run,
    outsideTenant: share.outside,
    async notify(trx, topic, payload) {
      await sql`SELECT pg_notify(${channel(topic)}, ${payload})`.execute(trx);
    },
    listen(topic, onMessage, onGap) {
      listener.add(channel(topic), onMessage, onGap);
    },
    async transaction(fn) {
      for (let attempt = 1; ; attempt++) {
        try {
          const [result, callbacks] = await transactions.attempt(fn);
          for (const callback of callbacks) callback();
          return result;
        } catch (error) {
          if (!isRetryable(error) || attempt >= MAX_TX_ATTEMPTS) throw error;
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** attempt));
        }
      }
    },
    commitWith: transactions.commitWith,
    afterCommit: committed.add,
    beforeCommit: committed.before,
    flushBeforeCommit: committed.flush,
    unsynced: (fn) => fn(db),
    ping() {
      // One at a time: however often /readyz is asked, it takes one pool connection at most.
      pinging ??= within(
        READY_TIMEOUT_MS,
        (async () => {
          if (connectFailed) await probe();
          await sql`SELECT 1`.execute(db);
        })(),
      ).finally(() => {
        pinging = undefined;
      });
      return pinging;
    },
    async close() {
      await listener.close();
      await db.destroy();
    },
  };
}

export function openStore(options: StoreOptions): Store {
  const lockTimeoutMs = options.databaseLockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.databaseSchema, {
        poolSize: options.poolSize ?? 10,
        lockTimeoutMs,
        statementTimeoutMs: options.databaseStatementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
        tenantConnections: options.databaseTenantConnections,
        preparedStatements: options.databasePreparedStatements ?? true,
      })
    : openSqlite(options.dataDir, lockTimeoutMs);
}
