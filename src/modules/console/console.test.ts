import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseSetCookie } from 'cookie';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  LOGIC_ONLY,
  type TestContext,
} from '../../../test/helpers/context.js';
import { eventually, type Receiver, startReceiver } from '../../../test/helpers/webhook-receiver.js';
import { installErrorHandler, installNotFoundHandler, RouteTable } from '../../http/error-handler.js';
import { PLAN_LIMITS } from '../limits/limits.plans.js';
import { ManualClock } from '../../lib/clock.js';
import { randomBase62 } from '../../lib/ids.js';
import { hashPassword, scryptDerivations } from '../../lib/passwords.js';
import type { CurrentUser } from '../users/users.schemas.js';
import { consolePages } from './console.pages.js';
import type { AccountSchema, SignupResultObject } from './console.schemas.js';
import { CONSOLE_API_VERSION } from '../../../console/src/version.js';
import { THROTTLE } from './console.service.js';
import { SESSION_COOKIE } from './console.session.js';

/**
 * The console's account routes, and `/v1` with a session, over app.inject as the console's
 * browser uses them: a cookie jar, the CSRF token from GET /console/api/session (sent on every
 * call), and the Origin header a browser sends on state-changing calls.
 */

const ORIGIN = 'http://localhost:80';
const HOST = 'localhost:80';

interface Reply<T = Record<string, unknown>> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: T;
  setCookie: ReturnType<typeof parseSetCookie> | undefined;
}

/** The account a session sees; signing up also returns the owner's first key. */
type Account = Static<typeof AccountSchema> & Partial<Pick<SignupResultObject, 'api_key'>>;

interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Leave the CSRF header out. */
  noCsrf?: boolean;
  /** Leave the Origin header out (curl sends none; a browser sends it on every write). */
  noOrigin?: boolean;
  address?: string;
}

/** One browser: it keeps the session cookie it is given and sends the CSRF token it learnt. */
function browser(app: FastifyInstance) {
  let cookie: string | undefined;
  let csrf: string | undefined;
  async function request<T = Record<string, unknown>>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT',
    url: string,
    options: RequestOptions = {},
  ): Promise<Reply<T>> {
    const headers: Record<string, string> = { host: HOST };
    if (method !== 'GET' && !options.noOrigin) headers.origin = ORIGIN;
    if (cookie !== undefined) headers.cookie = `${SESSION_COOKIE}=${cookie}`;
    if (csrf !== undefined && !options.noCsrf) headers['x-csrf-token'] = csrf;
    let payload: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(options.body);
    }
    const res = await app.inject({
      method,
      url,
      headers: { ...headers, ...options.headers },
      payload,
      ...(options.address ? { remoteAddress: options.address } : {}),
    });
    const raw = res.headers['set-cookie'];
    const setCookie = typeof raw === 'string' ? parseSetCookie(raw) : undefined;
    if (setCookie?.name === SESSION_COOKIE) cookie = setCookie.maxAge === 0 ? undefined : setCookie.value;
    const body = (res.body === '' ? undefined : JSON.parse(res.body)) as T;
    const token = (body as { csrf_token?: unknown } | undefined)?.csrf_token;
    if (typeof token === 'string') csrf = token;
    return { status: res.statusCode, headers: res.headers, body, setCookie };
  }
  return {
    request,
    get cookie() {
      return cookie;
    },
    set cookie(value: string | undefined) {
      cookie = value;
    },
    get csrf() {
      return csrf;
    },
    set csrf(value: string | undefined) {
      csrf = value;
    },
  };
}

type Browser = ReturnType<typeof browser>;

let counter = 0;
function newEmail(): string {
  counter += 1;
  return `dev${counter}-${randomBase62(6).toLowerCase()}@example.com`;
}

const PASSWORD = 'correct horse battery';

/** Each sign-up from its own address unless told, so the per-address sign-up limit stays out of the way. */
async function signup(b: Browser, email = newEmail(), address?: string): Promise<Reply<Account>> {
  counter += 1;
  return b.request<Account>('POST', '/console/api/signup', {
    body: { store_name: 'Acme Outfitters', owner_name: 'Ada', email, password: PASSWORD },
    address: address ?? `10.${(counter >> 16) & 255}.${(counter >> 8) & 255}.${counter & 255}`,
  });
}

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

for (const dialect of DIALECTS) {
  describe(`console accounts and sessions (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock();

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
    });
    after(() => ctx.close());

    it('signs up a tenant and its owner, logged in with a __Host- session cookie', async () => {
      const b = browser(ctx.app);
      const email = newEmail();
      const res = await signup(b, email);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.user.email, email);
      assert.equal(res.body.tenant.plan, 'free');
      assert.equal(res.body.tenant.api_version, ctx.deps.versions.latest.version);
      assert.match(res.body.csrf_token, /^[\w-]{43}$/);
      const cookie = res.setCookie;
      assert.ok(cookie);
      assert.equal(cookie.name, '__Host-cp_session');
      assert.match(cookie.value ?? '', /^[\w-]{43}$/);
      assert.equal(cookie.secure, true);
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'lax');
      assert.equal(cookie.path, '/');
      assert.equal(cookie.domain, undefined);
      assert.equal(cookie.maxAge, 7 * 24 * 3600);
      assert.equal(res.headers['cache-control'], 'no-store');

      // The first key is shown once, holds every permission and works on the API.
      assert.match(res.body.api_key?.key ?? '', /^sk_live_\w{40}$/);
      const me = await client(ctx.app, res.body.api_key?.key)('GET', '/v1/users/me');
      assert.equal(me.status, 200);
      assert.equal((me.body as { email: string }).email, email);

      const session = await b.request<Account>('GET', '/console/api/session');
      assert.equal(session.status, 200);
      assert.equal(session.body.user.id, res.body.user.id);
      assert.equal(session.body.csrf_token, res.body.csrf_token);

      // Only the SHA-256 of the session id is stored.
      const rows = await ctx.deps.store.db
        .selectFrom('console_sessions')
        .selectAll()
        .where('user_id', '=', res.body.user.id)
        .execute();
      assert.equal(rows.length, 1);
      assert.equal(rows[0]?.id_hash, sha256(cookie.value ?? ''));
      assert.ok(!JSON.stringify(rows).includes(cookie.value ?? '-'));
    });

    it('refuses a taken email, unknown fields, short passwords and non-JSON bodies', async () => {
      const email = newEmail();
      assert.equal((await signup(browser(ctx.app), email)).status, 201);
      const again = await signup(browser(ctx.app), email.toUpperCase());
      assert.equal(again.status, 400);
      assert.equal((again.body as unknown as { code: string }).code, 'validation_failed');
      const b = browser(ctx.app);
      const extra = await b.request<{ code: string; errors: { field: string }[] }>(
        'POST',
        '/console/api/signup',
        {
          body: { store_name: 'X', email: newEmail(), password: PASSWORD, plan: 'enterprise' },
        },
      );
      assert.equal(extra.status, 400);
      assert.deepEqual(
        extra.body.errors.map((e) => e.field),
        ['plan'],
      );
      const short = await b.request<{ code: string }>('POST', '/console/api/signup', {
        body: { store_name: 'X', email: newEmail(), password: 'short' },
      });
      assert.equal(short.status, 400);
      // A blank store name is refused under the field the form sent, not the tenant's `name`.
      const blank = await b.request<{ code: string; errors: { field: string; message: string }[] }>(
        'POST',
        '/console/api/signup',
        { body: { store_name: '   ', email: newEmail(), password: PASSWORD } },
      );
      assert.equal(blank.status, 400);
      assert.equal(blank.body.code, 'validation_failed');
      assert.deepEqual(blank.body.errors, [{ field: 'store_name', message: 'must not be blank' }]);
      const form = await ctx.app.inject({
        method: 'POST',
        url: '/console/api/login',
        headers: { 'content-type': 'application/x-www-form-urlencoded', host: HOST },
        payload: `email=${encodeURIComponent(email)}&password=x`,
      });
      assert.equal(form.statusCode, 415);
      assert.equal(b.cookie, undefined);
    });

    it('answers without a session with a JSON 401, and unknown console API paths with JSON 404/405', async () => {
      const b = browser(ctx.app);
      const res = await b.request<{ code: string }>('GET', '/console/api/session');
      assert.equal(res.status, 401);
      assert.equal(res.body.code, 'authentication_required');
      assert.equal((await b.request('GET', '/v1/api-keys')).status, 401);
      b.cookie = randomBase62(43);
      assert.equal((await b.request('GET', '/console/api/session')).status, 401);
      const missing = await ctx.app.inject({ method: 'GET', url: '/console/api/nothing-here' });
      assert.equal(missing.statusCode, 404);
      assert.match(String(missing.headers['content-type']), /application\/problem\+json/);
      const post = await ctx.app.inject({ method: 'POST', url: '/console/api/nothing-here' });
      assert.equal(post.statusCode, 404);
      const wrong = await ctx.app.inject({ method: 'PUT', url: '/console/api/session' });
      assert.equal(wrong.statusCode, 405);
      assert.equal(wrong.headers.allow, 'GET, HEAD');
    });

    it('accepts the session on /v1 only with its CSRF token, as every permission of its user', async () => {
      const b = browser(ctx.app);
      const account = await signup(b);
      assert.equal(account.status, 201);
      const cookie = `${SESSION_COOKIE}=${b.cookie ?? ''}`;
      const me = await b.request<CurrentUser>('GET', '/v1/users/me');
      assert.equal(me.status, 200, JSON.stringify(me.body));
      assert.equal(me.body.id, account.body.user.id);
      assert.equal(me.body.tenant.id, account.body.tenant.id);
      assert.equal(me.body.api_key.id, 'console');
      assert.deepEqual(
        [...me.body.api_key.permissions].sort(),
        [...(account.body.api_key?.permissions ?? [])].sort(),
        'every permission, as the owner’s first key',
      );
      assert.match(String(me.headers['ratelimit-policy']), /hourly/, 'limited like a key');

      // The cookie alone never authenticates, on reads and writes: it is what another site can
      // make a browser send.
      for (const [method, url] of [
        ['GET', '/v1/users/me'],
        ['GET', '/v1/api-keys'],
        ['POST', '/v1/api-keys'],
      ] as const) {
        const res = await ctx.app.inject({
          method,
          url,
          headers: { cookie, host: HOST, ...(method === 'POST' ? { origin: ORIGIN } : {}) },
          ...(method === 'POST' ? { payload: { name: 'x', permissions: ['read:users'] } } : {}),
        });
        assert.equal(res.statusCode, 401, `${method} ${url}`);
        assert.equal(res.json<{ code: string }>().code, 'authentication_required');
        assert.equal(res.headers['www-authenticate'], 'Bearer');
      }
      // A wrong token is refused; so is the token without the cookie.
      const wrong = await ctx.app.inject({
        method: 'GET',
        url: '/v1/users/me',
        headers: { cookie, 'x-csrf-token': randomBase62(43) },
      });
      assert.equal(wrong.statusCode, 403);
      assert.equal(wrong.json<{ code: string }>().code, 'insufficient_permissions');
      const tokenOnly = await ctx.app.inject({
        method: 'GET',
        url: '/v1/users/me',
        headers: { 'x-csrf-token': b.csrf ?? '' },
      });
      assert.equal(tokenOnly.statusCode, 401);
      // A key, when sent, is what authenticates: a bad one is refused whatever session comes with it.
      const keyed = await b.request<{ code: string }>('GET', '/v1/users/me', {
        headers: { authorization: `Bearer sk_live_${randomBase62(40)}` },
      });
      assert.equal(keyed.status, 401);
      assert.equal(keyed.body.code, 'invalid_api_key');

      // An ended session is the API's 401.
      assert.equal((await b.request('POST', '/console/api/logout')).status, 204);
      const ended = await ctx.app.inject({
        method: 'GET',
        url: '/v1/users/me',
        headers: { cookie, 'x-csrf-token': account.body.csrf_token },
      });
      assert.equal(ended.statusCode, 401);
      assert.equal(ended.json<{ code: string }>().code, 'authentication_required');
      assert.equal(ended.headers['www-authenticate'], 'Bearer');
    });

    it('builds the console for a version the API serves', () => {
      assert.equal(ctx.deps.versions.resolve(CONSOLE_API_VERSION), CONSOLE_API_VERSION);
    });

    it('makes console writes idempotent like any other', async () => {
      const b = browser(ctx.app);
      assert.equal((await signup(b)).status, 201);
      const body = { name: 'Once', permissions: ['read:orders'] };
      const headers = { 'idempotency-key': `console-${randomBase62(12)}` };
      const first = await b.request<{ id: string; key: string }>('POST', '/v1/api-keys', { body, headers });
      assert.equal(first.status, 201);
      const again = await b.request<{ id: string; key: string }>('POST', '/v1/api-keys', { body, headers });
      assert.equal(again.status, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body.id, first.body.id);
      assert.equal(again.body.key, `sk_live_****_****_****_${first.body.key.slice(-4)}`, 'shown once');
      const other = await b.request<{ code: string }>('POST', '/v1/api-keys', {
        body: { ...body, name: 'Twice' },
        headers,
      });
      assert.equal(other.status, 422);
      assert.equal(other.body.code, 'idempotency_key_reused');
      const keys = await b.request<{ data: { name: string }[] }>('GET', '/v1/api-keys');
      assert.equal(keys.body.data.filter((k) => k.name === 'Once').length, 1);
    });

    it('logs in with a new session id every time and ends the session it replaces', async () => {
      const email = newEmail();
      const first = browser(ctx.app);
      assert.equal((await signup(first, email)).status, 201);
      const signupCookie = first.cookie;

      const wrong = await first.request<{ code: string }>('POST', '/console/api/login', {
        body: { email, password: 'not the password' },
      });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.code, 'authentication_required');
      assert.equal(wrong.setCookie, undefined);
      assert.equal(first.cookie, signupCookie, 'a failed login changes nothing');

      const login = await first.request<Account>('POST', '/console/api/login', {
        body: { email: email.toUpperCase(), password: PASSWORD },
      });
      assert.equal(login.status, 200);
      assert.equal(login.body.user.email, email);
      assert.ok(first.cookie);
      assert.notEqual(first.cookie, signupCookie, 'login rotates the session id');
      assert.equal(login.setCookie?.httpOnly, true);

      const stale = browser(ctx.app);
      stale.cookie = signupCookie;
      assert.equal((await stale.request('GET', '/console/api/session')).status, 401, 'the old id is dead');
      assert.equal((await first.request('GET', '/console/api/session')).status, 200);

      // A second device logs in too: both sessions live, with different ids and CSRF tokens.
      const second = browser(ctx.app);
      assert.equal(
        (await second.request('POST', '/console/api/login', { body: { email, password: PASSWORD } })).status,
        200,
      );
      assert.notEqual(second.cookie, first.cookie);
      assert.notEqual(second.csrf, first.csrf);
      assert.equal((await first.request('GET', '/console/api/session')).status, 200);
    });

    it('logs out only with the CSRF token, and the id stops working', async () => {
      const b = browser(ctx.app);
      assert.equal((await signup(b)).status, 201);
      const id = b.cookie;
      const noToken = await b.request<{ code: string }>('POST', '/console/api/logout', { noCsrf: true });
      assert.equal(noToken.status, 403);
      assert.equal((await b.request('GET', '/console/api/session')).status, 200);
      const out = await b.request('POST', '/console/api/logout');
      assert.equal(out.status, 204);
      assert.equal(out.setCookie?.name, SESSION_COOKIE);
      assert.equal(out.setCookie?.maxAge, 0);
      const replay = browser(ctx.app);
      replay.cookie = id;
      assert.equal((await replay.request('GET', '/console/api/session')).status, 401);
    });

    it('refuses state-changing calls without the CSRF token or from another origin', async () => {
      const b = browser(ctx.app);
      const account = await signup(b);
      assert.equal(account.status, 201);
      const keysBefore = (await b.request<{ data: unknown[] }>('GET', '/v1/api-keys')).body.data.length;
      const body = { name: 'ci', permissions: ['read:orders'] };
      const other = browser(ctx.app);
      assert.equal((await signup(other)).status, 201);

      // Without the token the cookie is no credential at all (401); with a wrong one, or from
      // another origin, the session refuses (403).
      const attempts: [string, RequestOptions, number][] = [
        ['no token', { body, noCsrf: true }, 401],
        ['wrong token', { body, headers: { 'x-csrf-token': randomBase62(43) } }, 403],
        ['a shorter token', { body, headers: { 'x-csrf-token': (b.csrf ?? '').slice(0, 20) } }, 403],
        ["another session's token", { body, headers: { 'x-csrf-token': other.csrf ?? '' } }, 403],
        ['foreign origin', { body, headers: { origin: 'https://evil.example' } }, 403],
        ['null origin', { body, headers: { origin: 'null' } }, 403],
        ['cross-site fetch', { body, headers: { 'sec-fetch-site': 'cross-site' } }, 403],
        ['same-site fetch', { body, headers: { 'sec-fetch-site': 'same-site' } }, 403],
      ];
      for (const [label, options, status] of attempts) {
        const res = await b.request<{ code: string }>('POST', '/v1/api-keys', options);
        assert.equal(res.status, status, label);
        assert.equal(
          res.body.code,
          status === 401 ? 'authentication_required' : 'insufficient_permissions',
          label,
        );
      }
      for (const method of ['PATCH', 'DELETE'] as const) {
        const res = await b.request(method, '/v1/webhooks/wh_x', {
          body: method === 'PATCH' ? { enabled: false } : undefined,
          headers: { origin: 'https://evil.example' },
        });
        assert.equal(res.status, 403, method);
      }
      assert.equal(
        (await b.request<{ data: unknown[] }>('GET', '/v1/api-keys')).body.data.length,
        keysBefore,
        'nothing was created',
      );
      const ok = await b.request('POST', '/v1/api-keys', {
        body,
        headers: { 'sec-fetch-site': 'same-origin' },
      });
      assert.equal(ok.status, 201);

      // Login and sign-up have no session yet: they still refuse another origin.
      const cross = await browser(ctx.app).request('POST', '/console/api/login', {
        body: { email: account.body.user.email, password: PASSWORD },
        headers: { origin: 'https://evil.example' },
      });
      assert.equal(cross.status, 403);
      assert.equal(cross.setCookie, undefined);
    });

    it('refuses a session write without the console’s Origin unless Sec-Fetch-Site says same-origin, and changes nothing', async () => {
      const b = browser(ctx.app);
      const account = await signup(b);
      assert.equal(account.status, 201);
      const keys = async () => (await b.request<{ data: unknown[] }>('GET', '/v1/api-keys')).body.data.length;
      const before = await keys();
      const body = { name: 'ci', permissions: ['read:orders'] };

      // Neither Origin nor Sec-Fetch-Site (curl with the cookie and the token), or a
      // Sec-Fetch-Site that is not same-origin without an Origin: 403, on /v1 and /console/api.
      const refused: Record<string, string>[] = [
        {},
        { 'sec-fetch-site': 'none' },
        { 'sec-fetch-site': 'same-site' },
      ];
      for (const headers of refused) {
        const label = JSON.stringify(headers);
        const create = await b.request<{ code: string; detail: string }>('POST', '/v1/api-keys', {
          body,
          headers,
          noOrigin: true,
        });
        assert.equal(create.status, 403, label);
        assert.equal(create.body.code, 'insufficient_permissions', label);
        assert.match(String(create.headers['content-type']), /^application\/problem\+json/);
        for (const method of ['PATCH', 'DELETE'] as const) {
          const res = await b.request(method, '/v1/webhooks/wh_x', {
            body: method === 'PATCH' ? { enabled: false } : undefined,
            headers,
            noOrigin: true,
          });
          assert.equal(res.status, 403, `${method} ${label}`);
        }
        const logout = await b.request('POST', '/console/api/logout', { headers, noOrigin: true });
        assert.equal(logout.status, 403, `logout ${label}`);
      }
      assert.match(
        (await b.request<{ detail: string }>('POST', '/v1/api-keys', { body, noOrigin: true })).body.detail,
        /Origin/,
      );
      // Another origin is refused as before; nothing was created and the session still works.
      const foreign = await b.request('POST', '/v1/api-keys', {
        body,
        headers: { origin: 'https://evil.example' },
      });
      assert.equal(foreign.status, 403);
      assert.equal(await keys(), before, 'nothing was created');
      assert.equal((await b.request('GET', '/console/api/session')).status, 200, 'still logged in');

      // Without Origin, Sec-Fetch-Site: same-origin is enough; with the console's Origin too.
      const fetched = await b.request('POST', '/v1/api-keys', {
        body,
        headers: { 'sec-fetch-site': 'same-origin' },
        noOrigin: true,
      });
      assert.equal(fetched.status, 201, JSON.stringify(fetched.body));
      assert.equal((await b.request('POST', '/v1/api-keys', { body })).status, 201);
      assert.equal(await keys(), before + 2);

      // A key needs no Origin, and neither do sign-up and login, which have no session yet.
      const keyed = await ctx.app.inject({
        method: 'POST',
        url: '/v1/api-keys',
        headers: { authorization: `Bearer ${account.body.api_key?.key ?? ''}` },
        payload: body,
      });
      assert.equal(keyed.statusCode, 201, keyed.body);
      const login = await browser(ctx.app).request('POST', '/console/api/login', {
        body: { email: account.body.user.email, password: PASSWORD },
        noOrigin: true,
      });
      assert.equal(login.status, 200);
      assert.equal((await b.request('POST', '/console/api/logout')).status, 204);
    });

    it('throttles failed logins per email and address; the owner still signs in from elsewhere', async () => {
      const email = newEmail();
      assert.equal((await signup(browser(ctx.app), email)).status, 201);
      const b = browser(ctx.app);
      const attackers = ['198.51.100.10', '198.51.100.11'];
      const { limit, blockMs } = THROTTLE.loginPerPair;
      for (const address of attackers) {
        for (let i = 0; i < limit; i++) {
          const res = await b.request('POST', '/console/api/login', {
            body: { email, password: `wrong-${i}` },
            address,
          });
          assert.equal(res.status, 401, `attempt ${i + 1} from ${address}`);
        }
      }
      const [address] = attackers as [string, string];
      const blocked = await b.request<{ code: string }>('POST', '/console/api/login', {
        body: { email, password: PASSWORD },
        address,
      });
      assert.equal(blocked.status, 429, 'even the right password waits');
      assert.equal(blocked.body.code, 'rate_limited');
      assert.equal(blocked.headers['retry-after'], String(blockMs / 1000));
      assert.equal(blocked.setCookie, undefined);
      // The account itself is not locked: its owner signs in from their own address.
      const owner = await browser(ctx.app).request('POST', '/console/api/login', {
        body: { email, password: PASSWORD },
        address: '203.0.113.99',
      });
      assert.equal(owner.status, 200);
      assert.ok(owner.setCookie?.value);
      // Another account from the first address is not affected (fewer than the address limit).
      const neighbour = newEmail();
      assert.equal((await signup(browser(ctx.app), neighbour)).status, 201);
      const fine = await browser(ctx.app).request('POST', '/console/api/login', {
        body: { email: neighbour, password: PASSWORD },
        address,
      });
      assert.equal(fine.status, 200);

      clock.advance(blockMs - 1000);
      const still = await b.request('POST', '/console/api/login', {
        body: { email, password: PASSWORD },
        address,
      });
      assert.equal(still.status, 429);
      assert.equal(still.headers['retry-after'], '1');
      clock.advance(1000);
      const open = await b.request('POST', '/console/api/login', {
        body: { email, password: PASSWORD },
        address,
      });
      assert.equal(open.status, 200);
      // A success clears the pair's count: one more mistake is not a block.
      const slip = await b.request('POST', '/console/api/login', {
        body: { email, password: 'oops' },
        address,
      });
      assert.equal(slip.status, 401);
      const again = await b.request('POST', '/console/api/login', {
        body: { email, password: PASSWORD },
        address,
      });
      assert.equal(again.status, 200);
    });

    it('counts an IPv6 client by its /64', async () => {
      const email = newEmail();
      assert.equal((await signup(browser(ctx.app), email)).status, 201);
      const { limit, blockMs } = THROTTLE.loginPerPair;
      for (let i = 0; i < limit; i++) {
        const res = await browser(ctx.app).request('POST', '/console/api/login', {
          body: { email, password: `wrong-${i}` },
          address: `2001:db8:1:2::${(i + 1).toString(16)}`,
        });
        assert.equal(res.status, 401, `attempt ${i + 1}`);
      }
      const sameNetwork = await browser(ctx.app).request('POST', '/console/api/login', {
        body: { email, password: PASSWORD },
        address: '2001:db8:1:2:ffff::1',
      });
      assert.equal(sameNetwork.status, 429);
      const nextNetwork = await browser(ctx.app).request('POST', '/console/api/login', {
        body: { email, password: PASSWORD },
        address: '2001:db8:1:3::1',
      });
      assert.equal(nextNetwork.status, 200);
      clock.advance(blockMs);
    });

    it('counts concurrent failures exactly', async () => {
      const email = newEmail();
      assert.equal((await signup(browser(ctx.app), email)).status, 201);
      const address = '192.0.2.7';
      const attempts = 8;
      const results = await Promise.all(
        Array.from({ length: attempts }, (_, i) =>
          browser(ctx.app).request('POST', '/console/api/login', {
            body: { email, password: `wrong-${i}` },
            address,
          }),
        ),
      );
      const failures = results.filter((r) => r.status === 401).length;
      assert.equal(failures + results.filter((r) => r.status === 429).length, attempts);
      assert.ok(failures >= THROTTLE.loginPerPair.limit);
      const row = await ctx.deps.store.db
        .selectFrom('console_throttle')
        .selectAll()
        .where('key', '=', `login-pair:${sha256(`${email}\n${address}`)}`)
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.attempts), failures, 'every failed attempt was counted');
      assert.ok(Number(row.blocked_until) > clock.now());
      const blocked = await browser(ctx.app).request('POST', '/console/api/login', {
        body: { email, password: PASSWORD },
        address,
      });
      assert.equal(blocked.status, 429);
      clock.advance(THROTTLE.loginPerPair.blockMs);
    });

    it('throttles failed logins per client address, whatever the email', async () => {
      const victim = newEmail();
      assert.equal((await signup(browser(ctx.app), victim)).status, 201);
      const address = '198.51.100.77';
      const { limit } = THROTTLE.loginPerAddress;
      // Spraying guesses over many emails at once, none more than once.
      const guesses = await Promise.all(
        Array.from({ length: limit }, (_, i) =>
          browser(ctx.app).request('POST', '/console/api/login', {
            body: { email: `nobody${i}@example.com`, password: 'guess' },
            address,
          }),
        ),
      );
      assert.deepEqual(
        guesses.map((res) => res.status),
        Array.from({ length: limit }, () => 401),
      );
      const blocked = await browser(ctx.app).request<{ code: string }>('POST', '/console/api/login', {
        body: { email: victim, password: PASSWORD },
        address,
      });
      assert.equal(blocked.status, 429);
      assert.equal(blocked.body.code, 'rate_limited');
      assert.ok(Number(blocked.headers['retry-after']) > 0);
      const otherAddress = await browser(ctx.app).request('POST', '/console/api/login', {
        body: { email: victim, password: PASSWORD },
        address: '198.51.100.78',
      });
      assert.equal(otherAddress.status, 200);
      clock.advance(THROTTLE.loginPerAddress.blockMs);
    });

    it('lets an owner in whom the former per-email lockout had blocked', async () => {
      const email = newEmail();
      assert.equal((await signup(browser(ctx.app), email)).status, 201);
      // The row the lockout left: five failures on the email, blocked for 15 more minutes.
      await ctx.deps.store.db
        .insertInto('console_throttle')
        .values({
          key: `login-email:${sha256(email)}`,
          attempts: 5,
          window_start: clock.now(),
          blocked_until: clock.now() + 15 * 60_000,
        })
        .execute();
      const res = await browser(ctx.app).request('POST', '/console/api/login', {
        body: { email, password: PASSWORD },
        address: '198.51.100.90',
      });
      assert.equal(res.status, 200);
    });

    it('runs exactly one scrypt per failed login, whether or not the email has an account', async () => {
      const email = newEmail();
      assert.equal((await signup(browser(ctx.app), email)).status, 201);
      // A user without a password (made through the API, never signed up in the console).
      const passwordless = (await createTenant(ctx)).user.email;
      const attempt = async (body: { email: string; password: string }, address: string) => {
        const before = scryptDerivations();
        const res = await browser(ctx.app).request<{ code: string; detail: string }>(
          'POST',
          '/console/api/login',
          { body, address },
        );
        return { status: res.status, detail: res.body.detail, scrypts: scryptDerivations() - before };
      };
      const refused = { status: 401, detail: 'The email or password is incorrect.', scrypts: 1 };
      assert.deepEqual(await attempt({ email: newEmail(), password: PASSWORD }, '198.51.100.121'), refused);
      assert.deepEqual(await attempt({ email, password: 'not the password' }, '198.51.100.122'), refused);
      assert.deepEqual(await attempt({ email: passwordless, password: PASSWORD }, '198.51.100.123'), refused);
      const right = await attempt({ email, password: PASSWORD }, '198.51.100.124');
      assert.equal(right.status, 200);
      assert.equal(right.scrypts, 1);
    });

    it('rehashes a password made at another cost when its owner signs in', async () => {
      const email = newEmail();
      const account = await signup(browser(ctx.app), email);
      assert.equal(account.status, 201);
      const older = await hashPassword(PASSWORD, ctx.config.passwordScryptLog2N - 1);
      await ctx.deps.store.db
        .updateTable('users')
        .set({ password_hash: older })
        .where('id', '=', account.body.user.id)
        .execute();
      const storedHash = async () =>
        (
          await ctx.deps.store.db
            .selectFrom('users')
            .select('password_hash')
            .where('id', '=', account.body.user.id)
            .executeTakeFirstOrThrow()
        ).password_hash;
      // A wrong password changes nothing.
      const wrong = await browser(ctx.app).request('POST', '/console/api/login', {
        body: { email, password: 'not the password' },
        address: '198.51.100.130',
      });
      assert.equal(wrong.status, 401);
      assert.equal(await storedHash(), older);
      const before = scryptDerivations();
      const first = await browser(ctx.app).request('POST', '/console/api/login', {
        body: { email, password: PASSWORD },
        address: '198.51.100.131',
      });
      assert.equal(first.status, 200);
      assert.equal(scryptDerivations() - before, 2, 'the check, then the new hash');
      const rehashed = await storedHash();
      assert.match(
        String(rehashed),
        new RegExp(`^scrypt\\$${2 ** ctx.config.passwordScryptLog2N}\\$8\\$1\\$`),
      );
      const next = scryptDerivations();
      const second = await browser(ctx.app).request('POST', '/console/api/login', {
        body: { email, password: PASSWORD },
        address: '198.51.100.132',
      });
      assert.equal(second.status, 200);
      assert.equal(scryptDerivations() - next, 1);
      assert.equal(await storedHash(), rehashed);
    });

    it('throttles sign-ups per client address', async () => {
      const address = '198.51.100.200';
      const { limit, blockMs } = THROTTLE.signupPerAddress;
      for (let i = 0; i < limit; i++) {
        assert.equal((await signup(browser(ctx.app), newEmail(), address)).status, 201, `sign-up ${i + 1}`);
      }
      const blocked = await signup(browser(ctx.app), newEmail(), address);
      assert.equal(blocked.status, 429);
      assert.ok(Number(blocked.headers['retry-after']) > 0);
      assert.equal((await signup(browser(ctx.app), newEmail(), '198.51.100.201')).status, 201);
      clock.advance(blockMs);
      assert.equal((await signup(browser(ctx.app), newEmail(), address)).status, 201);
    });

    it('ends a session after a day idle or a week in all, whatever its activity', async () => {
      const b = browser(ctx.app);
      assert.equal((await signup(b)).status, 201);
      const id = b.cookie;
      for (let day = 0; day < 6; day++) {
        clock.advance(23 * 3_600_000);
        assert.equal((await b.request('GET', '/console/api/session')).status, 200, `after ${day + 1} x 23 h`);
      }
      clock.advance(24 * 3_600_000 + 1000);
      const idle = await b.request<{ code: string; detail: string }>('GET', '/console/api/session');
      assert.equal(idle.status, 401);
      assert.match(idle.body.detail, /expired/);

      const c = browser(ctx.app);
      assert.equal((await signup(c)).status, 201);
      for (let day = 0; day < 7; day++) {
        clock.advance(23 * 3_600_000);
        await c.request('GET', '/console/api/session');
      }
      clock.advance(7 * 3_600_000);
      assert.equal((await c.request('GET', '/console/api/session')).status, 401, 'a week is the most');
      const rows = await ctx.deps.store.db
        .selectFrom('console_sessions')
        .select('id_hash')
        .where('id_hash', '=', sha256(id ?? ''))
        .execute();
      assert.equal(rows.length, 0, 'the expired session row is gone');
    });
  });
}

// The console calling /v1 for its tenant: the API it calls is tested on both stores in its modules.
for (const dialect of LOGIC_ONLY) {
  describe(`console acting for its tenant (${dialect})`, () => {
    let ctx: TestContext;
    let owner: Browser;
    let stranger: Browser;
    let receiver: Receiver;

    before(async () => {
      ctx = await createTestContext(dialect, { env: { WEBHOOK_RETRY_SCHEDULE: '3600' } });
      ctx.deps.webhookWorker.start();
      receiver = await startReceiver();
      owner = browser(ctx.app);
      assert.equal((await signup(owner)).status, 201);
      stranger = browser(ctx.app);
      assert.equal((await signup(stranger)).status, 201);
    });
    after(async () => {
      await receiver.close();
      await ctx.close();
    });

    it('manages API keys that work on the API, and never another tenant’s', async () => {
      const created = await owner.request<{ id: string; key: string; permissions: string[]; status: string }>(
        'POST',
        '/v1/api-keys',
        { body: { name: 'Reporting', permissions: ['read:orders', 'read:users'] } },
      );
      assert.equal(created.status, 201);
      assert.match(created.body.key, /^sk_live_\w{40}$/);
      const api = client(ctx.app, created.body.key);
      assert.equal((await api('GET', '/v1/users/me')).status, 200);
      assert.equal((await api('GET', '/v1/products')).status, 403);

      const list = await owner.request<{ data: { id: string; key: string; status: string }[] }>(
        'GET',
        '/v1/api-keys',
      );
      const listed = list.body.data.find((k) => k.id === created.body.id);
      assert.equal(listed?.key, `sk_live_****_****_****_${created.body.key.slice(-4)}`);
      assert.equal(listed?.status, 'Active');

      const expiring = await owner.request<{ status: string }>('POST', '/v1/api-keys', {
        body: {
          name: 'Short-lived',
          permissions: ['read:products'],
          expires_at: new Date(Date.now() + 2 * 24 * 3_600_000).toISOString(),
        },
      });
      assert.equal(expiring.body.status, 'Expiring');

      // Another tenant's session sees none of it and can change none of it.
      const theirs = await stranger.request<{ data: { id: string }[] }>('GET', '/v1/api-keys');
      assert.ok(!theirs.body.data.some((k) => k.id === created.body.id));
      assert.equal((await stranger.request('DELETE', `/v1/api-keys/${created.body.id}`)).status, 404);
      assert.equal(
        (await stranger.request('POST', `/v1/api-keys/${created.body.id}/roll`, { body: {} })).status,
        404,
      );
      assert.equal((await api('GET', '/v1/users/me')).status, 200);

      const rolled = await owner.request<{ id: string; key: string }>(
        'POST',
        `/v1/api-keys/${created.body.id}/roll`,
        { body: {} },
      );
      assert.equal(rolled.status, 201);
      assert.equal((await api('GET', '/v1/users/me')).status, 401, 'rolled without grace: the old key stops');
      const next = client(ctx.app, rolled.body.key);
      assert.equal((await next('GET', '/v1/users/me')).status, 200);
      assert.equal((await owner.request('DELETE', `/v1/api-keys/${rolled.body.id}`)).status, 204);
      assert.equal((await next('GET', '/v1/users/me')).status, 401);
    });

    it('registers a webhook, sends a test event and shows the delivery log', async () => {
      const created = await owner.request<{ id: string; secret: string; status: string }>(
        'POST',
        '/v1/webhooks',
        { body: { url: `${receiver.url}/hooks/orders`, events: ['order.created', 'order.shipped'] } },
      );
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.match(created.body.secret, /^whsec_/);
      const id = created.body.id;
      const list = await owner.request<{ data: { id: string; secret?: string }[]; total: number }>(
        'GET',
        '/v1/webhooks',
      );
      assert.equal(list.body.total, 1);
      assert.equal(list.body.data[0]?.secret, undefined, 'the secret is shown once');

      const test = await owner.request<{ id: string; status: string; event: string }>(
        'POST',
        `/v1/webhooks/${id}/test`,
        { body: {} },
      );
      assert.equal(test.status, 202);
      assert.equal(test.body.event, 'webhook.test');
      await receiver.waitFor(1);
      const log = await eventually(async () => {
        const res = await owner.request<{
          data: { status: string; response: string; endpoint: string; duration: number; event: string }[];
        }>('GET', `/v1/webhooks/${id}/deliveries`);
        return res.body.data[0]?.status === 'succeeded' ? res.body.data : undefined;
      });
      assert.equal(log[0]?.response, '200 OK');
      assert.equal(log[0]?.endpoint, '/hooks/orders');
      assert.equal(log[0]?.event, 'webhook.test');
      assert.ok(Number.isInteger(log[0]?.duration));

      const rotated = await owner.request<{ secret: string }>('POST', `/v1/webhooks/${id}/rotate-secret`, {
        body: {},
      });
      assert.equal(rotated.status, 200);
      assert.notEqual(rotated.body.secret, created.body.secret);
      const disabled = await owner.request<{ status: string }>('PATCH', `/v1/webhooks/${id}`, {
        body: { enabled: false },
      });
      assert.equal(disabled.body.status, 'Disabled');

      // Tenant isolation: the stranger gets 404 for every webhook route.
      for (const [method, url] of [
        ['GET', `/v1/webhooks/${id}`],
        ['GET', `/v1/webhooks/${id}/deliveries`],
        ['POST', `/v1/webhooks/${id}/test`],
        ['POST', `/v1/webhooks/${id}/rotate-secret`],
        ['DELETE', `/v1/webhooks/${id}`],
      ] as const) {
        const res = await stranger.request(method, url, method === 'POST' ? { body: {} } : {});
        assert.equal(res.status, 404, `${method} ${url}`);
      }
      assert.equal((await owner.request('DELETE', `/v1/webhooks/${id}`)).status, 204);
      assert.equal((await owner.request('GET', `/v1/webhooks/${id}`)).status, 404);
    });

    it('shows the event a delivery sent, in the endpoint’s version, and never another tenant’s', async (t) => {
      const answering = await startReceiver(() => ({
        status: 202,
        body: '{"queued":true,"note":"<b>not html</b>"}',
      }));
      t.after(() => answering.close());
      // A store pinned to the oldest version registers an endpoint, then moves to the latest.
      const mine = browser(ctx.app);
      const account = await signup(mine);
      const oldest = ctx.deps.versions.list()[0]?.version ?? '';
      const latest = ctx.deps.versions.latest.version;
      await ctx.deps.tenants.setApiVersion(account.body.tenant.id, oldest);
      const created = await mine.request<{ id: string; api_version: string }>('POST', '/v1/webhooks', {
        body: { url: `${answering.url}/hooks/events`, events: ['order.created'] },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      await ctx.deps.tenants.setApiVersion(account.body.tenant.id, latest);
      assert.equal(
        created.body.api_version,
        oldest,
        'the endpoint renders its payloads in the oldest version',
      );
      assert.equal(
        (await mine.request('POST', `/v1/webhooks/${created.body.id}/test`, { body: {} })).status,
        202,
      );
      const [sent] = await answering.waitFor(1);
      assert.ok(sent);
      const delivery = await eventually(async () => {
        const res = await mine.request<{
          data: { event_id: string; status: string; response: string; response_body: string | null }[];
        }>('GET', `/v1/webhooks/${created.body.id}/deliveries`);
        return res.body.data[0]?.status === 'succeeded' ? res.body.data[0] : undefined;
      });
      assert.equal(delivery.response, '202 Accepted');
      assert.equal(delivery.response_body, '{"queued":true,"note":"<b>not html</b>"}');

      // Rendered in the endpoint's version, the event is exactly the body the receiver got.
      const url = `/v1/events/${delivery.event_id}`;
      const event = await mine.request<{ id: string; type: string; api_version: string }>('GET', url, {
        headers: { 'x-service-version': created.body.api_version },
      });
      assert.equal(event.status, 200, JSON.stringify(event.body));
      assert.deepEqual(event.body, JSON.parse(sent.body));
      assert.equal(event.body.id, delivery.event_id);
      assert.equal(event.body.type, 'webhook.test');
      assert.equal(event.body.api_version, oldest);
      // Without a version, the store's pinned one.
      const pinned = await mine.request<{ api_version: string }>('GET', url);
      assert.equal(pinned.status, 200);
      assert.equal(pinned.body.api_version, latest);
      const malformed = await mine.request<{ code: string }>('GET', url, {
        headers: { 'x-service-version': 'yesterday' },
      });
      assert.equal(malformed.status, 400);
      assert.equal(malformed.body.code, 'invalid_version');

      // Another tenant's event is not found, an unknown one neither, and no session is a 401.
      const theirs = await stranger.request<{ code: string }>('GET', url);
      assert.equal(theirs.status, 404);
      assert.equal(theirs.body.code, 'not_found');
      assert.equal((await mine.request('GET', '/v1/events/evt_missing')).status, 404);
      const anonymous = await browser(ctx.app).request<{ code: string }>('GET', url);
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.body.code, 'authentication_required');
    });

    it('installs, rates and uninstalls plugins for the tenant', async () => {
      const search = await owner.request<{ data: { id: string; name: string; installs: number }[] }>(
        'GET',
        '/v1/plugins?q=sold&category=inventory',
      );
      assert.equal(search.status, 200);
      const plugin = search.body.data[0];
      assert.ok(plugin);
      assert.match(plugin.name, /Sold-out/);
      const install = await owner.request<{ installed: boolean; installs: number }>(
        'POST',
        `/v1/plugins/${plugin.id}/install`,
        { body: {} },
      );
      assert.equal(install.status, 201);
      assert.equal(install.body.installed, true);
      assert.equal(install.body.installs, plugin.installs + 1);
      const twice = await owner.request<{ installs: number }>('POST', `/v1/plugins/${plugin.id}/install`, {
        body: {},
      });
      assert.equal(twice.status, 200);
      assert.equal(twice.body.installs, plugin.installs + 1);
      const theirs = await stranger.request<{ data: { installed: boolean }[] }>(
        'GET',
        '/v1/plugins?q=sold&category=inventory',
      );
      assert.equal(theirs.body.data[0]?.installed, false);

      const rate = await owner.request<{ stars: number }>('POST', `/v1/plugins/${plugin.id}/ratings`, {
        body: { stars: 4 },
      });
      assert.equal(rate.status, 201);
      const rerate = await owner.request('POST', `/v1/plugins/${plugin.id}/ratings`, {
        body: { stars: 5 },
      });
      assert.equal(rerate.status, 200);
      const bad = await owner.request('POST', `/v1/plugins/${plugin.id}/ratings`, {
        body: { stars: 6 },
      });
      assert.equal(bad.status, 400);
      const removed = await owner.request<{ installed: boolean; installs: number }>(
        'DELETE',
        `/v1/plugins/${plugin.id}/install`,
      );
      assert.equal(removed.body.installed, false);
      assert.equal(removed.body.installs, plugin.installs);
    });

    it("reports the tenant's API usage, console calls included", async () => {
      const fresh = browser(ctx.app);
      const account = await signup(fresh);
      const api = client(ctx.app, account.body.api_key?.key);
      for (let i = 0; i < 3; i++) assert.equal((await api('GET', '/v1/users/me')).status, 200);
      assert.equal((await api('GET', '/v1/orders/ord_missing')).status, 404);
      for (let i = 0; i < 2; i++) assert.equal((await fresh.request('GET', '/v1/api-keys')).status, 200);
      const usage = await fresh.request<{
        total_calls: number;
        total_errors: number;
        quota: { used: number; limit: number; warning: boolean };
        top_endpoints: { endpoint: string; calls: number }[];
        daily_calls: { calls: number }[];
      }>('GET', '/v1/usage');
      assert.equal(usage.status, 200);
      // Four calls with the key and two with the session; the quota counts this one too.
      assert.equal(usage.body.total_calls, 6);
      assert.equal(usage.body.total_errors, 1);
      assert.equal(usage.body.quota.used, 7);
      assert.equal(usage.body.quota.limit, 10_000, 'sign-ups start on the free plan');
      assert.equal(usage.body.quota.warning, false);
      assert.equal(usage.body.top_endpoints[0]?.endpoint, 'GET /users/me');
      assert.equal(usage.body.top_endpoints[0]?.calls, 3);
      assert.equal(usage.body.top_endpoints[1]?.endpoint, 'GET /api-keys');
      assert.equal(usage.body.top_endpoints[1]?.calls, 2);
      assert.equal(usage.body.daily_calls.length, 7);
      assert.equal(usage.body.daily_calls[6]?.calls, 6);
      const week = await fresh.request<{ total_calls: number }>('GET', '/v1/usage?period=7d');
      assert.equal(week.body.total_calls, 7, 'the GET /usage above is a call too');
      assert.equal((await fresh.request('GET', '/v1/usage?period=year')).status, 400);
    });

    it("lists the plans and the store's limits from the server, custom ones included", async () => {
      const b = browser(ctx.app);
      const account = await signup(b);
      const session = async () =>
        (
          await b.request<{
            tenant: { plan: string };
            plans: { name: string; hourly: number; monthly: number; current: boolean }[];
            limits: { hourly: number; monthly: number; custom: boolean };
          }>('GET', '/console/api/session')
        ).body;
      const plans = Object.entries(PLAN_LIMITS).map(([name, limits]) => ({
        name,
        ...limits,
        current: name === 'free',
      }));
      assert.deepEqual(account.body.plans, plans, 'sign-up answers with them too');
      assert.deepEqual(account.body.limits, { ...PLAN_LIMITS.free, custom: false });
      assert.deepEqual((await session()).limits, { ...PLAN_LIMITS.free, custom: false });

      // The operator moves the store to Pro and sets its own monthly quota (tenant:set-limits).
      await ctx.deps.tenants.setLimits(account.body.tenant.id, { plan: 'pro', monthly: 4321 });
      const moved = await session();
      assert.equal(moved.tenant.plan, 'pro');
      assert.deepEqual(
        moved.plans.filter((p) => p.current).map((p) => p.name),
        ['pro'],
      );
      assert.deepEqual(moved.limits, { hourly: PLAN_LIMITS.pro.hourly, monthly: 4321, custom: true });
      await ctx.deps.tenants.setLimits(account.body.tenant.id, { monthly: null });
      assert.deepEqual((await session()).limits, { ...PLAN_LIMITS.pro, custom: false });
    });

    it('shows the pinned version and upgrades the tenant through /v1', async () => {
      const b = browser(ctx.app);
      const account = await signup(b);
      const oldest = ctx.deps.versions.list()[0]?.version ?? '';
      const latest = ctx.deps.versions.latest.version;
      await ctx.deps.tenants.setApiVersion(account.body.tenant.id, oldest);
      const info = await b.request<{ pinned: string; latest: string }>('GET', '/v1/versions');
      assert.equal(info.status, 200);
      assert.equal(info.body.pinned, oldest);
      assert.equal(info.body.latest, latest);

      assert.equal((await b.request('POST', '/v1/versions/upgrade', { body: {}, noCsrf: true })).status, 401);
      const bogus = await b.request('POST', '/v1/versions/upgrade', { body: { version: '1999-01-01' } });
      assert.equal(bogus.status, 400);
      const upgraded = await b.request<{ previous_version: string; api_version: string }>(
        'POST',
        '/v1/versions/upgrade',
        { body: {} },
      );
      assert.equal(upgraded.status, 200);
      assert.deepEqual(upgraded.body, { previous_version: oldest, api_version: latest });
      const pinned = await client(ctx.app, account.body.api_key?.key)<{ pinned: string }>(
        'GET',
        '/v1/versions',
      );
      assert.equal(pinned.body.pinned, latest);
      const down = await b.request('POST', '/v1/versions/upgrade', { body: { version: oldest } });
      assert.equal(down.status, 400);
    });
  });
}

describe('console pages', () => {
  let root: string;
  let app: FastifyInstance;
  let missing: FastifyInstance;

  async function serve(dir: string): Promise<FastifyInstance> {
    // As in app.ts: a trailing slash is ignored by the router, and the console's not-found answers
    // decide 404 or 405 from the same table.
    const instance = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
    const routes = new RouteTable();
    instance.decorate('routeTable', routes);
    instance.addHook('onRoute', (route) => routes.add(route.method, route.url));
    installErrorHandler(instance);
    installNotFoundHandler(instance, routes);
    await instance.register(consolePages({ root: dir }));
    await instance.ready();
    return instance;
  }

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-console-'));
    fs.mkdirSync(path.join(root, 'assets'));
    fs.writeFileSync(
      path.join(root, 'index.html'),
      '<!doctype html><title>Console</title><div id="root"></div>',
    );
    fs.writeFileSync(path.join(root, 'assets', 'index-AbC123.js'), 'console.log("app")');
    fs.writeFileSync(path.join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    app = await serve(root);
    missing = await serve(path.join(root, 'not-built'));
  });
  after(async () => {
    await app.close();
    await missing.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('serves index.html for every page route, uncached, with a strict CSP', async () => {
    for (const url of [
      '/console',
      '/console/',
      '/console/keys',
      '/console/keys/',
      '/console/webhooks/wh_123',
      '/console/webhooks/wh_123/',
    ]) {
      const res = await app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.match(String(res.headers['content-type']), /text\/html/, url);
      assert.match(res.body, /<div id="root">/);
      assert.equal(res.headers['cache-control'], 'no-cache');
      assert.match(String(res.headers['content-security-policy']), /script-src 'self'/);
      assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
    }
  });

  it('serves hashed assets with a long immutable cache, and a missing asset is a JSON 404', async () => {
    const asset = await app.inject({ method: 'GET', url: '/console/assets/index-AbC123.js' });
    assert.equal(asset.statusCode, 200);
    assert.match(String(asset.headers['content-type']), /javascript/);
    assert.match(String(asset.headers['cache-control']), /max-age=31536000/);
    assert.match(String(asset.headers['cache-control']), /immutable/);
    const icon = await app.inject({ method: 'GET', url: '/console/favicon.svg' });
    assert.equal(icon.statusCode, 200);
    assert.doesNotMatch(String(icon.headers['cache-control']), /immutable/);
    for (const url of [
      '/console/assets/nope.js',
      '/console/assets/..%2Findex.html',
      '/console/api/unknown',
      '/console/api',
      '/console/assets',
      '/console/robots.txt',
      '/console/../package.json',
    ]) {
      const res = await app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.match(String(res.headers['content-type']), /application\/problem\+json/, url);
    }
  });

  it("answers index.html with a 404 for an unknown page, so the app shows its own 'Page not found'", async () => {
    for (const url of ['/console/no-such-page', '/console/keys/extra/', '/console/anything?x=1']) {
      const res = await app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.match(String(res.headers['content-type']), /text\/html/, url);
      assert.match(res.body, /<div id="root">/, url);
      assert.equal(res.headers['cache-control'], 'no-cache', url);
      assert.match(String(res.headers['content-security-policy']), /script-src 'self'/, url);
    }
    // Other methods get the JSON answers they get everywhere else.
    const post = await app.inject({ method: 'POST', url: '/console/no-such-page' });
    assert.equal(post.statusCode, 404);
    assert.match(String(post.headers['content-type']), /application\/problem\+json/);
    const put = await app.inject({ method: 'PUT', url: '/console/keys' });
    assert.equal(put.statusCode, 405);
    assert.equal(put.headers.allow, 'GET, HEAD');
    const unbuilt = await missing.inject({ method: 'GET', url: '/console/no-such-page' });
    assert.equal(unbuilt.statusCode, 503);
  });

  it('answers a problem+json 503 that says to build when the console is not built', async () => {
    for (const url of ['/console', '/console/usage', '/console/assets/index-AbC123.js']) {
      const res = await missing.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 503, url);
      assert.match(String(res.headers['content-type']), /application\/problem\+json/);
      const body = res.json<{ code: string; detail: string }>();
      assert.equal(body.code, 'service_unavailable');
      assert.match(body.detail, /npm run build/);
    }
  });
});
