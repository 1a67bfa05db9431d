import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Worker } from 'node:worker_threads';
import type { Config } from '../../config.js';
import { DEFAULT_LOCK_TIMEOUT_MS, DEFAULT_STATEMENT_TIMEOUT_MS, sqliteFile } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { cappedJson } from '../../lib/redact.js';
import type { Captured, FromThread, ThreadData, ToThread } from './request-logs.thread.js';

/**
 * The request log's writer, off the answer's path: two callback hooks per `/v1` request keep
 * references (the response's bytes as sent, then the request's facts once answered) in a buffer
 * in memory, one small array per request; as soon as it holds `POST_AT` requests the buffer is
 * posted to a worker thread (request-logs.thread.ts) in one message, and so is what it holds every
 * second and when the process stops, with the word to write now. The thread caps and redacts the
 * response bodies and the paths and inserts the rows through its own connection to the store, up
 * to 500 in a transaction. Small posts keep a request's facts here for a few milliseconds, so they
 * die young (held for a 500-request batch, a third of a second under load, they outlived the young
 * generation's collections, and copying and promoting them cost the answering thread as much as
 * the rest of the capture); the thread, not this one, holds the rows a transaction gathers. This thread only serializes
 * the request bodies it holds (capped at 8 KiB as they are written: a large body is never
 * serialized whole, nor copied to the thread). A thread that dies loses the batches it held
 * (logged), and the next batch starts another. A request without a tenant (no key, a bad key) is
 * not logged: it is nobody's.
 */

/** Characters kept of each body. */
export const BODY_LIMIT = 8 * 1024;
export const FLUSH_EVERY_MS = 1_000;
/** Requests the buffer holds before they are posted (measured: 8 posts too often, 500 holds too long). */
const POST_AT = 64;
/** Requests held at most while the store does not take them (then the oldest are dropped). */
const BUFFER_CAP = 20_000;

const SENT = Symbol('requestLogSent');
type WithSent = FastifyRequest & { [SENT]?: unknown };

export interface RequestLogWriter {
  install(app: FastifyInstance): void;
  /** Writes what the buffer holds now (the timer's work, and the last one at close). */
  flush(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
  /** Ends the writing thread at once, as a crash would: what it held is lost (and logged). */
  abort(): Promise<void>;
}

/**
 * What the thread gets of a response body: the text as sent (at most one character more than it
 * keeps, so it knows to cut; a slice, so a large body is not copied), or what a stream or bytes
 * were.
 */
function sentText(payload: unknown): string | null {
  if (typeof payload === 'string') {
    return payload.length > BODY_LIMIT ? payload.slice(0, BODY_LIMIT + 1) : payload;
  }
  // A stream (an export) or bytes: what it was, not its content.
  return payload === undefined || payload === null ? null : JSON.stringify('<streamed>');
}

/** A captured request with its request body as the log keeps it (capped, redacted JSON text). */
function withRequestBody(entry: Captured<unknown>): Captured {
  const body = entry[16];
  entry[16] = body === undefined ? null : cappedJson(body, BODY_LIMIT);
  return entry as Captured;
}

/** How long `stop` waits for the thread to write what it holds before it is terminated. */
const CLOSE_WAIT_MS = 10_000;

/**
 * Starts the thread: its build, or under tsx (tests, benchmarks) its TypeScript source, through
 * tsx registered in the thread first (a worker does not inherit the hooks `--import tsx` set up).
 */
function startThread(data: ThreadData): Worker {
  if (!import.meta.url.endsWith('.ts')) {
    return new Worker(new URL('./request-logs.thread.js', import.meta.url), { workerData: data });
  }
  const source = new URL('./request-logs.thread.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); })`;
  return new Worker(code, { eval: true, workerData: data });
}

export function createRequestLogWriter(deps: {
  config: Config;
  clock: Clock;
  logger: Logger;
  enabled: boolean;
  /** The thread makes the rows and drops them (a benchmark's measure of everything but the write). */
  unwritten?: boolean;
  /** The thread makes the bodies and writes the rows without them (a benchmark's measure of their bytes). */
  unbodied?: boolean;
}): RequestLogWriter {
  const { config, clock, logger } = deps;
  /** Requests captured since the last flush; a request body is serialized at the flush. */
  let buffer: Captured<unknown>[] = [];
  let timer: NodeJS.Timeout | undefined;
  let thread: Worker | undefined;
  let nextBatch = 0;
  /** Batches posted and not yet answered: their size, and who waits for them. */
  const pending = new Map<number, { requests: number; done: () => void }>();
  let closed: (() => void) | undefined;

  function lose(requests: number, why: unknown): void {
    logger.warn({ err: why, requests }, 'request log write failed; those requests are not logged');
  }

  /** The writing thread, started at the first batch (a process that logs nothing starts none). */
  function writingThread(): Worker {
    if (thread) return thread;
    const data: ThreadData = {
      databaseUrl: config.databaseUrl,
      databaseSchema: config.databaseSchema,
      sqliteFile: sqliteFile(config.dataDir),
      bodyLimit: BODY_LIMIT,
      lockTimeoutMs: config.databaseLockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
      statementTimeoutMs: config.databaseStatementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS,
      unwritten: deps.unwritten === true,
      unbodied: deps.unbodied === true,
    };
    const started = startThread(data);
    // An idle thread never holds the process open; one with batches to answer for does.
    started.unref();
    started.on('message', (message: FromThread) => {
      if (message.type === 'closed') {
        closed?.();
        return;
      }
      const answered = message.batches.map((batch) => {
        const waiting = pending.get(batch);
        pending.delete(batch);
        return waiting;
      });
      if (message.error !== undefined) {
        const requests = answered.reduce((sum, waiting) => sum + (waiting?.requests ?? 0), 0);
        lose(requests, new Error(message.error));
      }
      if (pending.size === 0 && closed === undefined) started.unref();
      for (const waiting of answered) waiting?.done();
    });
    started.on('error', (error) => logger.error({ err: error }, 'request log thread failed'));
    started.on('exit', (code) => {
      if (thread === started) thread = undefined;
      // What it had not written is lost; the answers go on, and the next batch starts a new thread.
      const lost = [...pending.values()];
      pending.clear();
      if (lost.length > 0) {
        lose(
          lost.reduce((sum, batch) => sum + batch.requests, 0),
          new Error(`request log thread exited with code ${code}`),
        );
      }
      for (const batch of lost) batch.done();
      closed?.();
    });
    thread = started;
    return started;
  }

  /**
   * Posts what the buffer holds as one batch; `now`: with the word to write everything the thread
   * holds (sent alone when the buffer is empty), resolving once the thread has answered for every
   * batch posted so far.
   */
  function post(now: boolean): Promise<void> {
    if (buffer.length > 0) {
      const batch = buffer;
      buffer = [];
      let rows: Captured[] | undefined;
      try {
        rows = batch.map(withRequestBody);
      } catch (error) {
        lose(batch.length, error);
      }
      if (rows !== undefined) {
        const id = nextBatch++;
        pending.set(id, { requests: rows.length, done: () => undefined });
        try {
          const writing = writingThread();
          writing.postMessage({ type: 'write', batch: id, rows, now } satisfies ToThread);
          // Held open until the thread has written it (within a second: the thread's own timer).
          writing.ref();
        } catch (error) {
          pending.delete(id);
          lose(rows.length, error);
        }
      }
    } else if (now && pending.size > 0) {
      thread?.postMessage({ type: 'write-now' } satisfies ToThread);
    }
    if (!now) return Promise.resolve();
    // Waits for every batch posted, a timer's or a full buffer's, so the caller sees them written.
    const waits = [...pending.values()].map((waiting) => new Promise<void>((done) => chain(waiting, done)));
    return Promise.all(waits).then(() => undefined);
  }

  /** Posts what the buffer holds and has it written now; resolves once it is. */
  function flush(): Promise<void> {
    return post(true);
  }

  function chain(waiting: { done: () => void }, then: () => void): void {
    const before = waiting.done;
    waiting.done = () => {
      before();
      then();
    };
  }

  const keepSent = (
    request: FastifyRequest,
    _reply: FastifyReply,
    payload: unknown,
    done: (err: null, payload: unknown) => void,
  ): void => {
    (request as WithSent)[SENT] = payload;
    done(null, payload);
  };

  /** The onResponse hook of one route: its pattern is known here, not asked of each request. */
  const captureOf =
    (route: string) =>
    (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
      const principal = request.principal;
      if (principal !== null) {
        if (buffer.length >= BUFFER_CAP) buffer.shift();
        const headers = request.headers;
        const key = principal.key;
        const idempotencyKey = headers['idempotency-key'];
        buffer.push([
          principal.tenant.id,
          request.id,
          clock.now(),
          request.method,
          request.url,
          route,
          reply.statusCode,
          reply.elapsedTime,
          key.id,
          key.name,
          principal.app ? 'app' : key.id === 'console' ? 'console' : key.type,
          principal.app?.pluginName ?? null,
          request.ip,
          headers['user-agent'] ?? null,
          request.apiVersion,
          typeof idempotencyKey === 'string' ? idempotencyKey : null,
          request.body,
          sentText((request as WithSent)[SENT]),
        ]);
        if (buffer.length >= POST_AT) void post(false);
      }
      done();
    };

  return {
    install(app) {
      if (!deps.enabled) return;
      app.addHook('onRoute', (route) => {
        if (!route.url.startsWith('/v1')) return;
        const list = (hooks: unknown): unknown[] =>
          hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
        // Last of onSend: the bytes as they leave, after version rendering and the ETag.
        route.onSend = [...list(route.onSend), keepSent] as typeof route.onSend;
        route.onResponse = [...list(route.onResponse), captureOf(route.url)] as typeof route.onResponse;
      });
    },
    flush,
    start() {
      if (!deps.enabled || timer) return;
      timer = setInterval(() => void flush(), FLUSH_EVERY_MS);
      timer.unref();
      // A serving process starts its thread now, not while it answers its first requests.
      try {
        writingThread();
      } catch (error) {
        logger.warn({ err: error }, 'request log thread did not start; the first batch tries again');
      }
    },
    async abort() {
      await thread?.terminate();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      const written = flush();
      const running = thread;
      if (!running) return;
      running.ref();
      const ended = new Promise<void>((done) => (closed = done));
      running.postMessage({ type: 'close' } satisfies ToThread);
      let late: NodeJS.Timeout | undefined;
      const waited = await Promise.race([
        Promise.all([written, ended]).then(() => true),
        new Promise<false>((done) => (late = setTimeout(() => done(false), CLOSE_WAIT_MS))),
      ]);
      clearTimeout(late);
      if (!waited) logger.warn('request log thread did not close in time; terminating it');
      await running.terminate();
      closed = undefined;
    },
  };
}
