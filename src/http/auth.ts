import { isIP } from 'node:net';
import type { FastifyContextConfig, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Principal } from '../lib/principal.js';
import type { ApiKeyService } from '../modules/api-keys/index.js';
import type { VersionRegistry } from '../modules/versions/index.js';
import { AppError } from '../lib/errors.js';
import type { Permission } from '../kernel/vocabulary.js';
import { enforceDecision, enforceStorefrontDecision } from './rate-limit.js';
import type { LimitDecision, RateLimiter, StorefrontDecision } from '../modules/limits/index.js';
import { clientAddressKey } from './client-address.js';
import { allowOrigin, originNotAllowed, vary } from './cors.js';

/**
 * What a route requires, declared on the route itself (`config.auth`): a permission, any valid
 * key, or nothing at all. One hook enforces it; a test fails for a `/v1` route that declares none.
 */
export type RouteAuth = Permission | 'any_key' | 'public' | 'storefront';

/**
 * What a secret key needs to call a storefront route (`auth: 'storefront'`, every route under
 * `/v1/store/`): a server-rendered shop calls them with a key that may read the catalog.
 */
export const STOREFRONT_SECRET_PERMISSION: Permission = 'read:products';

/**
 * The shopper's address on a storefront route, which per-shopper limits count by: for a
 * publishable key the client's own (`request.ip`, read from X-Forwarded-For only behind a trusted
 * proxy); for a secret key (a server-rendered shop calling on a shopper's behalf) the address it
 * names in `X-Buyer-IP` when that is an IP address, else its own. Set by the gate of a storefront
 * route; elsewhere the client's address.
 */
export function buyerIpOf(request: FastifyRequest): string {
  return request.buyerIp || request.ip;
}

/** `X-Buyer-IP` when it is one IPv4 or IPv6 address. */
function namedBuyerIp(request: FastifyRequest): string | undefined {
  const header = request.headers['x-buyer-ip'];
  if (typeof header !== 'string') return undefined;
  const value = header.trim();
  return isIP(value) === 0 ? undefined : value;
}

/**
 * Whether a publishable key may be used from `origin`: one of its `allowed_origins`, or the API's
 * own origin (a page this server serves, such as its shop at `/shop/`, calls without CORS).
 */
function originPermitted(request: FastifyRequest, principal: Principal, origin: string): boolean {
  if (principal.key.allowedOrigins?.has(origin)) return true;
  return origin.toLowerCase() === `${request.protocol}://${request.host}`.toLowerCase();
}

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
  asTenant?: (<T>(tenantId: string, fn: () => T, ahead?: boolean) => T) | undefined;
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
 * the per-minute AI limit only for keys that hold the permission; on a storefront route, the
 * storefront's limits per buyer address, cart and completion instead), the permission
 * the route declares in `config.auth` (403; a publishable key passes only a storefront route's,
 * and only without an `Origin` or from one it allows: `publishable_key_not_allowed` and
 * `origin_not_allowed`), and the version the response is written in (a malformed
 * `X-Service-Version` is a 400). A storefront route also records the buyer's address (`buyerIpOf`)
 * and writes the CORS headers of a publishable key's call (src/http/cors.ts). `X-Service-Version` is set on every outcome: the version
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
    else if (asTenant && request.principal) {
      asTenant(request.principal.tenant.id, done, request.routeOptions.config.queue === 'ahead');
    } else done();
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
    const storefront = auth === 'storefront';
    const required: Permission | 'any_key' = storefront ? STOREFRONT_SECRET_PERMISSION : auth;
    const rateLimit = config?.rateLimit;
    const ai = rateLimit === 'ai';
    const cartLimit = rateLimit === 'cart' || rateLimit === 'checkout' ? rateLimit : undefined;
    if (storefront ? ai : cartLimit !== undefined) {
      throw new Error(
        `config.rateLimit '${rateLimit}' does not apply to a route with auth '${auth}': 'ai' is for the tenant's routes, 'cart' and 'checkout' for storefront routes`,
      );
    }

    /** A publishable key opens the storefront routes only; a secret key needs the permission. */
    function permitted(principal: Principal): boolean {
      if (principal.key.type === 'publishable') return storefront;
      return required === 'any_key' || principal.key.permissions.has(required);
    }

    function permit(request: FastifyRequest, principal: Principal): void {
      if (principal.key.type === 'publishable') {
        if (!storefront) {
          throw new AppError(
            'publishable_key_not_allowed',
            'A publishable key (pk_live_...) may call only the storefront routes (/v1/store/*); use a secret key here.',
          );
        }
        const origin = request.headers.origin;
        if (origin !== undefined && !originPermitted(request, principal, origin)) {
          throw originNotAllowed(origin.slice(0, 300), true);
        }
      } else if (!permitted(principal)) {
        throw new AppError('insufficient_permissions', `This API key lacks the ${required} permission.`, {
          extra: { required_permission: required },
        });
      }
      resolveVersion(request);
    }

    /**
     * On a storefront route: the shopper's address, and the CORS headers of a publishable key's
     * call from one of its origins (before the limits, so a browser can read a 429 too).
     */
    function storefrontCall(
      request: FastifyRequest,
      reply: FastifyReply,
      principal: Principal,
      address: string,
    ): void {
      const publishable = principal.key.type === 'publishable';
      request.buyerIp = (publishable ? undefined : namedBuyerIp(request)) ?? address;
      const origin = request.headers.origin;
      if (publishable && origin !== undefined && principal.key.allowedOrigins?.has(origin)) {
        allowOrigin(reply, origin);
      } else if (!publishable && origin !== undefined) {
        // A browser revalidates the answer it kept for a publishable key (with its CORS headers)
        // even for a secret key's request: a 304 would hand that answer to the page. A secret
        // key's answer to a browser is always in full, and without CORS headers.
        delete request.headers['if-none-match'];
      }
    }

    /**
     * A storefront call counts against the storefront's limits (per buyer address, and for a
     * route that says so per cart and per completion), never the tenant's hourly limit or quota.
     */
    function storefrontLimits(
      request: FastifyRequest,
      principal: Principal,
      limits: RateLimiter,
    ): StorefrontDecision | Promise<StorefrontDecision> {
      return limits.storefront(principal.tenant, {
        buyer: clientAddressKey(buyerIpOf(request)),
        route: cartLimit,
        cartId: cartLimit === undefined ? undefined : (request.params as { id?: string }).id,
      });
    }

    function enforce(
      request: FastifyRequest,
      reply: FastifyReply,
      decision: LimitDecision | StorefrontDecision,
    ): void {
      if ('shown' in decision) enforceStorefrontDecision(request, reply, decision);
      else enforceDecision(request, reply, decision);
    }

    /** `address`: the client's (`request.ip`) when already read; reading it parses X-Forwarded-For. */
    function limit(
      request: FastifyRequest,
      reply: FastifyReply,
      principal: Principal,
      address?: string,
    ): Promise<void> | undefined {
      request.principal = principal;
      if (storefront) storefrontCall(request, reply, principal, address ?? request.ip);
      if (!limiter) {
        permit(request, principal);
        return undefined;
      }
      // A key without the route's permission counts against the limits all the same (a 429 comes
      // before a 403), but does not spend the tenant's AI allowance on a call that will be refused.
      const decision = storefront
        ? storefrontLimits(request, principal, limiter)
        : limiter.check(principal.tenant, ai && permitted(principal));
      if (decision instanceof Promise) {
        return decision.then((decided) => {
          enforce(request, reply, decided);
          permit(request, principal);
        });
      }
      enforce(request, reply, decision);
      permit(request, principal);
      return undefined;
    }

    function admit(request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined {
      const header = request.headers.authorization;
      const session = header === undefined ? sessions?.(request) : undefined;
      if (session !== undefined) return session.then((authenticated) => limit(request, reply, authenticated));
      const address = request.ip;
      const principal = apiKeys.authenticate(header, address);
      if (principal instanceof Promise) {
        return principal.then((authenticated) => limit(request, reply, authenticated, address));
      }
      return limit(request, reply, principal, address);
    }

    if (storefront) {
      // What a storefront route answers differs by `Origin` and key (its CORS headers), refusals too.
      return function gate(request, reply, done) {
        vary(reply, 'Origin', 'Authorization');
        settle(request, reply, done, admit);
      };
    }
    return function gate(request, reply, done) {
      settle(request, reply, done, admit);
    };
  };
}
