import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { AppError } from '../../http/errors.js';
import { EnvelopeSchema } from '../../http/pagination.js';
import { BODY_ERRORS, EmptyBody, errorResponses } from '../../http/schemas.js';
import {
  ApiKeyListSchema,
  ApiKeySchema,
  CreateApiKeyBody,
  KeyIdParams,
  RollApiKeyBody,
} from '../api-keys/api-keys.schemas.js';
import { EventSchema } from '../events/events.routes.js';
import {
  PluginListQuery,
  PluginParams,
  PluginSchema,
  RatingBody,
  RatingSchema,
} from '../plugins/plugins.schemas.js';
import { UsageQuery, UsageSchema } from '../usage/usage.schemas.js';
import {
  CreateWebhookBody,
  DeliveryListQuery,
  DeliveryParams,
  DeliverySchema,
  UpdateWebhookBody,
  WebhookListQuery,
  WebhookParams,
  WebhookSchema,
} from '../webhooks/webhooks.schemas.js';
import {
  AccountSchema,
  ConsoleVersionsSchema,
  EventParams,
  EventQuery,
  LoginBody,
  SignupBody,
  SignupResultSchema,
  UpgradeBody,
  UpgradeResultSchema,
} from './console.schemas.js';
import type { ConsoleSession, StartedSession } from './console.service.js';

/**
 * The console's backend under `/console/api`. It is not part of the public API: the routes are
 * hidden from the OpenAPI document, and they authenticate with the session cookie instead of an
 * API key (the `/v1` auth hook reads only `Authorization`, so the cookie never works there).
 *
 * Every route needs a session unless it declares `config.console: 'anonymous'` (sign-up, login).
 * Every state-changing route also needs the session's CSRF token in `X-CSRF-Token`, and every
 * state-changing request must come from the console's own origin (`Origin`, `Sec-Fetch-Site`).
 */

export const SESSION_COOKIE = '__Host-cp_session';
const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Console routes: `anonymous` for the routes that work without a session. */
    console?: 'anonymous' | 'session';
  }
  interface FastifyRequest {
    consoleSession: ConsoleSession | null;
  }
}

function sessionIdOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  return header === undefined ? undefined : parseCookie(header)[SESSION_COOKIE];
}

function sessionOf(request: FastifyRequest): ConsoleSession {
  if (!request.consoleSession)
    throw new Error(`route ${request.routeOptions.url} read a session it did not require`);
  return request.consoleSession;
}

/** `__Host-`: Secure, Path=/ and no Domain, so only this exact origin ever receives it. */
function setSessionCookie(reply: FastifyReply, session: StartedSession, now: number): void {
  reply.header(
    'set-cookie',
    stringifySetCookie(SESSION_COOKIE, session.id, {
      path: '/',
      secure: true,
      httpOnly: true,
      sameSite: 'lax',
      maxAge: Math.floor((session.expiresAt - now) / 1000),
    }),
  );
}

function clearSessionCookie(reply: FastifyReply): void {
  reply.header(
    'set-cookie',
    stringifySetCookie(SESSION_COOKIE, '', {
      path: '/',
      secure: true,
      httpOnly: true,
      sameSite: 'lax',
      maxAge: 0,
    }),
  );
}

/**
 * A state-changing request must come from this origin. Browsers send `Origin` on every POST,
 * PATCH and DELETE and `Sec-Fetch-Site` on every request; clients that send neither (curl) are
 * left to the CSRF token and the JSON-only bodies.
 */
function refuseCrossSite(request: FastifyRequest): void {
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  let sameOrigin = site === undefined || site === 'same-origin' || site === 'none';
  if (sameOrigin && origin !== undefined) {
    try {
      // Through URL on both sides, so a default port written out (`:443`) still matches.
      sameOrigin = new URL(origin).host === new URL(`${request.protocol}://${request.host}`).host;
    } catch {
      sameOrigin = false;
    }
  }
  if (!sameOrigin) {
    throw new AppError('insufficient_permissions', 'Console requests must come from the console itself.');
  }
}

const HIDDEN = { hide: true } as const;
const SESSION_ERRORS = errorResponses(401, 403);
const WRITE_ERRORS = errorResponses(...BODY_ERRORS, 401, 403, 404, 409, 422);

export function consoleApiRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  const { consoleAccounts: accounts, apiKeys, webhooks, events, plugins, usage, clock } = deps;
  return async (app) => {
    app.decorateRequest('consoleSession', null);

    app.addHook('onRequest', async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const unsafe = !SAFE_METHODS.has(request.method);
      if (unsafe) refuseCrossSite(request);
      if (request.routeOptions.config.console === 'anonymous') return;
      const session = await accounts.authenticate(sessionIdOf(request));
      if (unsafe) {
        const token = request.headers[CSRF_HEADER];
        accounts.checkCsrf(session, typeof token === 'string' ? token : undefined);
      }
      request.consoleSession = session;
    });

    // Accounts ---------------------------------------------------------------------------------

    app.post(
      '/signup',
      {
        config: { auth: 'public', console: 'anonymous' },
        schema: {
          hide: true,
          summary: 'Create a store (tenant) and its owner, and log in',
          body: SignupBody,
          response: { 201: SignupResultSchema, ...errorResponses(...BODY_ERRORS, 403, 429) },
        },
      },
      async (request, reply) => {
        const started = await accounts.signup(request.body, request.ip, sessionIdOf(request));
        setSessionCookie(reply, started, clock.now());
        reply.code(201);
        return { ...started.view, api_key: started.apiKey };
      },
    );

    app.post(
      '/login',
      {
        config: { auth: 'public', console: 'anonymous' },
        schema: {
          hide: true,
          summary: 'Log in; always starts a new session id',
          body: LoginBody,
          response: { 200: AccountSchema, ...errorResponses(...BODY_ERRORS, 401, 403, 429) },
        },
      },
      async (request, reply) => {
        const started = await accounts.login(request.body, request.ip, sessionIdOf(request));
        setSessionCookie(reply, started, clock.now());
        return started.view;
      },
    );

    app.post(
      '/logout',
      {
        config: { auth: 'public' },
        schema: { hide: true, summary: 'End the session', response: { 204: Type.Null(), ...SESSION_ERRORS } },
      },
      async (request, reply) => {
        await accounts.logout(sessionOf(request));
        clearSessionCookie(reply);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/session',
      {
        config: { auth: 'public' },
        schema: {
          hide: true,
          summary: 'The logged-in user, tenant and the CSRF token',
          response: { 200: AccountSchema, ...SESSION_ERRORS },
        },
      },
      async (request) => accounts.view(sessionOf(request)),
    );

    // Versions ---------------------------------------------------------------------------------

    app.get(
      '/versions',
      {
        config: { auth: 'public' },
        schema: { hide: true, response: { 200: ConsoleVersionsSchema, ...SESSION_ERRORS } },
      },
      async (request) => accounts.versions(sessionOf(request)),
    );

    app.post(
      '/versions/upgrade',
      {
        config: { auth: 'public' },
        schema: { hide: true, body: UpgradeBody, response: { 200: UpgradeResultSchema, ...WRITE_ERRORS } },
      },
      async (request) => accounts.upgradeVersion(sessionOf(request), request.body.version),
    );

    // Usage ------------------------------------------------------------------------------------

    app.get(
      '/usage',
      {
        config: { auth: 'public' },
        schema: { hide: true, querystring: UsageQuery, response: { 200: UsageSchema, ...SESSION_ERRORS } },
      },
      async (request) =>
        usage.summary(sessionOf(request).principal.tenant, request.query.period ?? 'month', null),
    );

    // API keys ---------------------------------------------------------------------------------

    app.get(
      '/api-keys',
      {
        config: { auth: 'public' },
        schema: { hide: true, response: { 200: ApiKeyListSchema, ...SESSION_ERRORS } },
      },
      async (request) => ({ data: await apiKeys.listAll(sessionOf(request).principal) }),
    );

    app.post(
      '/api-keys',
      {
        config: { auth: 'public' },
        schema: { hide: true, body: CreateApiKeyBody, response: { 201: ApiKeySchema, ...WRITE_ERRORS } },
      },
      async (request, reply) => {
        reply.code(201);
        return apiKeys.create(sessionOf(request).principal, request.body);
      },
    );

    app.post(
      '/api-keys/:id/roll',
      {
        config: { auth: 'public' },
        schema: {
          ...HIDDEN,
          params: KeyIdParams,
          body: RollApiKeyBody,
          response: { 201: ApiKeySchema, ...WRITE_ERRORS },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return apiKeys.roll(
          sessionOf(request).principal,
          request.params.id,
          request.body.expires_in_seconds ?? 0,
        );
      },
    );

    app.delete(
      '/api-keys/:id',
      {
        config: { auth: 'public' },
        schema: { ...HIDDEN, params: KeyIdParams, response: { 204: Type.Null(), ...WRITE_ERRORS } },
      },
      async (request, reply) => {
        await apiKeys.revoke(sessionOf(request).principal, request.params.id);
        return reply.code(204).send(null);
      },
    );

    // Webhooks ---------------------------------------------------------------------------------

    app.get(
      '/webhooks',
      {
        config: { auth: 'public' },
        schema: {
          ...HIDDEN,
          querystring: WebhookListQuery,
          response: { 200: EnvelopeSchema(WebhookSchema), ...SESSION_ERRORS },
        },
      },
      async (request) => webhooks.list(sessionOf(request).principal, request.query),
    );

    app.post(
      '/webhooks',
      {
        config: { auth: 'public' },
        schema: { ...HIDDEN, body: CreateWebhookBody, response: { 201: WebhookSchema, ...WRITE_ERRORS } },
      },
      async (request, reply) => {
        reply.code(201);
        return webhooks.create(sessionOf(request).principal, request.body);
      },
    );

    app.get(
      '/webhooks/:id',
      {
        config: { auth: 'public' },
        schema: {
          ...HIDDEN,
          params: WebhookParams,
          response: { 200: WebhookSchema, ...errorResponses(401, 404) },
        },
      },
      async (request) => webhooks.get(sessionOf(request).principal, request.params.id),
    );

    app.patch(
      '/webhooks/:id',
      {
        config: { auth: 'public' },
        schema: {
          ...HIDDEN,
          params: WebhookParams,
          body: UpdateWebhookBody,
          response: { 200: WebhookSchema, ...WRITE_ERRORS },
        },
      },
      async (request) => webhooks.update(sessionOf(request).principal, request.params.id, request.body),
    );

    app.delete(
      '/webhooks/:id',
      {
        config: { auth: 'public' },
        schema: { ...HIDDEN, params: WebhookParams, response: { 204: Type.Null(), ...WRITE_ERRORS } },
      },
      async (request, reply) => {
        await webhooks.remove(sessionOf(request).principal, request.params.id);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/webhooks/:id/rotate-secret',
      {
        config: { auth: 'public' },
        schema: {
          ...HIDDEN,
          params: WebhookParams,
          body: EmptyBody,
          response: { 200: WebhookSchema, ...WRITE_ERRORS },
        },
      },
      async (request) => webhooks.rotateSecret(sessionOf(request).principal, request.params.id),
    );

    app.post(
      '/webhooks/:id/test',
      {
        config: { auth: 'public' },
        schema: {
          ...HIDDEN,
          params: WebhookParams,
          body: EmptyBody,
          response: { 202: DeliverySchema, ...WRITE_ERRORS },
        },
      },
      async (request, reply) => {
        reply.code(202);
        return webhooks.test(sessionOf(request).principal, request.params.id);
      },
    );

    app.get(
      '/webhooks/:id/deliveries',
      {
        config: { auth: 'public' },
        schema: {
          ...HIDDEN,
          params: WebhookParams,
          querystring: DeliveryListQuery,
          response: { 200: EnvelopeSchema(DeliverySchema), ...errorResponses(401, 404) },
        },
      },
      async (request) => webhooks.deliveries(sessionOf(request).principal, request.params.id, request.query),
    );

    app.post(
      '/webhooks/:id/deliveries/:delivery_id/retry',
      {
        config: { auth: 'public' },
        schema: {
          ...HIDDEN,
          params: DeliveryParams,
          body: EmptyBody,
          response: { 202: DeliverySchema, ...WRITE_ERRORS },
        },
      },
      async (request, reply) => {
        reply.code(202);
        return webhooks.retry(sessionOf(request).principal, request.params.id, request.params.delivery_id);
      },
    );

    // The event a delivery sent, for the delivery log's details.
    app.get(
      '/events/:id',
      {
        config: { auth: 'public' },
        schema: {
          ...HIDDEN,
          params: EventParams,
          querystring: EventQuery,
          response: { 200: EventSchema, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        const session = sessionOf(request);
        return events.get(
          session.principal.tenant.id,
          request.params.id,
          accounts.eventVersion(session, request.query.api_version),
        );
      },
    );

    // Plugins ----------------------------------------------------------------------------------

    app.get(
      '/plugins',
      {
        config: { auth: 'public' },
        schema: {
          ...HIDDEN,
          querystring: PluginListQuery,
          response: { 200: EnvelopeSchema(PluginSchema), ...SESSION_ERRORS },
        },
      },
      async (request) => plugins.list(sessionOf(request).principal.tenant.id, request.query),
    );

    app.get(
      '/plugins/:id',
      {
        config: { auth: 'public' },
        schema: {
          ...HIDDEN,
          params: PluginParams,
          response: { 200: PluginSchema, ...errorResponses(401, 404) },
        },
      },
      async (request) => plugins.get(sessionOf(request).principal.tenant.id, request.params.id),
    );

    app.post(
      '/plugins/:id/install',
      {
        config: { auth: 'public' },
        schema: {
          ...HIDDEN,
          params: PluginParams,
          body: EmptyBody,
          response: { 200: PluginSchema, 201: PluginSchema, ...WRITE_ERRORS },
        },
      },
      async (request, reply) => {
        const { plugin, created } = await plugins.install(sessionOf(request).principal, request.params.id);
        reply.code(created ? 201 : 200);
        return plugin;
      },
    );

    app.delete(
      '/plugins/:id/install',
      {
        config: { auth: 'public' },
        schema: { ...HIDDEN, params: PluginParams, response: { 200: PluginSchema, ...WRITE_ERRORS } },
      },
      async (request) => plugins.uninstall(sessionOf(request).principal.tenant.id, request.params.id),
    );

    app.post(
      '/plugins/:id/ratings',
      {
        config: { auth: 'public' },
        schema: {
          ...HIDDEN,
          params: PluginParams,
          body: RatingBody,
          response: { 200: RatingSchema, 201: RatingSchema, ...WRITE_ERRORS },
        },
      },
      async (request, reply) => {
        const { rating, created } = await plugins.rate(
          sessionOf(request).principal.tenant.id,
          request.params.id,
          request.body,
        );
        reply.code(created ? 201 : 200);
        return rating;
      },
    );
  };
}
