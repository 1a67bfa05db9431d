import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

// OWASP's scrypt baseline (N=2^17, r=8, p=1): about 128 MiB of work memory per hash. The cost is
// set once at start from PASSWORD_SCRYPT_LOG2N (test runs lower it); verification always uses the
// parameters stored with the hash.
const PARAMS = { N: 2 ** 17, r: 8, p: 1 };

export function setScryptCost(log2N: number): void {
  PARAMS.N = 2 ** log2N;
}
const KEY_LENGTH = 64;
const MAX_MEMORY = 256 * 1024 * 1024;

interface ScryptHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

let derivations = 0;

/** Every scrypt this module runs goes through here, and is counted. */
function derive(password: string, salt: Buffer, keylen: number, params: Omit<ScryptHash, 'salt' | 'hash'>) {
  derivations += 1;
  return scryptAsync(password, salt, keylen, { N: params.N, r: params.r, p: params.p, maxmem: MAX_MEMORY });
}

/**
 * How many scrypt derivations (hashes and verifications) this process has run: what shows that a
 * sign-in costs one whether or not its email has an account.
 */
export function scryptDerivations(): number {
  return derivations;
}

/**
 * `scrypt$N$r$p$salt$hash`, salt and hash in base64. The parameters travel with the hash.
 * `log2N` overrides the configured cost (a hash made as an older configuration made it).
 */
export async function hashPassword(password: string, log2N?: number): Promise<string> {
  const params = { ...PARAMS, ...(log2N === undefined ? {} : { N: 2 ** log2N }) };
  const salt = randomBytes(16);
  const hash = await derive(password, salt, KEY_LENGTH, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

function parse(stored: string): ScryptHash | undefined {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return undefined;
  return {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    salt: Buffer.from(salt, 'base64'),
    hash: Buffer.from(hash, 'base64'),
  };
}

let decoy: ScryptHash | undefined;

/**
 * A hash at the configured cost that no password matches (its "hash" is random bytes, not the
 * output of scrypt). Made without running scrypt, so the first unknown email costs no more than
 * the next one.
 */
function decoyHash(): ScryptHash {
  if (decoy?.N !== PARAMS.N) {
    decoy = { ...PARAMS, salt: randomBytes(16), hash: randomBytes(KEY_LENGTH) };
  }
  return decoy;
}

/**
 * Whether `password` is the one `stored` was made from. Without a usable stored hash (an unknown
 * email, a user without a password, a malformed value) it runs the same derivation against a decoy
 * at the configured cost and answers false: every call runs exactly one scrypt, so the time taken
 * does not tell whether there was a hash to check.
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parsed = stored ? parse(stored) : undefined;
  const against = parsed ?? decoyHash();
  const actual = await derive(password, against.salt, against.hash.length, against);
  return parsed !== undefined && timingSafeEqual(actual, parsed.hash);
}

/**
 * Whether `stored` was made at other parameters than new hashes get (the configured cost changed
 * since). Rehashed at the owner's next sign-in, so every account converges on the cost an unknown
 * email's decoy costs.
 */
export function needsRehash(stored: string): boolean {
  const parsed = parse(stored);
  return parsed === undefined || parsed.N !== PARAMS.N || parsed.r !== PARAMS.r || parsed.p !== PARAMS.p;
}
