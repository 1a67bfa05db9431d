import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { TenantSummary } from '../../lib/principal.js';
import { type BucketLevels, type BucketsInput, createMemoryBuckets } from './limits.buckets.js';
import { createMemoryCounters } from './limits.memory.js';
import { AI_LIMIT_PER_MINUTE, limitsOf, type TenantLimits } from './limits.plans.js';
import {
  decide,
  type LimitDecision,
  type MonthWindow,
  monthWindow,
  type Policies,
  policiesOf,
  type SeedMonth,
  type TakeInput,
} from './limits.policy.js';
import { createSharedCounters } from './limits.shared.js';
import {
  decideStorefront,
  STOREFRONT_LIMITS,
  type StorefrontDecision,
  type StorefrontRouteLimit,
  storefrontRules,
} from './limits.storefront.js';

/**
 * Rate limits and the monthly quota (docs/rate-limits-and-usage.md), per tenant (all of its keys together).
 *
 * - Hourly limit: GCRA (a leaky bucket kept as one level and one instant). A tenant may spend its
 *   whole hourly allowance at once; capacity then comes back continuously, one request every
 *   3600/limit seconds, and is whole again one hour after a full burst. Integer arithmetic only:
 *   a request costs `window` units, the bucket drains `limit` units per millisecond and holds
 *   `limit * window`, so "exactly N of a burst" holds for any N.
 * - Monthly quota: a counter per calendar month (UTC); it resets at 00:00 UTC on the 1st.
 * - AI routes (`config.rateLimit: 'ai'`) add a per-minute GCRA bucket (`AI_LIMIT_PER_MINUTE`).
 *
 * A request is admitted only if every policy admits it, and only an admitted request is counted:
 * a 429 takes nothing from any limit or the quota (the meter still records it, as an error). The
 * check-and-count is atomic: synchronous in memory (one process), one Lua script per request in
 * Redis (`REDIS_URL`: several processes share exactly one limit).
 *
 * The metered usage in the store (`usage_daily`, written by every process within a second) is the
 * authority for the month's count: a missing month counter (first request of the month, a restart,
 * an emptied Redis) is seeded from it. While Redis is unreachable, see "Redis outages" in
 * limits.shared.ts.
 *
 * Storefront calls (`/v1/store/*`) count against none of these but against the storefront's own
 * buckets, per buyer address, cart and product (limits.storefront.ts), in the same counters.
 *
 * The module, one job a file: limits.plans.ts (the plan table), limits.policy.ts (the buckets and
 * the decision), limits.memory.ts (one process's counters), limits.buckets.ts (named buckets, for
 * the storefront), limits.redis.ts (the same rules in Lua), limits.shared.ts (Redis with a fallback
 * through outages), limits.storefront.ts (the storefront's policies), this file (the limiter they
 * make).
 */

/** What the storefront's limits read of a store: the usage module wires them to its services. */
export interface StorefrontLookups {
  /** The store's `storefront.requests_per_minute`: synchronous when it is at hand. */
  requestsPerMinute(tenantId: string): number | Promise<number>;
  /** The products in a cart (none for an unknown cart), for the per-product completion limit. */
  cartProducts(tenantId: string, cartId: string): Promise<readonly string[]>;
}

/** A storefront call, as the gate sees it. */
export interface StorefrontCheck {
  /** The buyer's address as limits count it (`clientAddressKey` of `buyerIpOf`). */
  buyer: string;
  /** What the route adds (its `config.rateLimit`), and the cart it names. */
  route?: StorefrontRouteLimit | undefined;
  cartId?: string | undefined;
}

/** A value now, or once a promise settles: keeps the common path free of promises. */
function then<T, U>(value: T | Promise<T>, next: (value: T) => U | Promise<U>): U | Promise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

export interface RateLimiterOptions {
  clock: Clock;
  logger: Logger;
  seedMonth: SeedMonth;
  /** Shared counters in Redis; without it, counters live in this process. */
  redisUrl?: string | undefined;
  keyPrefix?: string;
  aiPerMinute?: number;
  /** Without them, every store allows the default per-address rate and no per-product limit. */
  storefront?: StorefrontLookups | undefined;
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
  const memoryBuckets = shared ? undefined : createMemoryBuckets();

  function takeBuckets(input: BucketsInput): BucketLevels | Promise<BucketLevels> {
    // Exactly one of them exists.
    return memoryBuckets ? memoryBuckets.take(input) : (shared as NonNullable<typeof shared>).buckets(input);
  }

  /**
   * A storefront call's buckets, taken. A completion first looks at the per-address and per-cart
   * buckets without counting, so a refused caller costs no read of its cart's products; then it
   * takes them all, the products' too, at once.
   */
  function storefront(
    tenantId: string,
    check: StorefrontCheck,
    requestsPerMinute: number,
  ): StorefrontDecision | Promise<StorefrontDecision> {
    const { buyer, route } = check;
    const cartId = route === undefined ? undefined : check.cartId;
    const lookups = options.storefront;
    const now = clock.now();
    const checkout = route === 'checkout' && cartId !== undefined;
    if (!checkout || lookups === undefined) {
      const rules = storefrontRules({
        buyer,
        requestsPerMinute,
        cartId,
        checkout: checkout ? { productIds: [] } : undefined,
      });
      return then(takeBuckets({ tenantId, rules, now, consume: true }), (taken) =>
        decideStorefront(taken, rules, now),
      );
    }
    const first = storefrontRules({ buyer, requestsPerMinute, cartId, checkout: { productIds: [] } });
    return then(takeBuckets({ tenantId, rules: first, now, consume: false }), async (looked) => {
      if (!looked.admitted) return decideStorefront(looked, first, now);
      const productIds = await lookups.cartProducts(tenantId, cartId);
      const rules = storefrontRules({ buyer, requestsPerMinute, cartId, checkout: { productIds } });
      const at = clock.now();
      return decideStorefront(await takeBuckets({ tenantId, rules, now: at, consume: true }), rules, at);
    });
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
    /**
     * A storefront call: admits and counts it in the storefront's buckets (never the tenant's
     * hourly limit or quota), or refuses it counting nothing. Synchronous with this process's
     * counters once the store's settings are at hand, except for a completion.
     */
    storefront(
      tenant: TenantSummary,
      check: StorefrontCheck,
    ): StorefrontDecision | Promise<StorefrontDecision> {
      const perMinute =
        options.storefront?.requestsPerMinute(tenant.id) ?? STOREFRONT_LIMITS.requestsPerMinute;
      return then(perMinute, (requestsPerMinute) => storefront(tenant.id, check, requestsPerMinute));
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
