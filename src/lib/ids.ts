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

/**
 * The prefixes of the ids the house's shared tables and the older modules make (`ord_...`). A
 * module may declare its own instead: its manifest lists them (`idPrefixes`) and names them in
 * `IdPrefixNames` by declaration merging, so `newId` takes them; a prefix declared twice fails the
 * start, as two resources sharing one could not be told apart.
 */
export const SHARED_ID_PREFIXES = [
  'ten',
  'usr',
  'key',
  'prod',
  'var',
  'cus',
  'dsc',
  'shr',
  'txr',
  'ord',
  'pay',
  're',
  'wal',
  'txn',
  'tr',
  'wh',
  'evt',
  'del',
  'plg',
  'gen',
  'imp',
  'ins',
  'req',
] as const;

/**
 * The modules' own prefixes, by name: each manifest adds its own by declaration merging
 * (`interface IdPrefixNames extends Names<typeof ID_PREFIXES> {}`).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the modules' manifests
export interface IdPrefixNames {}

export type IdPrefix = (typeof SHARED_ID_PREFIXES)[number] | Extract<keyof IdPrefixNames, string>;

/** The modules' prefixes, with the module that declared each. */
const declaredPrefixes = new Map<string, string>();

/**
 * Adds a module's prefixes (the kernel does, from each manifest it loads). Declaring a module's
 * prefixes again replaces them; a prefix the house or another module has fails, naming both.
 */
export function declareIdPrefixes(module: string, prefixes: readonly string[]): void {
  for (const prefix of prefixes) {
    const owner = (SHARED_ID_PREFIXES as readonly string[]).includes(prefix)
      ? 'the shared prefixes (src/lib/ids.ts)'
      : declaredPrefixes.get(prefix);
    if (owner !== undefined && owner !== module) {
      throw new Error(`id prefix ${prefix} is declared twice: by module ${module} and by ${owner}`);
    }
  }
  for (const [prefix, owner] of declaredPrefixes) if (owner === module) declaredPrefixes.delete(prefix);
  for (const prefix of prefixes) declaredPrefixes.set(prefix, module);
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(24)}`;
}

/** Entropy for request ids: 512 ids' worth, drawn and hex-encoded at once (as `randomUUID` pools). */
const REQUEST_IDS_PER_POOL = 512;
/** Random hex characters of a request id, after its 12 of time. */
const REQUEST_ID_RANDOM_HEX = 20;
const requestIdPool = Buffer.alloc((REQUEST_ID_RANDOM_HEX / 2) * REQUEST_IDS_PER_POOL);
let requestIdHex = '';
let requestIdOffset = 0;
let requestIdMs = -1;
let requestIdTime = '';

/**
 * `req_` and 32 hex characters: 12 of the time in milliseconds, then 20 random (80 bits), cut from
 * a pooled hex string (encoding per id, or formatting a UUID and stripping its dashes, cost several
 * times more, on every request). Time first, as a UUIDv7 has it, so the ids a server gives sort by
 * when they were made: the request log's index by id takes each new one at its end, as the time
 * index does, rather than on a random page of a million (its batches write a few pages, not one
 * per row).
 */
export function newRequestId(): string {
  if (requestIdOffset === requestIdHex.length) {
    requestIdHex = randomFillSync(requestIdPool).toString('hex');
    requestIdOffset = 0;
  }
  const now = Date.now();
  if (now !== requestIdMs) {
    requestIdMs = now;
    requestIdTime = now.toString(16).padStart(12, '0');
  }
  const id = `req_${requestIdTime}${requestIdHex.slice(requestIdOffset, requestIdOffset + REQUEST_ID_RANDOM_HEX)}`;
  requestIdOffset += REQUEST_ID_RANDOM_HEX;
  return id;
}
