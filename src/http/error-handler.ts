import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  preHandlerHookHandler,
} from 'fastify';
import { type StoreUnavailableReason, storeUnavailable } from '../db/store.js';
import { AppError, isAppError } from '../lib/errors.js';
import { problemFor } from './problem.js';
import { validationProblem } from './validation.js';

/** Fastify's own error codes that a client caused, mapped onto the API's error codes. */
function fromFastifyError(error: FastifyError): AppError | undefined {
  if (error.validation) {
    return validationProblem(error.validation, error.validationContext);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(
        'unsupported_media_type',
        'Send request bodies as JSON with "Content-Type: application/json".',
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body is over the 1 MiB limit.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_json', 'The request body is not valid JSON.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('invalid_json', 'The request body is not valid JSON.');
    case 'FST_ERR_BAD_URL':
      return new AppError('validation_failed', 'The URL has a malformed percent-encoding.', {
        errors: [{ field: 'path', message: 'has a malformed percent-encoding' }],
      });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // No id is that long: the resource does not exist.
      return new AppError('not_found', 'No such resource: a path parameter is over 100 characters.');
    default:
      break;
  }
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return new AppError('invalid_json', 'The request body is not valid JSON.');
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError(error.statusCode === 404 ? 'not_found' : 'validation_failed', error.message);
  }
  return undefined;
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply
    .code(error.status)
    .type('application/problem+json')
    .serializer(JSON.stringify)
    .send(problemFor(error, request.id));
}

/** While the store is unreachable every request fails alike: one warning per this interval. */
const UNAVAILABLE_LOG_INTERVAL_MS = 10_000;

const UNAVAILABLE_DETAILS: Record<StoreUnavailableReason, string> = {
  unreachable: 'The database is unreachable; retry the request shortly.',
  refusing_connections: 'The database is refusing new connections; retry the request shortly.',
  lock_timeout:
    'A record this request needs is locked by another operation, and the wait timed out; retry the request shortly.',
  statement_timeout: 'The database took too long to answer and the request was cancelled; retry it shortly.',
  busy: 'No database connection came free in time; retry the request shortly.',
  tenant_busy: 'Too many requests of this account are waiting for the database; retry the request shortly.',
  no_answer: 'The database did not answer in time; retry the request shortly.',
};

/**
 * The answer while the store cannot serve a request (`storeUnavailable` says why): 503
 * service_unavailable with `Retry-After`, never a 500. A 5xx releases an Idempotency-Key, so the
 * retry may carry the same one.
 */
export function storeUnavailableProblem(reason: StoreUnavailableReason): AppError {
  return new AppError('service_unavailable', UNAVAILABLE_DETAILS[reason], {
    headers: { 'retry-after': '1' },
  });
}

export interface ErrorHandlerOptions {
  /** Runs before every problem is sent (e.g. to add a header a refused request still carries). */
  beforeProblem?: (request: FastifyRequest, reply: FastifyReply) => void;
}

/**
 * Fastify's `frameworkErrors`: what Fastify refuses before routing (a malformed percent-encoding,
 * a path parameter over 100 characters) answered as a problem like everything else, with the
 * headers `stamp` sets on every response.
 */
export function frameworkErrorHandler(stamp: (request: FastifyRequest, reply: FastifyReply) => void) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    stamp(request, reply);
    sendProblem(request, reply, fromFastifyError(error) ?? new AppError('not_found', 'No such resource.'));
  };
}

export function installErrorHandler(app: FastifyInstance, options: ErrorHandlerOptions = {}): void {
  let unavailableLoggedAt = -Infinity;
  let unavailableAnswers = 0;
  app.setErrorHandler((error: FastifyError, request, reply) => {
    options.beforeProblem?.(request, reply);
    const known = isAppError(error) ? error : fromFastifyError(error);
    if (known) return sendProblem(request, reply, known);
    const unavailable = storeUnavailable(error);
    if (unavailable) {
      // The database is down, refusing connections, or a lock wait or statement ran out of time:
      // a retry will do, the process stays up.
      unavailableAnswers++;
      const now = Date.now();
      if (now - unavailableLoggedAt >= UNAVAILABLE_LOG_INTERVAL_MS) {
        request.log.warn(
          {
            err: error,
            reqId: request.id,
            route: request.routeOptions.url,
            reason: unavailable,
            answered_503_since_last_warning: unavailableAnswers,
          },
          'store unavailable',
        );
        unavailableLoggedAt = now;
        unavailableAnswers = 0;
      }
      return sendProblem(request, reply, storeUnavailableProblem(unavailable));
    }
    request.log.error({ err: error, reqId: request.id, route: request.routeOptions.url }, 'unhandled error');
    return sendProblem(
      request,
      reply,
      new AppError(
        'internal_error',
        'Something went wrong on our side. Retry later; quote the request_id if it persists.',
      ),
    );
  });
}

/** Route patterns by method, so an unknown method on a known path answers 405, not 404. */
export interface RouteEntry {
  method: string;
  url: string;
  auth: string | undefined;
}

export class RouteTable {
  private readonly patterns: { method: string; regex: RegExp }[] = [];
  /** Every registered route with the auth it declares (the security test walks these). */
  readonly entries: RouteEntry[] = [];

  add(method: string | string[], url: string, auth?: string): void {
    for (const m of Array.isArray(method) ? method : [method]) this.entries.push({ method: m, url, auth });
    // Exactly the paths the router matches: one trailing slash or none (`ignoreTrailingSlash`),
    // and never an empty parameter, so `DELETE /v1/products/` is a 405 listing GET and POST while
    // `POST /v1/products//` is no route (404).
    const pattern = url
      .replace(/\/$/, '')
      .split('/')
      .map((segment) =>
        segment.startsWith(':')
          ? '[^/]+'
          : segment === '*'
            ? '.*'
            : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/');
    const regex = new RegExp(`^${pattern}/?$`);
    for (const m of Array.isArray(method) ? method : [method]) this.patterns.push({ method: m, regex });
  }

  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const { method, regex } of this.patterns) if (regex.test(path)) methods.add(method);
    return [...methods].sort();
  }
}

export interface NotFoundOptions {
  /** Run before the 404 or 405 is decided, in order (a refusal goes to the error handler). */
  preHandler?: preHandlerHookHandler | preHandlerHookHandler[];
}

/** The most characters of a request's path an unknown-path or wrong-method answer repeats. */
const PATH_SHOWN = 200;

export function installNotFoundHandler(
  app: FastifyInstance,
  routes: RouteTable,
  options: NotFoundOptions = {},
): void {
  app.setNotFoundHandler(options.preHandler ? { preHandler: options.preHandler } : {}, (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = routes.allowedMethods(path);
    // The path as the answer names it: a client's 16 KiB of path comes back as its start.
    const shown = path.length > PATH_SHOWN ? `${path.slice(0, PATH_SHOWN)}…` : path;
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendProblem(
        request,
        reply,
        new AppError(
          'method_not_allowed',
          `${request.method} is not allowed on ${shown}; use ${allowed.join(', ')}.`,
        ),
      );
    }
    return sendProblem(request, reply, noRoute(request));
  });
}

/**
 * The answer to a path no route serves: also to one that matched a route only with an empty
 * parameter (`GET /v1/products//`), which names nothing.
 */
export function noRoute(request: FastifyRequest): AppError {
  const path = request.url.split('?')[0] ?? '/';
  // The path as the answer names it: a client's 16 KiB of path comes back as its start.
  const shown = path.length > PATH_SHOWN ? `${path.slice(0, PATH_SHOWN)}…` : path;
  return new AppError('not_found', `No route ${request.method} ${shown}.`);
}
