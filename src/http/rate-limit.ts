import type { FastifyReply, FastifyRequest } from 'fastify';
import { Redis, type Result } from 'ioredis';
import type { Clock } from '../lib/clock.js';
import { iso } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { Plan, TenantSummary } from '../lib/principal.js';
import { randomBase62 } from '../lib/ids.js';
import { AppError } from './errors.js';

/**
 * Rate limits and the monthly quota (contract section 7), per tenant (all of its keys together).
 *
 * - Hourly limit: GCRA (a leaky bucket kept as one level and one instant). A tenant may spend its
 *   whole hourly allowance at once; capacity then comes back continuously, one request every
 *   3600/limit seconds, and is whole again one hour after a full burst. Integer arithmetic only:
 *   a request costs `window` units, the bucket drains `limit` units per millisecond and holds
 *   `limit * window`, so "exactly N of a burst" holds for any N.
 * - Monthly quota: a counter per calendar month (UTC); it resets at 00:00 UTC on the 1st.
 * - AI routes (`config.rateLimit: 'ai'`) add a per-minute GCRA bucket (60 per minute).
 *
 * A request is admitted only if every policy admits it, and only an admitted request is counted:
 * a 429 takes nothing from any limit or the quota (the meter still records it, as an error). The
 * check-and-count is atomic: synchronous in memory (one process), one Lua script per request in
 * Redis (`REDIS_URL`: several processes share exactly one limit).
 *
 * The metered usage in the store (`usage_daily`, written by every process within a second) is the
 * authority for the month's count: a missing month counter (first request of the month, a restart,
 * an emptied Redis) is seeded from it. While Redis is unreachable, see "Redis outages" below.
 */
export const PLAN_LIMITS: Readonly<Record<Plan, { readonly hourly: number; readonly monthly: number }>> = {
  free: { hourly: 1_000, monthly: 10_000 },
  pro: { hourly: 10_000, monthly: 100_000 },
  enterprise: { hourly: 100_000, monthly: 10_000_000 },
};

export const HOUR_MS = 3_600_000;
export const AI_WINDOW_MS = 60_000;
export const AI_LIMIT_PER_MINUTE = 60;
/** The window `RateLimit-Policy` advertises for the monthly quota: 30 days, as in the contract. */
const MONTH_POLICY_SECONDS = 2_592_000;
/** In-memory counters idle this long have nothing left to remember but the month's count. */
const IDLE_MS = HOUR_MS + AI_WINDOW_MS;
const SWEEP_EVERY_MS = 10 * 60_000;

export type RouteRateLimit = 'ai';
export type PolicyName = 'hourly' | 'monthly' | 'ai';

export interface TenantLimits {
  hourly: number;
  monthly: number;
}

/** The tenant's own limits (`tenant:set-limits`), else its plan's. */
export function limitsOf(
  tenant: Pick<TenantSummary, 'plan' | 'hourly_limit' | 'monthly_limit'>,
): TenantLimits {
  const plan = PLAN_LIMITS[tenant.plan];
  return { hourly: tenant.hourly_limit ?? plan.hourly, monthly: tenant.monthly_limit ?? plan.monthly };
}

/** The `RateLimit-Policy` values of a tenant's limits, without and with the AI policy. */
interface Policies {
  policy: string;
  withAi: string;
}

const POLICY_WINDOW_SECONDS: Record<PolicyName, number> = {
  hourly: HOUR_MS / 1000,
  monthly: MONTH_POLICY_SECONDS,
  ai: AI_WINDOW_MS / 1000,
};

function policiesOf(limits: TenantLimits, aiLimit: number): Policies {
  const policy = `"hourly";q=${limits.hourly};w=${POLICY_WINDOW_SECONDS.hourly}, "monthly";q=${limits.monthly};w=${POLICY_WINDOW_SECONDS.monthly}`;
  return { policy, withAi: `${policy}, "ai";q=${aiLimit};w=${POLICY_WINDOW_SECONDS.ai}` };
}

export interface MonthWindow {
  /** `YYYY-MM` */
  key: string;
  start: number;
  end: number;
}

/** The UTC calendar month holding `now`: [00:00 on the 1st, 00:00 on the next 1st). */
export function monthWindow(now: number): MonthWindow {
  const date = new Date(now);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  return {
    key: `${year}-${String(month + 1).padStart(2, '0')}`,
    start: Date.UTC(year, month, 1),
    end: Date.UTC(year, month + 1, 1),
  };
}

export interface PolicyState {
  limit: number;
  /** Requests left now. */
  remaining: number;
  /** When the whole allowance is available again (epoch ms). */
  resetAt: number;
}

export interface LimitDecision {
  /** The instant the decision was made (epoch ms); the call is metered on this instant's day. */
  at: number;
  admitted: boolean;
  /** Why the request was refused, the policy that refused it and when a retry can pass (epoch ms). */
  refused: { code: 'rate_limited' | 'quota_exceeded'; policy: PolicyName; retryAt: number } | null;
  hourly: PolicyState;
  monthly: PolicyState & { used: number };
  /** Only on routes with `config.rateLimit: 'ai'`. */
  ai: PolicyState | null;
  /** The `RateLimit-Policy` header value: the policies that applied and their quotas. */
  policy: string;
}

/** Counted calls of a tenant in [from, to), from the store: seeds a month's counter. */
export type SeedMonth = (tenantId: string, from: number, to: number) => Promise<number>;

interface TakeInput {
  tenantId: string;
  limits: TenantLimits & Policies;
  /** 0 unless the AI per-minute limit applies. */
  aiLimit: number;
  now: number;
  month: MonthWindow;
  /** false: report the counters without counting a request (the usage page). */
  consume: boolean;
}

/** Bucket levels and the month's count: after the request when it was admitted, as they are when not. */
interface Counters {
  admitted: boolean;
  hourly: number;
  used: number;
  ai: number;
  /** What a request costs here, in requests: 1, or the fallback's share while Redis is away. */
  share: number;
}

interface Bucket {
  level: number;
  at: number;
}

function drained(bucket: Bucket, limit: number, now: number): number {
  return Math.max(0, bucket.level - Math.max(0, now - bucket.at) * limit);
}

/** Sets a bucket to `level` as of `now` (never moving its instant back). */
function fill(bucket: Bucket, level: number, now: number): void {
  bucket.level = level;
  bucket.at = Math.max(now, bucket.at);
}

function fits(level: number, limit: number, window: number, cost: number): boolean {
  return level + cost <= limit * window;
}

/** `cost`: what one request takes from the bucket (`window`, or `window * share` in a fallback). */
function bucketPolicy(level: number, limit: number, window: number, now: number, cost: number): PolicyState {
  return {
    limit,
    remaining: Math.max(0, Math.floor((limit * window - level) / cost)),
    resetAt: now + Math.ceil(level / limit),
  };
}

/** Milliseconds until one more request fits. */
function waitFor(level: number, limit: number, window: number, cost: number): number {
  return Math.max(0, Math.ceil((level + cost - limit * window) / limit));
}

function decide(counters: Counters, input: TakeInput): LimitDecision {
  const { limits, aiLimit, now, month } = input;
  const hourCost = HOUR_MS * counters.share;
  const aiCost = AI_WINDOW_MS * counters.share;
  const ai = aiLimit > 0 ? bucketPolicy(counters.ai, aiLimit, AI_WINDOW_MS, now, aiCost) : null;
  let refused: LimitDecision['refused'] = null;
  if (!counters.admitted) {
    if (counters.used >= limits.monthly) {
      refused = { code: 'quota_exceeded', policy: 'monthly', retryAt: month.end };
    } else {
      const hourlyAt = now + waitFor(counters.hourly, limits.hourly, HOUR_MS, hourCost);
      const aiAt = aiLimit > 0 ? now + waitFor(counters.ai, aiLimit, AI_WINDOW_MS, aiCost) : 0;
      refused =
        aiAt > hourlyAt
          ? { code: 'rate_limited', policy: 'ai', retryAt: aiAt }
          : { code: 'rate_limited', policy: 'hourly', retryAt: hourlyAt };
    }
  }
  return {
    at: now,
    admitted: counters.admitted,
    refused,
    hourly: bucketPolicy(counters.hourly, limits.hourly, HOUR_MS, now, hourCost),
    monthly: {
      limit: limits.monthly,
      used: counters.used,
      remaining: Math.max(0, limits.monthly - counters.used),
      resetAt: month.end,
    },
    ai,
    policy: aiLimit > 0 ? limits.withAi : limits.policy,
  };
}

// ---------------------------------------------------------------------------------------------
// In-memory counters (one process; also the fallback while Redis is unreachable)

/**
 * Calls a fallback admitted that Redis has not counted, handed to Redis as one batch under an id
 * of its own: Redis keeps the ids it applied, so a batch resent after a lost answer applies once.
 */
interface Batch {
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
interface FallbackStart {
  hourly: number;
  ai: number;
  used: number;
  counter: number;
}

interface FallbackOptions {
  start(tenantId: string, input: TakeInput): FallbackStart;
  /** The seeded mark of the tenant's month counter this process last heard of (-1: none). */
  counter(tenantId: string, month: string): number;
  /** How many processes share the limits: a request here costs that many of the shared allowance. */
  share(): number;
  batchId(): string;
}

function createMemoryCounters(
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

// ---------------------------------------------------------------------------------------------
// Redis counters: the same rules in one Lua script, so check-and-count is one atomic round trip.

/**
 * KEYS: hourly bucket (hash l, t), month counter, AI bucket, the month counter's seeded mark.
 * ARGV: now, consume (1/0), hourly limit, monthly limit, AI limit (0: none), hour window, AI
 * window. Returns {admitted, hourly level, month count, AI level, seeded mark}, or
 * {-1, 0, 0, 0, 0} when the month counter must be seeded first. Levels are integers below 2^53;
 * string.format('%.0f') writes them without exponent notation.
 */
const TAKE_SCRIPT = `
local now = tonumber(ARGV[1])
local consume = ARGV[2] == '1'
local hourlyLimit = tonumber(ARGV[3])
local monthlyLimit = tonumber(ARGV[4])
local aiLimit = tonumber(ARGV[5])
local hourWindow = tonumber(ARGV[6])
local aiWindow = tonumber(ARGV[7])

local used = tonumber(redis.call('GET', KEYS[2]))
if used == nil then return {-1, 0, 0, 0, 0} end
local seeded = tonumber(redis.call('GET', KEYS[4])) or 0

local function current(key, limit)
  local state = redis.call('HMGET', key, 'l', 't')
  local level, at = tonumber(state[1]), tonumber(state[2])
  if level == nil or at == nil then return 0, now end
  local elapsed = now - at
  if elapsed < 0 then elapsed = 0 end
  level = level - elapsed * limit
  if level < 0 then level = 0 end
  if at < now then at = now end
  return level, at
end

local function store(key, level, at, limit, window)
  redis.call('HSET', key, 'l', string.format('%.0f', level), 't', string.format('%.0f', at))
  redis.call('PEXPIRE', key, string.format('%.0f', math.ceil(level / limit) + window))
end

local hourly, hourlyAt = current(KEYS[1], hourlyLimit)
local ai, aiAt = 0, now
if aiLimit > 0 then ai, aiAt = current(KEYS[3], aiLimit) end

local admitted = used < monthlyLimit
  and hourly + hourWindow <= hourlyLimit * hourWindow
  and (aiLimit == 0 or ai + aiWindow <= aiLimit * aiWindow)
if not admitted then return {0, hourly, used, ai, seeded} end
if not consume then return {1, hourly, used, ai, seeded} end

hourly = hourly + hourWindow
store(KEYS[1], hourly, hourlyAt, hourlyLimit, hourWindow)
used = redis.call('INCR', KEYS[2])
if aiLimit > 0 then
  ai = ai + aiWindow
  store(KEYS[3], ai, aiAt, aiLimit, aiWindow)
end
return {1, hourly, used, ai, seeded}
`;

/**
 * Seeds a missing month counter, with the instant the store was read (ARGV: count, instant, TTL):
 * calls a fallback counted before that instant are in the count already.
 */
const SEED_SCRIPT = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[3]) then
  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
end
return 1
`;

/**
 * Hands Redis what a process counted while it could not reach it. KEYS: hourly bucket, month
 * counter, its seeded mark, the batch's mark. ARGV: now, hourly limit, hour window, base (the
 * hourly level this process last heard, as of now; 0 unless Redis lost its data), spent (the
 * batch's hourly weight, as of now), calls, counter (the seeded mark the batch was counted
 * against; -1: none), since, the batch mark's TTL ('' without a batch).
 *
 * - The base comes back once however many processes bring theirs: the bucket remembers in `b`/`bt`
 *   the highest base merged, and a lower or equal one adds nothing.
 * - The batch applies only if its mark is new (SET NX), so a resent batch adds nothing. Its calls
 *   join the month counter only if the counter is the one they were counted against, or older
 *   than them; a counter seeded later was read from a store that holds them already.
 * Returns {hourly level, month count (-1: none), seeded mark, calls added}.
 */
const FOLD_SCRIPT = `
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local base = tonumber(ARGV[4])
local spent = tonumber(ARGV[5])
local calls = tonumber(ARGV[6])
local counter = tonumber(ARGV[7])
local since = tonumber(ARGV[8])

local function drain(level, at)
  local elapsed = now - at
  if elapsed < 0 then elapsed = 0 end
  level = level - elapsed * limit
  if level < 0 then return 0 end
  return level
end

local state = redis.call('HMGET', KEYS[1], 'l', 't', 'b', 'bt')
local at = tonumber(state[2]) or now
local level = drain(tonumber(state[1]) or 0, at)
local merged = drain(tonumber(state[3]) or 0, tonumber(state[4]) or now)
if at < now then at = now end
if base > merged then
  level = level + base - merged
  merged = base
end

local added = 0
if ARGV[9] ~= '' and redis.call('SET', KEYS[4], '1', 'NX', 'PX', ARGV[9]) then
  level = level + spent
  if calls > 0 and redis.call('EXISTS', KEYS[2]) == 1 then
    local seeded = tonumber(redis.call('GET', KEYS[3])) or 0
    if seeded == counter or seeded < since then
      redis.call('INCRBY', KEYS[2], calls)
      added = calls
    end
  end
end

if level > limit * window then level = limit * window end
if level > 0 then
  redis.call('HSET', KEYS[1], 'l', string.format('%.0f', level), 't', string.format('%.0f', at),
    'b', string.format('%.0f', merged), 'bt', string.format('%.0f', now))
  redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.ceil(level / limit) + window))
end
local used = tonumber(redis.call('GET', KEYS[2])) or -1
return {level, used, tonumber(redis.call('GET', KEYS[3])) or 0, added}
`;

/**
 * Registers a process (ARGV: id, TTL) in the set of processes heard from within the TTL, by
 * Redis's clock, and returns how many there are.
 */
const HEARTBEAT_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    rateLimitTake(
      hourKey: string,
      monthKey: string,
      aiKey: string,
      seededKey: string,
      ...args: number[]
    ): Result<[number, number, number, number, number], Context>;
    rateLimitSeed(monthKey: string, seededKey: string, ...args: number[]): Result<number, Context>;
    rateLimitFold(
      hourKey: string,
      monthKey: string,
      seededKey: string,
      batchKey: string,
      ...args: (number | string)[]
    ): Result<[number, number, number, number], Context>;
    rateLimitHeartbeat(processesKey: string, processId: string, ttl: number): Result<number, Context>;
  }
}

/** A month counter lives until a week after its month ends (relative TTL: immune to clock jumps). */
const MONTH_KEY_GRACE_MS = 7 * 24 * HOUR_MS;
/** Processes announce themselves this often, and count as sharing the limits this long after. */
const HEARTBEAT_MS = 2_000;
const PROCESS_TTL_MS = 3 * HEARTBEAT_MS;
/** Tenants reconciled at once after an outage (one script each). */
const FOLD_CHUNK = 500;

/** Whether a failed command certainly did not run: refused before it was sent, or answered with an error. */
function neverRan(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.name === 'ReplyError' || error.message.startsWith("Stream isn't writeable");
}

interface SharedCounters extends Counters {
  /** The month counter's seeded mark. */
  seeded: number;
}

interface Folded {
  hourly: number;
  used: number;
  seeded: number;
}

function createRedisCounters(options: { url: string; keyPrefix: string; logger: Logger }) {
  const { keyPrefix, logger } = options;
  const redis = new Redis(options.url, {
    lazyConnect: true,
    // Fail fast while disconnected (the caller falls back to local counters) instead of queueing.
    enableOfflineQueue: false,
    // A command whose answer was lost is never sent again on a new connection: it may have run,
    // and the caller has already counted the request another way.
    autoResendUnfulfilledCommands: false,
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  redis.defineCommand('rateLimitTake', { numberOfKeys: 4, lua: TAKE_SCRIPT });
  redis.defineCommand('rateLimitSeed', { numberOfKeys: 2, lua: SEED_SCRIPT });
  redis.defineCommand('rateLimitFold', { numberOfKeys: 4, lua: FOLD_SCRIPT });
  redis.defineCommand('rateLimitHeartbeat', { numberOfKeys: 1, lua: HEARTBEAT_SCRIPT });
  let connecting: Promise<void> | undefined;
  let started = false;

  const keys = (tenantId: string, month: string) => {
    // The hash tag keeps a tenant's keys in one slot (Redis Cluster runs the script on one node).
    const base = `${keyPrefix}rl:{${tenantId}}`;
    const monthKey = `${base}:month:${month}`;
    return { base, hour: `${base}:hour`, month: monthKey, seeded: `${monthKey}:seeded`, ai: `${base}:ai` };
  };
  const epochKey = `${keyPrefix}rl:epoch`;
  const processesKey = `${keyPrefix}rl:processes`;

  return {
    redis,
    /** Resolves once the first connection attempt settled (success or not). */
    async ready(onError: (error: unknown) => void): Promise<void> {
      if (!started) {
        started = true;
        connecting = redis.connect().then(() => undefined, onError);
        void connecting.finally(() => (connecting = undefined));
      }
      if (connecting) await connecting;
    },
    usable(): boolean {
      return redis.status === 'ready';
    },
    /** The counters, or undefined when the month counter does not exist yet. */
    async take(input: TakeInput): Promise<SharedCounters | undefined> {
      const key = keys(input.tenantId, input.month.key);
      const [admitted, hourly, used, ai, seeded] = await redis.rateLimitTake(
        key.hour,
        key.month,
        key.ai,
        key.seeded,
        input.now,
        input.consume ? 1 : 0,
        input.limits.hourly,
        input.limits.monthly,
        input.aiLimit,
        HOUR_MS,
        AI_WINDOW_MS,
      );
      if (admitted === -1) return undefined;
      return { admitted: admitted === 1, hourly, used, ai, share: 1, seeded };
    },
    async seed(input: TakeInput, used: number, at: number): Promise<void> {
      const key = keys(input.tenantId, input.month.key);
      const ttl = input.month.end - input.now + MONTH_KEY_GRACE_MS;
      await redis.rateLimitSeed(key.month, key.seeded, used, at, ttl);
    },
    async fold(
      tenantId: string,
      month: string,
      fold: { now: number; limit: number; base: number; batch: Batch | undefined },
    ): Promise<Folded> {
      const { now, limit, base, batch } = fold;
      const key = keys(tenantId, month);
      const [hourly, used, seeded] = await redis.rateLimitFold(
        key.hour,
        key.month,
        key.seeded,
        batch ? `${key.base}:batch:${batch.id}` : key.hour,
        now,
        limit,
        HOUR_MS,
        base,
        batch ? drained(batch.spent, limit, now) : 0,
        batch?.calls ?? 0,
        batch?.counter ?? -1,
        batch?.since ?? now,
        batch ? MONTH_KEY_GRACE_MS : '',
      );
      return { hourly, used, seeded };
    },
    /** The id of Redis's data set: a Redis that comes back empty gets a new one. */
    async epoch(candidate: string): Promise<string> {
      // A read first: it answers even while Redis refuses writes.
      const known = await redis.get(epochKey);
      if (known !== null) return known;
      await redis.set(epochKey, candidate, 'NX');
      return (await redis.get(epochKey)) ?? candidate;
    },
    /** Announces this process; resolves to how many processes share the limits. */
    async heartbeat(processId: string): Promise<number> {
      return redis.rateLimitHeartbeat(processesKey, processId, PROCESS_TTL_MS);
    },
    async close(processId: string): Promise<void> {
      if (!started) return;
      if (redis.status === 'ready') {
        try {
          await redis.zrem(processesKey, processId);
          await redis.quit();
          return;
        } catch (error) {
          logger.debug({ err: error }, 'redis quit failed; disconnecting');
        }
      }
      redis.disconnect();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Redis outages

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
function createSharedCounters(deps: {
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

  return {
    take,
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

// ---------------------------------------------------------------------------------------------
// The limiter

export interface RateLimiterOptions {
  clock: Clock;
  logger: Logger;
  seedMonth: SeedMonth;
  /** Shared counters in Redis; without it, counters live in this process. */
  redisUrl?: string | undefined;
  keyPrefix?: string;
  aiPerMinute?: number;
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

export function createRateLimiter(options: RateLimiterOptions) {
  const { clock, logger } = options;
  const aiPerMinute = options.aiPerMinute ?? AI_LIMIT_PER_MINUTE;
  const seeding = new Map<string, Promise<number>>();
  let currentMonth = monthWindow(clock.now());
  // A tenant's limits and policy strings, built once per principal (a cached principal's tenant
  // object lives for seconds and serves every request of its key meanwhile).
  const limitsByTenant = new WeakMap<TenantSummary, TenantLimits & Policies>();
  function limitsFor(tenant: TenantSummary): TenantLimits & Policies {
    let limits = limitsByTenant.get(tenant);
    if (limits === undefined) {
      const own = limitsOf(tenant);
      limits = { ...own, ...policiesOf(own, aiPerMinute) };
      limitsByTenant.set(tenant, limits);
    }
    return limits;
  }

  /** One store read per tenant and month however many requests wait for it. */
  function seed(tenantId: string, month: MonthWindow): Promise<number> {
    const key = `${tenantId} ${month.key}`;
    let pending = seeding.get(key);
    if (!pending) {
      pending = options.seedMonth(tenantId, month.start, month.end).then(
        (used) => {
          seeding.delete(key);
          return used;
        },
        (error: unknown) => {
          seeding.delete(key);
          logger.error({ err: error, tenantId }, 'could not read the stored usage to seed the quota counter');
          throw new AppError('service_unavailable', 'Usage counters are unavailable; retry shortly.', {
            headers: { 'retry-after': '1' },
          });
        },
      );
      seeding.set(key, pending);
    }
    return pending;
  }

  const shared = options.redisUrl
    ? createSharedCounters({
        url: options.redisUrl,
        keyPrefix: options.keyPrefix ?? '',
        clock,
        logger,
        aiPerMinute,
        seed,
      })
    : undefined;
  const memory = shared ? undefined : createMemoryCounters(seed);

  function run(
    tenant: TenantSummary,
    aiLimit: number,
    consume: boolean,
  ): LimitDecision | Promise<LimitDecision> {
    const now = clock.now();
    if (now < currentMonth.start || now >= currentMonth.end) currentMonth = monthWindow(now);
    const input: TakeInput = {
      tenantId: tenant.id,
      limits: limitsFor(tenant),
      aiLimit,
      now,
      month: currentMonth,
      consume,
    };
    // Exactly one of them exists.
    const counters = memory ? memory.take(input) : (shared as NonNullable<typeof shared>).take(input);
    return counters instanceof Promise
      ? counters.then((taken) => decide(taken, input))
      : decide(counters, input);
  }

  return {
    backend: shared ? ('redis' as const) : ('memory' as const),
    aiPerMinute,
    /**
     * Admits and counts a request, or refuses it without counting anything. Synchronous with this
     * process's counters once the tenant's month is seeded; a promise with Redis or a seed to read.
     */
    check(tenant: TenantSummary, ai: boolean): LimitDecision | Promise<LimitDecision> {
      return run(tenant, ai ? aiPerMinute : 0, true);
    },
    /** The tenant's counters as they stand, counting nothing. */
    peek(tenant: TenantSummary): LimitDecision | Promise<LimitDecision> {
      return run(tenant, 0, false);
    },
    /** With Redis: whether it is in use now (rather than this process's fallback), and by how many processes. */
    redisState(): { inUse: boolean; processes: number } | undefined {
      return shared?.state();
    },
    async close(): Promise<void> {
      await shared?.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// HTTP: headers, refusals and metering hooks

function secondsUntil(instant: number, now: number): number {
  return Math.max(0, Math.ceil((instant - now) / 1000));
}

/**
 * The `RateLimit` item: the policy with the fewest requests left (the IETF draft asks for the
 * most constraining one); on a refusal, the refusing policy with `t` equal to `Retry-After`.
 */
function rateLimitItem(decision: LimitDecision): string {
  const { at, refused } = decision;
  if (refused) {
    return `"${refused.policy}";r=0;t=${Math.max(1, secondsUntil(refused.retryAt, at))}`;
  }
  let name: PolicyName = 'hourly';
  let state: PolicyState = decision.hourly;
  if (decision.monthly.remaining < state.remaining) [name, state] = ['monthly', decision.monthly];
  if (decision.ai && decision.ai.remaining < state.remaining) [name, state] = ['ai', decision.ai];
  return `"${name}";r=${state.remaining};t=${secondsUntil(state.resetAt, at)}`;
}

/** Sets the headers every authenticated response carries (contract section 7). */
export function setRateLimitHeaders(reply: FastifyReply, decision: LimitDecision): void {
  const { hourly } = decision;
  reply.header('ratelimit-policy', decision.policy);
  reply.header('ratelimit', rateLimitItem(decision));
  reply.header('x-ratelimit-limit', String(hourly.limit));
  reply.header('x-ratelimit-remaining', String(hourly.remaining));
  reply.header('x-ratelimit-reset', String(Math.ceil(hourly.resetAt / 1000)));
}

function refusal(decision: LimitDecision, refused: NonNullable<LimitDecision['refused']>): AppError {
  const seconds = Math.max(1, secondsUntil(refused.retryAt, decision.at));
  const headers = { 'retry-after': String(seconds) };
  if (refused.code === 'quota_exceeded') {
    return new AppError(
      'quota_exceeded',
      `The monthly quota of ${decision.monthly.limit} calls is used up; it resets at ${iso(refused.retryAt)}.`,
      { headers },
    );
  }
  const what =
    refused.policy === 'ai'
      ? `the AI limit of ${decision.ai?.limit ?? 0} requests per minute`
      : `the hourly limit of ${decision.hourly.limit} requests`;
  return new AppError('rate_limited', `Over ${what}; retry in ${seconds} s.`, { headers });
}

/**
 * After authentication: keeps the decision on the request, sets the headers every authenticated
 * response carries, and refuses with 429 (`Retry-After` in seconds) when a limit or the quota is
 * reached.
 */
export function enforceDecision(request: FastifyRequest, reply: FastifyReply, decision: LimitDecision): void {
  request.limits = decision;
  setRateLimitHeaders(reply, decision);
  if (decision.refused) throw refusal(decision, decision.refused);
}

/** What the metering hook hands each authenticated response to. */
export interface UsageRecorder {
  record(
    tenantId: string,
    endpoint: string,
    status: number,
    durationMs: number,
    at: number,
    rejected: boolean,
  ): void;
}

/** `GET /v1/products/:id` -> `GET /products/{id}`: the method and route template, without `/v1`. */
export function endpointName(method: string, routeUrl: string): string {
  const path = routeUrl.replace(/^\/v1(?=\/|$)/, '') || '/';
  return `${method} ${path.replace(/:(\w+)/g, '{$1}')}`;
}

/**
 * onResponse, attached to each route that takes a key (`meterRoute(route.url)` in onRoute, so the
 * route template is known without reading it per request): every authenticated response, refused
 * ones included, goes to the meter.
 */
export function meteringHook(meter: UsageRecorder, clock: Clock) {
  return function meterRoute(routeUrl: string) {
    // By method: a GET route's HEAD twin shares its URL.
    const names = new Map<string, string>();
    // A callback hook, not an async one: no promise and no extra microtask per response.
    return function meterResponse(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
      const principal = request.principal;
      if (!principal) {
        done();
        return;
      }
      let endpoint = names.get(request.method);
      if (endpoint === undefined) {
        endpoint = endpointName(request.method, routeUrl);
        names.set(request.method, endpoint);
      }
      const limits = request.limits;
      meter.record(
        principal.tenant.id,
        endpoint,
        reply.statusCode,
        reply.elapsedTime,
        limits?.at ?? clock.now(),
        limits?.refused != null,
      );
      done();
    };
  };
}
