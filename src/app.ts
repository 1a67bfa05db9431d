import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyContextConfig,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Deps } from './deps.js';
import { createGate, versionAnswered } from './http/auth.js';
import { meteringHook } from './http/rate-limit.js';
import {
  frameworkErrorHandler,
  installErrorHandler,
  installNotFoundHandler,
  RouteTable,
} from './http/error-handler.js';
import { AppError, ERROR_STATUS, MAX_FIELD_ERRORS } from './http/errors.js';
import { parseJsonBody } from './http/json-body.js';
import { AUTHENTICATED_ERRORS, COMMON_ERRORS, errorResponses, IDEMPOTENCY_ERRORS } from './http/schemas.js';
import { MAX_DEPTH, validatorCompiler } from './http/validation.js';
import { clientErrorHandler, guardConnections, openFileLimit } from './http/connections.js';
import { requestIdOf } from './http/request-id.js';
import { aiRoutes } from './modules/ai/ai.routes.js';
import { analyticsRoutes } from './modules/analytics/analytics.routes.js';
import { apiKeyRoutes } from './modules/api-keys/api-keys.routes.js';
import { consolePages } from './modules/console/console.pages.js';
import { consoleApiRoutes } from './modules/console/console.routes.js';
import { eventRoutes } from './modules/events/events.routes.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { orderRoutes } from './modules/orders/orders.routes.js';
import { pluginRoutes } from './modules/plugins/plugins.routes.js';
import { productRoutes } from './modules/products/products.routes.js';
import { usageRoutes } from './modules/usage/usage.routes.js';
import { userRoutes } from './modules/users/users.routes.js';
import { versionRoutes } from './modules/versions/versions.routes.js';
import { walletRoutes } from './modules/wallet/wallet.routes.js';
import { webhookRoutes } from './modules/webhooks/webhooks.routes.js';

/**
 * Builds the HTTP application (never listens). Request flow:
 * onRequest (request id, drain check; then the route's gate: API key, limits, permission, version)
 * -> body parse -> validation -> preHandler (idempotency) -> handler -> onSend (version transform,
 * idempotency record) -> onResponse (metering).
 */

export interface AppOptions {
  /** TLS material; omit for plain HTTP (`TLS=off`, or in-process tests). */
  https?: { key: string | Buffer; cert: string | Buffer } | undefined;
  /** Extra routes (tests register probes through this). */
  extraRoutes?: (app: FastifyInstance) => void | Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Set by graceful shutdown: new requests get 503 while in-flight ones finish. */
    draining: boolean;
    routeTable: RouteTable;
  }
}

export const BODY_LIMIT_BYTES = 1024 * 1024;
const HSTS = 'max-age=63072000; includeSubDomains';

const API_DESCRIPTION = `
Multi-tenant commerce platform API. Authenticate with \`Authorization: Bearer sk_live_...\`.

* **Errors** are RFC 9457 \`application/problem+json\` bodies with a stable \`code\`:
${Object.entries(ERROR_STATUS)
  .map(([code, status]) => `  <a id="error-${code}"></a>\`${status} ${code}\``)
  .join(',\n')}.
* **Request bodies** are JSON in UTF-8 (other bytes are \`400 invalid_json\`), at most 1 MiB, with objects and
  arrays nested at most ${MAX_DEPTH} levels. Text must be well-formed Unicode without NUL; names and other one-line
  fields hold no control characters, line or paragraph separators, bidirectional controls or U+FEFF, and longer text
  only line breaks and tabs among them. A \`400 validation_failed\` lists at most ${MAX_FIELD_ERRORS} failing fields in
  \`errors\`, with \`errors_truncated: true\` when there were more, or when a large body was refused at its first error.
* **Idempotency**: every POST accepts \`Idempotency-Key\` (1-255 printable ASCII); a repeat returns the stored
  response with \`Idempotent-Replayed: true\`; another request with the key is \`422 idempotency_key_reused\`; a
  concurrent one \`409 idempotency_key_in_use\`. Keys are kept 24 hours per tenant. A 5xx is not stored; a retry
  after one resumes what the first attempt committed (an order, a payment, a product, a transfer, a generation, an
  API key, a webhook endpoint) instead of doing it again. A secret is shown once: the replay of a response that created one
  (an API key, a webhook signing secret) shows the key masked and the signing secret not at all, and the secret is
  never kept in the idempotency store.
* **Versions**: send \`X-Service-Version: YYYY-MM-DD\` to choose a dated version, otherwise the tenant's pinned
  version is used. Every response carries the version used in \`X-Service-Version\`.
* **Money** is an integer of minor units with an ISO 4217 \`currency\`. Timestamps are RFC 3339 UTC.
* **Rate limits** are per tenant: an hourly limit and a monthly quota (free 1,000/10,000, pro 10,000/100,000,
  enterprise 100,000/10,000,000) and 60 AI requests per minute. Every authenticated response carries
  \`RateLimit-Policy\`, \`RateLimit\` and \`X-RateLimit-Limit/Remaining/Reset\` (the hourly window); over a limit
  the answer is \`429 rate_limited\` or \`429 quota_exceeded\` with \`Retry-After\` (seconds) and uses up no quota.
  A client address with 20 unknown, revoked or expired keys within the last minute gets \`429 rate_limited\` with
  \`Retry-After\` for any key the server has not seen valid, without the key being checked; keys it has seen valid
  keep working from that address.
* **Connections**: a request that does not arrive in time (by default its headers within 10 s, all of it within
  30 s) is answered \`408 request_timeout\`, headers over 16 KiB \`431 request_header_fields_too_large\`, and what
  HTTP/1.1 cannot parse \`400 validation_failed\` naming the part; a connection opened beyond the server's cap
  gets \`503 service_unavailable\` with \`Retry-After\`. These answers close the connection.
* **503 service_unavailable** comes with \`Retry-After\` (seconds): the server is shutting down, or the store is
  unreachable, refusing connections or busy (a lock wait or a statement past its timeout, too many of the tenant's
  requests waiting at once). Retry it; a POST retried with the same \`Idempotency-Key\` is never applied twice.
`.trim();

/** Fastify's default `requestIdLogLabel`: the binding of the child logger it asks for per request. */
const REQUEST_ID_LOG_LABEL = 'reqId';

export async function buildApp(deps: Deps, options: AppOptions = {}): Promise<FastifyInstance> {
  const { versions, idempotency, apiKeys } = deps;
  const tls = options.https !== undefined;
  const latest = versions.latest.version;
  const limits = deps.config.connections;
  // Node checks every second (or more often for shorter limits) which requests are late. A request
  // without a Host header reaches the onRequest hook below, which refuses it as a problem.
  const serverOptions = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, Math.ceil(limits.headersTimeoutMs / 4)),
    requireHostHeader: false,
  };
  /** Headers every response carries: its request id, and HSTS over TLS. */
  const stamp = (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-request-id', request.id);
    if (tls) reply.header('strict-transport-security', HSTS);
  };
  // Fastify's HTTPS and HTTP instances differ only in the raw server type, which nothing here uses.
  const app = Fastify({
    loggerInstance: deps.logger,
    // Per-request access lines are off: errors are logged by the error handler, usage is metered.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    requestIdHeader: false,
    genReqId: requestIdOf,
    frameworkErrors: frameworkErrorHandler((request, reply) => {
      stamp(request, reply);
      reply.header('x-service-version', latest);
    }),
    // A request must arrive in time, and a TLS handshake within the headers' time; what Node
    // refuses is answered as a problem (src/http/connections.ts).
    requestTimeout: limits.requestTimeoutMs,
    clientErrorHandler: clientErrorHandler(limits, {
      'x-service-version': latest,
      ...(tls ? { 'strict-transport-security': HSTS } : {}),
    }),
    ...(options.https
      ? { https: { ...options.https, ...serverOptions, handshakeTimeout: limits.headersTimeoutMs } }
      : { http: serverOptions }),
  }) as unknown as FastifyInstance;
  const connections = guardConnections(app.server, {
    max: limits.max,
    fileLimit: openFileLimit(),
    tls,
    logger: deps.logger,
  });

  // Fastify asks its logger for a child per request, to bind the request id. A pino child per
  // request is measurable on hot routes, and a custom `childLoggerFactory` is re-validated on every
  // request; error logs carry the request id themselves, so a request logs through the server's
  // logger. Other children (none today) are real ones.
  const serverLog = app.log;
  const childOf = serverLog.child.bind(serverLog);
  serverLog.child = (bindings, childOptions) =>
    REQUEST_ID_LOG_LABEL in bindings ? serverLog : childOf(bindings, childOptions);

  app.decorate('draining', false);
  app.decorate('routeTable', new RouteTable());
  app.decorateRequest('principal', null);
  app.decorateRequest('apiVersion', '');
  app.decorateRequest('idempotency', null);
  app.decorateRequest('limits', null);
  app.setValidatorCompiler(validatorCompiler);
  // The gate of each route: key, limits, permission and version (built per route in onRoute).
  const gateFor = createGate({
    apiKeys,
    versions,
    limiter: deps.limitsAndMetering ? deps.rateLimiter : undefined,
    asTenant: deps.store.asTenant,
  });
  installErrorHandler(app, {
    // A request refused before its gate answered (shutting down, a console session refused).
    beforeProblem: (request, reply) => {
      if (!reply.hasHeader('x-service-version'))
        reply.header('x-service-version', versionAnswered(request, latest));
    },
  });
  installNotFoundHandler(app, app.routeTable, { preHandler: gateFor({ auth: 'public' }) });

  // JSON only (text/plain and everything else is 415), in UTF-8; an empty body is no body.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    let value: unknown;
    try {
      value = parseJsonBody(body as Buffer);
    } catch (error) {
      done(error as Error, undefined);
      return;
    }
    done(null, value);
  });

  // Per-route hooks, attached only where they do something, keep GET routes off the hot path.
  const defaultBody = async (request: FastifyRequest) => {
    if (request.body === undefined) request.body = {};
  };
  // Per route, with the route's resource: `request.routeOptions` builds a new object per access.
  const renderVersion =
    (resource: string) => async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      if (
        typeof payload !== 'string' ||
        reply.statusCode >= 300 ||
        !versions.differs(resource, request.apiVersion)
      ) {
        return payload;
      }
      return JSON.stringify(versions.render(resource, JSON.parse(payload), request.apiVersion));
    };
  const recordIdempotent =
    (replayed: FastifyContextConfig['replayed']) =>
    async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      // The answer is decided: recording it must not wait behind the tenant's queued requests.
      await deps.store.outsideTenant(() => idempotency.finish(request, reply, payload, replayed));
      return payload;
    };

  // Usage metering, attached to each route that takes a key.
  const meterRoute = deps.limitsAndMetering ? meteringHook(deps.usageMeter, deps.clock) : undefined;

  app.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    app.routeTable.add(route.method, route.url, auth);
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const hooks = (existing: unknown): unknown[] =>
      existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
    // The route's own gate, so nothing about the route is looked up per request.
    route.onRequest = [gateFor(route.config), ...hooks(route.onRequest)] as typeof route.onRequest;
    if (methods.includes('POST') || methods.includes('PATCH')) {
      route.preValidation = [defaultBody, ...hooks(route.preValidation)] as typeof route.preValidation;
    }
    // onSend hooks run in order: render the version first, then record what is sent.
    const onSend: unknown[] = [];
    if (route.config?.resource !== undefined) onSend.push(renderVersion(route.config.resource));
    if (methods.includes('POST') && auth !== undefined && auth !== 'public') {
      route.preHandler = [idempotency.begin, ...hooks(route.preHandler)] as typeof route.preHandler;
      onSend.push(recordIdempotent(route.config?.replayed));
    }
    if (onSend.length > 0) route.onSend = [...hooks(route.onSend), ...onSend] as typeof route.onSend;
    if (meterRoute && auth !== undefined && auth !== 'public') {
      route.onResponse = [...hooks(route.onResponse), meterRoute(route.url)] as typeof route.onResponse;
    }
    if (route.url.startsWith('/v1') && auth === undefined) {
      throw new Error(`Route ${String(route.method)} ${route.url} declares no config.auth`);
    }
    // HEAD routes share their GET route's schema object: augment it once.
    if (!route.schema || route.schema.hide || route.method === 'HEAD') return;
    const authenticated = auth !== undefined && auth !== 'public';
    const statuses = authenticated
      ? [
          ...AUTHENTICATED_ERRORS.filter((s) => s !== 403 || auth !== 'any_key'),
          // Every authenticated POST takes an Idempotency-Key: 409 while in flight, 422 on reuse.
          ...(methods.includes('POST') ? IDEMPOTENCY_ERRORS : []),
        ]
      : COMMON_ERRORS;
    const response = (route.schema.response ?? {}) as Record<number, unknown>;
    for (const [status, schema] of Object.entries(errorResponses(...statuses)))
      response[Number(status)] ??= schema;
    route.schema.response = response;
    if (authenticated) {
      route.schema.security = [{ bearerAuth: [] }];
      const needs = auth === 'any_key' ? 'Any valid API key.' : `Requires the \`${auth}\` permission.`;
      route.schema.description = route.schema.description ? `${needs} ${route.schema.description}` : needs;
    }
  });

  // Every request: its id, HSTS, and a 503 while shutting down. A callback hook: no promise. A
  // connection over the cap, or a request Node would have refused, is refused here.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    stamp(request, reply);
    if (!app.draining) {
      done(connections.refusal(request.raw));
      return;
    }
    reply.header('connection', 'close');
    done(
      new AppError('service_unavailable', 'The server is shutting down; retry the request.', {
        headers: { 'retry-after': '1' },
      }),
    );
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Commerce Platform API',
        version: versions.latest.release,
        description: API_DESCRIPTION,
      },
      servers: [{ url: '/', description: 'This server' }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key: `sk_live_` and 40 characters.',
          },
        },
      },
      tags: [
        { name: 'Health' },
        { name: 'Users' },
        { name: 'API keys' },
        { name: 'Versions' },
        { name: 'Products', description: 'The catalog' },
        { name: 'Orders', description: 'Orders, their lifecycle and payments' },
        { name: 'Wallet', description: 'Balances, transactions and transfers on a double-entry ledger' },
        { name: 'Webhooks', description: 'Endpoints, signed deliveries and the delivery log' },
        { name: 'Plugins' },
        { name: 'AI', description: 'Product descriptions from the built-in writer or an AI model' },
        { name: 'Usage', description: 'Calls, errors, monthly quota and rate limits' },
        { name: 'Analytics', description: 'Revenue, orders, customers and products over time, and reports' },
      ],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, uiConfig: { deepLinking: true } });

  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  await typed.register(healthRoutes(deps));
  await typed.register(
    async (v1) => {
      v1.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () =>
        app.swagger(),
      );
      await v1.register(userRoutes(deps));
      await v1.register(apiKeyRoutes(deps));
      await v1.register(versionRoutes(deps));
      await v1.register(eventRoutes(deps));
      await v1.register(productRoutes(deps));
      await v1.register(orderRoutes(deps));
      await v1.register(walletRoutes(deps));
      await v1.register(webhookRoutes(deps));
      await v1.register(pluginRoutes(deps));
      await v1.register(aiRoutes(deps));
      await v1.register(usageRoutes(deps));
      await v1.register(analyticsRoutes(deps));
    },
    { prefix: '/v1' },
  );
  // The developer console: its session-authenticated backend and its pages (outside /v1).
  await typed.register(consoleApiRoutes(deps), { prefix: '/console/api' });
  await app.register(consolePages({ gate: gateFor({ auth: 'public' }) }));
  if (options.extraRoutes) await options.extraRoutes(app);
  await app.ready();
  return app;
}
