/**
 * When a request is tried again, and after how long: network errors and timeouts,
 * `409 idempotency_key_in_use` (the first attempt of a POST is still running), `429` and `5xx`.
 * The wait is the answer's `Retry-After` when it gives one (seconds or an HTTP date), otherwise
 * exponential backoff with full jitter: a random time up to 0.5 s, 1 s, 2 s, ... capped at 8 s.
 * A `Retry-After` beyond a minute (a monthly quota that resets next month) is not waited for: the
 * error goes to the caller.
 */

export const INITIAL_DELAY_MS = 500;
export const MAX_DELAY_MS = 8_000;
export const MAX_RETRY_AFTER_MS = 60_000;

/** Full jitter: a uniformly random wait between 0 and the attempt's exponential bound. */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(MAX_DELAY_MS, INITIAL_DELAY_MS * 2 ** retry));
}

/** `Retry-After` in milliseconds: delta seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Whether an answer with this status (and problem code) is worth another attempt. */
export function isRetryableStatus(status: number, code: string | undefined): boolean {
  return status === 429 || status >= 500 || (status === 409 && code === 'idempotency_key_in_use');
}

/** The wait before retry number `retry` (0 for the first) after an answer; undefined: do not retry. */
export function waitAfterAnswer(
  retry: number,
  retryAfter: string | null,
  random: () => number = Math.random,
): number | undefined {
  const asked = retryAfterMs(retryAfter);
  if (asked === undefined) return backoffMs(retry, random);
  return asked <= MAX_RETRY_AFTER_MS ? asked : undefined;
}
