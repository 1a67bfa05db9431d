import { iso } from '../../lib/clock.js';
import { AppError, validationError } from '../../lib/errors.js';
import type { Permission } from '../../kernel/vocabulary.js';
import type { KeyType, Principal } from '../../lib/principal.js';
import { allowedOrigins } from './api-keys.origins.js';
import type { CreateKeyInput } from './api-keys.service.js';

/**
 * What a key may ask for and do to other keys: the checked spec of a new key, and the rules that
 * keep a key from making, rolling or revoking one more powerful than itself.
 */

/** The key a `POST /api-keys` body asks for, checked: a 400 names the member that does not fit. */
export function keySpec(input: CreateKeyInput): {
  type: KeyType;
  permissions: Permission[];
  allowedOrigins: string[];
} {
  if (input.type === 'publishable') {
    if (input.permissions !== undefined) {
      throw validationError(
        'permissions',
        'must be absent for a publishable key: it holds no permission and may call only /v1/store/*',
      );
    }
    if (input.allowed_origins === undefined) {
      throw validationError(
        'allowed_origins',
        'is required for a publishable key: the browser origins it answers ([] for none)',
      );
    }
    return { type: 'publishable', permissions: [], allowedOrigins: allowedOrigins(input.allowed_origins) };
  }
  if (input.allowed_origins !== undefined) {
    throw validationError('allowed_origins', 'is only for a publishable key (type "publishable")');
  }
  if (input.permissions === undefined) {
    throw validationError('permissions', 'is required for a secret key');
  }
  return { type: 'secret', permissions: input.permissions, allowedOrigins: [] };
}

/**
 * What a key does to another key: it can only do it to a key no more powerful than itself, one
 * whose every permission it holds and that does not outlive it. A key always passes for itself.
 */
export type KeyAction = 'grant' | 'roll' | 'revoke';

/**
 * An installation token never acts on keys, whatever it holds (a plugin cannot be granted the key
 * permissions either): a plugin must not mint, roll, revoke or read the store's keys.
 */
export function refuseApp(principal: Principal): void {
  if (principal.app) {
    throw new AppError(
      'insufficient_permissions',
      'A plugin installation token cannot read, create, roll or revoke API keys.',
      { extra: { required_permission: 'write:keys' } },
    );
  }
}

/** Refuses a key with a permission the caller does not hold itself (naming the first missing one). */
export function assertHolds(
  principal: Principal,
  permissions: readonly Permission[],
  action: KeyAction,
): void {
  const missing = permissions.find((permission) => !principal.key.permissions.has(permission));
  if (missing) {
    const detail =
      action === 'grant'
        ? `This key cannot grant ${missing}, which it does not hold.`
        : `This key cannot ${action} a key with ${missing}, which it does not hold.`;
    throw new AppError('insufficient_permissions', detail, { extra: { required_permission: missing } });
  }
}

/**
 * A key that expires cannot make a key that outlives it (by creating or rolling one), nor revoke
 * one: that would be a more powerful key, as much as one with more permissions.
 */
export function assertOutlivedBy(principal: Principal, expiresAt: number | null, action: KeyAction): void {
  const own = principal.key.expiresAt;
  if (own !== null && (expiresAt === null || expiresAt > own)) {
    const what = action === 'revoke' ? 'revoke' : 'make';
    throw new AppError(
      'insufficient_permissions',
      `This key expires at ${iso(own)}; it cannot ${what} a key that outlives it.`,
    );
  }
}
