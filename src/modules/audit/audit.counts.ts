import { deltaSums } from '../../db/count-deltas.js';
import type { Db } from '../../db/store.js';

/**
 * The audit log's kept counts (src/db/list-counts.ts) by each filter whose rows are many: `action`
 * (list `audit:action`) and `actor_id` (`audit:actor`), keyed by the value, so a page filtered by
 * one alone answers its `total` at any size. The sealer adds an entry to them in the transaction
 * that gives it its place in the chain (once per entry: an entry is sealed once and never deleted,
 * and erasure leaves its action and actor), and migration 0066 counted the entries sealed before;
 * the entries not sealed yet (a second's worth) are counted on their own partial index.
 */

/** The whole audit log's lists' prefix (a test-mode reset keeps them with the log). */
export const AUDIT_LISTS = 'audit';

export const AUDIT_FILTER_LISTS = { action: 'audit:action', actorId: 'audit:actor' } as const;

/** Adds the sealed `entries` to the kept counts, in the sealing transaction. */
export async function countSealed(
  trx: Db,
  tenantId: string,
  entries: readonly { action: string; actor_id: string | null }[],
): Promise<void> {
  const sums = deltaSums();
  for (const entry of entries) {
    sums.add(tenantId, AUDIT_FILTER_LISTS.action, entry.action, 1);
    if (entry.actor_id !== null) sums.add(tenantId, AUDIT_FILTER_LISTS.actorId, entry.actor_id, 1);
  }
  const deltas = sums.deltas();
  if (deltas.length > 0) await trx.insertInto('list_count_deltas').values(deltas).execute();
}
