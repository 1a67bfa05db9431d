import type { FastifyRequest } from 'fastify';
import type { Principal } from '../lib/principal.js';
import type { ApiKeyService } from '../modules/api-keys/api-keys.service.js';
import { AppError } from './errors.js';
import type { RouteAuth } from './permissions.js';

/** The principal of an authenticated route; the auth hook guarantees it is set. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal)
    throw new Error(`route ${request.routeOptions.url} read a principal it did not require`);
  return request.principal;
}

/**
 * onRequest: authenticates and checks the permission the route declares in `config.auth` (the
 * caller passes it in, having read the route's config once).
 * It runs before the body is read, so an unauthenticated caller learns nothing from validation.
 */
export function createAuthHook(apiKeys: ApiKeyService) {
  return async function authenticate(
    request: FastifyRequest,
    required: RouteAuth | undefined,
  ): Promise<void> {
    if (required === undefined || required === 'public') return;
    const principal = await apiKeys.authenticate(request.headers.authorization);
    request.principal = principal;
    if (required !== 'any_key' && !principal.key.permissions.has(required)) {
      throw new AppError('insufficient_permissions', `This API key lacks the ${required} permission.`, {
        extra: { required_permission: required },
      });
    }
  };
}
