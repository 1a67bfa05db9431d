import { randomBytes, randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniformly random base62 string (rejection sampling: no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export type IdPrefix =
  | 'ten'
  | 'usr'
  | 'key'
  | 'prod'
  | 'ord'
  | 'pay'
  | 'wal'
  | 'txn'
  | 'tr'
  | 'wh'
  | 'evt'
  | 'del'
  | 'plg'
  | 'gen'
  | 'req';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(24)}`;
}

/** Entropy for request ids, filled once per 512 ids (as `randomUUID` pools its own). */
const requestIdPool = Buffer.alloc(16 * 512);
let requestIdOffset = requestIdPool.length;

/**
 * `req_` and 32 hex characters (128 random bits). Hex straight from a pooled buffer: formatting
 * a UUID and stripping its dashes cost several times more, on every request.
 */
export function newRequestId(): string {
  if (requestIdOffset === requestIdPool.length) {
    randomFillSync(requestIdPool);
    requestIdOffset = 0;
  }
  const id = `req_${requestIdPool.toString('hex', requestIdOffset, requestIdOffset + 16)}`;
  requestIdOffset += 16;
  return id;
}
