import type { Server as HttpsServer } from 'node:https';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Deps } from './deps.js';
import { createGate, versionAnswered } from './http/auth.js';
import { installStorefrontCors } from './http/cors.js';
import {
  frameworkErrorHandler,
  installErrorHandler,
  installNotFoundHandler,
  RouteTable,
} from './http/error-handler.js';
import { AppError } from './lib/errors.js';
import { installJsonBodyParser } from './http/json-body.js';
import { registerOpenApi } from './http/openapi.js';
import { installRouteHooks } from './http/route-hooks.js';
import { sharedSerializers } from './http/compiled-schemas.js';
import { validatorCompiler } from './http/validation.js';
import { clientErrorHandler, guardConnections, openFileLimit } from './http/connections.js';
import { answerPlainHttp } from './http/plain-http.js';
import { requestIdOf } from './http/request-id.js';
import { consoleSessions } from './modules/console/index.js';

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

/** Fastify's default `requestIdLogLabel`: the binding of the child logger it asks for per request. */
const REQUEST_ID_LOG_LABEL = 'reqId';

export async function buildApp(deps: Deps, options: AppOptions = {}): Promise<FastifyInstance> {
  const { versions, apiKeys } = deps;
  const tls = options.https !== undefined;
  const latest = versions.latest.version;
  const limits = deps.config.connections;
  // How long and how much a connection closing after a refused body still reads (connections.ts).
  const linger = { timeoutMs: limits.lingerTimeoutMs, maxBytes: limits.lingerMaxBytes };
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
    schemaController: sharedSerializers,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    requestIdHeader: false,
    genReqId: requestIdOf,
    // `/v1/products/` is `/v1/products`: a route answers with or without one trailing slash. A
    // parameter left empty by it (`/v1/products//`) is no route (src/http/route-hooks.ts).
    // A product's handle may be 255 characters (`/v1/store/products/{handle}`); the default is 100.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 255 },
    // `request.ip` is the client's address, read from X-Forwarded-For only behind a named proxy.
    trustProxy: deps.config.trustProxy === false ? false : [...deps.config.trustProxy],
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
  // Plain HTTP on the HTTPS port is answered with the https:// address, not an empty reply.
  if (tls) {
    answerPlainHttp(app.server as unknown as HttpsServer, {
      handshakeTimeoutMs: limits.headersTimeoutMs,
      logger: deps.logger,
      linger,
    });
  }
  const connections = guardConnections(app.server, {
    max: limits.max,
    fileLimit: openFileLimit(),
    tls,
    logger: deps.logger,
    linger,
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
  app.decorateRequest('buyerIp', '');
  app.setValidatorCompiler(validatorCompiler);
  // The gate of each route: key, limits, permission and version (attached by installRouteHooks).
  const gateFor = createGate({
    apiKeys,
    versions,
    limiter: deps.limitsAndMetering ? deps.rateLimiter : undefined,
    asTenant: deps.store.asTenant,
    sessions: consoleSessions(deps.consoleAccounts),
  });
  installErrorHandler(app, {
    // A request refused before its gate answered (shutting down, a console session refused).
    beforeProblem: (request, reply) => {
      if (!reply.hasHeader('x-service-version'))
        reply.header('x-service-version', versionAnswered(request, latest));
    },
  });
  installNotFoundHandler(app, app.routeTable, { preHandler: gateFor({ auth: 'public' }) });

  // Bodies: JSON only, in UTF-8 (src/http/json-body.ts).
  installJsonBodyParser(app);

  // Per route, from its config: gate, idempotency, version rendering, metering, OpenAPI errors.
  installRouteHooks(app, deps, gateFor);
  // The modules' app-wide request hooks (the audit context, the request log), before any route.
  for (const module of deps.modules) module.hooks?.(deps, app);

  // `Expect: 100-continue` is answered by a route that takes a body once it is about to read it
  // (after the route's own checks), and not when the declared length is over the route's limit
  // (src/http/connections.ts).
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((method) => method === 'GET' || method === 'HEAD')) return;
    const own = route.preParsing === undefined ? [] : [route.preParsing].flat();
    route.preParsing = [...own, connections.continueBody(route.bodyLimit ?? BODY_LIMIT_BYTES)];
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
  // CORS preflights of the storefront routes, answered by their origin (src/http/cors.ts).
  installStorefrontCors(app, {
    originAllowed: (origin) => apiKeys.originAllowed(origin),
    latestVersion: latest,
  });

  await registerOpenApi(app, {
    release: versions.latest.release,
    modules: deps.modules,
    vocabulary: deps.vocabulary,
  });

  // Each module's routes, in the modules' order; `/v1` unless the module says otherwise.
  const http = { gateFor };
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  await typed.register(
    async (v1) => {
      v1.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () =>
        app.swagger(),
      );
    },
    { prefix: '/v1' },
  );
  for (const module of deps.modules) {
    for (const routes of module.routes ?? []) {
      await typed.register(routes.plugin(deps, http), { prefix: routes.prefix ?? '/v1' });
    }
  }
  if (options.extraRoutes) await options.extraRoutes(app);
  await app.ready();
  for (const module of deps.modules) module.ready?.(deps, app);
  return app;
}
