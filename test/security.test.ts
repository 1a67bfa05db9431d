import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseSetCookie } from 'cookie';
import { buildApp } from '../src/app.js';
import { STOREFRONT_SECRET_PERMISSION } from '../src/http/auth.js';
import { ManualClock } from '../src/lib/clock.js';
import { randomBase62 } from '../src/lib/ids.js';
import { SESSION_COOKIE } from '../src/modules/console/console.session.js';
import { client, createTenant, createTestContext, LOGIC_ONLY, type TestContext } from './helpers/context.js';
import type { Problem } from './helpers/responses.js';

/** The public routes under /v1; every other /v1 route must demand a key. */
const PUBLIC_V1 = ['/v1/openapi.json'];
/** The origin of `app.inject`'s requests (Host `localhost:80`), which a console session writes from. */
const ORIGIN = 'http://localhost:80';

for (const dialect of LOGIC_ONLY) {
  describe(`authentication and permissions on every route (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock();
    let fullKey: string;
    let revokedKey: string;
    let expiredKey: string;
    let onlyUsersKey: string;
    let onlyUsageKey: string;
    /** A console session's cookie and CSRF token, and those of a session that ended. */
    let session: { cookie: string; token: string };
    let endedSession: { cookie: string; token: string };

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
      fullKey = (await createTenant(ctx)).apiKey.key;
      const api = client(ctx.app, fullKey);
      const make = async (permissions: string[], extra: Record<string, unknown> = {}) => {
        const res = await api<{ id: string; key: string }>('POST', '/v1/api-keys', {
          body: { name: 'probe', permissions, ...extra },
        });
        assert.equal(res.status, 201);
        return res.body;
      };
      onlyUsersKey = (await make(['read:users'])).key;
      onlyUsageKey = (await make(['read:usage'])).key;
      const revoked = await make(['read:users']);
      assert.equal((await api('DELETE', `/v1/api-keys/${revoked.id}`)).status, 204);
      revokedKey = revoked.key;
      expiredKey = (
        await make(['read:users'], { expires_at: new Date(clock.now() + 3_600_000).toISOString() })
      ).key;
      // The expiring key works until its time comes.
      assert.equal((await client(ctx.app, expiredKey)('GET', '/v1/users/me')).status, 200);
      // Console sessions: one live, one logged out.
      const login = async (address: string) => {
        const res = await ctx.app.inject({
          method: 'POST',
          url: '/console/api/signup',
          remoteAddress: address,
          payload: {
            store_name: 'Probe',
            email: `probe-${randomBase62(8).toLowerCase()}@example.com`,
            password: 'a long enough password',
          },
        });
        assert.equal(res.statusCode, 201);
        const cookie = parseSetCookie(String(res.headers['set-cookie']));
        return {
          cookie: `${SESSION_COOKIE}=${cookie.value ?? ''}`,
          token: res.json<{ csrf_token: string }>().csrf_token,
        };
      };
      endedSession = await login('10.9.0.1');
      const logout = await ctx.app.inject({
        method: 'POST',
        url: '/console/api/logout',
        headers: { cookie: endedSession.cookie, 'x-csrf-token': endedSession.token, origin: ORIGIN },
      });
      assert.equal(logout.statusCode, 204);
      clock.advance(2 * 3_600_000);
      session = await login('10.9.0.2');
    });
    after(() => ctx.close());

    function protectedRoutes() {
      return ctx.app.routeTable.entries.filter(
        (r) => r.url.startsWith('/v1') && r.method !== 'HEAD' && !PUBLIC_V1.includes(r.url),
      );
    }

    it('every /v1 route declares what it requires, and only the documented ones are public', () => {
      const routes = ctx.app.routeTable.entries.filter((r) => r.url.startsWith('/v1'));
      assert.ok(routes.length >= 8);
      for (const route of routes) assert.ok(route.auth, `${route.method} ${route.url} declares no auth`);
      const publicOnes = routes.filter((r) => r.auth === 'public').map((r) => r.url);
      assert.deepEqual([...new Set(publicOnes)].sort(), PUBLIC_V1);
    });

    it('refuses to build an app with an unguarded /v1 route', async () => {
      await assert.rejects(
        buildApp(ctx.deps, {
          extraRoutes: (app) => {
            app.get('/v1/unguarded', async () => ({ ok: true }));
          },
        }),
        /declares no config.auth/,
      );
    });

    it('answers every protected route with the right 401 or 403', async () => {
      const routes = protectedRoutes();
      const cases: [string, Record<string, string>, number, string][] = [
        ['no header', {}, 401, 'authentication_required'],
        ['basic scheme', { authorization: 'Basic dXNlcjpwYXNz' }, 401, 'authentication_required'],
        ['empty bearer', { authorization: 'Bearer' }, 401, 'authentication_required'],
        ['unknown key', { authorization: `Bearer sk_live_${randomBase62(40)}` }, 401, 'invalid_api_key'],
        ['not a key', { authorization: 'Bearer hello' }, 401, 'invalid_api_key'],
        ['revoked key', { authorization: `Bearer ${revokedKey}` }, 401, 'invalid_api_key'],
        ['expired key', { authorization: `Bearer ${expiredKey}` }, 401, 'api_key_expired'],
        ['session cookie without its token', { cookie: session.cookie }, 401, 'authentication_required'],
        [
          'session token without its cookie',
          { 'x-csrf-token': session.token },
          401,
          'authentication_required',
        ],
        [
          'ended session',
          { cookie: endedSession.cookie, 'x-csrf-token': endedSession.token, origin: ORIGIN },
          401,
          'authentication_required',
        ],
      ];
      for (const [index, route] of routes.entries()) {
        const url = route.url.replace(/:(\w+)/g, 'xyz');
        // Each route from its own address: one address presenting this many bad keys is refused
        // with 429 before its keys are read (see the API key tests).
        const remoteAddress = `127.1.${index >> 8}.${index & 255}`;
        for (const [label, headers, status, code] of cases) {
          const res = await ctx.app.inject({ method: route.method as 'GET', url, headers, remoteAddress });
          assert.equal(res.statusCode, status, `${label}: ${route.method} ${url} -> ${res.body}`);
          assert.match(String(res.headers['content-type']), /application\/problem\+json/);
          const body = res.json<Problem>();
          assert.equal(body.code, code, `${label}: ${route.method} ${url}`);
          assert.equal(body.request_id, res.headers['x-request-id']);
          assert.match(String(res.headers['www-authenticate']), /^Bearer/);
        }
        // A live session with its token passes the gate of every route (the route may still find
        // nothing, or refuse the empty body), holding every permission; it writes from the
        // console's own origin, as a browser does.
        const admitted = await ctx.app.inject({
          method: route.method as 'GET',
          url,
          headers: { cookie: session.cookie, 'x-csrf-token': session.token, origin: ORIGIN },
        });
        // The shopper's own routes answer 401 `invalid_customer_token` past the gate: they also
        // need the shopper's `X-Customer-Token`, which no session carries.
        const needsShopper =
          admitted.statusCode === 401 && admitted.json<Problem>().code === 'invalid_customer_token';
        // Test mode's own routes answer a live session 403 `wrong_mode` past the gate.
        const otherMode = admitted.statusCode === 403 && admitted.json<Problem>().code === 'wrong_mode';
        assert.ok(
          needsShopper || otherMode || ![401, 403, 429].includes(admitted.statusCode),
          `session: ${route.method} ${url} -> ${admitted.body}`,
        );
        // A live session with another token is refused before anything of the route runs.
        const forged = await ctx.app.inject({
          method: route.method as 'GET',
          url,
          headers: { cookie: session.cookie, 'x-csrf-token': randomBase62(43), origin: ORIGIN },
        });
        assert.equal(forged.statusCode, 403, `forged token: ${route.method} ${url}`);
        assert.equal(forged.json<Problem>().code, 'insufficient_permissions');
        if (route.auth !== 'any_key') {
          const lacking = route.auth === 'read:users' ? onlyUsageKey : onlyUsersKey;
          const res = await ctx.app.inject({
            method: route.method as 'GET',
            url,
            headers: { authorization: `Bearer ${lacking}` },
          });
          assert.equal(res.statusCode, 403, `${route.method} ${url} without ${route.auth}`);
          const body = res.json<Problem>();
          assert.equal(body.code, 'insufficient_permissions');
          // A storefront route asks a secret key for the permission to read the catalog.
          assert.equal(
            body.required_permission,
            route.auth === 'storefront' ? STOREFRONT_SECRET_PERMISSION : route.auth,
          );
        }
      }
    });
  });
}
