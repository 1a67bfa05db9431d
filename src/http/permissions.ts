/** Every permission a key can hold (contract section 2). */
export const PERMISSIONS = [
  'read:products',
  'write:products',
  'read:orders',
  'write:orders',
  'read:wallet',
  'write:wallet',
  'read:analytics',
  'write:ai',
  'read:webhooks',
  'write:webhooks',
  'read:users',
  'read:usage',
  'read:plugins',
  'write:plugins',
  'read:keys',
  'write:keys',
  'write:settings',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

/**
 * What a route requires, declared on the route itself (`config.auth`): a permission, any valid
 * key, or nothing at all. One hook enforces it; a test fails for a `/v1` route that declares none.
 */
export type RouteAuth = Permission | 'any_key' | 'public';

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}
