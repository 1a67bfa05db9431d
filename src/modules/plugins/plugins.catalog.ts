import type { EventType, Permission, Vocabulary } from '../../kernel/vocabulary.js';

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

/**
 * Permissions over keys, other plugins or the store's settings, and the audit and request logs
 * (which hold every request's bodies, whoever sent them): never a plugin's.
 */
const NOT_FOR_PLUGINS: readonly Permission[] = [
  'read:keys',
  'write:keys',
  'read:plugins',
  'write:plugins',
  'publish:plugins',
  'write:settings',
  'read:audit',
];

/**
 * Permissions a plugin may ask for: everything a store's data needs, but nothing over keys, other
 * plugins or the store's settings, so an installation token can never mint, roll or read keys,
 * install plugins or publish them.
 */
export function pluginPermissions(vocabulary: Vocabulary): Permission[] {
  return vocabulary.permissions.filter((permission) => !NOT_FOR_PLUGINS.includes(permission));
}

/** The events a plugin may subscribe to: every store event but the endpoint test. */
export function pluginEvents(vocabulary: Vocabulary): EventType[] {
  return vocabulary.eventTypes.filter((type) => type !== 'webhook.test');
}
