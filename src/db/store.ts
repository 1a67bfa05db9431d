import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  PostgresDialect,
  SqliteDialect,
  type SqliteDatabase as SqliteConnection,
  type SqliteStatement,
  sql,
} from 'kysely';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import type { Database } from './schema.js';

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
   * Calls `fn` once the transaction `trx` belongs to has committed: never when it rolls back, and
   * on PostgreSQL only for the attempt that committed. Outside a transaction, at once. `fn` must
   * not throw: the change is committed by then.
   */
  afterCommit(trx: Db, fn: () => void): void;
  /** `SELECT ... FOR UPDATE` on PostgreSQL; SQLite's write transaction already excludes writers. */
  readonly supportsRowLocks: boolean;
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
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface StoreOptions {
  databaseUrl?: string | undefined;
  databaseSchema?: string | undefined;
  dataDir: string;
  poolSize?: number;
}

// int8 (COUNT, SUM of integers, epoch milliseconds, minor units) and numeric (SUM of int8) as
// numbers: every value we keep stays far below 2^53.
pg.types.setTypeParser(20, (value) => Number(value));
pg.types.setTypeParser(1700, (value) => Number(value));

const RETRYABLE_PG_CODES = new Set(['40001', '40P01']);
const MAX_TX_ATTEMPTS = 8;

function isRetryable(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    RETRYABLE_PG_CODES.has(String((error as { code: unknown }).code))
  );
}

/**
 * Whether `error` means the database cannot be reached right now (refused or lost connection,
 * server shutting down, restarting or starting up): a transient condition the HTTP layer answers
 * with 503 so clients retry, not a bug. PostgreSQL class 08 (connection exception), 57P01-57P03
 * (admin/crash shutdown, cannot connect now), socket errors and pg's own connection messages.
 */
const UNAVAILABLE_PG_CODES = new Set(['57P01', '57P02', '57P03']);
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
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable)/;

export function isStoreUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const { code, message, errors, cause } = error as {
    code?: unknown;
    message?: unknown;
    errors?: unknown;
    cause?: unknown;
  };
  if (typeof code === 'string') {
    if (UNAVAILABLE_PG_CODES.has(code) || code.startsWith('08') || UNAVAILABLE_SOCKET_CODES.has(code)) {
      return true;
    }
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
  // net.connect to several addresses fails with an AggregateError; wrappers keep the original as cause.
  if (Array.isArray(errors) && errors.some((inner) => isStoreUnavailable(inner, depth + 1))) return true;
  return cause !== undefined && isStoreUnavailable(cause, depth + 1);
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

/** The `afterCommit` callbacks of the transactions open in this process. */
function commitCallbacks() {
  const open = new WeakMap<Db, (() => void)[]>();
  return {
    /** Runs `fn` with its own list of callbacks for `trx`, and returns its result and the list. */
    async collect<T>(trx: Db, fn: (trx: Db) => Promise<T>): Promise<[T, (() => void)[]]> {
      const callbacks: (() => void)[] = [];
      open.set(trx, callbacks);
      try {
        return [await fn(trx), callbacks];
      } finally {
        open.delete(trx);
      }
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
 * `istanbul` find `İstanbul`. PostgreSQL folds the same way in SQL (`SEARCH_TEXT` in products.repository.ts).
 */
export function searchFold(text: string): string {
  return text.toLowerCase().replaceAll('\u03c2', '\u03c3').replaceAll('\u0307', '');
}

function openSqlite(dataDir: string): Store {
  fs.mkdirSync(dataDir, { recursive: true });
  const database = new SqliteDatabase(sqliteFile(dataDir));
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  // Product search folds with this, since SQLite's own lower() folds ASCII only ('É' stays 'É').
  database.function('search_fold', { deterministic: true }, (text: unknown) =>
    typeof text === 'string' ? searchFold(text) : text,
  );
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: keepingStatements(database) }) });
  const committed = commitCallbacks();
  return {
    dialect: 'sqlite',
    db,
    schema: undefined,
    supportsRowLocks: false,
    async notify() {},
    listen() {},
    async transaction(fn) {
      // Kysely's SQLite driver has one connection guarded by a mutex: holding it for the whole
      // transaction keeps other in-process queries out until COMMIT.
      const [result, callbacks] = await db.connection().execute(async (conn) => {
        await sql`BEGIN IMMEDIATE`.execute(conn);
        try {
          const done = await committed.collect(conn, fn);
          await sql`COMMIT`.execute(conn);
          return done;
        } catch (error) {
          if (database.inTransaction) await sql`ROLLBACK`.execute(conn);
          throw error;
        }
      });
      for (const callback of callbacks) callback();
      return result;
    },
    afterCommit: committed.add,
    async ping() {
      await sql`SELECT 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}

/** How long PostgreSQL lets a session sit idle inside a transaction before ending it. */
const IDLE_IN_TRANSACTION_MS = 30_000;

function openPostgres(url: string, schema: string | undefined, poolSize: number): Store {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: 5_000,
    // A process that stops mid-transaction (frozen, partitioned) must not hold its row locks for
    // ever: the server ends such a session after 30 s idle in a transaction, and the others go on.
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client losing its server (restart, network) must not crash the process, and neither
  // may a checked-out one between two queries (pg-pool listens on idle clients only): its next
  // query fails (503 service_unavailable) and the pool drops it on release.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  // Channels are per schema: several deployments (or test runs) can share one database.
  const channel = (topic: string) => `cp_${schema ?? 'public'}_${topic}`;
  const listener = createListener(url);
  const committed = commitCallbacks();
  return {
    dialect: 'postgres',
    db,
    schema: schema ?? 'public',
    supportsRowLocks: true,
    async notify(trx, topic, payload) {
      await sql`SELECT pg_notify(${channel(topic)}, ${payload})`.execute(trx);
    },
    listen(topic, onMessage, onGap) {
      listener.add(channel(topic), onMessage, onGap);
    },
    async transaction(fn) {
      for (let attempt = 1; ; attempt++) {
        try {
          const [result, callbacks] = await db.transaction().execute((trx) => committed.collect(trx, fn));
          for (const callback of callbacks) callback();
          return result;
        } catch (error) {
          if (!isRetryable(error) || attempt >= MAX_TX_ATTEMPTS) throw error;
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** attempt));
        }
      }
    },
    afterCommit: committed.add,
    async ping() {
      await sql`SELECT 1`.execute(db);
    },
    async close() {
      await listener.close();
      await db.destroy();
    },
  };
}

interface Subscription {
  onMessage: (payload: string) => void;
  onGap: () => void;
}

/**
 * One dedicated connection (LISTEN cannot share a pooled one) for every channel this process
 * listens on, opened with the first listener. A lost connection is opened again after a pause,
 * and every subscriber hears `onGap`, since notifications sent meanwhile are gone.
 */
function createListener(url: string) {
  const channels = new Map<string, Subscription[]>();
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let connecting = false;
  let closed = false;

  const gap = () => {
    for (const subscriptions of channels.values()) for (const s of subscriptions) s.onGap();
  };

  async function connect(): Promise<void> {
    retry = undefined;
    if (closed) return;
    connecting = true;
    const next = new pg.Client({ connectionString: url });
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (client === next) client = undefined;
      next.end().catch(() => undefined);
      if (!closed) retry = setTimeout(() => void connect(), 1_000);
    };
    next.on('error', onLost);
    next.on('end', onLost);
    next.on('notification', (message) => {
      for (const s of channels.get(message.channel) ?? []) s.onMessage(message.payload ?? '');
    });
    try {
      await next.connect();
      // A channel added meanwhile is still visited: a Map iterates over entries added during iteration.
      for (const name of channels.keys()) await next.query(`LISTEN ${next.escapeIdentifier(name)}`);
    } catch {
      onLost();
      return;
    } finally {
      connecting = false;
    }
    if (closed) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
    // Whatever was sent before this connection listened was not heard.
    gap();
  }

  return {
    add(name: string, onMessage: (payload: string) => void, onGap: () => void): void {
      const subscriptions = channels.get(name);
      if (subscriptions) {
        subscriptions.push({ onMessage, onGap });
        return;
      }
      channels.set(name, [{ onMessage, onGap }]);
      if (client) {
        const listening = client;
        listening.query(`LISTEN ${listening.escapeIdentifier(name)}`).catch(() => listening.end());
      } else if (retry === undefined && !connecting) {
        retry = setTimeout(() => void connect(), 0);
      }
    },
    async close(): Promise<void> {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
      client = undefined;
    },
  };
}

export function openStore(options: StoreOptions): Store {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.databaseSchema, options.poolSize ?? 10)
    : openSqlite(options.dataDir);
}
