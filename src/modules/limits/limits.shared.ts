import type { Clock } from '../../lib/clock.js';
import { randomBase62 } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { type BucketLevels, type BucketsInput, createMemoryBuckets } from './limits.buckets.js';
import { createMemoryCounters } from './limits.memory.js';
import {
  type Counters,
  drained,
  IDLE_MS,
  type MonthWindow,
  monthWindow,
  SWEEP_EVERY_MS,
  type TakeInput,
} from './limits.policy.js';
import {
  createRedisCounters,
  FOLD_CHUNK,
  HEARTBEAT_MS,
  neverRan,
  type SharedCounters,
} from './limits.redis.js';

/** What this process last heard from Redis about a tenant. */
interface Heard {
  month: string;
  used: number;
  /** The month counter's seeded mark. */
  seeded: number;
  /** Bucket levels as of `at` (`aiAt`), and the hourly limit they drain at. */
  hourly: number;
  at: number;
  limit: number;
  ai: number;
  aiAt: number;
}

/**
 * Redis outages. While Redis is unreachable each process admits from counters of its own, and
 * after it answers again they are reconciled once, so that:
 *
 * - The month's count never counts a call twice. The fallback starts from the larger of the
 *   stored usage and the count it last heard from Redis; the calls it admits are owed to Redis.
 *   After reconnecting, they are handed over in batches with ids of their own (a batch resent
 *   after a lost answer applies once), and only to a month counter that cannot hold them yet:
 *   the one they were counted against, or an older one. A counter seeded later (Redis came back
 *   empty) was read from a store that already holds them. A call whose command timed out may have
 *   been counted by Redis: the fallback admits it but does not owe it.
 * - The hourly limit admits no more than one shared bucket would. The fallback starts from the
 *   level this process last heard, and charges each request P times, P being the number of
 *   processes that announced themselves to Redis in the last seconds: a process admits at most
 *   1/P of what remained when it last heard from Redis, and refills at 1/P of the rate. After
 *   reconnecting, each process adds what it admitted to the shared bucket; when Redis came back
 *   empty, the level it last heard too (the highest one once, however many processes bring one),
 *   so the window does not reset.
 */
export function createSharedCounters(deps: {
  url: string;
  keyPrefix: string;
  clock: Clock;
  logger: Logger;
  aiPerMinute: number;
  seed: (tenantId: string, month: MonthWindow) => Promise<number>;
}) {
  const { clock, logger, aiPerMinute } = deps;
  const redis = createRedisCounters({ url: deps.url, keyPrefix: deps.keyPrefix, logger });
  const processId = randomBase62(12);
  const heard = new Map<string, Heard>();
  let processes = 1;
  let batches = 0;
  const fallback = createMemoryCounters(deps.seed, {
    start(tenantId, input) {
      const last = heard.get(tenantId);
      if (!last) return { hourly: 0, ai: 0, used: 0, counter: -1 };
      const sameMonth = last.month === input.month.key;
      return {
        hourly: drained({ level: last.hourly, at: last.at }, input.limits.hourly, input.now),
        ai: drained({ level: last.ai, at: last.aiAt }, aiPerMinute, input.now),
        used: sameMonth ? last.used : 0,
        counter: sameMonth ? last.seeded : -1,
      };
    },
    counter(tenantId, month) {
      const last = heard.get(tenantId);
      return last?.month === month ? last.seeded : -1;
    },
    share: () => processes,
    batchId: () => `${processId}:${(batches += 1)}`,
  });

  /**
   * The storefront's buckets while Redis is away: each process charges a request P times, as for
   * the hourly limit, starting empty. Being minutes (an hour at most) long, they are not handed
   * over to Redis afterwards.
   */
  const fallbackBuckets = createMemoryBuckets();

  /** The id of Redis's data set when this process last reconciled with it. */
  let epoch: string | undefined;
  /** Counting with the fallback since the last reconciliation. */
  let degraded = false;
  /** The connection closed since the last reconciliation: Redis may have restarted empty. */
  let connectionLost = false;
  let reconciling: Promise<boolean> | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let lastSweep = 0;

  function degrade(error: unknown): void {
    if (degraded) return;
    degraded = true;
    logger.warn(
      { err: error },
      'Redis is unreachable: rate limits and quotas are enforced with this process’s own counters until it is back',
    );
  }

  function beat(): void {
    redis.heartbeat(processId).then(
      (count) => (processes = Math.max(1, count)),
      (error: unknown) => logger.debug({ err: error }, 'rate limit heartbeat failed'),
    );
  }

  redis.redis.on('error', degrade);
  redis.redis.on('close', () => (connectionLost = true));
  redis.redis.on('ready', () => {
    heartbeat ??= setInterval(() => {
      if (redis.usable()) beat();
    }, HEARTBEAT_MS);
    heartbeat.unref();
    // Requests wait for the reconciliation, so it goes first; the heartbeat can wait.
    if (degraded || connectionLost) void reconcile().then(beat);
    else beat();
  });

  function remember(input: TakeInput, counters: SharedCounters): void {
    const { tenantId, now } = input;
    if (now - lastSweep > SWEEP_EVERY_MS) {
      lastSweep = now;
      for (const [id, last] of heard) if (now - last.at > IDLE_MS) heard.delete(id);
    }
    let last = heard.get(tenantId);
    if (!last) {
      last = { month: '', used: 0, seeded: 0, hourly: 0, at: 0, limit: 0, ai: 0, aiAt: 0 };
      heard.set(tenantId, last);
    }
    last.month = input.month.key;
    last.used = counters.used;
    last.seeded = counters.seeded;
    last.hourly = counters.hourly;
    last.at = now;
    last.limit = input.limits.hourly;
    if (input.aiLimit > 0) {
      last.ai = counters.ai;
      last.aiAt = now;
    }
  }

  /** Hands Redis one tenant's owed batches and, after a restart, the hourly level last heard. */
  async function foldTenant(tenantId: string, restarted: boolean, now: number): Promise<void> {
    const last = heard.get(tenantId);
    const owed = fallback.owed(tenantId, now);
    const limit = owed?.limit ?? last?.limit;
    if (limit === undefined) return;
    const base = restarted && last ? drained({ level: last.hourly, at: last.at }, limit, now) : 0;
    const sends = owed && owed.batches.length > 0 ? owed.batches : base > 0 ? [undefined] : [];
    for (const batch of sends) {
      const month = batch?.month ?? last?.month ?? monthWindow(now).key;
      const folded = await redis.fold(tenantId, month, { now, limit, base, batch });
      if (batch) fallback.applied(tenantId, batch);
      let known = heard.get(tenantId);
      if (!known) {
        known = { month, used: 0, seeded: -1, hourly: 0, at: now, limit, ai: 0, aiAt: now };
        heard.set(tenantId, known);
      }
      known.hourly = folded.hourly;
      known.at = now;
      known.limit = limit;
      if (known.month === month && folded.used >= 0) {
        known.used = folded.used;
        known.seeded = folded.seeded;
      }
    }
    fallback.release(tenantId);
  }

  async function reconcileOnce(): Promise<boolean> {
    const lost = connectionLost;
    connectionLost = false;
    try {
      const current = await redis.epoch(randomBase62(16));
      const restarted = epoch !== undefined && current !== epoch;
      const now = clock.now();
      const tenants = new Set(fallback.tenantIds());
      if (restarted) for (const tenantId of heard.keys()) tenants.add(tenantId);
      const ids = [...tenants];
      for (let i = 0; i < ids.length; i += FOLD_CHUNK) {
        await Promise.all(ids.slice(i, i + FOLD_CHUNK).map((id) => foldTenant(id, restarted, now)));
      }
      epoch = current;
      if (degraded) {
        degraded = false;
        logger.warn(
          { tenants: ids.length, restarted },
          'Redis is reachable again: rate limits and quotas use the shared counters',
        );
      }
      return true;
    } catch (error) {
      connectionLost ||= lost;
      degrade(error);
      logger.warn(
        { err: error },
        'could not reconcile the counters of the Redis outage with Redis; will retry',
      );
      return false;
    }
  }

  /** After an outage or a lost connection: one reconciliation at a time, every caller waits for it. */
  function reconcile(): Promise<boolean> {
    if (!reconciling) {
      reconciling = reconcileOnce();
      void reconciling.finally(() => (reconciling = undefined));
    }
    return reconciling;
  }

  /** Whether Redis may lack something this process knows (or it has not learnt Redis's epoch yet). */
  function behind(): boolean {
    return degraded || connectionLost || epoch === undefined || fallback.size() > 0;
  }

  async function take(input: TakeInput): Promise<Counters> {
    await redis.ready(degrade);
    // Also catches a fallback request that was still reading the store when Redis came back.
    if (redis.usable() && behind()) await reconcile();
    if (!redis.usable() || degraded) {
      if (!degraded) degrade(new Error(`Redis connection is ${redis.redis.status}`));
      return fallback.take(input);
    }
    /** Redis's counters (undefined: the month is not seeded), or the fallback's if Redis failed. */
    const takeShared = async (): Promise<{ shared?: SharedCounters; local?: Counters }> => {
      try {
        return { shared: await redis.take(input) };
      } catch (error) {
        degrade(error);
        return { local: await fallback.take(input, neverRan(error)) };
      }
    };
    let taken = await takeShared();
    if (taken.local) return taken.local;
    let counters = taken.shared;
    if (counters === undefined) {
      const stored = await deps.seed(input.tenantId, input.month);
      const last = heard.get(input.tenantId);
      const used = Math.max(stored, last?.month === input.month.key ? last.used : 0);
      try {
        await redis.seed(input, used, clock.now());
      } catch (error) {
        degrade(error);
        return fallback.take(input);
      }
      taken = await takeShared();
      if (taken.local) return taken.local;
      counters = taken.shared;
      if (counters === undefined) {
        degrade(new Error('the month counter vanished as it was seeded'));
        return fallback.take(input);
      }
    }
    remember(input, counters);
    return counters;
  }

  /** Named buckets (the storefront's limits): in Redis, or this process's while Redis is away. */
  async function buckets(input: BucketsInput): Promise<BucketLevels> {
    await redis.ready(degrade);
    if (redis.usable() && behind()) await reconcile();
    if (!redis.usable() || degraded) {
      if (!degraded) degrade(new Error(`Redis connection is ${redis.redis.status}`));
      return fallbackBuckets.take(input, processes);
    }
    try {
      return await redis.buckets(input);
    } catch (error) {
      degrade(error);
      return fallbackBuckets.take(input, processes);
    }
  }

  return {
    take,
    buckets,
    /** Whether Redis is in use right now (not the fallback), and how many processes share it. */
    state(): { inUse: boolean; processes: number } {
      return { inUse: redis.usable() && !degraded && reconciling === undefined, processes };
    },
    async close(): Promise<void> {
      if (heartbeat) clearInterval(heartbeat);
      heartbeat = undefined;
      // The calls owed to Redis, while it can still take them.
      if (redis.usable() && fallback.size() > 0) await reconcile();
      await redis.close(processId);
    },
  };
}
