import { Redis, type Result } from 'ioredis';
import type { Logger } from '../../lib/logger.js';
import type { BucketLevels, BucketsInput } from './limits.buckets.js';
import type { Batch } from './limits.memory.js';
import { AI_WINDOW_MS, type Counters, drained, HOUR_MS, type TakeInput } from './limits.policy.js';

/**
 * Redis counters: the rules of limits.policy.ts in one Lua script, so check-and-count is one atomic
 * round trip; the same buckets, named, for the storefront's limits; and the scripts that seed a
 * month counter, hand over what a fallback counted and count the processes sharing the limits.
 */

/**
 * A GCRA bucket in Redis, for the scripts that take from buckets (ARGV[1] is `now`): a hash of its
 * level `l` and instant `t`, drained at `limit` units per millisecond (the arithmetic of
 * limits.policy.ts), and kept until it has drained to empty.
 */
const GCRA_LUA = `
local now = tonumber(ARGV[1])

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
`;

/**
 * KEYS: hourly bucket (hash l, t), month counter, AI bucket, the month counter's seeded mark.
 * ARGV: now, consume (1/0), hourly limit, monthly limit, AI limit (0: none), hour window, AI
 * window. Returns {admitted, hourly level, month count, AI level, seeded mark}, or
 * {-1, 0, 0, 0, 0} when the month counter must be seeded first. Levels are integers below 2^53;
 * string.format('%.0f') writes them without exponent notation.
 */
const TAKE_SCRIPT = `${GCRA_LUA}
local consume = ARGV[2] == '1'
local hourlyLimit = tonumber(ARGV[3])
local monthlyLimit = tonumber(ARGV[4])
local aiLimit = tonumber(ARGV[5])
local hourWindow = tonumber(ARGV[6])
local aiWindow = tonumber(ARGV[7])

local used = tonumber(redis.call('GET', KEYS[2]))
if used == nil then return {-1, 0, 0, 0, 0} end
local seeded = tonumber(redis.call('GET', KEYS[4])) or 0

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
 * Named buckets checked and counted together (the storefront's limits; limits.buckets.ts does the
 * same in memory). KEYS: the buckets. ARGV: now, consume (1/0), then each bucket's limit and window.
 * The request is admitted only if every bucket has room for it, and then counted in each.
 * Returns {admitted (1/0), each bucket's level}.
 */
const BUCKETS_SCRIPT = `${GCRA_LUA}
local consume = ARGV[2] == '1'
local levels, ats = {}, {}
local admitted = 1
for i = 1, #KEYS do
  local limit, window = tonumber(ARGV[i * 2 + 1]), tonumber(ARGV[i * 2 + 2])
  levels[i], ats[i] = current(KEYS[i], limit)
  if levels[i] + window > limit * window then admitted = 0 end
end
if admitted == 1 and consume then
  for i = 1, #KEYS do
    local limit, window = tonumber(ARGV[i * 2 + 1]), tonumber(ARGV[i * 2 + 2])
    levels[i] = levels[i] + window
    store(KEYS[i], levels[i], ats[i], limit, window)
  end
end
local result = {admitted}
for i = 1, #KEYS do result[i + 1] = levels[i] end
return result
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
    /** The first argument is the number of keys (the buckets) that follow. */
    rateLimitBuckets(...args: (string | number)[]): Result<number[], Context>;
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
export const HEARTBEAT_MS = 2_000;
const PROCESS_TTL_MS = 3 * HEARTBEAT_MS;
/** Tenants reconciled at once after an outage (one script each). */
export const FOLD_CHUNK = 500;

/** Whether a failed command certainly did not run: refused before it was sent, or answered with an error. */
export function neverRan(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.name === 'ReplyError' || error.message.startsWith("Stream isn't writeable");
}

export interface SharedCounters extends Counters {
  /** The month counter's seeded mark. */
  seeded: number;
}

interface Folded {
  hourly: number;
  used: number;
  seeded: number;
}

export function createRedisCounters(options: { url: string; keyPrefix: string; logger: Logger }) {
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
  redis.defineCommand('rateLimitBuckets', { lua: BUCKETS_SCRIPT });
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
    /** Named buckets of a tenant, checked and counted in one script. */
    async buckets(input: BucketsInput): Promise<BucketLevels> {
      const { tenantId, rules } = input;
      // The tenant's hash tag: its buckets share a slot with its other keys.
      const base = `${keyPrefix}rl:{${tenantId}}:b:`;
      const [admitted, ...levels] = await redis.rateLimitBuckets(
        rules.length,
        ...rules.map((rule) => base + rule.key),
        input.now,
        input.consume ? 1 : 0,
        ...rules.flatMap((rule) => [rule.limit, rule.window]),
      );
      return { admitted: admitted === 1, levels, share: 1 };
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
