/** Every permission a key can hold; each route declares the one it needs in `config.auth`. */
export const PERMISSIONS = [
  'read:products',
  'write:products',
  'read:orders',
  'write:orders',
  'read:customers',
  'write:customers',
  'read:pricing',
  'write:pricing',
  'read:imports',
  'write:imports',
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
  'publish:plugins',
  'read:keys',
  'write:keys',
  'write:settings',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/**
 * Permissions a plugin may ask for: everything a store's data needs, but nothing over keys, other
 * plugins or the store's settings, so an installation token can never mint, roll or read keys,
 * install plugins or publish them.
 */
export const PLUGIN_PERMISSIONS = PERMISSIONS.filter(
  (permission) =>
    ![
      'read:keys',
      'write:keys',
      'read:plugins',
      'write:plugins',
      'publish:plugins',
      'write:settings',
    ].includes(permission),
);
