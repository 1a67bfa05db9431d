import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Conditional GETs: a `200` answer to a GET carries a strong `ETag`, a digest of the exact bytes
 * sent (after the version transform), so it changes with anything that changes the body (the
 * data, the version, the page) and with nothing else. A request whose `If-None-Match` holds it
 * (or `*`) is answered `304` with no body. Streams (exports) carry none.
 *
 * Not @fastify/etag: it tags every method and status, and compares `If-None-Match` as one tag,
 * where RFC 9110 (13.1.2) allows a list.
 */

export function entityTag(body: string | Buffer): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/** Whether `If-None-Match` (RFC 9110 13.1.2: `*` or a list of tags, weakly compared) holds `tag`. */
export function noneMatch(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  for (const part of header.split(',')) {
    const candidate = part.trim();
    if (candidate === '*') return true;
    if ((candidate.startsWith('W/') ? candidate.slice(2) : candidate) === tag) return true;
  }
  return false;
}

/** How a callback-style onSend hook goes on: with the payload to send (no promise per response). */
export type OnSendDone = (error: Error | null, payload?: unknown) => void;

/** The onSend hook of GET routes: tags the answer, and turns it into a 304 when the client has it. */
export function conditionalGet(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: OnSendDone,
): void {
  if (reply.statusCode !== 200 || !(typeof payload === 'string' || Buffer.isBuffer(payload))) {
    done(null, payload);
    return;
  }
  // An answer from the read cache (read-cache.ts) comes with the tag of its bytes.
  const tag = (reply.getHeader('etag') as string | undefined) ?? entityTag(payload);
  reply.header('etag', tag);
  if (!noneMatch(request.headers['if-none-match'], tag)) {
    done(null, payload);
    return;
  }
  reply.code(304);
  done(null, '');
}
