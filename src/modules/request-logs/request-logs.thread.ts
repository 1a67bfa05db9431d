import { parentPort, workerData } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { cappedText, isSecretField, REDACTED } from '../../lib/redact.js';
import { type CountDelta, type CountedRow, countDeltas } from './request-logs.counts.js';

/**
 * The request log's writing thread (request-logs.writer.ts starts it with the server): its own
 * connection to the store (SQLite: a second connection to the same file, in WAL; PostgreSQL: a
 * pool of two), so the log's work never runs on the thread that answers requests. It takes
 * batches of captured requests, makes each its row (the response body capped at 8 KiB and
 * redacted as text, the path's secret-looking parameters redacted, the error code read from the
 * problem), holds them until it has 500 or is told to write now (each second, and at close), writes
 * what it holds in one transaction, in order, and answers for its batches with how it went;
 * `close` writes what it was sent, closes the store and ends the thread. The inserts are the
 * driver's prepared statements, not Kysely's: building a query of 50 rows of 20 columns cost more
 * than writing it. It imports only the drivers and the redaction, not the store module (the thread starts
 * fast).
 */

/**
 * A request as the writer captures it, one array a request (a row's values as they were, cheap to
 * keep and to hand over): `RequestBody` is the parsed body until the writer serializes it.
 */
export type Captured<RequestBody = string | null> = [
  tenantId: string,
  id: string,
  created: number,
  method: string,
  url: string,
  /** The route's pattern (`/v1/products/:id`). */
  route: string,
  status: number,
  durationMs: number,
  keyId: string,
  keyName: string | null,
  keyType: string,
  app: string | null,
  ip: string,
  userAgent: string | null,
  apiVersion: string,
  idempotencyKey: string | null,
  /** Capped and redacted JSON text, or null when there was no body. */
  requestBody: RequestBody,
  /** The response's text as sent, at most one character past the limit; null when empty. */
  responseBody: string | null,
];

/**
 * `write`: a batch to hold, and with `now` to write at once with all held; `write-now`: write what
 * is held; `close`: write what is held and end.
 */
export type ToThread =
  | { type: 'write'; batch: number; rows: Captured[]; now: boolean }
  | { type: 'write-now' }
  | { type: 'close' };
/** The batches one transaction wrote (or failed to). */
export type FromThread = { type: 'written'; batches: number[]; error?: string } | { type: 'closed' };

export interface ThreadData {
  /** PostgreSQL's URL; absent for SQLite. */
  databaseUrl: string | undefined;
  databaseSchema: string | undefined;
  sqliteFile: string;
  /** Characters kept of each body. */
  bodyLimit: number;
  lockTimeoutMs: number;
  statementTimeoutMs: number;
  /** Rows made and dropped, not written (a benchmark's measure of everything but the write). */
  unwritten: boolean;
  /** Rows written with their bodies made and left out (a benchmark's measure of the bodies' bytes). */
  unbodied: boolean;
}

/** The columns a row fills, in order, and PostgreSQL's array type of each (for `unnest`). */
const COLUMNS = [
  ['tenant_id', 'text'],
  ['id', 'text'],
  ['created', 'int8'],
  ['method', 'text'],
  ['path', 'text'],
  ['route', 'text'],
  ['status', 'int4'],
  ['status_class', 'text'],
  ['duration_ms', 'float8'],
  ['key_id', 'text'],
  ['key_name', 'text'],
  ['key_type', 'text'],
  ['app', 'text'],
  ['ip', 'text'],
  ['user_agent', 'text'],
  ['api_version', 'text'],
  ['idempotency_key', 'text'],
  ['error_code', 'text'],
  ['request_body', 'text'],
  ['response_body', 'text'],
] as const;
const NAMES = COLUMNS.map(([name]) => name).join(', ');

/** A row's values, in the order of `COLUMNS`. */
type Row = (string | number | null)[];

/** Where the values the kept counts are kept by stand in a row (`COLUMNS`). */
const AT = { tenant: 0, method: 3, route: 5, status: 6, statusClass: 7, keyId: 9 } as const;

/** A path with its secret-looking query parameters redacted. */
function redactedPath(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const params = new URLSearchParams(url.slice(at + 1));
  let changed = false;
  for (const name of [...params.keys()]) {
    if (isSecretField(name)) {
      params.set(name, REDACTED);
      changed = true;
    }
  }
  return changed ? `${url.slice(0, at)}?${params.toString()}` : url;
}

function errorCodeOf(status: number, body: string | null): string | null {
  if (status < 400 || body === null) return null;
  const match = /"code"\s*:\s*"([\w.-]{1,64})"/.exec(body);
  return match?.[1] ?? null;
}

/** The row a captured request is kept as (`unbodied`: its bodies made, then left out). */
function rowOf(entry: Captured, bodyLimit: number, unbodied: boolean): Row {
  const [tenantId, id, created, method, url, route, status, durationMs, keyId, keyName, keyType, app, ip] =
    entry;
  const [userAgent, apiVersion, idempotencyKey, requestBody, responseBody] = entry.slice(13) as [
    string | null,
    string,
    string | null,
    string | null,
    string | null,
  ];
  const response =
    responseBody === null || responseBody.length === 0 ? null : cappedText(responseBody, bodyLimit);
  return [
    tenantId,
    id,
    created,
    method,
    redactedPath(url),
    route,
    status,
    `${Math.floor(status / 100)}xx`,
    Math.round(durationMs * 1000) / 1000,
    keyId,
    keyName,
    keyType,
    app,
    ip,
    userAgent?.slice(0, 512) ?? null,
    apiVersion || null,
    idempotencyKey?.slice(0, 255) ?? null,
    errorCodeOf(status, responseBody),
    unbodied ? null : requestBody,
    unbodied ? null : response,
  ];
}

type Write = (rows: readonly Row[]) => Promise<void>;

/** The kept counts' deltas of a batch (request-logs.counts.ts). */
function batchDeltas(rows: readonly Row[]): CountDelta[] {
  return countDeltas(
    rows.map((row): CountedRow => ({
      tenant_id: row[AT.tenant] as string,
      status_class: row[AT.statusClass] as string,
      status: row[AT.status] as number,
      method: row[AT.method] as string,
      route: row[AT.route] as string,
      key_id: row[AT.keyId] as string | null,
    })),
    1,
  );
}

/**
 * SQLite: one connection of its own to the store's file (WAL, so readers never wait for it), its
 * two statements prepared once, a batch in one transaction without waiting for the disk (a power
 * cut may lose the last second of the log, never the store's consistency).
 */
function sqliteWriter(data: ThreadData): { write: Write; close: () => Promise<void> } {
  const database = new SqliteDatabase(data.sqliteFile);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma(`busy_timeout = ${Math.trunc(data.lockTimeoutMs)}`);
  // The id index takes rows in random order: its pages stay in memory rather than being read again.
  database.pragma('cache_size = -16384');
  const insertRow = database.prepare(
    `INSERT INTO request_logs (${NAMES}) VALUES (${COLUMNS.map(() => '?').join(', ')})`,
  );
  const insertDelta = database.prepare(
    'INSERT INTO list_count_deltas (tenant_id, list, key, delta) VALUES (?, ?, ?, ?)',
  );
  const all = database.transaction((rows: readonly Row[]) => {
    for (const row of rows) insertRow.run(row);
    for (const d of batchDeltas(rows)) insertDelta.run(d.tenant_id, d.list, d.key, d.delta);
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
function postgresWriter(url: string, data: ThreadData): { write: Write; close: () => Promise<void> } {
  const pool = new pg.Pool({
    connectionString: url,
    max: 2,
    lock_timeout: data.lockTimeoutMs,
    statement_timeout: data.statementTimeoutMs,
    ...(data.databaseSchema ? { options: `-c search_path=${data.databaseSchema}` } : {}),
  });
  pool.on('error', () => undefined);
  const insertRows = `INSERT INTO request_logs (${NAMES})
    SELECT * FROM unnest(${COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')})`;
  const insertDeltas = `INSERT INTO list_count_deltas (tenant_id, list, key, delta)
    SELECT t, l, k, d FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[]) AS u(t, l, k, d)`;
  return {
    write: async (rows) => {
      const client = await pool.connect();
      // A connection the server ends mid-batch (a restart) also emits 'error' on its client: the
      // batch's query fails and is reported, and the event, unheard, would end the thread.
      const ignore = () => undefined;
      client.on('error', ignore);
      try {
        await client.query('BEGIN');
        await client.query(
          insertRows,
          COLUMNS.map((_, i) => rows.map((row) => row[i] ?? null)),
        );
        const deltas = batchDeltas(rows);
        await client.query(insertDeltas, [
          deltas.map((d) => d.tenant_id),
          deltas.map((d) => d.list),
          deltas.map((d) => d.key),
          deltas.map((d) => d.delta),
        ]);
        await client.query('COMMIT');
        client.off('error', ignore);
        client.release();
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.off('error', ignore);
        client.release(true);
        throw error;
      }
    },
    close: () => pool.end(),
  };
}

if (parentPort === null) throw new Error('request-logs.thread.ts runs as a worker thread');
const port = parentPort;
const data = workerData as ThreadData;
const writer: { write: Write; close: () => Promise<void> } = data.unwritten
  ? { write: async () => undefined, close: async () => undefined }
  : data.databaseUrl
    ? postgresWriter(data.databaseUrl, data)
    : sqliteWriter(data);
let writing: Promise<void> = Promise.resolve();

/** Rows held for the next transaction, and the batches they came in. */
const WRITE_AT = 500;
/**
 * How long rows are held at most: the writer's own timer says `now` every second, but it does not
 * hold its process open, while a batch posted here does until it is answered.
 */
const HOLD_MS = 1_000;
let held: Row[] = [];
let heldBatches: number[] = [];
let holding: NodeJS.Timeout | undefined;

/** Writes what is held in one transaction, after the writes before it; answers for its batches. */
function writeHeld(): void {
  clearTimeout(holding);
  holding = undefined;
  if (heldBatches.length === 0) return;
  const rows = held;
  const batches = heldBatches;
  held = [];
  heldBatches = [];
  writing = writing.then(async () => {
    try {
      await writer.write(rows);
      port.postMessage({ type: 'written', batches } satisfies FromThread);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      port.postMessage({ type: 'written', batches, error: text } satisfies FromThread);
    }
  });
}

port.on('message', (message: ToThread) => {
  if (message.type === 'write') {
    let rows: Row[];
    try {
      rows = message.rows.map((entry) => rowOf(entry, data.bodyLimit, data.unbodied));
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      port.postMessage({ type: 'written', batches: [message.batch], error: text } satisfies FromThread);
      return;
    }
    for (const row of rows) held.push(row);
    heldBatches.push(message.batch);
    if (message.now || held.length >= WRITE_AT) writeHeld();
    else holding ??= setTimeout(writeHeld, HOLD_MS);
  } else if (message.type === 'write-now') {
    writeHeld();
  } else {
    writeHeld();
    writing = writing.then(async () => {
      await writer.close().catch(() => undefined);
      port.postMessage({ type: 'closed' } satisfies FromThread);
      port.close();
    });
  }
});
