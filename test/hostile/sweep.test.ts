import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, request as send } from 'undici';
import { createTenant, createTestContext, DIALECTS, type TestContext } from '../helpers/context.js';
import { dereferenced } from '../helpers/openapi.js';

/**
 * The hostile-client sweep: for every operation the OpenAPI document declares, a fixed set of bad
 * inputs sent over a real socket to a listening server (hostile values in every body field, query
 * parameter, path parameter and header the operation takes; bodies that are wide, deep, huge,
 * not JSON, not UTF-8 or of the wrong type). Whatever the input: no 5xx, every refusal is a
 * problem+json document of bounded size, and the server still answers its health check at the end.
 * Bounded: a fixed list of cases per operation, no randomness, so a failure replays as it is.
 * HOSTILE_VERBOSE=1 prints the figures (requests tried, 5xx seen, largest answer, slowest answer).
 */

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
}

interface SchemaObject {
  type?: string | string[];
  properties?: Record<string, SchemaObject>;
}

interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body: SchemaObject | undefined;
  auth: boolean;
}

interface OpenApi {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Parameter[];
        security?: unknown[];
        requestBody?: { content: Record<string, { schema: SchemaObject }> };
      }
    >
  >;
}

/** Hostile requests in flight at once. */
const IN_FLIGHT = 8;

/** The largest refusal any hostile input may get: a capped error list and a short detail. */
const MAX_PROBLEM_BYTES = 8 * 1024;

/** Values no field of this API accepts in that form, or that probe the store and the parsers. */
const HOSTILE_VALUES: unknown[] = [
  null,
  true,
  -1,
  1e308,
  2 ** 53 + 1,
  -(2 ** 63),
  '',
  '   ',
  'x'.repeat(100_000),
  'nul\u0000byte',
  'lone \ud800 surrogate',
  'right-to-left \u202e override',
  'next line \u0085 here',
  'line\r\nbreak',
  'escape \u001b[31m',
  "' OR 1=1 --",
  '"; DROP TABLE products; --',
  '../../../../etc/passwd',
  '%00%2e%2e%2f',
  '${jndi:ldap://127.0.0.1/x}',
  '<script>alert(1)</script>',
  { $gt: '' },
  { __proto__x: 1, constructor: { prototype: {} } },
  [],
  Array.from({ length: 5_000 }, (_, i) => i),
  {},
];

/** Values for path parameters, query parameters and headers (they travel as text). */
const HOSTILE_TEXT: string[] = [
  '',
  '-1',
  '1e400',
  '9'.repeat(400),
  'x'.repeat(5_000),
  '%00',
  '%ud800',
  '%ED%A0%80',
  '%E2%80%AE',
  '..%2F..%2Fetc%2Fpasswd',
  "'%20OR%201%3D1",
  '%FF%FE',
  '[]',
  '{}',
];

function deep(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

function deepObject(levels: number): string {
  return '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
}

function wide(keys: number): string {
  const parts: string[] = [];
  for (let i = 0; i < keys; i++) parts.push(`"k${i}":${i}`);
  return `{${parts.join(',')}}`;
}

/** Whole bodies no route accepts: not an object, not JSON, not UTF-8, too deep, too wide, too long. */
const HOSTILE_BODIES: { label: string; payload: string | Buffer; contentType?: string }[] = [
  { label: 'an array', payload: '[1,2,3]' },
  { label: 'a string', payload: '"text"' },
  { label: 'null', payload: 'null' },
  { label: 'malformed JSON', payload: '{"a":' },
  { label: 'trailing garbage', payload: '{} {}' },
  { label: 'a __proto__ key', payload: '{"__proto__":{"admin":true}}' },
  { label: '10,000 levels of arrays', payload: deep(10_000) },
  { label: '10,000 levels of objects', payload: deepObject(10_000) },
  { label: '90,000 unknown keys', payload: wide(90_000) },
  {
    label: 'invalid UTF-8',
    payload: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
  },
  { label: 'an escaped lone surrogate key', payload: '{"\\ud800":1}' },
  { label: 'a body over 1 MiB', payload: `{"a":"${'x'.repeat(1024 * 1024 + 16)}"}` },
  { label: 'form data', payload: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded' },
  { label: 'text', payload: 'hello', contentType: 'text/plain' },
];

/** Header values every operation is tried with. */
const HOSTILE_HEADERS: { label: string; headers: Record<string, string> }[] = [
  { label: 'a long bearer', headers: { authorization: `Bearer sk_live_${'a'.repeat(8_000)}` } },
  { label: 'a basic auth header', headers: { authorization: 'Basic YWRtaW46YWRtaW4=' } },
  // UTF-8 bytes of another script, as a header carries them (latin1 on the wire).
  {
    label: 'a bearer in another script',
    headers: { authorization: `Bearer sk_live_${Buffer.from('ключ').toString('latin1')}` },
  },
  { label: 'a malformed version', headers: { 'x-service-version': "2026-13-45' --" } },
  { label: 'a version before the first', headers: { 'x-service-version': '1970-01-01' } },
  { label: 'a long idempotency key', headers: { 'idempotency-key': 'k'.repeat(300) } },
  { label: 'a control character in the idempotency key', headers: { 'idempotency-key': 'a\tb' } },
  { label: 'a long request id', headers: { 'x-request-id': 'r'.repeat(5_000) } },
];

/** The console's account routes, which take a body from anyone (they are not in the document). */
const CONSOLE_OPERATIONS: Operation[] = [
  {
    method: 'POST',
    path: '/console/api/login',
    parameters: [],
    body: { type: 'object', properties: { email: {}, password: {} } },
    auth: false,
  },
  {
    method: 'POST',
    path: '/console/api/signup',
    parameters: [],
    body: { type: 'object', properties: { email: {}, password: {}, store_name: {} } },
    auth: false,
  },
];

async function loadOperations(ctx: TestContext): Promise<Operation[]> {
  const res = await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' });
  const doc = dereferenced(JSON.parse(res.body) as OpenApi);
  const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => method !== 'head')
      .map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        body: op.requestBody?.content['application/json']?.schema,
        auth: (op.security?.length ?? 0) > 0,
      })),
  );
  return [...documented, ...CONSOLE_OPERATIONS];
}

interface Case {
  label: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** The cases for one operation: every hostile value in every place the operation takes input. */
function casesFor(op: Operation, ids: Record<string, string>, key: string): Case[] {
  const auth = { authorization: `Bearer ${key}` };
  const pathWith = (override?: [string, string]) =>
    op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
      override && override[0] === name ? override[1] : encodeURIComponent(ids[name] ?? 'unknown_id'),
    );
  const json = { 'content-type': 'application/json' };
  const cases: Case[] = [];
  const base = (label: string, extra: Partial<Case> = {}): Case => ({
    label: `${op.method} ${op.path}: ${label}`,
    method: op.method,
    url: pathWith(),
    headers: { ...auth, ...(op.body ? json : {}) },
    ...(op.body ? { body: '{}' } : {}),
    ...extra,
  });
  for (const param of op.parameters) {
    for (const text of HOSTILE_TEXT) {
      if (param.in === 'path') {
        if (text === '') continue; // an empty segment is another path, not this operation
        cases.push(base(`path ${param.name}=${text.slice(0, 20)}`, { url: pathWith([param.name, text]) }));
      } else if (param.in === 'query') {
        cases.push(
          base(`query ${param.name}=${text.slice(0, 20)}`, { url: `${pathWith()}?${param.name}=${text}` }),
        );
      }
    }
    if (param.in === 'query') {
      cases.push(
        base(`query ${param.name} repeated`, { url: `${pathWith()}?${param.name}=1&${param.name}=2` }),
      );
    }
  }
  cases.push(base('an unknown query parameter', { url: `${pathWith()}?no_such_parameter=1` }));
  // A path no route has, near the header limit: the 404 (or 405) names only its start.
  cases.push(base('a 12,000-character unknown path', { url: `${pathWith()}/${'x'.repeat(12_000)}` }));
  for (const { label, headers } of HOSTILE_HEADERS) {
    cases.push(base(label, { headers: { ...auth, ...(op.body ? json : {}), ...headers } }));
  }
  if (op.body) {
    const fields = Object.keys(op.body.properties ?? {});
    for (const field of [...fields, 'no_such_field']) {
      for (const value of HOSTILE_VALUES) {
        cases.push(
          base(`body ${field}=${JSON.stringify(value)?.slice(0, 20)}`, {
            body: JSON.stringify({ [field]: value }),
          }),
        );
      }
    }
    for (const { label, payload, contentType } of HOSTILE_BODIES) {
      cases.push(
        base(`a body of ${label}`, {
          headers: { ...auth, 'content-type': contentType ?? 'application/json' },
          body: payload,
        }),
      );
    }
  } else if (op.method === 'GET') {
    // GET /products reads a JSON body too; every other GET must ignore or refuse one.
    for (const { label, payload } of HOSTILE_BODIES.slice(0, 10)) {
      cases.push(base(`a GET body of ${label}`, { headers: { ...auth, ...json }, body: payload }));
    }
  }
  return cases;
}

for (const dialect of DIALECTS) {
  describe(`hostile-client sweep over a real socket (${dialect})`, () => {
    let ctx: TestContext;
    let origin: string;
    let key: string;
    const ids: Record<string, string> = {};
    // Its own connection pool, closed before the server, so no socket outlives the suite.
    const agent = new Agent();
    const request = (url: string, options: Parameters<typeof send>[1] = {}) =>
      send(url, { ...options, dispatcher: agent });

    before(async () => {
      ctx = await createTestContext(dialect, {
        webhooks: { resolve: async () => [{ address: '93.184.215.14', family: 4 }] },
      });
      const tenant = await createTenant(ctx, { plan: 'enterprise', currency: 'USD' });
      await ctx.deps.tenants.setLimits(tenant.tenant.id, { hourly: 10_000_000, monthly: 10_000_000 });
      key = tenant.apiKey.key;
      origin = await ctx.app.listen({ port: 0, host: '127.0.0.1' });
      const post = async (path: string, body: unknown) => {
        const res = await request(`${origin}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return (await res.body.json()) as { id: string };
      };
      // Real ids, so that path parameters also reach the code behind the lookup.
      const product = await post('/v1/products', { name: 'Sweep', price: 1000, currency: 'USD', stock: 5 });
      ids.id = product.id;
      ids.product_id = product.id;
    });
    after(async () => {
      await agent.close();
      // A graceful close waits for every connection: one left neither answered nor closed hangs it.
      await ctx.close();
    });

    it('answers every hostile input with a bounded 4xx problem, never a 5xx', async () => {
      const operations = await loadOperations(ctx);
      assert.ok(operations.length > 40, `the document lists ${operations.length} operations`);
      let tried = 0;
      let largest = 0;
      let slowest = 0;
      const failures: string[] = [];
      const cases = operations.flatMap((op) => casesFor(op, ids, key));
      // A few in flight at once, as clients send them: the server's time, not the round trips'.
      let next = 0;
      const sender = async (): Promise<void> => {
        while (next < cases.length) {
          const c = cases[next++] as Case;
          const started = performance.now();
          const res = await request(`${origin}${c.url}`, {
            method: c.method as 'GET',
            headers: c.headers,
            body: c.body,
          });
          const text = await res.body.text();
          slowest = Math.max(slowest, performance.now() - started);
          tried++;
          const type = String(res.headers['content-type'] ?? '');
          if (res.statusCode >= 500) failures.push(`${c.label}: ${res.statusCode} ${text.slice(0, 200)}`);
          else if (res.statusCode >= 400) {
            largest = Math.max(largest, text.length);
            if (!type.startsWith('application/problem+json'))
              failures.push(`${c.label}: ${res.statusCode} as ${type}`);
            else if (text.length > MAX_PROBLEM_BYTES)
              failures.push(`${c.label}: a ${text.length}-byte problem`);
            else if (!res.headers['x-request-id']) failures.push(`${c.label}: no X-Request-Id`);
          }
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, sender));
      const health = await request(`${origin}/healthz`);
      assert.equal(health.statusCode, 200);
      await health.body.dump();
      if (process.env.HOSTILE_VERBOSE === '1') {
        process.stdout.write(
          `hostile sweep (${dialect}): ${tried} requests, ${failures.length} failures, largest problem ${largest} bytes, slowest ${slowest.toFixed(0)} ms\n`,
        );
      }
      assert.ok(tried > 3_000, `only ${tried} requests were tried`);
      assert.deepEqual(failures.slice(0, 30), [], `${failures.length} of ${tried} hostile requests failed`);
    });
  });
}
