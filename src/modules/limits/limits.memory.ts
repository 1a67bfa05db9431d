import {
  AI_WINDOW_MS,
  type Bucket,
  type Counters,
  drained,
  fill,
  fits,
  HOUR_MS,
  IDLE_MS,
  type MonthWindow,
  SWEEP_EVERY_MS,
  type TakeInput,
} from './limits.policy.js';

/**
 * In-memory counters: the limits of one process, and the fallback of each process while Redis is
 * unreachable (limits.shared.ts), which also keeps what it owes Redis.
 */

/**
 * Calls a fallback admitted that Redis has not counted, handed to Redis as one batch under an id
 * of its own: Redis keeps the ids it applied, so a batch resent after a lost answer applies once.
 */
export interface Batch {
  /** `<process id>:<sequence>`. */
  id: string;
  month: string;
  calls: number;
  /** When this process began counting these calls (its clock). */
  since: number;
  /** The seeded mark of the month counter this process last heard of then (-1: none). */
  counter: number;
  /** Their weight in the hourly bucket: one request each, draining as Redis's bucket does. */
  spent: Bucket;
}

/** What a fallback entry keeps for Redis: the calls since `since`, and the batches already cut. */
interface Tally {
  /** The hourly limit applied last: `spent` drains at it. */
  limit: number;
  calls: number;
  since: number;
  counter: number;
  spent: Bucket;
  /** Cut and not yet confirmed by Redis, oldest first. */
  batches: Batch[];
}

interface TenantCounters {
  hourly: Bucket;
  ai: Bucket;
  month: string;
  used: number;
  touched: number;
  /** Only in a fallback for Redis. */
  tally: Tally | undefined;
}

/** Where a fallback starts a tenant: what this process last heard from Redis, drained to now. */
export interface FallbackStart {
  hourly: number;
  ai: number;
  used: number;
  counter: number;
}

export interface FallbackOptions {
  start(tenantId: string, input: TakeInput): FallbackStart;
  /** The seeded mark of the tenant's month counter this process last heard of (-1: none). */
  counter(tenantId: string, month: string): number;
  /** How many processes share the limits: a request here costs that many of the shared allowance. */
  share(): number;
  batchId(): string;
}

export function createMemoryCounters(
  seed: (tenantId: string, month: MonthWindow) => Promise<number>,
  fallback?: FallbackOptions,
) {
  const tenants = new Map<string, TenantCounters>();
  let lastSweep = 0;

  function owes(entry: TenantCounters): boolean {
    return entry.tally !== undefined && (entry.tally.calls > 0 || entry.tally.batches.length > 0);
  }

  /** Moves the tally's calls into a batch; the tally starts afresh. */
  function cut(tenantId: string, entry: TenantCounters, now: number): void {
    const tally = entry.tally;
    if (!tally || !fallback || tally.calls === 0) return;
    const { calls, since, counter, spent } = tally;
    tally.batches.push({ id: fallback.batchId(), month: entry.month, calls, since, counter, spent });
    tally.calls = 0;
    tally.since = now;
    tally.counter = fallback.counter(tenantId, entry.month);
    tally.spent = { level: 0, at: now };
  }

  async function seeded(tenantId: string, input: TakeInput): Promise<TenantCounters> {
    const { month, now } = input;
    const stored = await seed(tenantId, month);
    // After the await: the latest this process heard from Redis (its count may be ahead of the store's).
    const start = fallback?.start(tenantId, input);
    const used = Math.max(stored, start?.used ?? 0);
    // Concurrent first requests share one seed; the first to resume installs it.
    let entry = tenants.get(tenantId);
    if (!entry) {
      entry = {
        hourly: { level: start?.hourly ?? 0, at: now },
        ai: { level: start?.ai ?? 0, at: now },
        month: month.key,
        used,
        touched: 0,
        tally: start && {
          limit: input.limits.hourly,
          calls: 0,
          since: now,
          counter: start.counter,
          spent: { level: 0, at: now },
          batches: [],
        },
      };
      tenants.set(tenantId, entry);
    } else if (entry.month !== month.key) {
      // The old month's calls keep their month.
      cut(tenantId, entry, now);
      entry.month = month.key;
      entry.used = used;
      if (entry.tally) entry.tally.counter = fallback?.counter(tenantId, month.key) ?? -1;
    }
    return entry;
  }

  function sweep(now: number): void {
    lastSweep = now;
    for (const [tenantId, entry] of tenants) {
      if (now - entry.touched > IDLE_MS && !owes(entry)) tenants.delete(tenantId);
    }
  }

  function count(entry: TenantCounters, input: TakeInput, owed: boolean): Counters {
    const { limits, aiLimit, now } = input;
    const share = fallback ? fallback.share() : 1;
    const hourly = drained(entry.hourly, limits.hourly, now);
    const ai = aiLimit > 0 ? drained(entry.ai, aiLimit, now) : 0;
    const admitted =
      entry.used < limits.monthly &&
      fits(hourly, limits.hourly, HOUR_MS, HOUR_MS * share) &&
      (aiLimit === 0 || fits(ai, aiLimit, AI_WINDOW_MS, AI_WINDOW_MS * share));
    if (!admitted || !input.consume) return { admitted, hourly, used: entry.used, ai, share };
    entry.touched = now;
    fill(entry.hourly, hourly + HOUR_MS * share, now);
    entry.used += 1;
    if (aiLimit > 0) fill(entry.ai, ai + AI_WINDOW_MS * share, now);
    const tally = entry.tally;
    if (tally && owed) {
      tally.limit = limits.hourly;
      tally.calls += 1;
      fill(tally.spent, drained(tally.spent, limits.hourly, now) + HOUR_MS, now);
    }
    const aiLevel = aiLimit > 0 ? entry.ai.level : 0;
    return { admitted, hourly: entry.hourly.level, used: entry.used, ai: aiLevel, share };
  }

  return {
    /**
     * Synchronous once the tenant's month is seeded: no promise on the hot path. `owed` (fallback
     * only): the call is owed to Redis; false when Redis may have counted it already (a command
     * that timed out), so that no call is ever counted twice.
     */
    take(input: TakeInput, owed = true): Counters | Promise<Counters> {
      if (input.now - lastSweep > SWEEP_EVERY_MS) sweep(input.now);
      const entry = tenants.get(input.tenantId);
      if (entry?.month === input.month.key) return count(entry, input, owed);
      return seeded(input.tenantId, input).then((seededEntry) => count(seededEntry, input, owed));
    },
    /** How many tenants have counters here (in a fallback: until Redis holds what they counted). */
    size(): number {
      return tenants.size;
    },
    tenantIds(): string[] {
      return [...tenants.keys()];
    },
    /** The tenant's calls owed to Redis, cut into batches (a batch already sent keeps its id). */
    owed(tenantId: string, now: number): { limit: number; batches: readonly Batch[] } | undefined {
      const entry = tenants.get(tenantId);
      if (!entry?.tally) return undefined;
      cut(tenantId, entry, now);
      return { limit: entry.tally.limit, batches: [...entry.tally.batches] };
    },
    /** Redis has applied the batch: it is no longer owed. */
    applied(tenantId: string, batch: Batch): void {
      const batches = tenants.get(tenantId)?.tally?.batches;
      const index = batches?.indexOf(batch) ?? -1;
      if (index >= 0) batches?.splice(index, 1);
    },
    /** Forgets the tenant's fallback counters unless it still owes Redis calls. */
    release(tenantId: string): void {
      const entry = tenants.get(tenantId);
      if (entry && !owes(entry)) tenants.delete(tenantId);
    },
  };
}
