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
