import type { FastifyReply, FastifyRequest } from 'fastify';
import { iso } from '../lib/clock.js';
import { AppError } from '../lib/errors.js';
import type {
  LimitDecision,
  PolicyName,
  PolicyState,
  StorefrontDecision,
  StorefrontPolicyName,
} from '../modules/limits/index.js';

/**
 * The limiter's decision on the wire (src/modules/limits/): the `RateLimit-Policy`, `RateLimit` and
 * `X-RateLimit-*` headers every authenticated response carries, and the 429 that refuses a request.
 * A storefront call's answer carries the storefront's own policy instead (`enforceStorefrontDecision`).
 */

function secondsUntil(instant: number, now: number): number {
  return Math.max(0, Math.ceil((instant - now) / 1000));
}

/**
 * The `RateLimit` item: the policy with the fewest requests left (the IETF draft asks for the
 * most constraining one); on a refusal, the refusing policy with `t` equal to `Retry-After`.
 */
function rateLimitItem(decision: LimitDecision): string {
  const { at, refused } = decision;
  if (refused) {
    return `"${refused.policy}";r=0;t=${Math.max(1, secondsUntil(refused.retryAt, at))}`;
  }
  let name: PolicyName = 'hourly';
  let state: PolicyState = decision.hourly;
  if (decision.monthly.remaining < state.remaining) [name, state] = ['monthly', decision.monthly];
  if (decision.ai && decision.ai.remaining < state.remaining) [name, state] = ['ai', decision.ai];
  return `"${name}";r=${state.remaining};t=${secondsUntil(state.resetAt, at)}`;
}

/** Sets the headers every authenticated response carries (docs/rate-limits-and-usage.md). */
export function setRateLimitHeaders(reply: FastifyReply, decision: LimitDecision): void {
  const { hourly } = decision;
  reply.header('ratelimit-policy', decision.policy);
  reply.header('ratelimit', rateLimitItem(decision));
  reply.header('x-ratelimit-limit', String(hourly.limit));
  reply.header('x-ratelimit-remaining', String(hourly.remaining));
  reply.header('x-ratelimit-reset', String(Math.ceil(hourly.resetAt / 1000)));
}

function refusal(decision: LimitDecision, refused: NonNullable<LimitDecision['refused']>): AppError {
  const seconds = Math.max(1, secondsUntil(refused.retryAt, decision.at));
  const headers = { 'retry-after': String(seconds) };
  if (refused.code === 'quota_exceeded') {
    return new AppError(
      'quota_exceeded',
      `The monthly quota of ${decision.monthly.limit} calls is used up; it resets at ${iso(refused.retryAt)}.`,
      { headers },
    );
  }
  const what =
    refused.policy === 'ai'
      ? `the AI limit of ${decision.ai?.limit ?? 0} requests per minute`
      : `the hourly limit of ${decision.hourly.limit} requests`;
  return new AppError('rate_limited', `Over ${what}; retry in ${seconds} s.`, { headers });
}

/**
 * After authentication: keeps the decision on the request, sets the headers every authenticated
 * response carries, and refuses with 429 (`Retry-After` in seconds) when a limit or the quota is
 * reached.
 */
export function enforceDecision(request: FastifyRequest, reply: FastifyReply, decision: LimitDecision): void {
  request.limits = decision;
  setRateLimitHeaders(reply, decision);
  if (decision.refused) throw refusal(decision, decision.refused);
}

/** What each storefront policy limits, for the refusal's message. */
const STOREFRONT_LIMITED: Readonly<Record<StorefrontPolicyName, (limit: number) => string>> = {
  storefront: (limit) => `the store’s limit of ${limit} requests a minute from one address`,
  cart: (limit) => `the limit of ${limit} changes an hour to one cart`,
  checkout: (limit) => `the limit of ${limit} checkouts an hour from one address`,
  product: (limit) => `the limit of ${limit} checkouts a minute of one product`,
};

/**
 * A storefront call (`auth: 'storefront'`): keeps the decision on the request, sets
 * `RateLimit-Policy` and `RateLimit` of the per-address policy (of the refusing one on a 429; no
 * `X-RateLimit-*`: the tenant's hourly limit does not apply), and refuses with 429 `rate_limited`
 * and `Retry-After` when a storefront limit is reached.
 */
export function enforceStorefrontDecision(
  request: FastifyRequest,
  reply: FastifyReply,
  decision: StorefrontDecision,
): void {
  request.limits = decision;
  const { at, refused, shown } = decision;
  reply.header('ratelimit-policy', `"${shown.policy}";q=${shown.state.limit};w=${shown.window}`);
  if (!refused) {
    reply.header(
      'ratelimit',
      `"${shown.policy}";r=${shown.state.remaining};t=${secondsUntil(shown.state.resetAt, at)}`,
    );
    return;
  }
  const seconds = Math.max(1, secondsUntil(refused.retryAt, at));
  reply.header('ratelimit', `"${refused.policy}";r=0;t=${seconds}`);
  throw new AppError(
    'rate_limited',
    `Over ${STOREFRONT_LIMITED[refused.policy](shown.state.limit)}; retry in ${seconds} s.`,
    { headers: { 'retry-after': String(seconds) } },
  );
}
