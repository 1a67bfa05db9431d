/** Every event type an endpoint can subscribe to. `product.outofstock` fires when a variant's stock reaches 0. */
export const EVENT_TYPES = [
  'order.created',
  'order.paid',
  'order.shipped',
  'order.delivered',
  'order.cancelled',
  'order.refunded',
  'refund.created',
  'payment.received',
  'payment.failed',
  'product.created',
  'product.updated',
  'product.deleted',
  'product.outofstock',
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'customer.redacted',
  'discount.created',
  'discount.updated',
  'discount.deleted',
  'transfer.created',
  'import.completed',
  'webhook.test',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * Events about a plugin installation, sent only to that installation's own subscription (the
 * plugin's URL), never fanned out to the store's webhooks nor listed by `GET /events`:
 * `app.installed` carries the installation token; `app.permissions_updated` the installation's
 * new grant (a revision of the plugin approved, or accepted by the store).
 */
export const APP_EVENT_TYPES = ['app.installed', 'app.uninstalled', 'app.permissions_updated'] as const;

export type AppEventType = (typeof APP_EVENT_TYPES)[number];

export function isAppEventType(value: string): value is AppEventType {
  return (APP_EVENT_TYPES as readonly string[]).includes(value);
}
