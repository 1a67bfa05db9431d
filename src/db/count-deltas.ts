/**
 * Deltas of the kept counts (src/db/list-counts.ts, table `list_count_deltas`), summed per tenant,
 * list and key before they are written: a batch of rows becomes one delta per key, not one per row.
 * Imports nothing, so the request log's thread, which loads only its drivers, can use it too.
 */

export interface CountDelta {
  tenant_id: string;
  list: string;
  key: string;
  delta: number;
}

/** A running sum of deltas: `add` each row's, then `deltas()` the rows to write. */
export function deltaSums(): {
  add(tenantId: string, list: string, key: string, delta: number): void;
  deltas(): CountDelta[];
} {
  const sums = new Map<string, CountDelta>();
  return {
    add(tenantId, list, key, delta) {
      const id = `${tenantId}\u0000${list}\u0000${key}`;
      const sum = sums.get(id);
      if (sum) sum.delta += delta;
      else sums.set(id, { tenant_id: tenantId, list, key, delta });
    },
    deltas: () => [...sums.values()],
  };
}
