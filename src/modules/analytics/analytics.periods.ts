import { type FieldError, validationFailed } from '../../lib/errors.js';
import { iso } from '../../lib/clock.js';
import { isCurrency } from '../../lib/money.js';

/**
 * Calendar arithmetic of analytics, all in UTC: days are epoch milliseconds of 00:00, weeks start
 * on Monday (ISO 8601), months on the 1st.
 */

export const DAY_MS = 24 * 3600 * 1000;
/** The longest period a query may cover, from and to included. */
export const MAX_PERIOD_DAYS = 366;
export const DEFAULT_PERIOD_DAYS = 30;
/** The first day a period may start on. */
export const EARLIEST_DAY = '1970-01-01';

export const INTERVALS = ['day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

/** 00:00 UTC of the day `instant` falls in. */
export function dayOf(instant: number): number {
  return Math.floor(instant / DAY_MS) * DAY_MS;
}

/** `YYYY-MM-DD` of a day. */
export function dateOf(day: number): string {
  return iso(day).slice(0, 10);
}

/** The start of the bucket (day, ISO week or month) that `day` belongs to. */
export function bucketStart(day: number, interval: Interval): number {
  if (interval === 'day') return day;
  if (interval === 'week') {
    // 1970-01-01 was a Thursday: epoch day 4 is the first Monday.
    const sinceMonday = (((day / DAY_MS - 4) % 7) + 7) % 7;
    return day - sinceMonday * DAY_MS;
  }
  const date = new Date(day);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

function nextBucket(start: number, interval: Interval): number {
  if (interval === 'day') return start + DAY_MS;
  if (interval === 'week') return start + 7 * DAY_MS;
  const date = new Date(start);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

export interface Bucket {
  /** Calendar start of the bucket; the first one may start before the period does. */
  start: number;
  /** The part of the bucket inside the period, both days included. */
  from: number;
  to: number;
}

/** The buckets covering from..to (days), oldest first. */
export function bucketsOf(from: number, to: number, interval: Interval): Bucket[] {
  const out: Bucket[] = [];
  for (let start = bucketStart(from, interval); start <= to; start = nextBucket(start, interval)) {
    const end = nextBucket(start, interval) - DAY_MS;
    out.push({ start, from: Math.max(start, from), to: Math.min(end, to) });
  }
  return out;
}

export interface Period {
  from: number;
  to: number;
  interval: Interval;
  currency: string;
}

export interface PeriodQuery {
  from?: string | undefined;
  to?: string | undefined;
  interval?: Interval | undefined;
  currency?: string | undefined;
}

/** The day a `YYYY-MM-DD` names, or undefined for a malformed or impossible date or one before 1970. */
function parseDate(value: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const instant = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : Number.NaN;
  return match && !Number.isNaN(instant) && dateOf(instant) === value && instant >= 0 ? instant : undefined;
}

/**
 * The period a query asks for. Defaults: `to` today (UTC), `from` 29 days before `to` (30 days,
 * never before 1970-01-01), by day, in the tenant's currency. A 400 lists every field at fault.
 */
export function resolvePeriod(query: PeriodQuery, now: number, tenantCurrency: string): Period {
  const errors: FieldError[] = [];
  const date = (field: 'from' | 'to', value: string): number | undefined => {
    const day = parseDate(value);
    if (day === undefined)
      errors.push({ field, message: `must be a date (YYYY-MM-DD), ${EARLIEST_DAY} or later` });
    return day;
  };
  const to = query.to === undefined ? dayOf(now) : date('to', query.to);
  const from =
    query.from !== undefined
      ? date('from', query.from)
      : to === undefined
        ? undefined
        : Math.max(0, to - (DEFAULT_PERIOD_DAYS - 1) * DAY_MS);
  if (from !== undefined && to !== undefined) {
    if (from > to) errors.push({ field: 'from', message: 'must not be after to' });
    else if ((to - from) / DAY_MS + 1 > MAX_PERIOD_DAYS) {
      // The field the caller sent: `from` alone is measured to today.
      errors.push(
        query.to === undefined
          ? {
              field: 'from',
              message: `must be at most ${MAX_PERIOD_DAYS} days before today (to), both included`,
            }
          : { field: 'to', message: `must be at most ${MAX_PERIOD_DAYS} days from from, both included` },
      );
    }
  }
  const currency = query.currency ?? tenantCurrency;
  if (!isCurrency(currency)) {
    errors.push({ field: 'currency', message: 'must be an ISO 4217 currency code in upper case' });
  }
  if (errors.length > 0 || from === undefined || to === undefined) throw validationFailed(errors);
  return { from, to, interval: query.interval ?? 'day', currency };
}

/** The period of the same length that ends the day before `period` starts. */
export function previousOf(period: { from: number; to: number }): { from: number; to: number } {
  const length = period.to - period.from + DAY_MS;
  return { from: period.from - length, to: period.from - DAY_MS };
}
