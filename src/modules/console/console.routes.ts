import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Platform, Services } from '../../kernel/module.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas.js';
import { AccountSchema, LoginBody, SignupBody, signupResultSchema } from './console.schemas.js';
import type { ConsoleSession } from './console.service.js';
import {
  clearSessionCookie,
  csrfTokenOf,
  isSafeMethod,
  refuseCrossSite,
  sessionIdOf,
  setSessionCookie,
} from './console.session.js';

/**
 * The console's account routes under `/console/api`: sign-up, login, logout and the session (its
 * user, tenant, plans and CSRF token). They are not part of the public API: hidden from the
 * OpenAPI document, and authenticated by the session cookie. Everything else the console does,
 * it does through `/v1`, where its session (the cookie plus the CSRF token) stands in for a key
 * with every permission (see console.session.ts).
 *
 * Every route needs a session unless it declares `config.console: 'anonymous'` (sign-up, login).
 * Every state-changing route also needs the session's CSRF token in `X-CSRF-Token` and the
 * console's own `Origin` (or `Sec-Fetch-Site: same-origin`); sign-up and login are refused only
 * when `Origin` or `Sec-Fetch-Site` names another site.
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Console routes: `anonymous` for the routes that work without a session. */
    console?: 'anonymous' | 'session';
  }
  interface FastifyRequest {
    consoleSession: ConsoleSession | null;
  }
}

function sessionOf(request: FastifyRequest): ConsoleSession {
  if (!request.consoleSession)
    throw new Error(`route ${request.routeOptions.url} read a session it did not require`);
  return request.consoleSession;
}

const SESSION_ERRORS = errorResponses(401, 403);

export function consoleApiRoutes(
  deps: Pick<Platform, 'clock' | 'vocabulary'> & Pick<Services, 'consoleAccounts'>,
): FastifyPluginAsyncTypebox {
  const { consoleAccounts: accounts, clock } = deps;
  const SignupResultSchema = signupResultSchema(deps.vocabulary);
  return async (app) => {
    app.decorateRequest('consoleSession', null);

    app.addHook('onRequest', async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const unsafe = !isSafeMethod(request.method);
      const anonymous = request.routeOptions.config.console === 'anonymous';
      if (unsafe) refuseCrossSite(request, { session: !anonymous });
      if (anonymous) return;
      const session = await accounts.authenticate(sessionIdOf(request));
      if (unsafe) accounts.checkCsrf(session, csrfTokenOf(request));
      request.consoleSession = session;
    });

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
  };
}
