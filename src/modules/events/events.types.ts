/** Every event type an endpoint can subscribe to. `product.outofstock` fires when stock reaches 0. */
export const EVENT_TYPES = [
  'order.created',
  'order.paid',
  'order.shipped',
  'order.delivered',
  'order.cancelled',
  'order.refunded',
  'payment.received',
  'payment.failed',
  'product.created',
  'product.updated',
  'product.deleted',
  'product.outofstock',
  'transfer.created',
  'webhook.test',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}
