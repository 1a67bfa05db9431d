import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buyerIpOf, principalOf } from './auth.js';
import {
  client,
  createTenant,
  createTestContext,
  LOGIC_ONLY,
  type TestContext,
} from '../../test/helpers/context.js';
import type { Problem } from '../../test/helpers/responses.js';

/** A storefront route of the test's own, answering what the gate recorded of the call. */
const PROBE = '/v1/store/gate-probe';
/** One answering the same bytes to every key. */
const SAME = '/v1/store/gate-probe/same';
const SHOP = 'https://shop.example.com';
const DEV = 'http://localhost:5173';

/** The `Access-Control-*` headers of an answer. */
function corsHeaders(headers: Headers | Record<string, unknown>): string[] {
  const names = headers instanceof Headers ? [...headers.keys()] : Object.keys(headers);
  return names.filter((name) => name.toLowerCase().startsWith('access-control-'));
}

for (const dialect of LOGIC_ONLY) {
  describe(`the storefront gate: publishable keys, buyer address and CORS (${dialect})`, () => {
    let ctx: TestContext;
    let secret: string;
    let publishable: string;
    /** A secret key without `read:products`. */
    let noCatalog: string;
    let base: string;

    before(async () => {
      ctx = await createTestContext(dialect, {
        extraRoutes: (app) => {
          app.get(PROBE, { config: { auth: 'storefront' }, schema: { hide: true } }, async (request) => ({
            type: principalOf(request).key.type,
            buyer_ip: buyerIpOf(request),
          }));
          app.get(SAME, { config: { auth: 'storefront' }, schema: { hide: true } }, async () => ({
            ok: true,
          }));
        },
      });
      const tenant = await createTenant(ctx);
      secret = tenant.apiKey.key;
      const api = client(ctx.app, secret);
      const made = await api<{ key: string }>('POST', '/v1/api-keys', {
        body: { type: 'publishable', name: 'Shop', allowed_origins: [SHOP, DEV] },
      });
      assert.equal(made.status, 201);
      publishable = made.body.key;
      noCatalog = (
        await api<{ key: string }>('POST', '/v1/api-keys', {
          body: { name: 'Orders only', permissions: ['read:orders'] },
        })
      ).body.key;
      await ctx.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    });
    after(() => ctx.close());

    it('refuses a publishable key on every route outside /v1/store, and lets it through on every store route', async () => {
      const routes = ctx.app.routeTable.entries.filter(
        (r) => r.url.startsWith('/v1') && r.method !== 'HEAD' && r.auth !== 'public',
      );
      const outside = routes.filter((r) => !r.url.startsWith('/v1/store/'));
      const store = routes.filter((r) => r.url.startsWith('/v1/store/'));
      assert.ok(outside.length > 50, `${outside.length} routes outside the store`);
      assert.ok(store.some((r) => r.url === PROBE));
      for (const route of outside) {
        const url = route.url.replace(/:(\w+)/g, 'xyz');
        const res = await ctx.app.inject({
          method: route.method as 'GET',
          url,
          headers: { authorization: `Bearer ${publishable}`, origin: SHOP },
        });
        assert.equal(res.statusCode, 403, `${route.method} ${url} -> ${res.body}`);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        assert.equal(res.json<Problem>().code, 'publishable_key_not_allowed', `${route.method} ${url}`);
        assert.deepEqual(corsHeaders(res.headers), [], `${route.method} ${url} sends no CORS header`);
      }
      for (const route of store) {
        assert.equal(route.auth, 'storefront', `${route.method} ${route.url}`);
        const url = route.url.replace(/:(\w+)/g, 'xyz');
        const res = await ctx.app.inject({
          method: route.method as 'GET',
          url,
          headers: { authorization: `Bearer ${publishable}`, origin: SHOP },
        });
        // The key passed the gate: what the route answers then (a 404 for `xyz`, a 401 for a
        // missing shopper's token) is the route's own.
        const code = res.statusCode >= 400 ? res.json<Problem>().code : undefined;
        assert.ok(
          ![
            'publishable_key_not_allowed',
            'origin_not_allowed',
            'insufficient_permissions',
            'invalid_api_key',
          ].includes(String(code)),
          `${route.method} ${url} -> ${res.body}`,
        );
        assert.equal(res.headers['access-control-allow-origin'], SHOP, `${route.method} ${url}`);
      }
    });

    it('admits a secret key on a store route only with read:products', async () => {
      const ok = await client(ctx.app, secret)('GET', PROBE);
      assert.equal(ok.status, 200);
      assert.equal(ok.body.type, 'secret');
      const refused = await client(ctx.app, noCatalog)<Problem>('GET', PROBE);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'insufficient_permissions');
      assert.equal(refused.body.required_permission, 'read:products');
    });

    it("records the buyer's address: the caller's for a publishable key, X-Buyer-IP for a secret key", async () => {
      const probe = (key: string, headers: Record<string, string> = {}) =>
        ctx.app.inject({
          method: 'GET',
          url: PROBE,
          remoteAddress: '198.51.100.7',
          headers: { authorization: `Bearer ${key}`, ...headers },
        });
      const buyer = async (key: string, headers?: Record<string, string>) => {
        const res = await probe(key, headers);
        assert.equal(res.statusCode, 200, res.body);
        return res.json<{ buyer_ip: string }>().buyer_ip;
      };
      assert.equal(await buyer(publishable), '198.51.100.7');
      // A browser's page cannot choose the address it is counted by.
      assert.equal(await buyer(publishable, { 'x-buyer-ip': '203.0.113.9' }), '198.51.100.7');
      // A server-rendered shop names its shopper.
      assert.equal(await buyer(secret, { 'x-buyer-ip': '203.0.113.9' }), '203.0.113.9');
      assert.equal(await buyer(secret, { 'x-buyer-ip': ' 2001:db8::5 ' }), '2001:db8::5');
      for (const bad of ['', 'not-an-ip', '203.0.113.9, 10.0.0.1', '999.1.1.1'])
        assert.equal(await buyer(secret, { 'x-buyer-ip': bad }), '198.51.100.7', bad);
      assert.equal(await buyer(secret), '198.51.100.7');
    });

    it('checks the Origin of a publishable key against its own allowed_origins', async () => {
      const call = (key: string, origin?: string) =>
        ctx.app.inject({
          method: 'GET',
          url: PROBE,
          headers: { authorization: `Bearer ${key}`, ...(origin ? { origin } : {}) },
        });
      const allowed = await call(publishable, DEV);
      assert.equal(allowed.statusCode, 200);
      assert.equal(allowed.headers['access-control-allow-origin'], DEV);
      assert.match(String(allowed.headers.vary), /Origin/);
      assert.match(String(allowed.headers['access-control-expose-headers']), /RateLimit/);
      assert.match(String(allowed.headers['access-control-expose-headers']), /X-Request-Id/);
      // Without an Origin (a native app, a server, curl): no CORS, no refusal.
      const none = await call(publishable);
      assert.equal(none.statusCode, 200);
      assert.deepEqual(corsHeaders(none.headers), []);
      // Another origin, or one listed by another store's key only: refused, and no CORS header.
      for (const origin of [
        'https://evil.example',
        'https://shop.example.com:8443',
        'null',
        'HTTPS://SHOP.EXAMPLE.COM',
      ]) {
        const refused = await call(publishable, origin);
        assert.equal(refused.statusCode, 403, origin);
        assert.equal(refused.json<Problem>().code, 'origin_not_allowed');
        assert.deepEqual(corsHeaders(refused.headers), [], origin);
        assert.match(String(refused.headers.vary), /Origin/);
      }
      // A secret key from a browser: served (a server sends what it likes) but never with CORS
      // headers, so a browser never hands the answer to the page.
      const bySecret = await call(secret, SHOP);
      assert.equal(bySecret.statusCode, 200);
      assert.deepEqual(corsHeaders(bySecret.headers), []);
    });

    it('never answers a secret key from a browser with a 304 of what a publishable key was sent', async () => {
      const call = (key: string, headers: Record<string, string>) =>
        ctx.app.inject({
          method: 'GET',
          url: SAME,
          headers: { authorization: `Bearer ${key}`, ...headers },
        });
      const first = await call(publishable, { origin: SHOP });
      const tag = String(first.headers.etag);
      assert.match(tag, /^"/);
      assert.match(String(first.headers.vary), /Origin, Authorization/);
      // The publishable key's own revalidation: 304, with its CORS headers again.
      const again = await call(publishable, { origin: SHOP, 'if-none-match': tag });
      assert.equal(again.statusCode, 304);
      assert.equal(again.headers['access-control-allow-origin'], SHOP);
      // The same bytes for a secret key from a browser: in full, without CORS headers.
      const bySecret = await call(secret, { origin: SHOP, 'if-none-match': tag });
      assert.equal(bySecret.statusCode, 200);
      assert.deepEqual(corsHeaders(bySecret.headers), []);
      // A server's secret key (no Origin) still gets its 304.
      const server = await call(secret, { 'if-none-match': String(bySecret.headers.etag) });
      assert.equal(server.statusCode, 304);
    });

    it("admits a publishable key's call from the API's own origin (its own pages), without CORS headers", async () => {
      const res = await fetch(`${base}${PROBE}`, {
        headers: { authorization: `Bearer ${publishable}`, origin: base },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(corsHeaders(res.headers), []);
    });

    it('answers a preflight of a store path for an origin some key allows, and refuses the others', async () => {
      const preflight = (path: string, origin: string) =>
        fetch(`${base}${path}`, {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization, content-type, idempotency-key',
          },
        });
      for (const path of [PROBE, '/v1/store/carts', '/v1/store/products?limit=5']) {
        const res = await preflight(path, SHOP);
        assert.equal(res.status, 204, path);
        assert.equal(res.headers.get('access-control-allow-origin'), SHOP);
        assert.match(String(res.headers.get('vary')), /Origin/);
        assert.match(String(res.headers.get('access-control-allow-methods')), /POST/);
        assert.match(String(res.headers.get('access-control-allow-methods')), /PATCH/);
        const allowHeaders = String(res.headers.get('access-control-allow-headers'));
        for (const header of [
          'Authorization',
          'Content-Type',
          'Idempotency-Key',
          'X-Customer-Token',
          'X-Service-Version',
        ])
          assert.ok(allowHeaders.includes(header), header);
        assert.match(String(res.headers.get('access-control-max-age')), /^\d+$/);
        assert.ok(res.headers.get('x-request-id'));
      }
      for (const origin of ['https://evil.example', 'null', `${SHOP}/`, 'https://*.example.com']) {
        const res = await preflight(PROBE, origin);
        assert.equal(res.status, 403, origin);
        assert.equal(((await res.json()) as Problem).code, 'origin_not_allowed');
        assert.deepEqual(corsHeaders(res.headers), [], origin);
      }
    });

    it('sends no CORS header from any route outside /v1/store, to a preflight or a request', async () => {
      for (const path of [
        '/v1/products',
        '/v1/api-keys',
        '/v1/users/me',
        '/v1/store',
        '/console/',
        '/docs',
      ]) {
        const preflight = await fetch(`${base}${path}`, {
          method: 'OPTIONS',
          headers: { origin: SHOP, 'access-control-request-method': 'GET' },
        });
        assert.notEqual(preflight.status, 204, path);
        assert.deepEqual(corsHeaders(preflight.headers), [], `OPTIONS ${path}`);
        const request = await fetch(`${base}${path}`, {
          headers: { origin: SHOP, authorization: `Bearer ${secret}` },
        });
        assert.deepEqual(corsHeaders(request.headers), [], `GET ${path}`);
      }
      // The admin product list answers a publishable key with 403, without CORS, from any origin.
      const res = await fetch(`${base}/v1/products`, {
        headers: { origin: SHOP, authorization: `Bearer ${publishable}` },
      });
      assert.equal(res.status, 403);
      assert.deepEqual(corsHeaders(res.headers), []);
    });

    it('still limits and meters the storefront calls of a publishable key as its tenant’s', async () => {
      const res = await ctx.app.inject({
        method: 'GET',
        url: PROBE,
        headers: { authorization: `Bearer ${publishable}`, origin: SHOP },
      });
      assert.equal(res.statusCode, 200);
      assert.ok(res.headers['ratelimit'], 'the rate-limit headers of the tenant');
    });
  });
}
