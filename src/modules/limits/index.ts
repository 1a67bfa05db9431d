/**
 * The limits module's face: what other modules and the house may use of it. Anything not
 * here is the module's own (the lint's no-restricted-imports refuses an import of it).
 */
export {
  type RateLimiter,
  type StorefrontCheck,
  type StorefrontLookups,
  createRateLimiter,
} from './limits.limiter.js';
export {
  AI_LIMIT_PER_MINUTE,
  PLAN_LIMITS,
  limitsOf,
  planLimitsText,
  TEST_MODE_MONTHLY,
} from './limits.plans.js';
export {
  type Throttle,
  type ThrottleCounter,
  type ThrottleRule,
  clearThrottle,
  createThrottle,
  deleteStaleThrottles,
} from './limits.throttle.js';
export {
  type LimitDecision,
  type PolicyName,
  type PolicyState,
  type RouteRateLimit,
  monthWindow,
} from './limits.policy.js';
export {
  type StorefrontDecision,
  type StorefrontPolicyName,
  type StorefrontRouteLimit,
  STOREFRONT_LIMITS,
} from './limits.storefront.js';
