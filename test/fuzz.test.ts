import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from './helpers/context.js';
import { type Schema, valueArbitrary, violations } from './helpers/json-schema-arbitrary.js';
import { dereferenced } from './helpers/openapi.js';
import { isCurrency } from '../src/lib/money.js';

/**
 * Fuzzing from the OpenAPI document: for every operation it declares, generated valid inputs
 * (path ids that exist about two times in three, query strings and JSON bodies drawn from the
 * declared schemas) and invalid ones (one declared constraint broken, malformed JSON, a wrong
 * content type). Never a 5xx; an invalid input gets a 4xx problem+json; every response has a
 * status the document declares for the operation and a body that validates against the schema
 * declared for it. FUZZ_RUNS sets the cases per operation and kind (default 24); FUZZ_SEED
 * replays a run.
 */

const addFormatsPlugin = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
/** The standard formats and the API's own (`iso4217`, as src/http/validation.ts defines it). */
const addFormats = (ajv: Ajv2020): Ajv2020 =>
  addFormatsPlugin(ajv).addFormat('iso4217', { type: 'string', validate: isCurrency });
const RUNS = Number(process.env.FUZZ_RUNS ?? 24);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}

interface Operation {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  path: string;
  parameters: Parameter[];
  body: Schema | undefined;
  bodyRequired: boolean;
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

interface OpenApi {
  paths: Record<
    string,
    Record<
      string,
      Omit<Operation, 'method' | 'path' | 'body' | 'bodyRequired'> & {
        requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
      }
    >
  >;
}

/** The document, read once from an app built for the purpose (the operations are the same on every store). */
async function loadDocument(): Promise<Operation[]> {
  const ctx = await createTestContext('sqlite');
  try {
    const res = await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = dereferenced(JSON.parse(res.body) as OpenApi);
    return Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({
        method: method.toUpperCase() as Operation['method'],
        path,
        parameters: op.parameters ?? [],
        body: op.requestBody?.content['application/json']?.schema,
        bodyRequired: op.requestBody?.required ?? false,
        responses: op.responses,
      })),
    );
  } finally {
    await ctx.close();
  }
}

const operations = await loadDocument();

/**
 * A path parameter value a client can send: not empty, and not a dot segment (`.` and `..` are
 * removed from every URL before it is sent, RFC 3986 section 5.2.4, so they never reach the route).
 */
function isPathSegment(value: string): boolean {
  return value !== '' && value !== '.' && value !== '..';
}

/** Which pool of real ids a path parameter draws from: the collection segment before it. */
function poolOf(path: string, name: string): string {
  if (name === 'delivery_id') return 'deliveries';
  const segments = path.split('/');
  const at = segments.indexOf(`{${name}}`);
  return segments[at - 1] ?? name;
}

/** `value` with a NUL appended to one of its strings (picked by `seed`), or undefined if it has none. */
function withNul(value: unknown, seed: number): unknown {
  const paths: (string | number)[][] = [];
  const walk = (node: unknown, at: (string | number)[]) => {
    if (typeof node === 'string') paths.push(at);
    else if (Array.isArray(node)) node.forEach((item, i) => walk(item, [...at, i]));
    else if (node !== null && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) walk(v, [...at, k]);
    }
  };
  walk(value, []);
  const target = paths[seed % Math.max(1, paths.length)];
  if (target === undefined || target.length === 0) return undefined;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let parent = copy;
  for (const step of target.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  const last = target[target.length - 1] as string | number;
  parent[last] = `${String(parent[last])}\u0000`;
  return copy;
}

interface Request {
  method: Operation['method'];
  url: string;
  headers: Record<string, string>;
  payload: string | undefined;
  /** What the case is, for failure messages. */
  label: string;
}

interface Outcome {
  status: number;
  contentType: string;
  body: string;
}

function render(op: Operation, path: Record<string, string>, query: Record<string, unknown>): string {
  const url = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(path[name] ?? ''));
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) search.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  const text = search.toString();
  return text === '' ? url : `${url}?${text}`;
}

for (const dialect of DIALECTS) {
  describe(`fuzzing every operation of the OpenAPI document (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    const pools: Record<string, string[]> = {};
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateFormats: true }));
    const queryAjv = addFormats(new Ajv2020({ strict: false, coerceTypes: 'array', validateFormats: true }));
    const compiled = new Map<Schema, ReturnType<Ajv2020['compile']>>();
    const validate = (schema: Schema, value: unknown, coercing = false) => {
      const engine = coercing ? queryAjv : ajv;
      let check = compiled.get(schema);
      if (!check || coercing) {
        check = engine.compile(coercing ? structuredClone(schema) : schema);
        if (!coercing) compiled.set(schema, check);
      }
      return { ok: check(coercing ? structuredClone(value) : value) as boolean, errors: check.errors };
    };
    let twoxx = 0;
    /** Statuses seen per operation and kind (printed with FUZZ_VERBOSE=1). */
    const seen = new Map<string, Map<number, number>>();
    const tally = (what: string, status: number) => {
      const counts = seen.get(what) ?? new Map<number, number>();
      counts.set(status, (counts.get(status) ?? 0) + 1);
      seen.set(what, counts);
    };
    let key = '';

    before(async () => {
      ctx = await createTestContext(dialect, {
        // Webhook URLs the fuzzer makes up resolve to a public address; no worker runs in this
        // context, so nothing is ever sent to it.
        webhooks: { resolve: async () => [{ address: '93.184.215.14', family: 4 }] },
      });
      const tenant = await createTenant(ctx, { plan: 'enterprise', currency: 'USD' });
      await ctx.deps.tenants.setLimits(tenant.tenant.id, { hourly: 10_000_000, monthly: 10_000_000 });
      key = tenant.apiKey.key;
      api = client(ctx.app, key);
      const other = await createTenant(ctx, { currency: 'USD' });
      const add = (pool: string, id: unknown) => {
        if (typeof id === 'string') (pools[pool] ??= []).push(id);
      };
      // Real resources, so that generated requests find something about two times in three.
      for (let i = 0; i < 6; i++) {
        const product = await api('POST', '/v1/products', {
          body: {
            name: `Fuzz ${i}`,
            price: 1000 + i,
            currency: 'USD',
            stock: 50,
            status: 'active',
            category: 'fuzz',
          },
        });
        add('products', product.body.id);
      }
      for (let i = 0; i < 4; i++) {
        const order = await api('POST', '/v1/orders', {
          body: {
            items: [{ product_id: pools.products?.[i], quantity: 1 }],
            customer: { email: `fuzz${i}@example.com` },
            ...(i % 2 === 0 ? { payment_method: 'pm_card_visa' } : {}),
          },
        });
        add('orders', order.body.id);
      }
      await ctx.deps.wallet.credit(tenant.tenant.id, { amount: 1_000_000, currency: 'USD' });
      const destination = (await ctx.deps.wallet.balance(other.tenant)).wallet_id;
      add('wallets', destination);
      const transfer = await api('POST', '/v1/wallet/transfer', {
        body: { amount: 100, currency: 'USD', destination_wallet_id: destination },
      });
      add('transfers', transfer.body.id);
      for (let i = 0; i < 6; i++) {
        const hook = await api('POST', '/v1/webhooks', {
          body: { url: `https://hooks${i}.example.com/in`, events: ['*'] },
        });
        add('webhooks', hook.body.id);
      }
      await api('POST', `/v1/webhooks/${pools.webhooks?.[0]}/test`);
      const deliveries = await api<{ data: { id: string }[] }>(
        'GET',
        `/v1/webhooks/${pools.webhooks?.[0]}/deliveries`,
      );
      for (const delivery of deliveries.body.data) add('deliveries', delivery.id);
      for (let i = 0; i < 4; i++) {
        const key = await api('POST', '/v1/api-keys', {
          body: { name: `fuzz ${i}`, permissions: ['read:products'] },
        });
        add('api-keys', key.body.id);
      }
      const events = await api<{ data: { id: string }[] }>('GET', '/v1/events?limit=10');
      for (const event of events.body.data) add('events', event.id);
      const plugins = await api<{ data: { id: string }[] }>('GET', '/v1/plugins?limit=10');
      for (const plugin of plugins.body.data) add('plugins', plugin.id);
      for (const pool of [
        'products',
        'orders',
        'transfers',
        'webhooks',
        'deliveries',
        'api-keys',
        'events',
        'plugins',
      ]) {
        assert.ok((pools[pool]?.length ?? 0) > 0, `no ${pool} to fuzz with`);
      }
    });

    after(async () => {
      // The generated inputs are meaningful: a good share of the valid ones succeed.
      assert.ok(twoxx > operations.length * 2, `only ${twoxx} generated requests succeeded`);
      if (process.env.FUZZ_VERBOSE) {
        for (const [what, counts] of seen) process.stderr.write(`${what}: ${JSON.stringify([...counts])}\n`);
      }
      await ctx?.close();
    });

    async function send(request: Request): Promise<Outcome> {
      const res = await ctx.app.inject({
        method: request.method,
        url: request.url,
        headers: { authorization: `Bearer ${key}`, ...request.headers },
        payload: request.payload,
      });
      return {
        status: res.statusCode,
        contentType: String(res.headers['content-type'] ?? ''),
        body: res.body,
      };
    }

    /** The response has a declared status and a body that validates against its declared schema. */
    function conforms(op: Operation, request: Request, outcome: Outcome): void {
      const where = `${request.label}\n  ${request.method} ${request.url}\n  ${request.payload ?? ''}\n  -> ${outcome.status} ${outcome.body.slice(0, 600)}`;
      assert.ok(outcome.status < 500, `5xx: ${where}`);
      const declared = op.responses[String(outcome.status)];
      assert.ok(declared, `status ${outcome.status} is not declared: ${where}`);
      const type = outcome.contentType.split(';')[0]?.trim() ?? '';
      if (!declared.content || outcome.status === 204) {
        assert.equal(outcome.body, '', `a ${outcome.status} without declared content has a body: ${where}`);
        return;
      }
      const media = declared.content[type];
      assert.ok(media, `content type ${type} is not declared for ${outcome.status}: ${where}`);
      // Exports are files: CSV, or JSON Lines (a JSON value per line, not one JSON document).
      const value: unknown =
        type === 'text/csv' || type === 'application/x-ndjson' ? outcome.body : JSON.parse(outcome.body);
      const result = validate(media.schema, value);
      assert.ok(
        result.ok,
        `response does not match its schema (${JSON.stringify(result.errors?.slice(0, 3))}): ${where}`,
      );
    }

    it('answers a path with a trailing slash as the path without it, and an empty id as no route', async () => {
      // Found by this fuzzer: `POST /v1/products/` was "405 POST is not allowed ...; use GET, HEAD, POST".
      for (const [method, url] of [
        ['POST', '/v1/products'],
        ['GET', '/v1/users/me'],
        ['POST', '/v1/wallet/transfer'],
      ] as const) {
        const options = method === 'POST' ? { body: {} } : {};
        const bare = await api(method, url, options);
        const slashed = await api(method, `${url}/`, options);
        assert.equal(slashed.status, bare.status, `${method} ${url}/`);
        assert.equal((slashed.body as { code?: string }).code, (bare.body as { code?: string }).code);
      }
      for (const [method, url] of [
        ['POST', '/v1/products//'],
        ['GET', '/v1/products//variants'],
      ] as const) {
        const res = await api(method, url, method === 'POST' ? { body: {} } : {});
        assert.equal(res.status, 404, `${method} ${url}`);
        assert.equal((res.body as { code?: string }).code, 'not_found');
      }
    });

    for (const op of operations) {
      const name = `${op.method} ${op.path}`;
      const pathParams = op.parameters.filter((p) => p.in === 'path');
      const queryParams = op.parameters.filter((p) => p.in === 'query');

      /** Valid parts: each path id from its pool (2 in 3) or made up, query and body from their schemas. */
      /** Real ids: a DELETE takes only from the second half of a pool, so the first half lives on. */
      const idFrom = (param: string) => {
        const pool = pools[poolOf(op.path, param)] ?? ['x'];
        const usable = op.method === 'DELETE' && pool.length > 1 ? pool.slice(pool.length >> 1) : pool;
        return fc.nat().map((n) => usable[n % usable.length] ?? 'x');
      };

      /** Valid parts: each path id real (2 in 3) or made up; each optional query parameter now and then. */
      const validInput = () => {
        const path = fc.record(
          Object.fromEntries(
            pathParams.map((p) => [
              p.name,
              fc.oneof(
                { weight: 2, arbitrary: idFrom(p.name) },
                {
                  weight: 1,
                  arbitrary: valueArbitrary(p.schema).map(String).filter(isPathSegment),
                },
              ),
            ]),
          ) as Record<string, fc.Arbitrary<string>>,
        );
        const query = fc.record(
          Object.fromEntries(
            queryParams.map((p) => [
              p.name,
              p.required
                ? valueArbitrary(p.schema)
                : fc.oneof(
                    { weight: 3, arbitrary: fc.constant(undefined) },
                    { weight: 1, arbitrary: valueArbitrary(p.schema) },
                  ),
            ]),
          ),
        );
        const body = op.body
          ? valueArbitrary(op.body).map((value) => plantIds(value))
          : fc.constant(undefined);
        return fc.record({ path, query, body, seed: fc.nat() });
      };

      /**
       * Fields whose valid values the schema cannot say (ids of real resources, a currency this
       * tenant has, a payment method the sandbox knows, a URL that can be registered) get one
       * most of the time.
       */
      const PLANTED: Record<string, () => string[] | undefined> = {
        product_id: () => pools.products,
        destination_wallet_id: () => pools.wallets,
        currency: () => ['USD'],
        payment_method: () => ['pm_card_visa', 'pm_card_declined', 'pm_card_mastercard'],
        url: () => ['https://hooks.example.com/in', 'https://example.org/webhooks'],
      };
      function plantIds(value: unknown, depth = 0): unknown {
        if (Array.isArray(value)) return value.map((v) => plantIds(v, depth + 1));
        if (value === null || typeof value !== 'object' || depth > 4) return value;
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(value)) {
          const pool = typeof v === 'string' && Object.hasOwn(PLANTED, k) ? PLANTED[k]?.() : undefined;
          const n = typeof v === 'string' ? v.length : 0;
          out[k] = pool && n % 4 !== 0 ? pool[n % pool.length] : plantIds(v, depth + 1);
        }
        return out;
      }

      it(name, async () => {
        // Valid inputs: never a 5xx; a declared status and a body matching its schema.
        await fc.assert(
          fc.asyncProperty(validInput(), async ({ path, query, body }) => {
            if (op.body && body !== undefined) fc.pre(validate(op.body, body).ok);
            const request: Request = {
              method: op.method,
              url: render(op, path, query),
              headers: body === undefined ? {} : { 'content-type': 'application/json' },
              payload:
                body === undefined ? (op.body && op.bodyRequired ? '{}' : undefined) : JSON.stringify(body),
              label: 'valid input',
            };
            if (request.payload !== undefined) request.headers['content-type'] = 'application/json';
            const outcome = await send(request);
            if (outcome.status < 300) twoxx += 1;
            tally(`${name} valid`, outcome.status);
            if (
              process.env.FUZZ_VERBOSE &&
              outcome.status >= 400 &&
              (seen.get(`${name} valid`)?.get(outcome.status) ?? 0) <= 2
            ) {
              process.stderr.write(
                `${name} ${request.url} ${request.payload ?? ''} -> ${outcome.body.slice(0, 300)}\n`,
              );
            }
            conforms(op, request, outcome);
          }),
          { numRuns: RUNS, seed: SEED, endOnFailure: true, includeErrorInReport: true },
        );

        // Invalid inputs: one declared constraint broken: a 4xx problem+json matching its schema.
        const breakers: ((input: {
          path: Record<string, string>;
          query: Record<string, unknown>;
          body: unknown;
          seed: number;
        }) => Request | undefined)[] = [];
        if (op.body) {
          const schema = op.body;
          breakers.push(({ path, query, body, seed }) => {
            const candidates = violations(schema, body ?? {}).filter(
              (broken) => !validate(schema, broken).ok,
            );
            if (candidates.length === 0) return undefined;
            const broken = candidates[seed % candidates.length];
            return {
              method: op.method,
              url: render(op, path, query),
              headers: { 'content-type': 'application/json' },
              payload: JSON.stringify(broken),
              label: 'body breaking its schema',
            };
          });
          breakers.push(({ path, query }) => ({
            method: op.method,
            url: render(op, path, query),
            headers: { 'content-type': 'application/json' },
            payload: '{"unterminated": ',
            label: 'malformed JSON',
          }));
          breakers.push(({ path, query, body }) => ({
            method: op.method,
            url: render(op, path, query),
            headers: { 'content-type': 'text/plain' },
            payload: JSON.stringify(body ?? {}),
            label: 'not JSON',
          }));
        }
        const constrained = queryParams.filter((p) => violations(p.schema, undefined).length > 0);
        if (constrained.length > 0) {
          breakers.push(({ path, query, seed }) => {
            const param = constrained[seed % constrained.length];
            if (!param) return undefined;
            const candidates = violations(param.schema, query[param.name])
              .filter((v) => v !== null && typeof v !== 'object')
              .map(String)
              .filter((v) => !validate({ type: 'object', properties: { v: param.schema } }, { v }, true).ok);
            if (candidates.length === 0) return undefined;
            return {
              method: op.method,
              url: render(op, path, { ...query, [param.name]: candidates[seed % candidates.length] }),
              headers: {},
              payload: undefined,
              label: `query ${param.name} breaking its schema`,
            };
          });
        }
        const bounded = pathParams.filter((p) => typeof p.schema.maxLength === 'number');
        if (bounded.length > 0) {
          breakers.push(({ path, query, body, seed }) => {
            const param = bounded[seed % bounded.length];
            if (!param) return undefined;
            const long = 'x'.repeat(Number(param.schema.maxLength) + 1);
            return {
              method: op.method,
              url: render(op, { ...path, [param.name]: long }, query),
              headers:
                body === undefined ? {} : ({ 'content-type': 'application/json' } as Record<string, string>),
              payload: body === undefined ? undefined : JSON.stringify(body),
              label: `path ${param.name} over its maxLength`,
            };
          });
        }
        // A NUL character (U+0000) in any string: PostgreSQL's text cannot hold one, SQLite's can;
        // both must refuse it the same way, never as a 5xx and never by storing it.
        if (op.body) {
          breakers.push(({ path, query, body, seed }) => {
            const planted = withNul(body ?? {}, seed);
            if (planted === undefined) return undefined;
            return {
              method: op.method,
              url: render(op, path, query),
              headers: { 'content-type': 'application/json' },
              payload: JSON.stringify(planted),
              label: 'NUL in a body string',
            };
          });
        }
        const textual = [...queryParams, ...pathParams].filter((p) => p.schema.type === 'string');
        if (textual.length > 0) {
          breakers.push(({ path, query, body, seed }) => {
            const param = textual[seed % textual.length];
            if (!param) return undefined;
            const where = param.in === 'path' ? path : query;
            const value = `${String(where[param.name] ?? 'x')}\u0000`;
            return {
              method: op.method,
              url:
                param.in === 'path'
                  ? render(op, { ...path, [param.name]: value }, query)
                  : render(op, path, { ...query, [param.name]: value }),
              headers:
                body === undefined ? {} : ({ 'content-type': 'application/json' } as Record<string, string>),
              payload: body === undefined ? undefined : JSON.stringify(body),
              label: `NUL in ${param.in} ${param.name}`,
            };
          });
        }
        if (breakers.length === 0) return;
        await fc.assert(
          fc.asyncProperty(validInput(), fc.nat(), async (input, pick) => {
            const request = breakers[pick % breakers.length]?.(input);
            fc.pre(request !== undefined);
            if (!request) return;
            const outcome = await send(request);
            tally(`${name} invalid`, outcome.status);
            conforms(op, request, outcome);
            assert.ok(
              outcome.status >= 400 && outcome.status < 500,
              `invalid input answered ${outcome.status}: ${request.label} ${request.url} ${request.payload ?? ''}`,
            );
            assert.equal(
              outcome.contentType.split(';')[0],
              'application/problem+json',
              `${request.label}: ${outcome.body}`,
            );
          }),
          { numRuns: RUNS, seed: SEED, endOnFailure: true, includeErrorInReport: true },
        );
      });
    }
  });
}
