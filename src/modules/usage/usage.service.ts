import type { Store } from '../../db/store.js';
import { type LimitDecision, monthWindow, type RateLimiter } from '../limits/index.js';
import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { TenantSummary } from '../../lib/principal.js';
import { DAY_MS, type UsageMeter } from './usage.meter.js';
import { appUsage } from './usage.apps.js';
import * as repo from './usage.repository.js';
import type { ModeUsage, Usage, UsagePeriod } from './usage.schemas.js';

const TOP_ENDPOINTS = 10;
const WARNING_PERCENT = 80;

/** Sum of microseconds over calls, as milliseconds with one decimal (0 without calls). */
function averageMs(durationUs: number, calls: number): number {
  return calls === 0 ? 0 : Math.round(durationUs / calls / 100) / 10;
}

function totals(rows: readonly repo.EndpointCalls[]) {
  let calls = 0;
  let errors = 0;
  let rejected = 0;
  let durationUs = 0;
  for (const row of rows) {
    calls += row.calls;
    errors += row.errors;
    rejected += row.rejected;
    durationUs += row.duration_us;
  }
  return { calls, errors, rejected, durationUs };
}

/** The most called endpoints, most calls first (then by name). */
function topEndpoints(rows: readonly repo.EndpointCalls[]) {
  return [...rows]
    .sort((a, b) => b.calls - a.calls || (a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0))
    .slice(0, TOP_ENDPOINTS)
    .map((row) => ({
      endpoint: row.endpoint,
      calls: row.calls,
      errors: row.errors,
      average_response_time_ms: averageMs(row.duration_us, row.calls),
    }));
}

function startOfDay(instant: number): number {
  return instant - (instant % DAY_MS);
}

/** A store of a mode: its summary as its keys' principals carry it. */
function summaryOf(row: {
  id: string;
  name: string;
  plan: TenantSummary['plan'];
  currency: string;
  api_version: string;
  hourly_limit: number | null;
  monthly_limit: number | null;
  mode: 'live' | 'test';
}): TenantSummary {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    currency: row.currency,
    api_version: row.api_version,
    hourly_limit: row.hourly_limit,
    monthly_limit: row.monthly_limit,
    livemode: row.mode === 'live',
  };
}

export type UsageService = ReturnType<typeof createUsageService>;

export function createUsageService(deps: {
  store: Store;
  clock: Clock;
  logger: Logger;
  meter: UsageMeter;
  limiter: RateLimiter;
  /** The store of the other mode paired with a store, if it has one (never made here). */
  pairOf: (tenantId: string) => Promise<Parameters<typeof summaryOf>[0] | undefined>;
}) {
  const { store, clock, logger, meter, limiter, pairOf } = deps;

  /** Each UTC day from `first` to `today`, oldest first, zero-filled. */
  function daysFrom(first: number, today: number, stored: readonly repo.DayUsage[]) {
    const byDay = new Map(stored.map((row) => [row.day, row]));
    return Array.from({ length: (today - first) / DAY_MS + 1 }, (_, index) => {
      const day = first + index * DAY_MS;
      const row = byDay.get(day);
      return { date: iso(day).slice(0, 10), calls: row?.calls ?? 0, errors: row?.errors ?? 0 };
    });
  }

  /**
   * One mode's calls in the period (storefront calls apart, as at the top level), its hourly
   * limit, and whether its calls count against the monthly quota (live's only).
   */
  function modeUsage(
    tenant: TenantSummary,
    state: LimitDecision,
    rows: readonly repo.EndpointCalls[],
    days: readonly repo.DayUsage[],
    from: number,
    today: number,
  ): ModeUsage {
    const endpoints = rows.filter((row) => !repo.isStorefrontEndpoint(row.endpoint));
    const { calls, errors, durationUs } = totals(endpoints);
    const { hourly } = state;
    return {
      calls,
      errors,
      average_response_time_ms: averageMs(durationUs, calls),
      counts_against_quota: tenant.livemode,
      rate_limit: { limit: hourly.limit, remaining: hourly.remaining, resets_at: iso(hourly.resetAt) },
      top_endpoints: topEndpoints(endpoints),
      days: daysFrom(from, today, days),
    };
  }

  /** The usage of the store of the other mode paired with `tenant`; null while it has none. */
  async function pairedUsage(tenant: TenantSummary, from: number, today: number): Promise<ModeUsage | null> {
    const paired = await pairOf(tenant.id);
    if (paired === undefined) return null;
    const summary = summaryOf(paired);
    const [rows, days, state] = await Promise.all([
      repo.usageByEndpoint(store.db, summary.id, from),
      repo.usageByDay(store.db, summary.id, from, false),
      limiter.peek(summary),
    ]);
    return modeUsage(summary, state, rows, days, from, today);
  }

  return {
    /**
     * The usage page: metered calls of the period, the quota and the hourly limit. `limits` is the
     * decision made for the calling request (so the body agrees with its headers); without one the
     * limiter is asked, counting nothing.
     */
    async summary(tenant: TenantSummary, period: UsagePeriod, limits: LimitDecision | null): Promise<Usage> {
      const state = limits ?? (await limiter.peek(tenant));
      try {
        // This process's unflushed calls; other processes flush theirs every second.
        await meter.flush();
      } catch (error) {
        logger.warn({ err: error }, 'usage flush before reading failed; answering from stored usage');
      }
      const now = clock.now();
      const today = startOfDay(now);
      const from = period === 'month' ? monthWindow(now).start : today - (period === '7d' ? 6 : 29) * DAY_MS;
      const week = today - 6 * DAY_MS;
      const [rows, days, storefrontDays] = await Promise.all([
        repo.usageByEndpoint(store.db, tenant.id, from),
        repo.usageByDay(store.db, tenant.id, Math.min(from, week), false),
        repo.usageByDay(store.db, tenant.id, from, true),
      ]);
      // Storefront calls are reported apart: they count against neither the quota nor the hour.
      const endpoints = rows.filter((row) => !repo.isStorefrontEndpoint(row.endpoint));
      const storefront = rows.filter((row) => repo.isStorefrontEndpoint(row.endpoint));
      const { calls, errors, durationUs } = totals(endpoints);
      const shop = totals(storefront);

      const { monthly, hourly } = state;
      // The store's other mode beside this one: live's and test's calls apart, from either key.
      const own = modeUsage(tenant, state, rows, days, from, today);
      const other = await pairedUsage(tenant, from, today);
      if (!tenant.livemode && other === null) throw new Error(`test store ${tenant.id} has no live store`);
      return {
        period: { from: iso(from), to: iso(now) },
        total_calls: calls,
        average_response_time_ms: averageMs(durationUs, calls),
        total_errors: errors,
        quota: {
          used: monthly.used,
          limit: monthly.limit,
          remaining: monthly.remaining,
          percent_used: Math.floor((monthly.used * 1000) / monthly.limit) / 10,
          resets_at: iso(monthly.resetAt),
          warning: monthly.used * 100 >= monthly.limit * WARNING_PERCENT,
        },
        rate_limit: { limit: hourly.limit, remaining: hourly.remaining, resets_at: iso(hourly.resetAt) },
        top_endpoints: topEndpoints(endpoints),
        daily_calls: daysFrom(week, today, days),
        days: daysFrom(from, today, days),
        apps: await appUsage(store.db, tenant.id, from),
        storefront: {
          calls: shop.calls,
          errors: shop.errors,
          rate_limited: shop.rejected,
          average_response_time_ms: averageMs(shop.durationUs, shop.calls),
          top_endpoints: topEndpoints(storefront),
          days: daysFrom(from, today, storefrontDays),
        },
        by_mode: tenant.livemode || other === null ? { live: own, test: other } : { live: other, test: own },
      };
    },
  };
}
