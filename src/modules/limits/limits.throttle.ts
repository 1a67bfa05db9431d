import type { ConsoleThrottleTable } from '../../db/schema.js';
import type { Db, Store } from '../../db/store.js';
import { AppError } from '../../lib/errors.js';

/**
 * Attempts counted in the store, in fixed windows (table `console_throttle`, migration 0009): what
 * holds back password guessing and costly sign-ups, for the developer console and the shoppers'
 * accounts alike. Being in the store, a count holds across processes and restarts.
 *
 * A counter is a key (a hash of what is counted: an email, a client address, a pair) with the
 * attempts of its current window; once they reach the rule's `limit` the key is blocked for
 * `blockMs`. A window that started more than `windowMs` ago starts over at the next attempt. The
 * keys of every user of the table share one space, so each names its purpose (`login-pair:`,
 * `shopper-login-email:`, ...).
 */

export interface ThrottleRule {
  limit: number;
  windowMs: number;
  blockMs: number;
}

/** A counter and its rule. */
export type ThrottleCounter = readonly [key: string, rule: ThrottleRule];

/**
 * The longest window or block a rule may have: a counter whose window started longer ago and
 * whose block is over holds nothing back under any rule, and the sweep deletes it.
 */
export const MAX_THROTTLE_WINDOW_MS = 24 * 3_600_000;

export type ThrottleRow = ConsoleThrottleTable;

async function findThrottles(db: Db, keys: readonly string[]): Promise<ThrottleRow[]> {
  if (keys.length === 0) return [];
  const rows = await db
    .selectFrom('console_throttle')
    .selectAll()
    .where('key', 'in', [...keys])
    .execute();
  return rows.map((row) => ({
    key: row.key,
    attempts: Number(row.attempts),
    window_start: Number(row.window_start),
    blocked_until: row.blocked_until === null ? null : Number(row.blocked_until),
  }));
}

/**
 * Counts one attempt against `key`: a window that started before `windowStartedBefore` starts
 * over at this attempt. One atomic upsert, so concurrent attempts all count.
 */
async function countAttempt(db: Db, key: string, now: number, windowStartedBefore: number): Promise<void> {
  await db
    .insertInto('console_throttle')
    .values({ key, attempts: 1, window_start: now, blocked_until: null })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet((eb) => {
        const stale = eb('console_throttle.window_start', '<=', windowStartedBefore);
        return {
          attempts: eb
            .case()
            .when(stale)
            .then(1)
            .else(eb('console_throttle.attempts', '+', 1))
            .end(),
          window_start: eb.case().when(stale).then(now).else(eb.ref('console_throttle.window_start')).end(),
          blocked_until: eb
            .case()
            .when(stale)
            .then(null)
            .else(eb.ref('console_throttle.blocked_until'))
            .end(),
        };
      }),
    )
    .execute();
}

/** Blocks `key` until `until` once its attempts in the current window reach `limit`. */
async function blockWhenReached(db: Db, key: string, limit: number, until: number): Promise<void> {
  await db
    .updateTable('console_throttle')
    .set({ blocked_until: until })
    .where('key', '=', key)
    .where('attempts', '>=', limit)
    .where((eb) => eb.or([eb('blocked_until', 'is', null), eb('blocked_until', '<', until)]))
    .execute();
}

/** Forgets `key`'s attempts (a success that proves the caller, such as the right password). */
export async function clearThrottle(db: Db, key: string): Promise<void> {
  await db.deleteFrom('console_throttle').where('key', '=', key).execute();
}

/** Counters whose window and block are both over under any rule: they no longer hold anything back. */
export async function deleteStaleThrottles(db: Db, now: number): Promise<void> {
  await db
    .deleteFrom('console_throttle')
    .where('window_start', '<=', now - MAX_THROTTLE_WINDOW_MS)
    .where((eb) => eb.or([eb('blocked_until', 'is', null), eb('blocked_until', '<=', now)]))
    .execute();
}

/** The 429 of a blocked counter, with `Retry-After` in seconds. */
function tooMany(what: string, waitMs: number): AppError {
  const seconds = Math.ceil(waitMs / 1000);
  return new AppError(
    'rate_limited',
    `Too many ${what}; try again in ${Math.ceil(seconds / 60)} minute${seconds > 60 ? 's' : ''}.`,
    { headers: { 'retry-after': String(seconds) } },
  );
}

export type Throttle = ReturnType<typeof createThrottle>;

export function createThrottle(deps: { store: Store }) {
  const { store } = deps;

  /** Milliseconds until none of `keys` is blocked; 0 when none is. */
  async function waitMs(keys: readonly string[], now: number): Promise<number> {
    const rows = await findThrottles(store.db, keys);
    return Math.max(0, ...rows.map((row) => (row.blocked_until ?? 0) - now));
  }

  return {
    waitMs,

    /** 429 `rate_limited` while any of `keys` is blocked; `Retry-After` says until when. */
    async refuseWhileBlocked(keys: readonly string[], now: number, what: string): Promise<void> {
      const wait = await waitMs(keys, now);
      if (wait > 0) throw tooMany(what, wait);
    },

    /** Counts one attempt against each counter, in one transaction of its own. */
    async count(counters: readonly ThrottleCounter[], now: number): Promise<void> {
      for (const [key, rule] of counters) {
        if (rule.windowMs > MAX_THROTTLE_WINDOW_MS || rule.blockMs > MAX_THROTTLE_WINDOW_MS) {
          throw new Error(`throttle ${key}: windows and blocks last at most ${MAX_THROTTLE_WINDOW_MS} ms`);
        }
      }
      await store.transaction(async (trx) => {
        for (const [key, rule] of counters) {
          await countAttempt(trx, key, now, now - rule.windowMs);
          await blockWhenReached(trx, key, rule.limit, now + rule.blockMs);
        }
      });
    },
  };
}
