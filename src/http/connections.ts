import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { type Server, Socket } from 'node:net';
import type { preParsingHookHandler } from 'fastify';
import type { Config } from '../config.js';
import { newRequestId } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';
import { AppError, validationError } from '../lib/errors.js';
import { problemFor } from './problem.js';
import { requestIdOf } from './request-id.js';

/**
 * Client connections before Fastify sees a request on them: how many are served at once, how long
 * a request may take to arrive, and the answer to one Node refuses. Every answer given here is a
 * problem (`application/problem+json`) with an `X-Request-Id`, like every other error.
 *
 * - Up to `served` connections are served. One accepted beyond that is kept only to answer its
 *   first request `503 service_unavailable` with `Retry-After` and `Connection: close`: over TLS a
 *   connection can be answered only after its handshake, so the refusal waits for the request.
 *   Past `held` connections a new one is closed at once, unanswered, before any handshake.
 * - Both numbers fit under the process's open-file limit, keeping descriptors for the store,
 *   Redis, webhook deliveries and logs: a flood of connections is refused before it makes the
 *   process fail to open anything else.
 * - A request's headers (and a TLS handshake) must arrive within `HEADERS_TIMEOUT_MS` and the
 *   whole request within `REQUEST_TIMEOUT_MS`; Node checks every second (or sooner for shorter
 *   limits) and answers `408 request_timeout`. Handlers and responses are not timed here.
 * - `Expect: 100-continue` is answered `100 Continue` only once the route is about to read the
 *   body, and not at all when the declared `Content-Length` is over the route's limit: the route's
 *   parser then answers `413` without reading a byte (`continueBody`).
 * - A connection closed after an answer to a request whose body was not all read (a refusal:
 *   413, 415, a parser's 400, a 408) closes by `lingeringClose`: answer, stop sending, then read
 *   and drop what the client still sends, for at most `LINGER_TIMEOUT_MS` and `LINGER_MAX_BYTES`,
 *   and only then close. Closed at once, the unread bytes would make the kernel reset the
 *   connection, and a client that sends its whole body before reading would lose the answer. A
 *   lingering connection is still open, so it counts against the caps above.
 */

/** Descriptors kept for everything but client connections (store, Redis, deliveries, logs). */
const RESERVED_DESCRIPTORS = 128;
/** What a client refused at the cap is asked to wait, in seconds. */
const OVER_CAP_RETRY_AFTER_S = 5;
/** Warnings about refused and dropped connections: at most one per this interval. */
const PRESSURE_LOG_INTERVAL_MS = 10_000;

export interface ConnectionCaps {
  /** Connections served at once. */
  served: number;
  /** Connections open at all: past `served` each is refused with a 503, past this one is closed. */
  held: number;
}

/** The soft limit on open files ("Max open files" in /proc/self/limits); undefined where unknown. */
export function openFileLimit(limits?: string): number | undefined {
  let text = limits;
  if (text === undefined) {
    try {
      text = fs.readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return undefined;
    }
  }
  const soft = /^Max open files\s+(\d+)/m.exec(text)?.[1];
  return soft === undefined ? undefined : Number(soft);
}

/**
 * `max` connections served and a tenth more (at least 10) held to be refused, lowered to fit the
 * open-file limit less the descriptors kept for everything else (128, or half of a smaller limit).
 */
export function connectionCaps(max: number, fileLimit: number | undefined): ConnectionCaps {
  const available =
    fileLimit === undefined
      ? Number.POSITIVE_INFINITY
      : fileLimit - Math.min(RESERVED_DESCRIPTORS, Math.floor(fileLimit / 2));
  const served = Math.max(1, Math.min(max, Math.floor((available * 10) / 11)));
  const held = Math.max(served, Math.min(available, served + Math.max(10, Math.ceil(served / 10))));
  return { served, held };
}

export interface ConnectionGuard {
  /** The refusal of a request Fastify is about to run, or undefined to run it. */
  refusal(req: IncomingMessage): AppError | undefined;
  /**
   * The last preParsing hook of a route whose body may be up to `bodyLimit` bytes: sends the
   * `100 Continue` a request asked for, unless its `Content-Length` is over the limit (the route's
   * parser then answers 413 at once, and the client never sends the body).
   */
  continueBody(bodyLimit: number): preParsingHookHandler;
}

/** How long and how much a closing connection reads and drops of what its client still sends. */
export interface LingerBounds {
  timeoutMs: number;
  maxBytes: number;
}

/**
 * Closes `socket` without a reset (nginx's `lingering_close`): writes `answer` (if any) and ends
 * its side, then reads and drops what the client still sends, and closes once the client closes
 * its side, or at `bounds.timeoutMs`, or past `bounds.maxBytes` read, whichever comes first. A
 * client still sending its body so reads the answer; one sending past either bound is cut off.
 * On a socket Node's HTTP server serves, its parser is let go first: nothing read now is a request.
 */
export function lingeringClose(socket: Socket, bounds: LingerBounds, answer?: string): void {
  if (socket.destroyed) return;
  let read = 0;
  const cut = () => socket.destroy();
  for (const listener of socket.listeners('data')) {
    socket.removeListener('data', listener as (...args: unknown[]) => void);
  }
  // On a socket of Node's HTTP server, adding a 'data' listener also takes the socket back from
  // the parser that reads it directly (Node's own listener wrapper does that).
  socket.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > bounds.maxBytes) cut();
  });
  socket.on('error', cut);
  // Once the client has sent everything, close as soon as the answer is out.
  const sentAll = () => (socket.writableFinished ? cut() : socket.once('finish', cut));
  if (socket.readableEnded) sentAll();
  else socket.once('end', sentAll);
  const deadline = setTimeout(cut, bounds.timeoutMs);
  deadline.unref();
  socket.once('close', () => clearTimeout(deadline));
  if (answer === undefined) socket.end();
  else socket.end(answer);
  socket.resume();
  // The HTTP parser may have stopped the socket's reads behind the stream's back (a body nobody
  // read fills its buffer), where resuming the stream does not start them again: this does.
  socket._read(0);
}

/**
 * Counts the connections of `server` (an HTTP or HTTPS server, not yet listening) and caps them at
 * `max` and the open-file limit; tells which requests to refuse. `tls`: the server is HTTPS, whose
 * connections can be answered once their handshake is done.
 */
export function guardConnections(
  server: Server,
  options: {
    max: number;
    fileLimit: number | undefined;
    tls: boolean;
    logger: Logger;
    linger: LingerBounds;
  },
): ConnectionGuard {
  const { tls, logger, linger } = options;
  const caps = connectionCaps(options.max, options.fileLimit);
  if (caps.served < options.max) {
    logger.warn(
      { max_connections: options.max, served: caps.served, open_file_limit: options.fileLimit },
      'MAX_CONNECTIONS lowered to fit the open-file limit (raise it with ulimit -n or LimitNOFILE)',
    );
  }
  let open = 0;
  let refused = 0;
  let dropped = 0;
  let warnedAt = Number.NEGATIVE_INFINITY;
  const overCap = new WeakSet<Socket>();
  const warn = () => {
    const now = Date.now();
    if (now - warnedAt < PRESSURE_LOG_INTERVAL_MS) return;
    logger.warn(
      {
        open,
        served: caps.served,
        held: caps.held,
        refused_since_last_warning: refused,
        dropped_since_last_warning: dropped,
      },
      'connection cap reached',
    );
    warnedAt = now;
    refused = 0;
    dropped = 0;
  };
  const admit = (socket: Socket) => {
    if (open <= caps.served) return;
    overCap.add(socket);
    refused++;
    warn();
  };
  server.maxConnections = caps.held;
  server.on('drop', () => {
    dropped++;
    warn();
  });
  // Each connection's latest request: when Node closes the connection after answering it
  // (`destroySoon`) before its body was all read, the connection lingers instead.
  const latest = new WeakMap<Socket, IncomingMessage>();
  server.prependListener('request', (req: IncomingMessage) => latest.set(req.socket, req));
  function closeSoon(this: Socket): void {
    if (latest.get(this)?.complete === false) lingeringClose(this, linger);
    else Socket.prototype.destroySoon.call(this);
  }
  // The socket HTTP is read from: the TCP one, or over TLS the TLS one on top of it.
  const serve = (socket: Socket) => {
    socket.destroySoon = closeSoon;
    admit(socket);
  };
  server.on('connection', (socket: Socket) => {
    open++;
    socket.once('close', () => open--);
    if (!tls) serve(socket);
  });
  if (tls) server.on('secureConnection', serve);
  // Node answers an `Expect` it does not know with a bare 417; the expectation is ignored
  // instead (RFC 9110 allows either) and the request answered as any other.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) =>
    server.emit('request', req, res),
  );
  // With a 'checkContinue' listener Node no longer sends `100 Continue` by itself: the route's
  // `continueBody` hook sends it, or not.
  const awaitingContinue = new WeakSet<IncomingMessage>();
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    awaitingContinue.add(req);
    server.emit('request', req, res);
  });
  return {
    continueBody(bodyLimit) {
      return (request, reply, payload, done) => {
        if (awaitingContinue.delete(request.raw)) {
          const declared = Number(request.headers['content-length']);
          if (!(declared > bodyLimit)) reply.raw.writeContinue();
        }
        done(null, payload);
      };
    },
    refusal(req) {
      if (overCap.has(req.socket)) {
        return new AppError(
          'service_unavailable',
          'The server is serving as many connections as it can; retry on a new connection.',
          { headers: { 'retry-after': String(OVER_CAP_RETRY_AFTER_S), connection: 'close' } },
        );
      }
      // Node refuses such a request with an empty 400 unless told not to (`requireHostHeader`).
      if (req.headers.host === undefined && req.httpVersion === '1.1') {
        return validationError('host', 'is required in an HTTP/1.1 request');
      }
      return undefined;
    },
  };
}

/** The part of a request Node's parser (llhttp) refuses, and why, by its error code. */
const PARSER_ERRORS: Record<string, [field: string, message: string]> = {
  HPE_INVALID_METHOD: ['method', 'is not an HTTP method'],
  HPE_INVALID_URL: ['url', 'holds a character a request target may not hold'],
  HPE_INVALID_CONSTANT: ['request line', 'must be "METHOD target HTTP/1.1"'],
  HPE_INVALID_VERSION: ['version', 'must be HTTP/1.0 or HTTP/1.1, and every line must end with CRLF'],
  HPE_PAUSED_H2_UPGRADE: ['version', 'must be HTTP/1.0 or HTTP/1.1 (HTTP/2 is not served)'],
  HPE_INVALID_HEADER_TOKEN: ['headers', 'must be "Name: value" lines of the characters HTTP allows there'],
  HPE_INVALID_CONTENT_LENGTH: ['content-length', 'must be a whole number of bytes'],
  HPE_UNEXPECTED_CONTENT_LENGTH: ['content-length', 'must be sent once, and not with Transfer-Encoding'],
  HPE_INVALID_TRANSFER_ENCODING: [
    'transfer-encoding',
    'must end with chunked, and not be sent with Content-Length',
  ],
  HPE_INVALID_CHUNK_SIZE: ['body', 'is not valid chunked encoding'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: ['body', 'has chunk extensions over the limit'],
};

function clientProblem(code: string | undefined, limits: Config['connections']): AppError {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new AppError(
      'request_timeout',
      `The request did not arrive in time: its headers must arrive within ${limits.headersTimeoutMs / 1000} s and all of it within ${limits.requestTimeoutMs / 1000} s.`,
    );
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new AppError(
      'request_header_fields_too_large',
      `The request line and headers are over ${http.maxHeaderSize / 1024} KiB.`,
    );
  }
  const [field, message] = PARSER_ERRORS[code ?? ''] ?? ['request', 'is not a valid HTTP/1.1 request'];
  return validationError(field, message);
}

/** The socket's response in progress, if any (Node's own client-error answer checks the same). */
function responseOf(socket: Socket): ServerResponse | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
}

/**
 * Fastify's `clientErrorHandler`: Node's parser refused what arrived on `socket`, or it did not
 * arrive in time. The answer is written on the socket itself, if nothing was written there yet,
 * and the connection closes; `headers` go on every such answer (the API version, HSTS).
 */
export function clientErrorHandler(limits: Config['connections'], headers: Record<string, string>) {
  const linger = { timeoutMs: limits.lingerTimeoutMs, maxBytes: limits.lingerMaxBytes };
  const answered = new WeakSet<Socket>();
  return (error: Error & { code?: string }, socket: Socket): void => {
    // A reset connection is gone; a second error on an answered one changes nothing.
    if (answered.has(socket)) return;
    const response = responseOf(socket);
    if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
      socket.destroy();
      return;
    }
    answered.add(socket);
    const problem = clientProblem(error.code, limits);
    const requestId = response ? requestIdOf(response.req) : newRequestId();
    const body = JSON.stringify(problemFor(problem, requestId));
    const lines = [
      `HTTP/1.1 ${problem.status} ${http.STATUS_CODES[problem.status] ?? ''}`,
      'content-type: application/problem+json',
      `content-length: ${Buffer.byteLength(body)}`,
      `x-request-id: ${requestId}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      `date: ${new Date().toUTCString()}`,
      'connection: close',
    ];
    // Ended rather than destroyed: a client still sending reads the answer instead of a reset.
    lingeringClose(socket, linger, `${lines.join('\r\n')}\r\n\r\n${body}`);
  };
}
