import type { Logger } from './lib/logger.js';
import { rollupListener } from './modules/analytics/analytics.rollups.js';
import { figuresListener } from './modules/customers/customers.figures.js';
import type { EventService } from './modules/events/events.service.js';
import type { WebhookService } from './modules/webhooks/webhooks.service.js';

/**
 * What else every event writes. Each effect runs inside the transaction of the change that emits
 * the event, after the event rows and in the order below, once per emit with all the events it
 * wrote (`emitMany`'s batch at once), so the change, its events and these rows commit together or
 * not at all (an effect that fails fails the change). Registered once, by
 * `createDeps`, before anything can emit; no service attaches effects of its own.
 */
export function registerEventEffects(deps: {
  events: EventService;
  webhooks: WebhookService;
  logger: Logger;
}): void {
  const { events, webhooks, logger } = deps;
  // Analytics rollups: order and refund events move the daily, product, category and customer
  // figures that the analytics endpoints read, so a period costs the same at a thousand orders as
  // at a million.
  events.onEmit(rollupListener(logger));
  // Customer figures: order and refund events move the customer's orders_count, total_spent and
  // last_order_at.
  events.onEmit(figuresListener());
  // Webhook delivery rows: one pending delivery per subscribed, enabled endpoint, which the
  // worker sends once the change has committed (signalled after commit, or found by polling).
  events.onEmit(webhooks.fanOut);
}
