import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { AppError } from '../lib/errors.js';
import { requestOrigin } from '../modules/api-keys/index.js';

/**
 * CORS for the storefront routes (`/v1/store/*`), the only part of the API a browser at another
 * origin may call, with a publishable key. No other route sends an `Access-Control-*` header, so
 * browsers refuse every other cross-origin call.
 *
 * - A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) carries no key, so
 *   it is answered by the origin alone: `204` with the CORS headers when some publishable key
 *   that still works (of any store) lists that origin, else `403 origin_not_allowed` without them.
 *   It says nothing of any store: that an origin is listed somewhere is public anyway (the page
 *   there holds the key).
 * - The request itself is checked strictly, by its key (src/http/auth.ts): with a publishable
 *   key, the CORS headers when its own `allowed_origins` list the `Origin`, else
 *   `403 origin_not_allowed`; with a secret key, never any CORS header, so a browser never reads
 *   an answer to a secret key.
 */

/** The path prefix of the storefront routes. */
export const STORE_PREFIX = '/v1/store/';

/** The methods of the storefront routes. */
const ALLOW_METHODS = 'GET, POST, PATCH, DELETE';
/** The request headers a shop's page may send. */
const ALLOW_HEADERS =
  'Authorization, Content-Type, Idempotency-Key, If-None-Match, X-Customer-Token, X-Service-Version';
/** The response headers a shop's page may read. */
const EXPOSE_HEADERS = [
  'RateLimit',
  'RateLimit-Policy',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'X-Service-Version',
  'X-Request-Id',
  'ETag',
  'Idempotent-Replayed',
].join(', ');
/** How long a browser may keep a preflight's answer (seconds). */
const MAX_AGE_SECONDS = '600';

/** Whether `url` (a request's, query included) is a storefront path. */
export function isStorePath(url: string): boolean {
  return url.startsWith(STORE_PREFIX);
}

/**
 * Adds `names` to the answer's `Vary`. A storefront answer varies by `Origin` (its CORS headers),
 * and by `Authorization` too: a browser must not revalidate the answer it kept for a publishable
 * key (with its CORS headers) for a request with a secret key, whose `304` would hand the kept
 * answer to the page.
 */
export function vary(reply: FastifyReply, ...names: string[]): void {
  const current = reply.getHeader('vary');
  const listed =
    current === undefined
      ? []
      : String(current)
          .split(',')
          .map((name) => name.trim());
  const known = new Set(listed.map((name) => name.toLowerCase()));
  const added = names.filter((name) => !known.has(name.toLowerCase()));
  if (added.length > 0) reply.header('vary', [...listed, ...added].join(', '));
}

/** The CORS headers of an answer to `origin` (a storefront request it is allowed to make). */
export function allowOrigin(reply: FastifyReply, origin: string): void {
  reply.header('access-control-allow-origin', origin);
  reply.header('access-control-expose-headers', EXPOSE_HEADERS);
}

export function originNotAllowed(origin: string, byKey: boolean): AppError {
  return new AppError(
    'origin_not_allowed',
    byKey
      ? `The origin ${origin} is not among the allowed_origins of this publishable key.`
      : `The origin ${origin} is not among the allowed_origins of any publishable key.`,
  );
}

export interface StorefrontCorsDeps {
  /** Whether some publishable key that still works lists the origin (in normal form). */
  originAllowed(origin: string): boolean | Promise<boolean>;
  /** The `X-Service-Version` a preflight's answer names (it has no key, so the latest). */
  latestVersion: string;
}

/**
 * Answers the CORS preflights of `/v1/store/*` (an onRequest hook of every request, before any
 * route's gate: `OPTIONS` is no route's method). A request that is not a preflight goes on.
 */
export function installStorefrontCors(app: FastifyInstance, deps: StorefrontCorsDeps): void {
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (request.method !== 'OPTIONS' || !isStorePath(request.url)) {
      done();
      return;
    }
    const header = request.headers.origin;
    if (header === undefined || request.headers['access-control-request-method'] === undefined) {
      done();
      return;
    }
    reply.header('x-service-version', deps.latestVersion);
    vary(reply, 'Origin');
    const origin = requestOrigin(header);
    const answer = (allowed: boolean) => {
      if (origin === undefined || !allowed) {
        done(originNotAllowed(header.slice(0, 300), false));
        return;
      }
      allowOrigin(reply, origin);
      reply
        .header('access-control-allow-methods', ALLOW_METHODS)
        .header('access-control-allow-headers', ALLOW_HEADERS)
        .header('access-control-max-age', MAX_AGE_SECONDS)
        .code(204)
        .send();
    };
    if (origin === undefined) {
      answer(false);
      return;
    }
    const allowed = deps.originAllowed(origin);
    if (typeof allowed === 'boolean') answer(allowed);
    else allowed.then(answer, (error: unknown) => done(error as Error));
  });
}
