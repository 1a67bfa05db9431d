import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { generate } from 'selfsigned';

/**
 * A real webhook receiver on 127.0.0.1 (HTTP, or HTTPS with a throwaway self-signed certificate)
 * that records every request and answers as the test says.
 */

export interface Received {
  id: string;
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
  at: number;
}

export interface Reply {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Never answer (the test or a crash ends the connection). */
  hang?: boolean;
}

export type Responder = (request: Received, index: number) => Reply | Promise<Reply>;

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Most requests in flight at once, overall and for one webhook-id. */
  maxConcurrent: number;
  maxConcurrentPerId: number;
  /** The requests that arrived while another of their webhook-id was in flight (what made it 2). */
  overlapping: Received[];
  respond: Responder;
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export interface TlsPair {
  key: string;
  cert: string;
}

export async function selfSignedCert(): Promise<TlsPair> {
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - 60_000),
    notAfterDate: new Date(now + 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

export async function startReceiver(
  respond: Responder = () => ({ status: 200, body: '{"ok":true}' }),
  options: { tls?: TlsPair; host?: string } = {},
): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const sockets = new Set<Socket>();
  let inFlight = 0;
  const perId = new Map<string, number>();

  const receiver: Receiver = {
    url: '',
    port: 0,
    received,
    maxConcurrent: 0,
    maxConcurrentPerId: 0,
    overlapping: [],
    respond,
    async waitFor(count, timeoutMs = 15_000) {
      if (received.length >= count) return received;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${received.length} of ${count} requests in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
      return received;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    // Listened for from the start: a sender that gave up (its timeout) may close the request
    // before its body's end is read, and then it is not in flight when it is counted.
    let closed = false;
    let finish = () => {
      closed = true;
    };
    res.on('close', () => finish());
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? '');
      const entry: Received = {
        id,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        path: req.url ?? '/',
        at: Date.now(),
      };
      const index = received.length;
      received.push(entry);
      if (!closed) {
        inFlight += 1;
        perId.set(id, (perId.get(id) ?? 0) + 1);
        receiver.maxConcurrent = Math.max(receiver.maxConcurrent, inFlight);
        receiver.maxConcurrentPerId = Math.max(receiver.maxConcurrentPerId, perId.get(id) ?? 0);
        if ((perId.get(id) ?? 0) > 1) receiver.overlapping.push(entry);
        let done = false;
        finish = () => {
          if (done) return;
          done = true;
          inFlight -= 1;
          perId.set(id, (perId.get(id) ?? 1) - 1);
        };
      }
      for (const waiter of [...waiters]) {
        if (received.length >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
      void Promise.resolve(receiver.respond(entry, index)).then(async (reply) => {
        if (reply.hang) return;
        if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
        res.end(reply.body ?? '');
        finish();
      });
    });
  };

  const server = options.tls ? https.createServer({ ...options.tls }, handler) : http.createServer(handler);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `${options.tls ? 'https' : 'http'}://${host}:${receiver.port}`;
  return receiver;
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
