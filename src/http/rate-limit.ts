import type { FastifyReply, FastifyRequest } from 'fastify';
import { Redis, type Result } from 'ioredis';
import type { Clock } from '../lib/clock.js';
import { iso } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { Plan, TenantSummary } from '../lib/principal.js';
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
 * a 429 takes nothing from any limit or the quota (the meter still records it, as an error). The check-and-count is atomic: synchronous in memory (one process), one Lua
 * script per request in Redis (`REDIS_URL`: several processes share exactly one limit). A month's
 * counter that is missing (first request of the month, a restart, a flushed Redis) is seeded from
 * the metered usage in the store, so the quota survives restarts. When Redis is unreachable the
 * process falls back to its own in-memory counters (seeded the same way) and logs a warning once;
 * it switches back as soon as Redis answers again and adds the calls it counted meanwhile to the
 * shared month counters.
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

function fits(level: number, limit: number, window: number): boolean {
  return level + window <= limit * window;
}

function bucketPolicy(level: number, limit: number, window: number, now: number): PolicyState {
  return {
    limit,
    remaining: Math.max(0, Math.floor((limit * window - level) / window)),
    resetAt: now + Math.ceil(level / limit),
  };
}

/** Milliseconds until one more request fits. */
function waitFor(level: number, limit: number, window: number): number {
  return Math.max(0, Math.ceil((level + window - limit * window) / limit));
}

function decide(counters: Counters, input: TakeInput): LimitDecision {
  const { limits, aiLimit, now, month } = input;
  const ai = aiLimit > 0 ? bucketPolicy(counters.ai, aiLimit, AI_WINDOW_MS, now) : null;
  let refused: LimitDecision['refused'] = null;
  if (!counters.admitted) {
    if (counters.used >= limits.monthly) {
      refused = { code: 'quota_exceeded', policy: 'monthly', retryAt: month.end };
    } else {
      const hourlyAt = now + waitFor(counters.hourly, limits.hourly, HOUR_MS);
      const aiAt = aiLimit > 0 ? now + waitFor(counters.ai, aiLimit, AI_WINDOW_MS) : 0;
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
    hourly: bucketPolicy(counters.hourly, limits.hourly, HOUR_MS, now),
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

interface TenantCounters {
  hourly: Bucket;
  ai: Bucket;
  month: string;
  used: number;
  /** `used` when the month's count was read from the store: the calls since are this process's. */
  seeded: number;
  touched: number;
}

function createMemoryCounters(seed: (tenantId: string, month: MonthWindow) => Promise<number>) {
  const tenants = new Map<string, TenantCounters>();
  let lastSweep = 0;

  async function seeded(tenantId: string, month: MonthWindow): Promise<TenantCounters> {
    const used = await seed(tenantId, month);
    // Concurrent first requests share one seed; the first to resume installs it.
    let entry = tenants.get(tenantId);
    if (!entry) {
      const hourly = { level: 0, at: 0 };
      const ai = { level: 0, at: 0 };
      entry = { hourly, ai, month: month.key, used, seeded: used, touched: 0 };
      tenants.set(tenantId, entry);
    } else if (entry.month !== month.key) {
      entry.month = month.key;
      entry.used = used;
      entry.seeded = used;
    }
    return entry;
  }

  function sweep(now: number): void {
    lastSweep = now;
    for (const [tenantId, entry] of tenants) if (now - entry.touched > IDLE_MS) tenants.delete(tenantId);
  }

  function count(entry: TenantCounters, input: TakeInput): Counters {
    const { limits, aiLimit, now } = input;
    const hourly = drained(entry.hourly, limits.hourly, now);
    const ai = aiLimit > 0 ? drained(entry.ai, aiLimit, now) : 0;
    const admitted =
      entry.used < limits.monthly &&
      fits(hourly, limits.hourly, HOUR_MS) &&
      (aiLimit === 0 || fits(ai, aiLimit, AI_WINDOW_MS));
    if (!admitted || !input.consume) return { admitted, hourly, used: entry.used, ai };
    entry.touched = now;
    fill(entry.hourly, hourly + HOUR_MS, now);
    entry.used += 1;
    if (aiLimit > 0) fill(entry.ai, ai + AI_WINDOW_MS, now);
    return { admitted, hourly: entry.hourly.level, used: entry.used, ai: aiLimit > 0 ? entry.ai.level : 0 };
  }

  return {
    /** Synchronous once the tenant's month is seeded: no promise on the hot path. */
    take(input: TakeInput): Counters | Promise<Counters> {
      if (input.now - lastSweep > SWEEP_EVERY_MS) sweep(input.now);
      const entry = tenants.get(input.tenantId);
      if (entry?.month === input.month.key) return count(entry, input);
      return seeded(input.tenantId, input.month).then((seededEntry) => count(seededEntry, input));
    },
    /** Forgets every counter, returning the calls each tenant had counted here since its seed. */
    drain(): { tenantId: string; month: string; calls: number }[] {
      const counted = [...tenants]
        .filter(([, entry]) => entry.used > entry.seeded)
        .map(([tenantId, entry]) => ({ tenantId, month: entry.month, calls: entry.used - entry.seeded }));
      tenants.clear();
      return counted;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Redis counters: the same rules in one Lua script, so check-and-count is one atomic round trip.

/**
 * KEYS: hourly bucket (hash l, t), month counter, AI bucket. ARGV: now, consume (1/0), hourly
 * limit, monthly limit, AI limit (0: none), hour window, AI window. Returns {admitted, hourly
 * level, month count, AI level}, or {-1, 0, 0, 0} when the month counter must be seeded first.
 * Levels are integers below 2^53; string.format('%.0f') writes them without exponent notation.
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
if used == nil then return {-1, 0, 0, 0} end

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
if not admitted then return {0, hourly, used, ai} end
if not consume then return {1, hourly, used, ai} end

hourly = hourly + hourWindow
store(KEYS[1], hourly, hourlyAt, hourlyLimit, hourWindow)
used = redis.call('INCR', KEYS[2])
if aiLimit > 0 then
  ai = ai + aiWindow
  store(KEYS[3], ai, aiAt, aiLimit, aiWindow)
end
return {1, hourly, used, ai}
`;

/** Adds ARGV[1] to an existing month counter (a missing one is seeded from the store anyway). */
const ADD_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('INCRBY', KEYS[1], ARGV[1]) end
return -1
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    rateLimitAdd(monthKey: string, calls: number): Result<number, Context>;
    rateLimitTake(
      hourKey: string,
      monthKey: string,
      aiKey: string,
      ...args: number[]
    ): Result<[number, number, number, number], Context>;
  }
}

/** A month counter lives until a week after its month ends (relative TTL: immune to clock jumps). */
const MONTH_KEY_GRACE_MS = 7 * 24 * HOUR_MS;

function createRedisCounters(options: { url: string; keyPrefix: string; logger: Logger }) {
  const { keyPrefix, logger } = options;
  const redis = new Redis(options.url, {
    lazyConnect: true,
    // Fail fast while disconnected (the caller falls back to local counters) instead of queueing.
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  redis.defineCommand('rateLimitTake', { numberOfKeys: 3, lua: TAKE_SCRIPT });
  redis.defineCommand('rateLimitAdd', { numberOfKeys: 1, lua: ADD_SCRIPT });
  let connecting: Promise<void> | undefined;
  let started = false;

  const keys = (tenantId: string, month: string) => {
    // The hash tag keeps a tenant's keys in one slot (Redis Cluster runs the script on one node).
    const base = `${keyPrefix}rl:{${tenantId}}`;
    return [`${base}:hour`, `${base}:month:${month}`, `${base}:ai`] as const;
  };

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
    async take(input: TakeInput): Promise<Counters | undefined> {
      const [hourKey, monthKey, aiKey] = keys(input.tenantId, input.month.key);
      const [admitted, hourly, used, ai] = await redis.rateLimitTake(
        hourKey,
        monthKey,
        aiKey,
        input.now,
        input.consume ? 1 : 0,
        input.limits.hourly,
        input.limits.monthly,
        input.aiLimit,
        HOUR_MS,
        AI_WINDOW_MS,
      );
      if (admitted === -1) return undefined;
      return { admitted: admitted === 1, hourly, used, ai };
    },
    async seed(input: TakeInput, used: number): Promise<void> {
      const monthKey = keys(input.tenantId, input.month.key)[1];
      const ttl = input.month.end - input.now + MONTH_KEY_GRACE_MS;
      await redis.set(monthKey, String(used), 'PX', ttl, 'NX');
    },
    /** Adds calls counted elsewhere (during an outage) to a tenant's month counter. */
    async add(tenantId: string, month: string, calls: number): Promise<void> {
      await redis.rateLimitAdd(keys(tenantId, month)[1], calls);
    },
    async close(): Promise<void> {
      if (!started) return;
      if (redis.status === 'ready') {
        try {
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

  const memory = createMemoryCounters(seed);
  const shared = options.redisUrl
    ? createRedisCounters({ url: options.redisUrl, keyPrefix: options.keyPrefix ?? '', logger })
    : undefined;

  let degraded = false;
  function degrade(error: unknown): void {
    if (degraded) return;
    degraded = true;
    logger.warn(
      { err: error },
      'Redis is unreachable: rate limits and quotas are enforced with this process’s own counters until it is back',
    );
  }
  function recover(redis: NonNullable<typeof shared>): void {
    if (!degraded) return;
    degraded = false;
    // The month's calls admitted here during the outage join the shared counters; hourly buckets
    // start from Redis's. The next outage seeds afresh from the store.
    const counted = memory.drain();
    logger.warn(
      { tenants: counted.length },
      'Redis is reachable again: rate limits and quotas use the shared counters',
    );
    for (const { tenantId, month, calls } of counted) {
      redis.add(tenantId, month, calls).catch((error: unknown) => {
        logger.warn(
          { err: error, tenantId, calls },
          'could not add the calls counted during the Redis outage',
        );
      });
    }
  }
  shared?.redis.on('error', degrade);

  async function viaRedis(redis: NonNullable<typeof shared>, input: TakeInput): Promise<Counters> {
    await redis.ready(degrade);
    if (!redis.usable()) {
      degrade(new Error(`Redis connection is ${redis.redis.status}`));
      return memory.take(input);
    }
    let counters: Counters | undefined;
    try {
      counters = await redis.take(input);
    } catch (error) {
      degrade(error);
      return memory.take(input);
    }
    if (counters === undefined) {
      const used = await seed(input.tenantId, input.month);
      try {
        await redis.seed(input, used);
        counters = await redis.take(input);
      } catch (error) {
        degrade(error);
        return memory.take(input);
      }
      if (counters === undefined) return memory.take(input);
    }
    recover(redis);
    return counters;
  }

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
    const counters = shared ? viaRedis(shared, input) : memory.take(input);
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
