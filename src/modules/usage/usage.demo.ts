import type { Db } from '../../db/store.js';
import { DAY_MS } from './usage.meter.js';
import * as repo from './usage.repository.js';

/**
 * The demo store's API usage over the four weeks before today, as an integration of a small shop
 * would have made it: mostly catalogue and order reads, some writes, a few errors, more on weekdays
 * than at weekends. Written through the meter's own table (`usage_daily`), as the meter writes it,
 * so `/v1/usage`, its charts and the quota read it like any metered call. The figures come from a
 * fixed seed: every demo store gets the same history, relative to its first day.
 */

/** Days of history before today (today's bars are the calls really made). */
export const DEMO_USAGE_DAYS = 28;

/** Endpoint, calls on an average weekday, share of errors, average response time (ms). */
const TRAFFIC: [endpoint: string, calls: number, errorRate: number, ms: number][] = [
  ['GET /products', 210, 0.004, 6.5],
  ['GET /products/{id}', 160, 0.02, 3.1],
  ['GET /orders', 95, 0.003, 8.2],
  ['GET /orders/{id}', 70, 0.015, 3.4],
  ['POST /orders', 42, 0.06, 24.8],
  ['PATCH /products/{id}', 18, 0.05, 11.7],
  ['POST /orders/{id}/ship', 21, 0.03, 14.2],
  ['GET /customers', 24, 0.0, 7.9],
  ['GET /analytics', 9, 0.0, 31.5],
  ['GET /wallet/balance', 6, 0.0, 4.4],
];

/** A small deterministic generator (mulberry32): the same history on every run. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The rows of the history for `tenantId`, the days before the UTC day of `now`. */
export function demoUsageRows(tenantId: string, now: number): repo.UsageRow[] {
  const today = now - (now % DAY_MS);
  const random = generator(20261121);
  const rows: repo.UsageRow[] = [];
  for (let back = DEMO_USAGE_DAYS; back >= 1; back--) {
    const day = today - back * DAY_MS;
    const weekday = new Date(day).getUTCDay();
    const weekend = weekday === 0 || weekday === 6;
    // The shop's integration grew over the month: later days are busier.
    const growth = 0.7 + (0.5 * (DEMO_USAGE_DAYS - back)) / DEMO_USAGE_DAYS;
    for (const [endpoint, average, errorRate, ms] of TRAFFIC) {
      const calls = Math.round(average * growth * (weekend ? 0.45 : 1) * (0.75 + 0.5 * random()));
      if (calls === 0) continue;
      const errors = Math.min(calls, Math.round(calls * errorRate * (0.5 + random())));
      const durationUs = Math.round(calls * ms * 1000 * (0.85 + 0.3 * random()));
      rows.push({ tenant_id: tenantId, day, endpoint, calls, errors, rejected: 0, duration_us: durationUs });
    }
  }
  return rows;
}

/** Writes the demo's usage history for `tenantId`, in `db` (a new demo store has none). */
export async function seedDemoUsage(db: Db, tenantId: string, now: number): Promise<number> {
  const rows = demoUsageRows(tenantId, now);
  await repo.addUsage(db, rows);
  return rows.reduce((sum, row) => sum + row.calls, 0);
}
