import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { MAX_FIELD_ERRORS } from '../../src/lib/errors.js';
import { MAX_DEPTH } from '../../src/http/validation.js';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../helpers/context.js';
import type { Problem } from '../helpers/responses.js';

/**
 * Hostile request bodies: one that makes the validator find an error per element, one nested
 * far deeper than any call stack, text that no store can keep as sent (lone surrogates, bytes
 * that are not UTF-8) and characters a name must not hold. Each is a short 400 problem naming
 * what is wrong and creates nothing; a name in any script, emoji included, is stored and returned
 * exactly as sent, on every store.
 */

/** The largest refusal allowed here: a capped error list and a short detail. */
const MAX_PROBLEM_BYTES = 16 * 1024;

/** Every table a refused request could have written to. */
const TABLES = [
  'products',
  'orders',
  'api_keys',
  'webhook_endpoints',
  'wallet_transfers',
  'ledger_entries',
  'events',
  'idempotency_keys',
  'console_sessions',
  'console_throttle',
  'users',
  'tenants',
] as const;

type Table = (typeof TABLES)[number];

/** `depth` arrays nested in one another, as JSON text. */
function deepArray(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

for (const dialect of DIALECTS) {
  describe(`hostile bodies (${dialect})`, () => {
    let ctx: TestContext;
    let api: Client;
    let key: string;
    let productId: string;

    async function counts(): Promise<Record<Table, number>> {
      const out = {} as Record<Table, number>;
      for (const table of TABLES) {
        const row = await ctx.deps.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow();
        out[table] = Number(row.n);
      }
      return out;
    }

    /** A raw request: `payload` sent as given, JSON content type, the tenant's key on /v1. */
    async function send(
      method: 'GET' | 'POST' | 'PATCH',
      url: string,
      payload: string | Buffer,
    ): Promise<LightMyRequestResponse> {
      return ctx.app.inject({
        method,
        url,
        headers: {
          'content-type': 'application/json',
          ...(url.startsWith('/v1') ? { authorization: `Bearer ${key}` } : {}),
        },
        payload,
      });
    }

    /** A short 400 problem of `code`; its parsed body. */
    function refusal(res: LightMyRequestResponse, code = 'validation_failed'): Problem {
      assert.equal(res.statusCode, 400, res.body.slice(0, 500));
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.ok(
        Buffer.byteLength(res.body) < MAX_PROBLEM_BYTES,
        `a ${Buffer.byteLength(res.body)}-byte problem`,
      );
      const problem = JSON.parse(res.body) as Problem;
      assert.equal(problem.code, code);
      assert.ok((problem.errors?.length ?? 0) <= MAX_FIELD_ERRORS);
      assert.ok(problem.detail.length <= 2048, problem.detail);
      return problem;
    }

    function fields(problem: Problem): string[] {
      return (problem.errors ?? []).map((e) => e.field);
    }

    before(async () => {
      ctx = await createTestContext(dialect);
      const tenant = await createTenant(ctx);
      key = tenant.apiKey.key;
      api = client(ctx.app, key);
      const product = await api<{ id: string }>('POST', '/v1/products', {
        body: { name: 'Lamp', price: 100 },
      });
      assert.equal(product.status, 201, JSON.stringify(product.body));
      productId = product.body.id;
    });
    after(() => ctx.close());

    it('answers a body with an error per element briefly, and stores nothing', async () => {
      const before = await counts();

      const keys: Record<string, number> = {};
      for (let i = 0; i < 90_000; i++) keys[`k${i}`] = 1;
      const login = refusal(await send('POST', '/console/api/login', JSON.stringify(keys)));
      assert.ok(fields(login).length >= 1);

      const tags = Array.from({ length: 400_000 }, () => 1);
      const product = refusal(
        await send('POST', '/v1/products', JSON.stringify({ name: 'Lamp', price: 1, tags })),
      );
      assert.ok(fields(product).includes('tags'), JSON.stringify(product));

      // A small body with hundreds of failing fields: every one is checked, 50 are listed.
      const attributes = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`a${i}`, 'x\u001b']));
      const wide = refusal(
        await send('POST', '/v1/products', JSON.stringify({ name: 'Lamp', price: 1, attributes })),
      );
      assert.equal(wide.errors?.length, MAX_FIELD_ERRORS);
      assert.equal(wide.errors_truncated, true);
      assert.match(wide.detail, /; and more\.$/);

      assert.deepEqual(await counts(), before);
    });

    it('refuses a body nested 10,000 deep on every body route with a 400 naming body', async () => {
      const before = await counts();
      const deep = deepArray(10_000);
      const routes: ['GET' | 'POST' | 'PATCH', string][] = [
        ['POST', '/v1/products'],
        ['PATCH', `/v1/products/${productId}`],
        ['GET', '/v1/products'],
        ['POST', '/v1/orders'],
        ['POST', '/v1/api-keys'],
        ['POST', '/v1/webhooks'],
        ['POST', '/v1/wallet/transfer'],
        ['POST', '/console/api/login'],
        ['POST', '/console/api/signup'],
      ];
      for (const [method, url] of routes) {
        for (const payload of [deep, `{"name":${deep}}`]) {
          const problem = refusal(await send(method, url, payload));
          assert.deepEqual(
            problem.errors,
            [
              {
                field: 'body',
                message: `must not nest objects and arrays more than ${MAX_DEPTH} levels deep`,
              },
            ],
            `${method} ${url}`,
          );
        }
      }
      // Up to the bound the body is only refused for what its schema says.
      const atBound = refusal(
        await send('POST', '/v1/products', `{"name":"Lamp","price":1,"bogus":${deepArray(MAX_DEPTH - 1)}}`),
      );
      assert.deepEqual(fields(atBound), ['bogus']);
      assert.deepEqual(await counts(), before);
    });

    it('refuses lone surrogates in names, descriptions and map keys, naming the field', async () => {
      const before = await counts();
      const cases: [string, string, unknown, string][] = [
        ['POST', '/v1/products', { name: 'Lamp \ud800', price: 1 }, 'name'],
        [
          'POST',
          '/v1/products',
          { name: 'Lamp', price: 1, attributes: { 'colo\udc00r': 'red' } },
          'attributes',
        ],
        ['PATCH', `/v1/products/${productId}`, { name: '\udbff end' }, 'name'],
        ['POST', '/v1/api-keys', { name: 'key \udc00', permissions: ['read:users'] }, 'name'],
        [
          'POST',
          '/v1/webhooks',
          { url: 'https://example.com/hook', events: ['*'], description: 'hook \ud83d' },
          'description',
        ],
        [
          'POST',
          '/v1/wallet/transfer',
          { amount: 1, currency: 'USD', destination_wallet_id: 'wal_x', metadata: { 'ref\ud800': 'x' } },
          'metadata',
        ],
        [
          'POST',
          '/v1/orders',
          {
            items: [{ product_id: productId, quantity: 1 }],
            customer: { email: 'a@example.com' },
            metadata: { 'ref\udfff': 'x' },
          },
          'metadata',
        ],
      ];
      for (const [method, url, body, field] of cases) {
        // JSON.stringify writes a lone surrogate as a `\ud800` escape: valid JSON text.
        const problem = refusal(await send(method as 'POST' | 'PATCH', url, JSON.stringify(body)));
        assert.deepEqual(fields(problem), [field], `${method} ${url}: ${JSON.stringify(problem)}`);
        assert.match(problem.errors?.[0]?.message ?? '', /lone surrogate/);
      }
      assert.deepEqual(await counts(), before);
    });

    it('refuses a body that is not UTF-8 instead of replacing its bytes', async () => {
      const before = await counts();
      const bodies = [
        [0xff, 0xfe],
        [0xc3], // a sequence cut short
        [0xed, 0xa0, 0x80], // a surrogate encoded on its own
      ].map((bytes) =>
        Buffer.concat([Buffer.from('{"name":"Lamp '), Buffer.from(bytes), Buffer.from('","price":1}')]),
      );
      for (const payload of bodies) {
        for (const [method, url] of [
          ['POST', '/v1/products'],
          ['GET', '/v1/products'],
          ['POST', '/console/api/login'],
        ] as const) {
          const problem = refusal(await send(method, url, payload), 'invalid_json');
          assert.equal(problem.detail, 'The request body is not valid UTF-8.');
        }
      }
      assert.deepEqual(await counts(), before);
    });

    it('refuses NEL, a right-to-left override, CR, LF and ESC in names and one-line fields', async () => {
      const before = await counts();
      for (const c of ['\u0085', '\u202e', '\r', '\n', '\u001b']) {
        const cases: [string, string, unknown, string][] = [
          ['POST', '/v1/products', { name: `Lamp${c}x`, price: 1 }, 'name'],
          ['POST', '/v1/products', { name: 'Lamp', price: 1, tags: [`t${c}`] }, 'tags[0]'],
          ['POST', '/v1/api-keys', { name: `key${c}`, permissions: ['read:users'] }, 'name'],
          [
            'POST',
            '/v1/webhooks',
            { url: 'https://example.com/hook', events: ['*'], description: `hook${c}` },
            'description',
          ],
          [
            'POST',
            '/v1/wallet/transfer',
            { amount: 1, currency: 'USD', destination_wallet_id: 'wal_x', description: `rent${c}` },
            'description',
          ],
          [
            'POST',
            '/v1/wallet/transfer',
            { amount: 1, currency: 'USD', destination_wallet_id: 'wal_x', metadata: { [`ref${c}`]: 'x' } },
            'metadata',
          ],
          [
            'POST',
            '/v1/orders',
            {
              items: [{ product_id: productId, quantity: 1 }],
              customer: { email: 'a@example.com', name: `Ann${c}` },
            },
            'customer.name',
          ],
          [
            'POST',
            '/console/api/signup',
            { store_name: `Shop${c}`, email: 'a@example.com', password: 'password123' },
            'store_name',
          ],
        ];
        for (const [method, url, body, field] of cases) {
          const problem = refusal(await send(method as 'POST', url, JSON.stringify(body)));
          assert.ok(
            fields(problem).some((f) => f === field || f.startsWith(`${field}.`)),
            `${JSON.stringify(c)} in ${url} ${field}: ${JSON.stringify(problem)}`,
          );
        }
      }
      // Blank names are not names either.
      const blank = refusal(
        await send('POST', '/v1/api-keys', JSON.stringify({ name: ' \u3000 ', permissions: ['read:users'] })),
      );
      assert.deepEqual(fields(blank), ['name']);
      assert.deepEqual(await counts(), before);
    });

    it('stores names in any script, emoji included, and returns them byte for byte', async () => {
      const name = '😀 Café 👨‍👩‍👧 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 漢字 עברית 🏴󠁧󠁢󠁳󠁣󠁴󠁿';
      const description = `${name}\nsecond line\twith a tab`;
      const created = await api<{ id: string; name: string; description: string; tags: string[] }>(
        'POST',
        '/v1/products',
        { body: { name, description, price: 1, tags: ['🎉'], attributes: { 色: '🟥' } } },
      );
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const read = await ctx.app.inject({
        method: 'GET',
        url: `/v1/products/${created.body.id}`,
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(read.statusCode, 200);
      const product = JSON.parse(read.body) as {
        name: string;
        description: string;
        tags: string[];
        attributes: Record<string, string>;
      };
      assert.deepEqual(Buffer.from(product.name), Buffer.from(name));
      assert.deepEqual(Buffer.from(product.description), Buffer.from(description));
      assert.deepEqual(product.tags, ['🎉']);
      assert.deepEqual(product.attributes, { 色: '🟥' });
      // The raw response holds the characters themselves, as UTF-8.
      assert.ok(read.rawPayload.includes(Buffer.from(name)));
      const row = await ctx.deps.store.db
        .selectFrom('products')
        .select(['name', 'description'])
        .where('id', '=', created.body.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(Buffer.from(row.name), Buffer.from(name));
      assert.deepEqual(Buffer.from(String(row.description)), Buffer.from(description));

      const apiKey = await api<{ id: string; name: string }>('POST', '/v1/api-keys', {
        body: { name: '🔑 clé', permissions: ['read:users'] },
      });
      assert.equal(apiKey.status, 201, JSON.stringify(apiKey.body));
      assert.deepEqual(Buffer.from(apiKey.body.name), Buffer.from('🔑 clé'));
    });
  });
}
