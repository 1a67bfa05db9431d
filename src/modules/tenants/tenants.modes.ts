import type { Db } from '../../db/store.js';

/**
 * Each store's mode as this process knows it: a store's mode never changes and its id is never
 * reused, so what was read once holds for good.
 */
const known = new Map<string, boolean>();
const KNOWN_MAX = 100_000;

/**
 * Whether a store is live (false: a store's test mode), read through `db` (a transaction's, when
 * asked inside one) the first time and from memory after. An unknown id is live.
 */
export function livemodeOf(db: Db, tenantId: string): boolean | Promise<boolean> {
  const found = known.get(tenantId);
  if (found !== undefined) return found;
  return db
    .selectFrom('tenants')
    .select('mode')
    .where('id', '=', tenantId)
    .executeTakeFirst()
    .then((row) => {
      const livemode = row?.mode !== 'test';
      if (row !== undefined) {
        if (known.size >= KNOWN_MAX) known.clear();
        known.set(tenantId, livemode);
      }
      return livemode;
    });
}

/** Notes a store's mode where it is known already (a key's principal, a store just made). */
export function rememberLivemode(tenantId: string, livemode: boolean): void {
  if (known.get(tenantId) === livemode) return;
  if (known.size >= KNOWN_MAX) known.clear();
  known.set(tenantId, livemode);
}
