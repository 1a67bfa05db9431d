/** Formatting for people: relative times, dates, clock times, counts, durations. */

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'always' });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** "2 hours ago", "in 3 days", "just now". */
export function timeAgo(iso: string | null, now: number = Date.now()): string {
  if (iso === null) return 'Never';
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  if (Math.abs(seconds) < 45) return 'just now';
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size * 0.9 || unit === 'minute') {
      return relative.format(Math.round(seconds / size), unit);
    }
  }
  return 'just now';
}

const dateFormat = new Intl.DateTimeFormat('en', { year: 'numeric', month: 'short', day: 'numeric' });
const dateTimeFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });
const instantFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'medium' });
const dayFormat = new Intl.DateTimeFormat('en', {
  weekday: 'short',
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});
const shortDayFormat = new Intl.DateTimeFormat('en', { weekday: 'short', day: 'numeric', timeZone: 'UTC' });

/** "Nov 21, 2026", the date where the browser is. */
export function formatDate(iso: string): string {
  return dateFormat.format(new Date(iso));
}

const utcDateFormat = new Intl.DateTimeFormat('en', {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});

/**
 * "Nov 1, 2026": the UTC calendar date of a UTC midnight (a usage period's start, the quota's
 * reset), the same wherever the browser is (in New York, local time would make it Oct 31).
 */
export function formatUtcDate(iso: string): string {
  return utcDateFormat.format(new Date(iso));
}

export function formatDateTime(iso: string): string {
  return dateTimeFormat.format(new Date(iso));
}

/** To the second: "Nov 21, 2026, 3:04:27 PM". */
export function formatInstant(iso: string): string {
  return instantFormat.format(new Date(iso));
}

/** The date, and the time too when it is within a day of `now` ("Nov 21, 2026, 3:04 PM"). */
export function formatDateNear(iso: string, now: number = Date.now()): string {
  return Math.abs(Date.parse(iso) - now) < 24 * 3600 * 1000 ? formatDateTime(iso) : formatDate(iso);
}

/** A UTC calendar day ("2026-11-21") as "Sat, Nov 21", or short as "21 Sat". */
export function formatDay(date: string, short = false): string {
  return (short ? shortDayFormat : dayFormat).format(new Date(`${date}T00:00:00Z`));
}

const logTimeFormat = new Intl.DateTimeFormat('en', {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/**
 * "Nov 21, 14:03:27", local time: the one format of a delivery log's times (an attempt, a queued
 * attempt's due time, the next retry), so a row never mixes two.
 */
export function formatLogTime(iso: string): string {
  return logTimeFormat.format(new Date(iso));
}

/** "14:03:27", local time, of an ISO timestamp or ms since the epoch. */
export function clockTime(at: string | number): string {
  const d = new Date(at);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

const numberFormat = new Intl.NumberFormat('en');
export function formatNumber(n: number): string {
  return numberFormat.format(n);
}

const moneyFormats = new Map<string, Intl.NumberFormat>();

function moneyFormat(currency: string, compact: boolean): Intl.NumberFormat {
  const key = `${currency} ${compact}`;
  let format = moneyFormats.get(key);
  if (format === undefined) {
    format = new Intl.NumberFormat('en', {
      style: 'currency',
      currency,
      ...(compact ? { notation: 'compact', maximumFractionDigits: 1 } : {}),
    });
    moneyFormats.set(key, format);
  }
  return format;
}

/** Minor units as money: 129990 USD -> "$1,299.90" (1299 JPY -> "¥1,299"); compact: "$1.3K". */
export function formatMoney(minor: number, currency: string, compact = false): string {
  const digits = moneyFormat(currency, false).resolvedOptions().maximumFractionDigits ?? 2;
  return moneyFormat(currency, compact).format(minor / 10 ** digits);
}

const compactFormat = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
export function formatCompact(n: number): string {
  return compactFormat.format(n);
}

export function formatMs(ms: number): string {
  return `${ms < 10 ? ms.toFixed(1) : formatNumber(Math.round(ms))} ms`;
}

export function percent(part: number, whole: number): number {
  return whole === 0 ? 0 : (part * 100) / whole;
}

/** `customer-support` -> `Customer support` */
export function humanize(slug: string): string {
  const words = slug.replace(/[-_]/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** "1 call", "2 calls", "1,000 calls". */
export function plural(n: number, word: string): string {
  return `${formatNumber(n)} ${n === 1 ? word : `${word}s`}`;
}

const JSON_SPACE = ' \t\n\r';

/**
 * A body to show as text: indented when it is JSON, otherwise exactly as it came. Only whitespace
 * between tokens changes, so every value reads as sent (a large number or an escape stays as it
 * was, which parsing and serializing again would not promise).
 */
export function formatBody(body: string): string {
  try {
    JSON.parse(body);
  } catch {
    return body;
  }
  let out = '';
  let depth = 0;
  let inString = false;
  let escaped = false;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < body.length; i++) {
    const c = body.charAt(i);
    if (inString) {
      out += c;
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '{' || c === '[') {
      let next = i + 1;
      while (JSON_SPACE.includes(body.charAt(next))) next += 1;
      if (body.charAt(next) === (c === '{' ? '}' : ']')) {
        out += c + body.charAt(next);
        i = next;
      } else {
        depth += 1;
        out += c + newline();
      }
    } else if (c === '}' || c === ']') {
      depth -= 1;
      out += newline() + c;
    } else if (c === ',') {
      out += c + newline();
    } else if (c === ':') {
      out += ': ';
    } else if (!JSON_SPACE.includes(c)) {
      out += c;
    }
  }
  return out;
}
