import type { Order, Page, WebhookEvent } from '../types.js';
import { api, dataOf } from './client.js';
import { type Resource, useApiQuery } from './query.js';

/**
 * An order's events from the event log (`GET /v1/events?object_id=`): the order's own (`order.*`),
 * its payment's and its refunds' (`payment.*`, `refund.*`), and the failed payment attempts before
 * it was paid (`payment.failed`, whose payments the order does not list: they are looked for by type
 * from its creation to its payment, and kept when they name the order).
 */

/** The most pages read per object (an object with more than 500 events is cut short). */
const MAX_PAGES = 5;

/** Whether an event is about the order: the order itself, or one of its payments or refunds. */
export function isAbout(event: WebhookEvent, orderId: string): boolean {
  const object = event.data.object;
  return object.id === orderId || object.order_id === orderId;
}

async function eventsWhere(query: Record<string, string>): Promise<WebhookEvent[]> {
  const found: WebhookEvent[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer: Page<WebhookEvent> = await dataOf(
      api.GET('/v1/events', { params: { query: { limit: 100, ...query, ...(cursor ? { cursor } : {}) } } }),
    );
    found.push(...answer.data);
    cursor = answer.has_more ? answer.next_cursor : null;
    if (!cursor) break;
  }
  return found;
}

/** The ids whose events make the order's history: the order, its payment and its refunds. */
export function objectIds(order: Order): string[] {
  return [
    order.id,
    ...(order.payment ? [order.payment.id] : []),
    ...order.refunds.map((refund) => refund.id),
  ];
}

/** The order's events, oldest first. */
export async function orderEvents(order: Order): Promise<WebhookEvent[]> {
  const failedUntil = order.paid_at ?? order.cancelled_at ?? new Date().toISOString();
  const lists = await Promise.all([
    ...objectIds(order).map((id) => eventsWhere({ object_id: id })),
    eventsWhere({ type: 'payment.failed', created_from: order.created, created_to: failedUntil }).then(
      (events) => events.filter((event) => isAbout(event, order.id)),
    ),
  ]);
  const byId = new Map(lists.flat().map((event) => [event.id, event]));
  return [...byId.values()].sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id));
}

/** The order's events (none while it is not loaded), asked again when the order changes. */
export function useOrderEvents(order: Order | undefined): Resource<WebhookEvent[]> {
  return useApiQuery(
    order === undefined
      ? null
      : {
          queryKey: ['orders', 'detail', order.id, 'events', order.updated, order.refunds.length],
          queryFn: () => orderEvents(order),
        },
  );
}
