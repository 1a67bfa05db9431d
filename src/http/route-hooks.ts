import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AnyManifest } from '../kernel/modules.js';
import type { Platform } from '../kernel/module.js';
import type { Idempotency } from './idempotency.js';
import type { ReadCache, RouteAnswerCache } from './read-cache.js';
import { type UsageMeter, meteringHook } from '../modules/usage/index.js';
import type { createGate } from './auth.js';
import { noRoute } from './error-handler.js';
import { conditionalGet, type OnSendDone } from './etag.js';
import { answersList, createOwnObjects, livemodeHook } from './livemode.js';
import { operationIdsOf } from './operation-ids.js';
import { AUTHENTICATED_ERRORS, COMMON_ERRORS, errorResponses, IDEMPOTENCY_ERRORS } from './schemas.js';

/**
 * The hooks each route gets as it is registered (onRoute), from what the route declares in
 * `config`: its gate and, where it has parameters, the refusal of an empty one (onRequest), an
 * empty body for a POST or PATCH without one (preValidation), idempotency (preHandler and onSend)
 * for an authenticated POST, its response rendered in the requested version (onSend) where
 * `config.resource` is set, the read cache where `config.cache` is set (preHandler and onSend,
 * read-cache.ts: the catalog's, or the route's own), an ETag on a GET's answer (onSend, etag.ts),
 * and usage metering (onResponse) when it takes a key. A hook is attached only where it does
 * something, which keeps GET routes off the hot path. The same pass adds the shared error
 * responses, the security requirement (none for a public route) and the permission line to the
 * route's OpenAPI schema, and refuses a /v1 route that declares no `config.auth`.
 */
export function installRouteHooks(
  app: FastifyInstance,
  deps: Pick<Platform, 'versions' | 'store' | 'clock'> & {
    modules: readonly AnyManifest[];
    idempotency: Idempotency;
    readCache: ReadCache;
    limitsAndMetering: boolean;
    usageMeter: UsageMeter;
  },
  gateFor: ReturnType<typeof createGate>,
): void {
  const { versions, idempotency, readCache } = deps;
  const operationIds = operationIdsOf(deps.modules);
  const defaultBody = async (request: FastifyRequest) => {
    if (request.body === undefined) request.body = {};
  };
  // Per route, with the route's resource: `request.routeOptions` builds a new object per access.
  // A callback hook: no promise per response, most of which need no transform.
  const renderVersion =
    (resource: string, list: boolean, cache: RouteAnswerCache | undefined) =>
    (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: OnSendDone): void => {
      if (
        typeof payload !== 'string' ||
        reply.statusCode >= 300 ||
        !versions.differs(resource, request.apiVersion) ||
        cache?.answered(request) === true
      ) {
        done(null, payload);
        return;
      }
      let rendered: string;
      try {
        const body = JSON.parse(payload) as { data: unknown[] };
        if (!list) rendered = JSON.stringify(versions.render(resource, body, request.apiVersion));
        else {
          const data = body.data.map((item) => versions.render(resource, item, request.apiVersion));
          rendered = JSON.stringify({ ...body, data });
        }
      } catch (error) {
        done(error as Error);
        return;
      }
      done(null, rendered);
    };
  const recordIdempotent =
    (replayed: FastifyContextConfig['replayed']) =>
    async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      // The answer is decided: recording it must not wait behind the tenant's queued requests.
      await deps.store.outsideTenant(() => idempotency.finish(request, reply, payload, replayed));
      return payload;
    };

  // The router takes `/v1/products//` for `/v1/products/:id` with an empty id (one trailing
  // slash is ignored, the other leaves the parameter empty): no route, as for any unknown path.
  // A callback hook: no promise on the routes that have parameters.
  const refuseEmptyParams = (
    request: FastifyRequest,
    _reply: FastifyReply,
    done: (error?: Error) => void,
  ) => {
    const params = request.params as Record<string, string>;
    for (const name in params) {
      if (params[name] === '') {
        done(noRoute(request));
        return;
      }
    }
    done();
  };

  // Usage metering, attached to each route that takes a key.
  const meterRoute = deps.limitsAndMetering ? meteringHook(deps.usageMeter, deps.clock) : undefined;

  // What keyed routes answer, so the same object nested in another answer carries `livemode` too.
  const ownObjects = createOwnObjects();
  app.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    app.routeTable.add(route.method, route.url, auth);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const hooks = (existing: unknown): unknown[] =>
      existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
    // The route's own gate, so nothing about the route is looked up per request; then, on a
    // route with parameters, the refusal of an empty one.
    route.onRequest = [
      gateFor(route.config),
      ...(route.url.includes(':') ? [refuseEmptyParams] : []),
      ...hooks(route.onRequest),
    ] as typeof route.onRequest;
    if (methods.includes('POST') || methods.includes('PATCH')) {
      route.preValidation = [defaultBody, ...hooks(route.preValidation)] as typeof route.preValidation;
    }
    // onSend hooks run in order: render the version first, then keep or record what is sent.
    const onSend: unknown[] = [];
    const cache = route.config?.cache === 'catalog' ? readCache : route.config?.cache;
    // `livemode` on its objects in the latest shape, then the version's rendering.
    if (auth !== undefined && auth !== 'public') {
      const list = answersList(route.config?.list, route.schema?.response);
      const response = route.schema?.response;
      ownObjects.add(response, list);
      onSend.push(livemodeHook(list, () => ownObjects.nestedIn(response, list)));
    }
    if (route.config?.resource !== undefined)
      onSend.push(renderVersion(route.config.resource, route.config.list === true, cache));
    if (cache?.beforeValidation === true) {
      route.preValidation = [...hooks(route.preValidation), cache.lookup] as typeof route.preValidation;
    } else if (cache !== undefined) {
      route.preHandler = [...hooks(route.preHandler), cache.lookup] as typeof route.preHandler;
    }
    if (cache !== undefined) onSend.push(cache.keep);
    if (methods.includes('POST') && auth !== undefined && auth !== 'public') {
      route.preHandler = [idempotency.begin, ...hooks(route.preHandler)] as typeof route.preHandler;
      onSend.push(recordIdempotent(route.config?.replayed));
    }
    // Last, on the bytes as sent: the ETag, and a 304 for a client that holds them.
    if ((methods.includes('GET') || methods.includes('HEAD')) && route.url.startsWith('/v1')) {
      onSend.push(conditionalGet);
    }
    if (onSend.length > 0) route.onSend = [...hooks(route.onSend), ...onSend] as typeof route.onSend;
    if (meterRoute && auth !== undefined && auth !== 'public') {
      route.onResponse = [...hooks(route.onResponse), meterRoute(route.url)] as typeof route.onResponse;
    }
    if (route.url.startsWith('/v1') && auth === undefined) {
      throw new Error(`Route ${String(route.method)} ${route.url} declares no config.auth`);
    }
    // Publishable keys and CORS are for the storefront routes, which all live under /v1/store/.
    if ((auth === 'storefront') !== route.url.startsWith('/v1/store/')) {
      throw new Error(
        `Route ${String(route.method)} ${route.url}: auth 'storefront' is for /v1/store/* only, and every /v1/store/* route declares it`,
      );
    }
    // HEAD routes share their GET route's schema object: augment it once.
    if (!route.schema || route.schema.hide || route.method === 'HEAD') return;
    const operation = `${String(route.method)} ${route.url}`;
    const operationId = operationIds.get(operation);
    if (operationId === undefined)
      throw new Error(`Route ${operation} has no operationId in its module's manifest`);
    route.schema.operationId = operationId;
    const authenticated = auth !== undefined && auth !== 'public';
    const statuses = authenticated
      ? [
          // 403 on every route that takes a key: a publishable key is refused off the storefront.
          ...AUTHENTICATED_ERRORS,
          // Every authenticated POST takes an Idempotency-Key: 409 while in flight, 422 on reuse.
          ...(methods.includes('POST') ? IDEMPOTENCY_ERRORS : []),
        ]
      : COMMON_ERRORS;
    const response = (route.schema.response ?? {}) as Record<number, unknown>;
    for (const [status, schema] of Object.entries(errorResponses(...statuses)))
      response[Number(status)] ??= schema;
    route.schema.response = response;
    // A route without a key says so (no security requirement), rather than saying nothing.
    route.schema.security = authenticated ? [{ bearerAuth: [] }] : [];
    if (authenticated) {
      const needs =
        auth === 'any_key'
          ? 'Any valid secret key.'
          : auth === 'storefront'
            ? 'A storefront route: a publishable key, or a secret key with `read:products`.'
            : `Requires the \`${auth}\` permission.`;
      route.schema.description = route.schema.description ? `${needs} ${route.schema.description}` : needs;
    }
  });
}
