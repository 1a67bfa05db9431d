import type { FastifyContextConfig, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Principal } from '../lib/principal.js';
import type { ApiKeyService } from '../modules/api-keys/index.js';
import type { VersionRegistry } from '../modules/versions/index.js';
import { AppError } from '../lib/errors.js';
import type { Permission } from '../kernel/vocabulary.js';
import { enforceDecision } from './rate-limit.js';
import type { RateLimiter } from '../modules/limits/index.js';

/**
 * What a route requires, declared on the route itself (`config.auth`): a permission, any valid
 * key, or nothing at all. One hook enforces it; a test fails for a `/v1` route that declares none.
 */
export type RouteAuth = Permission | 'any_key' | 'public';

/** The principal of an authenticated route; the gate guarantees it is set. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal)
    throw new Error(`route ${request.routeOptions.url} read a principal it did not require`);
  return request.principal;
}

/** A request hook: onRequest on routes, preHandler on the not-found route. */
export type Gate = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/**
 * The `X-Service-Version` of a response: the version used, or when the request was refused before
 * one was resolved, the key's pinned version (the latest without a key).
 */
export function versionAnswered(request: FastifyRequest, latest: string): string {
  return request.apiVersion || (request.principal?.tenant.api_version ?? latest);
}

export interface GateDeps {
  apiKeys: ApiKeyService;
  versions: VersionRegistry;
  /** Absent when limits and metering are off. */
  limiter: RateLimiter | undefined;
  /** The store's `asTenant`: the rest of an admitted request runs as its tenant's (PostgreSQL). */
  asTenant?: (<T>(tenantId: string, fn: () => T) => T) | undefined;
  /** The developer console's sessions, tried for a request without `Authorization`. */
  sessions?: SessionAuthenticator | undefined;
}

/**
 * Authenticates a request by a console session: undefined when it presents none (no session
 * cookie, or no CSRF token beside it: a cookie alone never authenticates), else its principal, or
 * a rejection with the refusal (401 for a session that ended, 403 for a wrong token).
 */
export type SessionAuthenticator = (request: FastifyRequest) => Promise<Principal> | undefined;

/**
 * The request gate of a route, built once from what the route declares and run in its onRequest,
 * before the body is read, so an unauthenticated caller learns nothing from validation. In order:
 * the API key (401; 429 for a key not seen valid, from an address that keeps presenting unknown
 * ones: see `ApiKeyService.authenticate`) or, without `Authorization`, a console session with its
 * CSRF token (`sessions`: the session's user with every permission, limited and metered as a key
 * of its tenant), the tenant's rate limits and quota (429; any valid key
 * is limited and counted, also one without the route's permission, so a 429 comes before a 403;
 * the per-minute AI limit only for keys that hold the permission), the permission
 * the route declares in `config.auth` (403), and the version the response is written in (a
 * malformed `X-Service-Version` is a 400). `X-Service-Version` is set on every outcome: the version
 * used, or for a refusal the key's pinned version (the latest without a key). An admitted request
 * goes on as its tenant's (`asTenant`), so the store holds it to the tenant's share of connections.
 *
 * It calls back rather than returning a promise, and runs synchronously when the key is trusted
 * from memory and the counters are this process's, as they are for nearly every request: no
 * promise and no microtask on the hot path. Otherwise it goes on when the store or Redis answers.
 */
export function createGate({ apiKeys, versions, limiter, asTenant, sessions }: GateDeps) {
  const latest = versions.latest.version;

  function resolveVersion(request: FastifyRequest): void {
    const requested = request.headers['x-service-version'];
    request.apiVersion =
      typeof requested === 'string'
        ? versions.resolve(requested)
        : (request.principal?.tenant.api_version ?? latest);
  }

  function answer(
    request: FastifyRequest,
    reply: FastifyReply,
    done: HookHandlerDoneFunction,
    error?: unknown,
  ): void {
    reply.header('x-service-version', versionAnswered(request, latest));
    if (error !== undefined) done(error as Error);
    else if (asTenant && request.principal) asTenant(request.principal.tenant.id, done);
    else done();
  }

  /** Runs a step that finishes now (undefined) or later (a promise), then answers. */
  function settle(
    request: FastifyRequest,
    reply: FastifyReply,
    done: HookHandlerDoneFunction,
    step: (request: FastifyRequest, reply: FastifyReply) => Promise<void> | undefined,
  ): void {
    let rest: Promise<void> | undefined;
    try {
      rest = step(request, reply);
    } catch (error) {
      answer(request, reply, done, error);
      return;
    }
    if (rest === undefined) answer(request, reply, done);
    else
      rest.then(
        () => answer(request, reply, done),
        (error: unknown) => answer(request, reply, done, error),
      );
  }

  /**
   * Routes without a key (health checks, the docs, the OpenAPI document, the console, unknown
   * paths) answer in the version asked for when it resolves, else in the latest: a malformed or
   * retired version is not theirs to refuse, and a probe or a 404 must not turn into a 400.
   */
  function versionOnly(request: FastifyRequest): undefined {
    try {
      resolveVersion(request);
    } catch {
      request.apiVersion = latest;
    }
    return undefined;
  }

  /** The gate of a route declaring `auth` (undefined or `public`: the version only). */
  return function gateFor(config: Pick<FastifyContextConfig, 'auth' | 'rateLimit'> | undefined): Gate {
    const auth = config?.auth;
    if (auth === undefined || auth === 'public') {
      return function gate(request, reply, done) {
        settle(request, reply, done, versionOnly);
      };
    }
    const required: Permission | 'any_key' = auth;
    const ai = config?.rateLimit === 'ai';

    function permitted(principal: Principal): boolean {
      return required === 'any_key' || principal.key.permissions.has(required);
    }

    function permit(request: FastifyRequest, principal: Principal): void {
      if (!permitted(principal)) {
        throw new AppError('insufficient_permissions', `This API key lacks the ${required} permission.`, {
          extra: { required_permission: required },
        });
      }
      resolveVersion(request);
    }

    function limit(
      request: FastifyRequest,
      reply: FastifyReply,
      principal: Principal,
    ): Promise<void> | undefined {
      request.principal = principal;
      if (!limiter) {
        permit(request, principal);
        return undefined;
      }
      // A key without the route's permission counts against the hour and the month, but does not
      // spend the tenant's AI allowance on a call that will be refused.
      const decision = limiter.check(principal.tenant, ai && permitted(principal));
      if (decision instanceof Promise) {
        return decision.then((decided) => {
          enforceDecision(request, reply, decided);
          permit(request, principal);
        });
      }
      enforceDecision(request, reply, decision);
      permit(request, principal);
      return undefined;
    }

    function admit(request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined {
      const header = request.headers.authorization;
      const session = header === undefined ? sessions?.(request) : undefined;
      if (session !== undefined) return session.then((authenticated) => limit(request, reply, authenticated));
      const principal = apiKeys.authenticate(header, request.ip);
      if (principal instanceof Promise) {
        return principal.then((authenticated) => limit(request, reply, authenticated));
      }
      return limit(request, reply, principal);
    }

    return function gate(request, reply, done) {
      settle(request, reply, done, admit);
    };
  };
}
