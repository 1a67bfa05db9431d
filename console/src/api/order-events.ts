import type { Order, Page, WebhookEvent } from '../types.js';
import { api, dataOf } from './client.js';
import { type Resource, useApiQuery } from './query.js';

/**
 * An order's events (`order.*`, and the `payment.*` and `refund.*` of its payments and refunds),
 * from the event log. The log is filtered by type and time only, so they are asked for around the
 * instants the order records (placed, paid, shipped, delivered, cancelled, refunded, each refund):
 * a few seconds each, a call or two per order, whatever the store's traffic otherwise.
 */

/** How far either side of an instant the order records its events are looked for. */
const MARGIN_MS = 2000;
/** The most pages read per instant (a store with more than 500 events in 4 seconds is cut short). */
const MAX_PAGES = 5;

/** The instants the order records something at, in ms. */
function instants(order: Order): number[] {
  const times = [
    order.created,
    order.paid_at,
    order.shipped_at,
    order.delivered_at,
    order.cancelled_at,
    order.refunded_at,
    ...order.refunds.map((refund) => refund.created),
  ];
  return times.flatMap((time) => (time ? [Date.parse(time)] : [])).sort((a, b) => a - b);
}

/** The windows around the instants, those that overlap merged. */
export function eventWindows(order: Order): [number, number][] {
  const windows: [number, number][] = [];
  for (const at of instants(order)) {
    const last = windows[windows.length - 1];
    if (last && at - MARGIN_MS <= last[1]) last[1] = at + MARGIN_MS;
    else windows.push([at - MARGIN_MS, at + MARGIN_MS]);
  }
  return windows;
}

/** Whether an event is about the order: the order itself, or one of its payments or refunds. */
export function isAbout(event: WebhookEvent, orderId: string): boolean {
  const object = event.data.object;
  return object.id === orderId || object.order_id === orderId;
}

async function eventsBetween(fromMs: number, toMs: number, orderId: string): Promise<WebhookEvent[]> {
  const found: WebhookEvent[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer: Page<WebhookEvent> = await dataOf(
      api.GET('/v1/events', {
        params: {
          query: {
            limit: 100,
            created_from: new Date(fromMs).toISOString(),
            created_to: new Date(toMs).toISOString(),
            ...(cursor ? { cursor } : {}),
          },
        },
      }),
    );
    found.push(...answer.data.filter((event) => isAbout(event, orderId)));
    cursor = answer.has_more ? answer.next_cursor : null;
    if (!cursor) break;
  }
  return found;
}

/** The order's events, oldest first. */
export async function orderEvents(order: Order): Promise<WebhookEvent[]> {
  const lists = await Promise.all(eventWindows(order).map(([a, b]) => eventsBetween(a, b, order.id)));
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
