import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { webhooks } from './generated/schema.js';
import type { ContentOf } from './types.js';

export { WebhookVerificationError };

/** One event as a webhook delivers it (`{id, type, created, api_version, data}`), by its type. */
export type WebhookEvent = {
  [T in keyof webhooks]: webhooks[T]['post'] extends { requestBody?: infer B }
    ? ContentOf<NonNullable<B>>
    : never;
}[keyof webhooks];

/** A delivery's headers: a fetch `Headers`, or Node's `IncomingHttpHeaders` (`req.headers`). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

/**
 * Verifies a delivery to your endpoint (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`, an HMAC-SHA256 keyed with the endpoint's `whsec_...` secret) and returns its
 * event. `payload` is the body exactly as received (not re-serialized JSON). Throws a
 * WebhookVerificationError for a wrong signature, a missing header, or a timestamp more than five
 * minutes off. During a secret rotation a delivery carries a signature for each secret; either
 * secret verifies it.
 */
export function verifyWebhook(
  payload: string | Buffer,
  headers: WebhookHeaders,
  secret: string,
): WebhookEvent {
  const signed: Record<string, string> = {};
  for (const name of SIGNATURE_HEADERS) {
    const value = header(headers, name);
    if (value !== undefined) signed[name] = value;
  }
  return new Webhook(secret).verify(payload, signed) as WebhookEvent;
}
