import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { client, createTenant, createTestContext, DIALECTS, type TestContext } from './helpers/context.js';
import type { Page, Problem } from './helpers/responses.js';

interface OpenApi {
  paths: Record<string, { get?: { parameters?: { in: string; name: string }[] } }>;
}

for (const dialect of DIALECTS) {
  describe(`HTTP transport rules (${dialect})`, () => {
    let ctx: TestContext;
    let key: string;

    before(async () => {
      ctx = await createTestContext(dialect);
      key = (await createTenant(ctx)).apiKey.key;
    });
    after(() => ctx.close());

    const countKeys = async () =>
      (await client(ctx.app, key)<Page<unknown>>('GET', '/v1/api-keys')).body.total;

    it('answers an unknown path with a JSON 404 and an unknown method with 405 and Allow', async () => {
      const api = client(ctx.app, key);
      const missing = await api('GET', '/v1/nothing-here');
      assert.equal(missing.status, 404);
      assert.match(String(missing.headers['content-type']), /application\/problem\+json/);
      assert.equal(missing.body.code, 'not_found');
      const wrong = await api('PUT', '/v1/users/me');
      assert.equal(wrong.status, 405);
      assert.equal(wrong.body.code, 'method_not_allowed');
      assert.equal(wrong.headers.allow, 'GET, HEAD');
    });

    it('answers a path with a trailing slash as the path without it', async () => {
      const api = client(ctx.app, key);
      const created = await api<{ id: string }>('POST', '/v1/products/', {
        body: { name: 'Slashed', price: 700 },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = created.body.id;
      const list = await api<Page<{ id: string }>>('GET', '/v1/products/');
      assert.equal(list.status, 200, JSON.stringify(list.body));
      assert.deepEqual(
        list.body.data.map((p) => p.id),
        [id],
      );
      const one = await api<{ id: string }>('GET', `/v1/products/${id}/`);
      assert.equal(one.status, 200);
      assert.equal(one.body.id, id);
      const patched = await api<{ name: string }>('PATCH', `/v1/products/${id}/`, {
        body: { name: 'Renamed' },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.equal(patched.body.name, 'Renamed');
      assert.equal((await api('GET', '/v1/users/me/')).status, 200);
      assert.equal((await api('GET', '/healthz/')).status, 200);
      const wrong = await api<Problem>('DELETE', '/v1/products/');
      assert.equal(wrong.status, 405);
      assert.equal(wrong.headers.allow, 'GET, HEAD, POST');
      // A retry without the slash is the same request: its first answer, replayed.
      const once = { body: { name: 'Once', price: 100 }, headers: { 'idempotency-key': 'slash-retry-1' } };
      const first = await api<{ id: string }>('POST', '/v1/products/', once);
      const retried = await api<{ id: string }>('POST', '/v1/products', once);
      assert.equal(first.status, 201);
      assert.equal(retried.status, 201, JSON.stringify(retried.body));
      assert.equal(retried.body.id, first.body.id);
    });

    it('never runs a route with an empty path parameter: no route (404), and nothing changes', async () => {
      const api = client(ctx.app, key);
      const before = (await api<Page<unknown>>('GET', '/v1/products')).body.total;
      const routes = ctx.app.routeTable.entries.filter((route) => route.url.includes(':'));
      assert.ok(routes.length > 20);
      for (const route of routes) {
        // Every parameter empty; a path ending in one gets a slash more, or the router would take
        // the path for its parent's with a trailing slash (`/v1/products/` is the list).
        const emptied = route.url.replace(/:\w+/g, '');
        const url = emptied.endsWith('/') ? `${emptied}/` : emptied;
        const res = await ctx.app.inject({
          method: route.method as 'GET',
          url,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          payload: route.method === 'GET' || route.method === 'HEAD' ? undefined : '{}',
        });
        assert.equal(res.statusCode, 404, `${route.method} ${url}: ${res.body}`);
        if (route.method === 'HEAD') continue;
        const body = JSON.parse(res.body) as Problem;
        assert.equal(body.code, 'not_found', `${route.method} ${url}`);
        assert.equal(body.detail, `No route ${route.method} ${url}.`);
      }
      assert.equal((await api<Page<unknown>>('GET', '/v1/products')).body.total, before);
    });

    it('answers URLs the router refuses (bad percent-encoding, an over-long id) as problems too', async () => {
      const api = client(ctx.app, key);
      const probes = [
        { method: 'GET', url: '/v1/orders/%E0%A4%A', status: 400, code: 'validation_failed' },
        { method: 'POST', url: '/v1/plugins/%ZZ/install', status: 400, code: 'validation_failed' },
        { method: 'GET', url: `/v1/orders/${'a'.repeat(256)}`, status: 404, code: 'not_found' },
      ] as const;
      for (const probe of probes) {
        const res = await api<Problem>(probe.method, probe.url);
        assert.equal(res.status, probe.status, `${probe.url}: ${JSON.stringify(res.body)}`);
        assert.match(String(res.headers['content-type']), /application\/problem\+json/);
        assert.equal(res.body.code, probe.code);
        assert.match(String(res.headers['x-request-id']), /^req_/);
        assert.equal(res.body.request_id, res.headers['x-request-id']);
        assert.ok(res.headers['x-service-version']);
        if (probe.status === 400)
          assert.deepEqual(
            res.body.errors?.map((e) => e.field),
            ['path'],
          );
      }
    });

    it('rejects malformed JSON with 400 invalid_json and changes nothing', async () => {
      const before = await countKeys();
      const res = await client(ctx.app, key)('POST', '/v1/api-keys', {
        payload: '{"name": "x", "permissions": [',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'invalid_json');
      assert.equal(await countKeys(), before);
    });

    it('refuses a __proto__ or constructor.prototype key as a validation error, not as bad JSON', async () => {
      const before = await countKeys();
      for (const payload of [
        '{"name": "x", "permissions": ["read:users"], "__proto__": {"admin": true}}',
        '{"name": "x", "permissions": ["read:users"], "constructor": {"prototype": {"admin": true}}}',
      ]) {
        const res = await client(ctx.app, key)('POST', '/v1/api-keys', {
          payload,
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(res.status, 400, payload);
        assert.equal(res.body.code, 'validation_failed');
        assert.deepEqual(res.body.errors, [
          { field: 'body', message: 'must not use __proto__ or constructor.prototype as a key' },
        ]);
      }
      assert.equal(await countKeys(), before);
    });

    it('rejects a body that is not JSON with 415', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const res = await client(ctx.app, key)('POST', '/v1/api-keys', {
          payload: 'name=x',
          headers: { 'content-type': type },
        });
        assert.equal(res.status, 415, type);
        assert.equal(res.body.code, 'unsupported_media_type');
      }
    });

    it('rejects a body over 1 MiB with 413', async () => {
      const res = await client(ctx.app, key)('POST', '/v1/api-keys', {
        body: { name: 'x', permissions: ['read:users'], padding: 'a'.repeat(1024 * 1024) },
      });
      assert.equal(res.status, 413);
      assert.equal(res.body.code, 'payload_too_large');
    });

    it('lists every failing field, rejects unknown fields and does not coerce types', async () => {
      const before = await countKeys();
      const res = await client(ctx.app, key)<Problem>('POST', '/v1/api-keys', {
        body: { name: 123, permissions: ['read:users', 'fly:planes'], id: 'key_mine', tenant_id: 'ten_x' },
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'validation_failed');
      const fields = res.body.errors?.map((e) => e.field).sort();
      assert.deepEqual(fields, ['id', 'name', 'permissions[1]', 'tenant_id']);
      assert.equal(await countKeys(), before);
      const missing = await client(ctx.app, key)<Problem>('POST', '/v1/api-keys', {});
      assert.equal(missing.status, 400);
      assert.deepEqual(missing.body.errors?.map((e) => e.field).sort(), ['name']);
      // A secret key (the default type) names what it may do; a publishable key may not.
      const unscoped = await client(ctx.app, key)<Problem>('POST', '/v1/api-keys', { body: { name: 'x' } });
      assert.equal(unscoped.status, 400);
      assert.deepEqual(
        unscoped.body.errors?.map((e) => e.field),
        ['permissions'],
      );
      assert.equal(await countKeys(), before);
    });

    it('echoes a valid X-Request-Id and generates one otherwise', async () => {
      const api = client(ctx.app, key);
      const echoed = await api('GET', '/v1/users/me', { headers: { 'x-request-id': 'abc-123.trace' } });
      assert.equal(echoed.headers['x-request-id'], 'abc-123.trace');
      const generated = await api('GET', '/v1/users/me', {
        headers: { 'x-request-id': 'bad id with spaces' },
      });
      assert.match(String(generated.headers['x-request-id']), /^req_[0-9a-f]{32}$/);
      const error = await client(ctx.app)('GET', '/v1/users/me', {
        headers: { 'x-request-id': 'trace-401' },
      });
      assert.equal(error.body.request_id, 'trace-401');
    });

    it('serves health, readiness, the OpenAPI document and the docs page without a key', async () => {
      const anon = client(ctx.app);
      assert.deepEqual((await anon('GET', '/healthz')).body, { status: 'ok' });
      assert.deepEqual((await anon('GET', '/readyz')).body, { status: 'ready' });
      const doc = await anon<{
        openapi: string;
        components: { securitySchemes: Record<string, unknown> };
        paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>>;
      }>('GET', '/v1/openapi.json');
      assert.equal(doc.status, 200);
      assert.equal(doc.body.openapi, '3.1.0');
      assert.ok(doc.body.components.securitySchemes.bearerAuth);
      const me = doc.body.paths['/v1/users/me']?.get;
      assert.ok(me?.security, 'GET /v1/users/me declares its security');
      for (const status of ['200', '401', '403', '429', '500'])
        assert.ok(me.responses[status], `documents ${status}`);
      // Every POST that takes a key takes an Idempotency-Key: its 409 (in flight) and 422 (reused).
      const posts = Object.entries(doc.body.paths).filter(([, item]) => item.post?.security);
      assert.ok(posts.length >= 15, `${posts.length} POST operations`);
      for (const [path, item] of posts) {
        for (const status of ['409', '422'])
          assert.ok(item.post?.responses[status], `POST ${path} documents ${status}`);
      }
      // Problems are documented as the media type they are served as.
      assert.deepEqual(Object.keys((me.responses['401'] as { content: object }).content), [
        'application/problem+json',
      ]);
      const docs = await ctx.app.inject({ method: 'GET', url: '/docs/' });
      assert.equal(docs.statusCode, 200);
      assert.match(docs.body, /<title>Commerce Platform API reference<\/title>/);
      assert.match(docs.body, /<script src="\/docs\/js\/scalar\.js"><\/script>/);
      // Nothing it loads comes from elsewhere: no script, style, image or font by URL.
      assert.doesNotMatch(docs.body, /(src=|href=|url\()["']?https?:/);
      // Problem types link to `/docs#error-…`: the page without the trailing slash too.
      assert.equal((await ctx.app.inject({ method: 'GET', url: '/docs' })).body, docs.body);
      const bundle = await ctx.app.inject({ method: 'GET', url: '/docs/js/scalar.js' });
      assert.equal(bundle.statusCode, 200);
      assert.match(String(bundle.headers['content-type']), /^application\/javascript/);
      assert.ok(bundle.rawPayload.length > 1_000_000, `the bundle is ${bundle.rawPayload.length} bytes`);
    });

    it('refuses paging past its bounds on every list with a 400, never a 500', async () => {
      const api = client(ctx.app, key);
      const forged = (cursor: unknown[]) => Buffer.from(JSON.stringify(cursor)).toString('base64url');
      const doc = (await api<OpenApi>('GET', '/v1/openapi.json')).body;
      const lists = Object.entries(doc.paths)
        .filter(([, item]) => item.get?.parameters?.some((p) => p.in === 'query' && p.name === 'offset'))
        .map(([path]) => `/v1${path.replace(/^\/v1/, '').replace(/\{\w+\}/g, 'xyz')}`);
      assert.ok(lists.length >= 12, `${lists.length} lists`);
      // A shopper's own lists page for the shopper their token signs in.
      const email = 'pager@example.com';
      const password = 'correct horse battery';
      assert.equal((await api('POST', '/v1/store/customers', { body: { email, password } })).status, 201);
      const session = await api<{ token: string }>('POST', '/v1/store/sessions', {
        body: { email, password },
      });
      const headersFor = (url: string): Record<string, string> =>
        url.startsWith('/v1/store/customers/me') ? { 'x-customer-token': session.body.token } : {};
      for (const url of lists) {
        for (const [query, field] of [
          ['offset=99999999999999999999', 'offset'],
          ['offset=1000000001', 'offset'],
          // Past the deepest offset (10,000; page 10,000 / limit + 1): cursor goes deeper.
          ['offset=10001', 'offset'],
          ['page=502', 'page'],
          ['limit=100&page=102', 'page'],
          ['page=10000001', 'page'],
          ['page=461168601842738790', 'page'],
          // Cursors this API never issues: a sort value past 2^53, an offset past the bounds.
          [`cursor=${forged(['-created', 1e300, 'x', 0])}`, 'cursor'],
          [`cursor=${forged(['-created', 1, 'x', 2 ** 53 - 1])}`, 'cursor'],
          [`cursor=${forged(['created', 'abc', 'zzz', 0])}`, 'cursor'],
          [`cursor=${forged(['-created', 'abc', 'zzz', 0])}`, 'cursor'],
        ] as const) {
          const res = await api<Problem>('GET', `${url}?${query}`, { headers: headersFor(url) });
          // A cursor (and the depth of a page) is read once the parent resource is found: an unknown
          // one is a 404 first.
          const deep = /^(offset=10001|page=502|limit=100&page=102)$/.test(query);
          if ((field === 'cursor' || deep) && url.includes('xyz') && res.status === 404) continue;
          assert.equal(res.status, 400, `${url}?${query}: ${JSON.stringify(res.body)}`);
          assert.ok(
            res.body.errors?.some((e) => e.field === field),
            `${url}?${query}`,
          );
          if (deep) {
            assert.match(res.body.errors?.[0]?.message ?? '', /at most 10,000.*cursor/, `${url}?${query}`);
          }
        }
        for (const query of ['offset=10000', 'page=501', 'limit=100&page=101']) {
          const res = await api('GET', `${url}?${query}`, { headers: headersFor(url) });
          assert.ok([200, 404].includes(res.status), `${url}?${query}: ${res.status} ${res.raw.body}`);
        }
      }
    });

    it('refuses a cursor of its own sort whose value has the other type or whose text holds a control character', async () => {
      const api = client(ctx.app, key);
      const encode = (cursor: unknown[]) => Buffer.from(JSON.stringify(cursor)).toString('base64url');
      // Found on PostgreSQL: `GET /plugins?cursor=` with a text `installs` value was a 500.
      const urls = [
        '/v1/plugins',
        '/v1/plugins?sort=rating',
        '/v1/plugins?sort=name',
        '/v1/api-keys',
        '/v1/products?sort=name',
        '/v1/products?sort=-price',
      ];
      await api('POST', '/v1/api-keys', { body: { name: 'Cursor', permissions: ['read:users'] } });
      await api('POST', '/v1/products', { body: { name: 'Cursor A', price: 100 } });
      await api('POST', '/v1/products', { body: { name: 'Cursor B', price: 200 } });
      for (const url of urls) {
        const first = await api<Page<unknown>>('GET', `${url}${url.includes('?') ? '&' : '?'}limit=1`);
        assert.equal(first.status, 200, url);
        const issued = first.body.next_cursor;
        assert.ok(issued, `${url} issued no cursor`);
        const [sort, value, id, offset] = JSON.parse(Buffer.from(issued, 'base64url').toString()) as [
          string,
          string | number,
          string,
          number,
        ];
        const other = typeof value === 'number' ? 'abc' : 42;
        for (const forged of [
          [sort, other, id, offset],
          [sort, value, `${id}\u0000`, offset],
          ...(typeof value === 'string' ? [[sort, `${value}\u0000`, id, offset]] : []),
        ]) {
          const res = await api<Problem>(
            'GET',
            `${url}${url.includes('?') ? '&' : '?'}cursor=${encode(forged)}`,
          );
          assert.equal(res.status, 400, `${url} ${JSON.stringify(forged)}: ${JSON.stringify(res.body)}`);
          assert.deepEqual(
            res.body.errors?.map((e) => e.field),
            ['cursor'],
          );
        }
        // The issued cursor itself still works.
        const second = await api('GET', `${url}${url.includes('?') ? '&' : '?'}cursor=${issued}`);
        assert.equal(second.status, 200, url);
      }
    });

    it('refuses an unknown body field on every POST and PATCH with a 400 naming it', async () => {
      const api = client(ctx.app, key);
      // POST /imports takes a file (CSV or JSON Lines), not JSON: a JSON body is refused as such (415).
      const fileUpload = await api('POST', '/v1/imports?resource=products', { body: { bogus_field: 1 } });
      assert.equal(fileUpload.status, 415);
      const writes = ctx.app.routeTable.entries.filter(
        (r) =>
          r.url.startsWith('/v1') &&
          (r.method === 'POST' || r.method === 'PATCH') &&
          r.auth !== 'public' &&
          r.url !== '/v1/imports',
      );
      assert.ok(writes.length >= 20, `${writes.length} routes`);
      const accepted: string[] = [];
      for (const route of writes) {
        const url = route.url.replace(/:(\w+)/g, 'xyz');
        const res = await api<Problem>(route.method as 'POST', url, {
          body: { bogus_field: 1 },
        });
        const refused =
          res.status === 400 &&
          res.body.code === 'validation_failed' &&
          res.body.errors?.some((e) => e.field === 'bogus_field');
        if (!refused) accepted.push(`${route.method} ${url}: ${res.status}`);
      }
      assert.deepEqual(accepted, []);
    });

    it('never leaks internals in a 500, and logs the error with its request id', async () => {
      const lines: string[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
      const broken = await createTestContext(dialect, {
        logger,
        extraRoutes: (app) => {
          app.get('/v1/boom', { config: { auth: 'any_key' } }, async () => {
            throw new Error('SELECT secret FROM vault -- internal detail');
          });
        },
      });
      try {
        const probeKey = (await createTenant(broken)).apiKey.key;
        const res = await client(broken.app, probeKey)('GET', '/v1/boom');
        assert.equal(res.status, 500);
        assert.equal(res.body.code, 'internal_error');
        assert.doesNotMatch(res.raw.body, /SELECT|vault|internal detail|at .*\.ts/);

        const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
        const error = logged.find((line) => line.msg === 'unhandled error');
        assert.equal(error?.reqId, res.headers['x-request-id']);
        assert.match(String((error?.err as { message?: string } | undefined)?.message), /internal detail/);
        assert.ok(!lines.some((line) => line.includes(probeKey)), 'the API key is never logged');
        // Only the per-request child is skipped: other children of the server's logger bind.
        broken.app.log.child({ component: 'probe' }).info('bound');
        const bound = lines.map((line) => JSON.parse(line) as Record<string, unknown>).at(-1);
        assert.equal(bound?.component, 'probe');
      } finally {
        await broken.close();
      }
    });
  });
}
