import { type Bucket, drained, fill, fits, SWEEP_EVERY_MS } from './limits.policy.js';

/**
 * Named GCRA buckets, checked and counted together: the storefront's limits (limits.storefront.ts)
 * in this process's memory. The same arithmetic as the tenant's hourly bucket (limits.policy.ts):
 * a request costs `window` units, a bucket drains `limit` units per millisecond and holds
 * `limit * window`; Redis runs the same rules in one script (limits.redis.ts, `BUCKETS_SCRIPT`).
 */

/** One bucket a request takes from: `limit` requests per `window` milliseconds, kept under `key`. */
export interface BucketRule {
  key: string;
  limit: number;
  window: number;
}

export interface BucketsInput {
  /** Every key is the tenant's (in Redis, one hash slot per tenant). */
  tenantId: string;
  rules: readonly BucketRule[];
  now: number;
  /** false: report the levels without counting a request. */
  consume: boolean;
}

/** Each rule's level, after the request when it was admitted, as they are when not. */
export interface BucketLevels {
  admitted: boolean;
  levels: number[];
  /** What a request costs here, in requests: 1, or the fallback's share while Redis is away. */
  share: number;
}

interface Kept extends Bucket {
  /** The limit it last drained at: an idle bucket is forgotten once it has drained to empty. */
  limit: number;
}

export function createMemoryBuckets() {
  const buckets = new Map<string, Kept>();
  let lastSweep = 0;

  function sweep(now: number): void {
    lastSweep = now;
    for (const [key, bucket] of buckets) if (drained(bucket, bucket.limit, now) === 0) buckets.delete(key);
  }

  return {
    /**
     * Admits the request when every bucket has room for it (`share` requests' worth), and then
     * counts it in each; refused, it counts in none. Synchronous.
     */
    take(input: BucketsInput, share = 1): BucketLevels {
      const { tenantId, rules, now } = input;
      if (now - lastSweep > SWEEP_EVERY_MS) sweep(now);
      const taken = rules.map((rule) => {
        const key = `${tenantId} ${rule.key}`;
        const bucket = buckets.get(key);
        return { rule, key, bucket, level: bucket === undefined ? 0 : drained(bucket, rule.limit, now) };
      });
      const admitted = taken.every(({ rule, level }) =>
        fits(level, rule.limit, rule.window, rule.window * share),
      );
      if (admitted && input.consume) {
        for (const entry of taken) {
          const { rule, key, bucket } = entry;
          entry.level += rule.window * share;
          if (bucket === undefined) buckets.set(key, { level: entry.level, at: now, limit: rule.limit });
          else {
            fill(bucket, entry.level, now);
            bucket.limit = rule.limit;
          }
        }
      }
      return { admitted, levels: taken.map((entry) => entry.level), share };
    },
    /** Buckets kept (idle ones go once drained, at the next sweep). */
    size(): number {
      return buckets.size;
    },
  };
}
