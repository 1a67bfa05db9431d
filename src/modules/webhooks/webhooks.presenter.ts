import { iso } from '../../lib/clock.js';
import type { DeliveryRow, LoggedDelivery } from './webhooks.deliveries.repository.js';
import type { EndpointRow } from './webhooks.repository.js';

/** Webhook endpoints and delivery attempts as the API shows them. */

export interface WebhookObject {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: EndpointRow['status'];
  secret?: string;
  api_version: string;
  last_triggered: string | null;
  created: string;
  updated: string;
}

export interface DeliveryObject {
  id: string;
  time: string | null;
  event: string;
  event_id: string;
  endpoint: string;
  url: string;
  response: string | null;
  response_status: number | null;
  response_body: string | null;
  duration: number | null;
  attempt: number;
  status: DeliveryRow['status'];
  next_retry_at: string | null;
}

function parseEvents(json: string): string[] {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? parsed.filter((e): e is string => typeof e === 'string') : [];
}

export function subscribes(eventsJson: string, type: string): boolean {
  const events = parseEvents(eventsJson);
  return events.includes('*') || events.includes(type);
}

/** An endpoint as an idempotent replay shows it: without the signing secret, which is shown once. */
export function withoutSecret(body: Record<string, unknown>): Record<string, unknown> {
  const { secret: _secret, ...rest } = body;
  return rest;
}

export function toObject(row: EndpointRow, secret?: string): WebhookObject {
  return {
    id: row.id,
    url: row.url,
    events: parseEvents(row.events),
    description: row.description,
    status: row.status,
    ...(secret === undefined ? {} : { secret }),
    api_version: row.api_version,
    last_triggered: iso(row.last_triggered),
    created: iso(row.created),
    updated: iso(row.updated),
  };
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** A delivery's place in the log, for the next page's cursor. */
export function attemptKey(row: LoggedDelivery): [number, string] {
  return [row.attempted_at, row.id];
}

export function toDelivery(row: DeliveryRow, endpointUrl: string): DeliveryObject {
  const url = row.url ?? endpointUrl;
  return {
    id: row.id,
    time: iso(row.time),
    event: row.event_type,
    event_id: row.event_id,
    endpoint: pathOf(url),
    url,
    response: row.response,
    response_status: row.response_status,
    response_body: row.response_body,
    duration: row.duration,
    attempt: row.attempt,
    status: row.status,
    next_retry_at: iso(row.status === 'pending' ? row.due_at : row.next_retry_at),
  };
}
