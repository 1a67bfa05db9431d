import type { Plan, TenantSummary } from '../../lib/principal.js';

/**
 * The plans: each one's hourly limit and monthly quota, and the AI routes' per-minute limit. The
 * one table the limiter, the console, the usage page and the OpenAPI description read.
 */
export const PLAN_LIMITS: Readonly<Record<Plan, { readonly hourly: number; readonly monthly: number }>> = {
  free: { hourly: 1_000, monthly: 10_000 },
  pro: { hourly: 10_000, monthly: 100_000 },
  enterprise: { hourly: 100_000, monthly: 10_000_000 },
};

/** AI routes (`config.rateLimit: 'ai'`) allow this many requests per minute per tenant, on top. */
export const AI_LIMIT_PER_MINUTE = 60;

export interface TenantLimits {
  hourly: number;
  monthly: number;
}

/**
 * A test store's monthly quota: none (test calls never count against a quota), as a number the
 * counters and headers can hold.
 */
export const TEST_MODE_MONTHLY = Number.MAX_SAFE_INTEGER;

/**
 * The tenant's own limits (`tenant:set-limits`), else its plan's; a store's test mode has its own
 * hourly limit (its counters are its own tenant's) and no monthly quota.
 */
export function limitsOf(
  tenant: Pick<TenantSummary, 'plan' | 'hourly_limit' | 'monthly_limit'> & { livemode?: boolean },
): TenantLimits {
  const plan = PLAN_LIMITS[tenant.plan];
  return {
    hourly: tenant.hourly_limit ?? plan.hourly,
    monthly: tenant.livemode === false ? TEST_MODE_MONTHLY : (tenant.monthly_limit ?? plan.monthly),
  };
}

/** The plans as the API description states them: `free 1,000/10,000, pro 10,000/100,000, ...`. */
export function planLimitsText(): string {
  return Object.entries(PLAN_LIMITS)
    .map(
      ([plan, { hourly, monthly }]) =>
        `${plan} ${hourly.toLocaleString('en-US')}/${monthly.toLocaleString('en-US')}`,
    )
    .join(', ');
}
