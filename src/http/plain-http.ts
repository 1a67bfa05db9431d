import http from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { Logger } from '../lib/logger.js';
import { type LingerBounds, lingeringClose } from './connections.js';

/**
 * Plain HTTP on the HTTPS port (`curl http://127.0.0.1:8443/`): without this, TLS reads the request
 * as a broken handshake and the client gets an empty reply. Here the first byte of each connection
 * decides: a TLS handshake starts with a handshake record (0x16) and goes on to TLS as before;
 * anything else is answered with a short plain-text `400` naming the `https://` address, and
 * closed.
 *
 * The HTTPS server still accepts every connection itself, so what guards it is unchanged: the
 * connection cap and its count (`maxConnections`, `'connection'`, `'drop'`, src/http/connections.ts)
 * see every connection, plain or not, and TLS and HTTP keep their own timeouts. Only the start of
 * the TLS handshake waits for the first byte; the handshake must still be done within
 * `handshakeTimeoutMs` of the connection, and a plain request is answered within it.
 */

/** The first byte of a TLS record carrying a handshake (RFC 8446, section 5.1). */
const TLS_HANDSHAKE = 0x16;
/** The most of a plain request read for its Host header. */
const MAX_PLAIN_BYTES = 8 * 1024;
/** A Host header fit to repeat in the answer: a name or address and a port, nothing else. */
const HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** `https://host:port/` for a plain request: its Host header, else the address it reached. */
function httpsAddress(socket: Socket, head: string): string {
  // A whole Host line only; without a port it names the one the client reached.
  const host = /\r?\nhost:[ \t]*([^\r\n]*)\r?\n/i.exec(head)?.[1]?.trim() ?? '';
  if (HOST.test(host)) return `https://${/:\d+$/.test(host) ? host : `${host}:${socket.localPort ?? ''}`}/`;
  const address = (socket.localAddress ?? '127.0.0.1').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  return `https://${address.includes(':') ? `[${address}]` : address}:${socket.localPort ?? ''}/`;
}

/** The answer to a plain request whose start (up to its headers) is `head`; then the close. */
function answer(socket: Socket, head: string, linger: LingerBounds): void {
  const body = `This port speaks HTTPS: use ${httpsAddress(socket, head)}\n`;
  const lines = [
    `HTTP/1.1 400 ${http.STATUS_CODES[400] ?? ''}`,
    'content-type: text/plain; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    `date: ${new Date().toUTCString()}`,
    'connection: close',
  ];
  // Ended rather than destroyed, and what the client still sends is read and dropped: closing
  // with unread data would reset the connection before the client reads the answer.
  socket.removeAllListeners('readable');
  lingeringClose(socket, linger, `${lines.join('\r\n')}\r\n\r\n${body}`);
}

/**
 * Makes `server` (HTTPS, not yet listening) answer plain HTTP as above. False, changing nothing,
 * when the server's TLS connection listener is not where Node puts it (its own `'connection'`
 * listener): then plain HTTP gets the empty reply it always got.
 */
export function answerPlainHttp(
  server: HttpsServer,
  options: { handshakeTimeoutMs: number; logger: Logger; linger: LingerBounds },
): boolean {
  const startTls = server
    .listeners('connection')
    .find((listener) => listener.name === 'tlsConnectionListener') as
    ((this: HttpsServer, socket: Socket) => void) | undefined;
  if (startTls === undefined) {
    options.logger.warn('plain HTTP on the HTTPS port gets no answer: Node runs TLS differently here');
    return false;
  }
  server.removeListener('connection', startTls);
  // Connections whose handshake has not finished, by their remote end (unique while they are open),
  // each with the deadline that closes it.
  const handshaking = new Map<string, NodeJS.Timeout>();
  const keyOf = (socket: Socket) =>
    socket.remoteAddress === undefined ? undefined : `${socket.remoteAddress}|${socket.remotePort}`;
  server.on('secureConnection', (socket: Socket) => {
    const key = keyOf(socket);
    if (key === undefined) return;
    clearTimeout(handshaking.get(key));
    handshaking.delete(key);
  });

  server.prependListener('connection', (socket: Socket) => {
    const key = keyOf(socket);
    let head = '';
    let decided: 'tls' | 'plain' | undefined;
    const deadline = setTimeout(() => {
      if (decided === 'plain') answer(socket, head, options.linger);
      else socket.destroy();
    }, options.handshakeTimeoutMs);
    deadline.unref();
    if (key !== undefined) handshaking.set(key, deadline);
    const forget = () => {
      clearTimeout(deadline);
      if (key !== undefined && handshaking.get(key) === deadline) handshaking.delete(key);
    };
    socket.once('close', forget);
    // Until TLS takes the socket, its errors (a reset) only close it.
    const onError = () => socket.destroy();
    socket.on('error', onError);

    const onReadable = () => {
      if (decided === undefined) {
        const first = socket.read(1) as Buffer | null;
        if (first === null) return;
        if (first[0] === TLS_HANDSHAKE) {
          decided = 'tls';
          socket.removeListener('readable', onReadable);
          socket.removeListener('error', onError);
          // Back where TLS reads it: it takes what the socket holds before it reads on.
          socket.unshift(first);
          startTls.call(server, socket);
          return;
        }
        decided = 'plain';
        head = first.toString('latin1');
      }
      for (
        let chunk = socket.read() as Buffer | null;
        chunk !== null;
        chunk = socket.read() as Buffer | null
      ) {
        head += chunk.toString('latin1');
      }
      if (/\r?\n\r?\n/.test(head) || head.length >= MAX_PLAIN_BYTES) {
        socket.removeListener('readable', onReadable);
        forget();
        answer(socket, head.slice(0, MAX_PLAIN_BYTES), options.linger);
      }
    };
    socket.on('readable', onReadable);
  });
  return true;
}
