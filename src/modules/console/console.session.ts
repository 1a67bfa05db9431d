import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SessionAuthenticator } from '../../http/auth.js';
import { AppError, isAppError, validationError } from '../../lib/errors.js';
import type { ConsoleService, StartedSession } from './console.service.js';

/**
 * How a console session travels over HTTP: the `__Host-` cookie that holds its id, the CSRF token
 * the console sends beside it in `X-CSRF-Token`, and the check that a state-changing request comes
 * from the console's own origin. The console's account routes use them, and so does the `/v1`
 * gate (`consoleSessions`), where a session with its token stands in for a key with every
 * permission of the session's user.
 */

export const SESSION_COOKIE = '__Host-cp_session';
export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method);
}

export function sessionIdOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  return header === undefined ? undefined : parseCookie(header)[SESSION_COOKIE];
}

export function csrfTokenOf(request: FastifyRequest): string | undefined {
  const token = request.headers[CSRF_HEADER];
  return typeof token === 'string' ? token : undefined;
}

/** `__Host-`: Secure, Path=/ and no Domain, so only this exact origin ever receives it. */
export function setSessionCookie(reply: FastifyReply, session: StartedSession, now: number): void {
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

export function clearSessionCookie(reply: FastifyReply): void {
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
 * PATCH and DELETE and `Sec-Fetch-Site` on every request. A write of a session (`session`) must
 * show it: its `Origin` is this server's own, or, without `Origin`, its `Sec-Fetch-Site` is
 * `same-origin`; a client that sends neither (curl) adds `Origin`. Sign-up and login, which have no
 * session yet, are refused only when a header names another site.
 */
export function refuseCrossSite(request: FastifyRequest, options: { session: boolean }): void {
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  let sameOrigin: boolean;
  if (origin !== undefined) {
    sameOrigin = site === undefined || site === 'same-origin' || site === 'none';
    try {
      // Through URL on both sides, so a default port written out (`:443`) still matches.
      sameOrigin &&= new URL(origin).host === new URL(`${request.protocol}://${request.host}`).host;
    } catch {
      sameOrigin = false;
    }
  } else if (options.session) {
    sameOrigin = site === 'same-origin';
  } else {
    sameOrigin = site === undefined || site === 'same-origin' || site === 'none';
  }
  if (!sameOrigin) {
    throw new AppError(
      'insufficient_permissions',
      origin === undefined && options.session
        ? "Console requests that change something must carry the console's own Origin header."
        : 'Console requests must come from the console itself.',
    );
  }
}

/**
 * The mode a console request acts in: `X-Console-Mode: test` (the console's test-mode switch) acts
 * on the store's test mode, absent or `live` on the store; anything else is a 400 naming it.
 */
function consoleMode(request: FastifyRequest): 'live' | 'test' {
  const header = request.headers['x-console-mode'];
  if (header === undefined || header === 'live') return 'live';
  if (header === 'test') return 'test';
  throw validationError('x-console-mode', 'must be live or test');
}

/**
 * The `/v1` gate's console sessions. A request is the session's only with both its cookie and its
 * CSRF token (on every method, reads included: the console always sends it, and a cookie alone is
 * what a cross-site page can make a browser send), and a state-changing one only with the
 * console's own `Origin` (or `Sec-Fetch-Site: same-origin`). An ended session is the API's 401 (`WWW-Authenticate: Bearer`, as for a key);
 * a wrong token or another origin is 403.
 */
export function consoleSessions(accounts: ConsoleService): SessionAuthenticator {
  async function principal(request: FastifyRequest, id: string, token: string) {
    if (!isSafeMethod(request.method)) refuseCrossSite(request, { session: true });
    const session = await accounts.authenticate(id).catch((error: unknown) => {
      if (isAppError(error) && error.code === 'authentication_required') {
        throw new AppError(error.code, error.detail, { headers: { 'www-authenticate': 'Bearer' } });
      }
      throw error;
    });
    accounts.checkCsrf(session, token);
    return accounts.inMode(session.principal, consoleMode(request));
  }
  return (request) => {
    const token = csrfTokenOf(request);
    const id = token === undefined ? undefined : sessionIdOf(request);
    return token === undefined || id === undefined ? undefined : principal(request, id, token);
  };
}
