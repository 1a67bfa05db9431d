import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A real HTTP proxy on 127.0.0.1 in front of a running API server that answers the next matching
 * requests with planned faults (an answer of its own, an answer after the server did the work,
 * a dropped connection, a stall) and forwards every other request unchanged. It records what it
 * saw, so a test can show which `Idempotency-Key` each attempt carried.
 */

export type Fault =
  /** Answer this instead of forwarding. */
  | { answer: number; headers?: Record<string, string>; body?: unknown }
  /** Forward (the server does the work), then answer this instead of the server's answer. */
  | { forwardThenAnswer: number; headers?: Record<string, string> }
  /** Close the connection without an answer. */
  | { reset: true }
  /** Answer nothing for this long, then close the connection. */
  | { stallMs: number };

export interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The fault applied, or undefined when forwarded as it was. */
  fault: Fault | undefined;
  /** The server's status, when the request reached it. */
  upstreamStatus?: number;
  /** The server's `Idempotent-Replayed` header. */
  replayed?: boolean;
}

export interface FaultProxy {
  url: string;
  seen: Seen[];
  /** Applies `faults`, one each, to the next requests that `match`. */
  plan(match: (method: string, path: string) => boolean, faults: Fault[]): void;
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const seen: Seen[] = [];
  const plans: { match: (method: string, path: string) => boolean; faults: Fault[] }[] = [];
  const sockets = new Set<Socket>();

  const forward = (
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    body: Buffer,
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const request = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method,
          path,
          headers: { ...headers, host: upstream.host },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 502,
              headers: response.headers,
              body: Buffer.concat(chunks),
            }),
          );
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(body);
    });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const method = req.method ?? 'GET';
        const path = req.url ?? '/';
        const plan = plans.find((candidate) => candidate.faults.length > 0 && candidate.match(method, path));
        const fault = plan?.faults.shift();
        const entry: Seen = { method, path, headers: req.headers, fault };
        seen.push(entry);
        if (fault !== undefined && 'reset' in fault) {
          req.socket.destroy();
          return;
        }
        if (fault !== undefined && 'stallMs' in fault) {
          setTimeout(() => req.socket.destroy(), fault.stallMs);
          return;
        }
        if (fault !== undefined && 'answer' in fault) {
          res.writeHead(fault.answer, { 'content-type': 'application/problem+json', ...fault.headers });
          res.end(JSON.stringify(fault.body ?? { status: fault.answer }));
          return;
        }
        const answer = await forward(method, path, req.headers, Buffer.concat(chunks));
        entry.upstreamStatus = answer.status;
        entry.replayed = answer.headers['idempotent-replayed'] === 'true';
        if (fault !== undefined && 'forwardThenAnswer' in fault) {
          res.writeHead(fault.forwardThenAnswer, { 'content-type': 'application/json', ...fault.headers });
          res.end('{}');
          return;
        }
        const headers = { ...answer.headers };
        delete headers['transfer-encoding'];
        delete headers.connection;
        res.writeHead(answer.status, headers);
        res.end(answer.body);
      })().catch(() => req.socket.destroy());
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    plan: (match, faults) => plans.push({ match, faults: [...faults] }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
