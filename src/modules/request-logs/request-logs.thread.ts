import { parentPort, workerData } from 'node:worker_threads';
import type { Insertable } from 'kysely';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import {
  DEFAULT_LOCK_TIMEOUT_MS,
  DEFAULT_STATEMENT_TIMEOUT_MS,
  sqliteFile,
  type StoreOptions,
} from '../../db/store.js';
import type { RequestLogsTable } from './request-logs.tables.js';

/**
 * The request log's writing thread (request-logs.writer.ts starts it): its own connection to the
 * store (SQLite: a second connection to the same file, in WAL; PostgreSQL: a pool of two), so the
 * inserts never run on the thread that answers requests. The inserts are prepared statements of
 * the driver, not Kysely's: building a query of 50 rows of 20 columns cost more than writing it. It takes batches of rows, writes each in
 * one transaction, in order, and answers each with how it went; `close` writes what it was sent,
 * closes the store and ends the thread.
 */

export type ToThread =
  { type: 'write'; batch: number; rows: Insertable<RequestLogsTable>[] } | { type: 'close' };
export type FromThread = { type: 'written'; batch: number; error?: string } | { type: 'closed' };

export interface ThreadData {
  store: StoreOptions;
}

/** The columns a row fills, in order: the statements' parameters and the rows' fields. */
const COLUMNS = [
  'tenant_id',
  'id',
  'created',
  'method',
  'path',
  'route',
  'status',
  'status_class',
  'duration_ms',
  'key_id',
  'key_name',
  'key_type',
  'app',
  'ip',
  'user_agent',
  'api_version',
  'idempotency_key',
  'error_code',
  'request_body',
  'response_body',
] as const satisfies readonly (keyof Row)[];
/** PostgreSQL's array type of each column, for the one `unnest` insert of a batch. */
const PG_TYPES: Record<(typeof COLUMNS)[number], string> = {
  tenant_id: 'text',
  id: 'text',
  created: 'int8',
  method: 'text',
  path: 'text',
  route: 'text',
  status: 'int4',
  status_class: 'text',
  duration_ms: 'float8',
  key_id: 'text',
  key_name: 'text',
  key_type: 'text',
  app: 'text',
  ip: 'text',
  user_agent: 'text',
  api_version: 'text',
  idempotency_key: 'text',
  error_code: 'text',
  request_body: 'text',
  response_body: 'text',
};

/** The kept counts' list of the request log (request-logs.repository.ts reads it). */
const LIST = 'request_logs';

type Row = Insertable<RequestLogsTable>;
type Write = (rows: readonly Row[]) => Promise<void>;

/** The kept counts' deltas of a batch: +1 per tenant and status class. */
function countDeltas(rows: readonly Row[]): { tenant_id: string; key: string; delta: number }[] {
  const sums = new Map<string, { tenant_id: string; key: string; delta: number }>();
  for (const row of rows) {
    const id = `${row.tenant_id}\u0000${row.status_class}`;
    const sum = sums.get(id);
    if (sum) sum.delta += 1;
    else sums.set(id, { tenant_id: row.tenant_id, key: row.status_class, delta: 1 });
  }
  return [...sums.values()];
}

/**
 * SQLite: one connection of its own to the store's file (WAL, so readers never wait for it), its
 * two statements prepared once, a batch in one transaction without waiting for the disk (a power
 * cut may lose the last second of the log, never the store's consistency).
 */
function sqliteWriter(options: StoreOptions): { write: Write; close: () => Promise<void> } {
  const database = new SqliteDatabase(sqliteFile(options.dataDir));
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma(`busy_timeout = ${Math.trunc(options.databaseLockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS)}`);
  const insertRow = database.prepare(
    `INSERT INTO request_logs (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})`,
  );
  const insertDelta = database.prepare(
    `INSERT INTO list_count_deltas (tenant_id, list, key, delta) VALUES (?, '${LIST}', ?, ?)`,
  );
  const all = database.transaction((rows: readonly Row[]) => {
    for (const row of rows) insertRow.run(row);
    for (const delta of countDeltas(rows)) insertDelta.run(delta.tenant_id, delta.key, delta.delta);
  });
  return {
    write: async (rows) => {
      all.immediate(rows);
    },
    close: async () => {
      database.close();
    },
  };
}

/** PostgreSQL: a pool of its own (two connections); a batch is two statements in one transaction. */
function postgresWriter(url: string, options: StoreOptions): { write: Write; close: () => Promise<void> } {
  const pool = new pg.Pool({
    connectionString: url,
    max: 2,
    lock_timeout: options.databaseLockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
    statement_timeout: options.databaseStatementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
    ...(options.databaseSchema ? { options: `-c search_path=${options.databaseSchema}` } : {}),
  });
  pool.on('error', () => undefined);
  const insertRows = `INSERT INTO request_logs (${COLUMNS.join(', ')})
    SELECT * FROM unnest(${COLUMNS.map((c, i) => `$${i + 1}::${PG_TYPES[c]}[]`).join(', ')})`;
  const insertDeltas = `INSERT INTO list_count_deltas (tenant_id, list, key, delta)
    SELECT t, '${LIST}', k, d FROM unnest($1::text[], $2::text[], $3::int8[]) AS u(t, k, d)`;
  return {
    write: async (rows) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query(
          insertRows,
          COLUMNS.map((column) => rows.map((row) => row[column] ?? null)),
        );
        const deltas = countDeltas(rows);
        await client.query(insertDeltas, [
          deltas.map((d) => d.tenant_id),
          deltas.map((d) => d.key),
          deltas.map((d) => d.delta),
        ]);
        await client.query('COMMIT');
        client.release();
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release(true);
        throw error;
      }
    },
    close: () => pool.end(),
  };
}

const port = parentPort;
if (port === null) throw new Error('request-logs.thread.ts runs as a worker thread');
const options = (workerData as ThreadData).store;
const writer = options.databaseUrl ? postgresWriter(options.databaseUrl, options) : sqliteWriter(options);
let writing: Promise<void> = Promise.resolve();

port.on('message', (message: ToThread) => {
  if (message.type === 'write') {
    writing = writing.then(async () => {
      try {
        await writer.write(message.rows);
        port.postMessage({ type: 'written', batch: message.batch } satisfies FromThread);
      } catch (error) {
        const text = error instanceof Error ? error.message : String(error);
        port.postMessage({ type: 'written', batch: message.batch, error: text } satisfies FromThread);
      }
    });
  } else {
    writing = writing.then(async () => {
      await writer.close().catch(() => undefined);
      port.postMessage({ type: 'closed' } satisfies FromThread);
      port.close();
    });
  }
});
