import { randomBytes, randomUUID } from 'node:crypto';

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

/** `req_` and 32 hex characters; randomUUID draws from a pooled entropy buffer, cheap per request. */
export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '')}`;
}
