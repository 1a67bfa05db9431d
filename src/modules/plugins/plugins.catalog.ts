import { EVENT_TYPES } from '../events/events.types.js';

/** The marketplace's categories; every plugin has one of them. */
export const PLUGIN_CATEGORIES = [
  'accounting',
  'analytics',
  'customer-support',
  'inventory',
  'loyalty',
  'marketing',
  'notifications',
  'payments',
  'reviews',
  'sales-channels',
  'shipping',
  'tax',
] as const;

/** The events a plugin may subscribe to: every store event but the endpoint test. */
export const PLUGIN_EVENTS = EVENT_TYPES.filter((type) => type !== 'webhook.test');
