import type { Logger } from './lib/logger.js';
import { rollupListener } from './modules/analytics/analytics.rollups.js';
import type { EventService } from './modules/events/events.service.js';
import type { WebhookService } from './modules/webhooks/webhooks.service.js';

/**
 * What else every event writes. Each effect runs inside the transaction of the change that emits
 * the event, after the event row and in the order below, so the change, its event and these rows
 * commit together or not at all (an effect that fails fails the change). Registered once, by
 * `createDeps`, before anything can emit; no service attaches effects of its own.
 */
export function registerEventEffects(deps: {
  events: EventService;
  webhooks: WebhookService;
  logger: Logger;
}): void {
  const { events, webhooks, logger } = deps;
  // Analytics rollups: order events move the daily, product, category and customer figures that
  // the analytics endpoints read, so a period costs the same at a thousand orders as at a million.
  events.onEmit(rollupListener(logger));
  // Webhook delivery rows: one pending delivery per subscribed, enabled endpoint, which the
  // worker sends once the change has committed (signalled after commit, or found by polling).
  events.onEmit(webhooks.fanOut);
}
