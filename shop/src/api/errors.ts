import { CommerceApiError, CommerceConnectionError } from '@commerce-platform/client/storefront';
import { useSyncExternalStore } from 'react';

/**
 * What a failed call means to a shopper: one sentence for the page (`describeError`), the fields a
 * `400` names (`fieldErrors`), and the wait a `429` asks for (`Retry-After`), which the page's
 * banner counts down (`useRetryWait`): the store's limits count every call, so the shop says when
 * to try again instead of trying again itself.
 */

/** The wait a 429 asked for, in whole seconds (Retry-After in seconds or as an HTTP date). */
export function retryAfterSeconds(error: unknown): number | undefined {
  if (!(error instanceof CommerceApiError) || error.status !== 429) return undefined;
  const header = error.headers.get('retry-after')?.trim();
  if (!header) return undefined;
  const seconds = /^\d+$/.test(header) ? Number(header) : Math.ceil((Date.parse(header) - Date.now()) / 1000);
  return Number.isFinite(seconds) ? Math.max(1, seconds) : undefined;
}

export function waitText(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** A member of the problem document (`failure_code`, `cart`, `problems`). */
export function problemMember(error: unknown, name: string): unknown {
  return error instanceof CommerceApiError ? error.problem?.[name] : undefined;
}

export function isProblem(error: unknown, code: string): error is CommerceApiError {
  return error instanceof CommerceApiError && error.code === code;
}

const DECLINES: Record<string, string> = {
  card_declined: 'Your card was declined',
  insufficient_funds: 'Your card has insufficient funds',
};

/** One sentence a shopper can act on. */
export function describeError(error: unknown): string {
  if (error instanceof CommerceConnectionError) {
    return 'The shop could not reach the store. Check your connection and try again.';
  }
  if (!(error instanceof CommerceApiError)) return 'Something went wrong. Try again.';
  if (error.status === 429) {
    const seconds = retryAfterSeconds(error);
    return `Too many requests right now. Try again in ${seconds === undefined ? 'a minute' : waitText(seconds)}.`;
  }
  if (error.code === 'payment_failed') {
    const code = String(problemMember(error, 'failure_code') ?? 'card_declined');
    return `${DECLINES[code] ?? 'The payment failed'} (${code}). Nothing was charged and your cart is kept: try another card.`;
  }
  if (error.code === 'cart_changed') {
    return 'Your cart changed before you paid, and nothing was charged: check the new figures, accept them and pay again.';
  }
  if (error.code === 'cart_not_ready') return 'Your cart cannot be paid as it is: see what is marked.';
  if (error.code === 'invalid_credentials') return 'The email or the password is wrong.';
  if (error.code === 'duplicate_email')
    return 'There is already an account with this email: sign in instead.';
  if (error.code === 'invalid_customer_token') return 'Your session ended: sign in again.';
  if (error.code === 'validation_failed') return 'Check the fields marked below.';
  if (error.status >= 500) {
    return `Something went wrong at the store${error.requestId ? ` (request ${error.requestId})` : ''}. Try again.`;
  }
  return error.detail || error.title;
}

/** The messages of a `400`'s fields, by field name as the API names it (`shipping_address.city`). */
export function fieldErrors(error: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(error instanceof CommerceApiError)) return out;
  for (const { field, message } of error.errors ?? []) out[field] ??= message;
  return out;
}

/** Until when (ms since the epoch) the store asked for no more calls: its last 429's Retry-After. */
let retryAt = 0;
/** The whole seconds left until then, counted down once a second while there are any. */
let secondsLeft = 0;
let timer: ReturnType<typeof setInterval> | undefined;
const listeners = new Set<() => void>();

function tick(): void {
  secondsLeft = Math.max(0, Math.ceil((retryAt - Date.now()) / 1000));
  if (secondsLeft === 0 && timer !== undefined) {
    clearInterval(timer);
    timer = undefined;
  }
  for (const listener of listeners) listener();
}

/** Called for every failed call (the query client's caches): a 429 sets the wait. */
export function noteFailure(error: unknown): void {
  if (!(error instanceof CommerceApiError && error.status === 429)) return;
  retryAt = Math.max(retryAt, Date.now() + (retryAfterSeconds(error) ?? 60) * 1000);
  tick();
  timer ??= setInterval(tick, 1000);
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The seconds left before the store takes calls again (0: now); the page renders again each second. */
export function useRetryWait(): number {
  return useSyncExternalStore(subscribe, () => secondsLeft);
}
