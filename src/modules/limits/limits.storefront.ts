import type { BucketLevels, BucketRule } from './limits.buckets.js';
import { bucketPolicy, HOUR_MS, type PolicyState, waitFor } from './limits.policy.js';

/**
 * The storefront's limits (docs/storefront.md#limits): calls to `/v1/store/*` count against neither
 * the tenant's hourly limit nor its quota, but against buckets of their own, per store:
 *
 * - `storefront`: every call, per buyer address: the store's `storefront.requests_per_minute`
 *   (default 120);
 * - `cart`: the changes of one cart (routes with `config.rateLimit: 'cart'` or `'checkout'`), 300
 *   an hour;
 * - `checkout`: completions per buyer address, 10 an hour;
 * - `product`: completions of carts holding a product, 300 a minute per product.
 *
 * Each is a GCRA bucket (the tenant's hourly limit's arithmetic, limits.policy.ts); a call is
 * admitted when every bucket that applies has room, and then counted in each; refused, in none.
 */

export const MINUTE_MS = 60_000;
export const STOREFRONT_LIMITS = {
  /** Per buyer address, when the store says nothing else (its `storefront.requests_per_minute`). */
  requestsPerMinute: 120,
  cartChangesPerHour: 300,
  checkoutsPerHour: 10,
  checkoutsPerProductPerMinute: 300,
} as const;

export type StorefrontPolicyName = 'storefront' | 'cart' | 'checkout' | 'product';
/** What a storefront route adds to the per-address limit (its `config.rateLimit`). */
export type StorefrontRouteLimit = 'cart' | 'checkout';

export interface StorefrontRule extends BucketRule {
  policy: StorefrontPolicyName;
}

export interface StorefrontCall {
  /** The buyer's address as limits count it (an IPv6 address by its /64). */
  buyer: string;
  requestsPerMinute: number;
  /** The cart a `cart` or `checkout` route changes. */
  cartId?: string | undefined;
  /** A completion: the per-address completion limit, and the products of its cart. */
  checkout?: { productIds: readonly string[] } | undefined;
}

/** The buckets a call takes from, the per-address one first. */
export function storefrontRules(call: StorefrontCall): StorefrontRule[] {
  const rules: StorefrontRule[] = [
    { policy: 'storefront', key: `ip:${call.buyer}`, limit: call.requestsPerMinute, window: MINUTE_MS },
  ];
  if (call.cartId !== undefined) {
    rules.push({
      policy: 'cart',
      // A cart id is 29 characters: a longer one names no cart, and keeps no longer a key.
      key: `cart:${call.cartId.slice(0, 64)}`,
      limit: STOREFRONT_LIMITS.cartChangesPerHour,
      window: HOUR_MS,
    });
  }
  if (call.checkout) {
    rules.push({
      policy: 'checkout',
      key: `checkout:${call.buyer}`,
      limit: STOREFRONT_LIMITS.checkoutsPerHour,
      window: HOUR_MS,
    });
    for (const productId of new Set(call.checkout.productIds)) {
      rules.push({
        policy: 'product',
        key: `product:${productId}`,
        limit: STOREFRONT_LIMITS.checkoutsPerProductPerMinute,
        window: MINUTE_MS,
      });
    }
  }
  return rules;
}

export interface StorefrontDecision {
  /** The instant the decision was made (epoch ms); the call is metered on this instant's day. */
  at: number;
  /** The policy that refused the call and when a retry can pass it (epoch ms). */
  refused: { code: 'rate_limited'; policy: StorefrontPolicyName; retryAt: number } | null;
  /**
   * The policy the response's `RateLimit-Policy` and `RateLimit` show: the per-address one when
   * the call was admitted, the refusing one otherwise; its window in seconds.
   */
  shown: { policy: StorefrontPolicyName; window: number; state: PolicyState };
}

export function decideStorefront(
  taken: BucketLevels,
  rules: readonly StorefrontRule[],
  now: number,
): StorefrontDecision {
  const [first] = rules;
  if (first === undefined) throw new Error('a storefront call takes from its per-address bucket');
  const shownOf = (rule: StorefrontRule, level: number): StorefrontDecision['shown'] => ({
    policy: rule.policy,
    window: rule.window / 1000,
    state: bucketPolicy(level, rule.limit, rule.window, now, rule.window * taken.share),
  });
  let shown = shownOf(first, taken.levels[0] ?? 0);
  let refused: StorefrontDecision['refused'] = null;
  if (!taken.admitted) {
    for (const [i, rule] of rules.entries()) {
      const level = taken.levels[i] ?? 0;
      const retryAt = now + waitFor(level, rule.limit, rule.window, rule.window * taken.share);
      // The call passes once every bucket has room: the refusal names the one that holds it longest.
      if (retryAt > now && (refused === null || retryAt > refused.retryAt)) {
        refused = { code: 'rate_limited', policy: rule.policy, retryAt };
        shown = shownOf(rule, level);
      }
    }
  }
  return { at: now, refused, shown };
}
