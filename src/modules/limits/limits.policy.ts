import type { TenantLimits } from './limits.plans.js';

/**
 * The policies and the decision: the hourly limit and the AI per-minute limit are GCRA buckets,
 * the monthly quota a counter per calendar month (UTC). The counters (limits.memory.ts,
 * limits.redis.ts) apply these rules; `decide` turns their levels into the decision the headers
 * and refusals show (src/http/rate-limit.ts).
 */

export const HOUR_MS = 3_600_000;
export const AI_WINDOW_MS = 60_000;
/** The window `RateLimit-Policy` advertises for the monthly quota: 30 days, whatever the month. */
const MONTH_POLICY_SECONDS = 2_592_000;
/** In-memory counters idle this long have nothing left to remember but the month's count. */
export const IDLE_MS = HOUR_MS + AI_WINDOW_MS;
export const SWEEP_EVERY_MS = 10 * 60_000;

/**
 * What a route's `config.rateLimit` adds: `ai`, the tenant's AI per-minute limit; on a storefront
 * route, `cart` (a change to the cart it names: the per-cart limit) or `checkout` (its completion:
 * the per-cart and the completion limits; limits.storefront.ts).
 */
export type RouteRateLimit = 'ai' | 'cart' | 'checkout';
export type PolicyName = 'hourly' | 'monthly' | 'ai';

/** The `RateLimit-Policy` values of a tenant's limits, without and with the AI policy. */
export interface Policies {
  policy: string;
  withAi: string;
}

const POLICY_WINDOW_SECONDS: Record<PolicyName, number> = {
  hourly: HOUR_MS / 1000,
  monthly: MONTH_POLICY_SECONDS,
  ai: AI_WINDOW_MS / 1000,
};

export function policiesOf(limits: TenantLimits, aiLimit: number): Policies {
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

export interface TakeInput {
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
export interface Counters {
  admitted: boolean;
  hourly: number;
  used: number;
  ai: number;
  /** What a request costs here, in requests: 1, or the fallback's share while Redis is away. */
  share: number;
}

export interface Bucket {
  level: number;
  at: number;
}

export function drained(bucket: Bucket, limit: number, now: number): number {
  return Math.max(0, bucket.level - Math.max(0, now - bucket.at) * limit);
}

/** Sets a bucket to `level` as of `now` (never moving its instant back). */
export function fill(bucket: Bucket, level: number, now: number): void {
  bucket.level = level;
  bucket.at = Math.max(now, bucket.at);
}

export function fits(level: number, limit: number, window: number, cost: number): boolean {
  return level + cost <= limit * window;
}

/** `cost`: what one request takes from the bucket (`window`, or `window * share` in a fallback). */
export function bucketPolicy(
  level: number,
  limit: number,
  window: number,
  now: number,
  cost: number,
): PolicyState {
  return {
    limit,
    remaining: Math.max(0, Math.floor((limit * window - level) / cost)),
    resetAt: now + Math.ceil(level / limit),
  };
}

/** Milliseconds until one more request fits. */
export function waitFor(level: number, limit: number, window: number, cost: number): number {
  return Math.max(0, Math.ceil((level + cost - limit * window) / limit));
}

export function decide(counters: Counters, input: TakeInput): LimitDecision {
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
