import { randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random bytes drawn 4 KiB at a time: a draw per id cost more than the id's other work. */
const randomPool = Buffer.alloc(4096);
let randomOffset = randomPool.length;

function randomByte(): number {
  if (randomOffset === randomPool.length) {
    randomFillSync(randomPool);
    randomOffset = 0;
  }
  return randomPool[randomOffset++] as number;
}

/** Uniformly random base62 string (rejection sampling: no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

export type IdPrefix =
  | 'ten'
  | 'usr'
  | 'key'
  | 'prod'
  | 'var'
  | 'cus'
  | 'dsc'
  | 'shr'
  | 'txr'
  | 'ord'
  | 'cart'
  | 'cli'
  | 'pay'
  | 're'
  | 'wal'
  | 'txn'
  | 'tr'
  | 'wh'
  | 'evt'
  | 'del'
  | 'plg'
  | 'gen'
  | 'imp'
  | 'ins'
  | 'req';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(24)}`;
}

/** Entropy for request ids: 512 ids' worth, drawn and hex-encoded at once (as `randomUUID` pools). */
const REQUEST_IDS_PER_POOL = 512;
const requestIdPool = Buffer.alloc(16 * REQUEST_IDS_PER_POOL);
let requestIdHex = '';
let requestIdOffset = 0;

/**
 * `req_` and 32 hex characters (128 random bits), cut from a pooled hex string: encoding per id,
 * or formatting a UUID and stripping its dashes, cost several times more, on every request.
 */
export function newRequestId(): string {
  if (requestIdOffset === requestIdHex.length) {
    requestIdHex = randomFillSync(requestIdPool).toString('hex');
    requestIdOffset = 0;
  }
  const id = `req_${requestIdHex.slice(requestIdOffset, requestIdOffset + 32)}`;
  requestIdOffset += 32;
  return id;
}
