import assert from 'node:assert/strict';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { AI_LIMIT_PER_MINUTE } from '../limits/limits.plans.js';
import { ManualClock } from '../../lib/clock.js';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  LOGIC_ONLY,
  whileResponsesAreRefused,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { OrProblem, Problem } from '../../../test/helpers/responses.js';
import type { ProductObject } from '../products/products.schemas.js';
import type { Usage } from '../usage/usage.schemas.js';
import { BUILTIN_MODEL } from './ai.builtin.js';
import type { GenerationObject } from './ai.schemas.js';
import { countWords } from './ai.text.js';

type Reply = OrProblem<GenerationObject>;

const LAMP = {
  name: 'Aurora Desk Lamp',
  category: 'lighting',
  attributes: { color: 'brushed brass', material: 'aluminium' },
  features: ['adjustable arm', 'three brightness levels'],
};

const GENERATION_KEYS = [
  'created',
  'description',
  'id',
  'language',
  'length',
  'livemode',
  'model',
  'product_id',
  'provider',
  'saved',
  'tone',
  'truncated',
  'usage',
  'word_count',
];

async function generations(ctx: TestContext, tenantId: string) {
  return ctx.deps.store.db
    .selectFrom('ai_generations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('created')
    .orderBy('id')
    .execute();
}

/** A T-shirt with a variant for every size and colour; `stock` gives each one's units on hand. */
function tshirt(
  name: string,
  sizes: readonly string[],
  colors: readonly string[],
  stock: (size: string, color: string) => number,
): Record<string, unknown> {
  return {
    name,
    category: 't-shirts',
    attributes: {},
    // Left out of the body (createProduct's default): a product with options takes its variants' prices.
    price: undefined,
    options: [
      { name: 'Size', values: sizes },
      { name: 'Color', values: colors },
    ],
    variants: colors.flatMap((color) =>
      sizes.map((size) => ({
        options: { Size: size, Color: color },
        price: 2500,
        stock: stock(size, color),
      })),
    ),
  };
}

async function createProduct(api: Client, body: Record<string, unknown> = {}): Promise<ProductObject> {
  const res = await api<ProductObject>('POST', '/v1/products', {
    body: {
      name: 'Aurora Desk Lamp',
      price: 8900,
      category: 'lighting',
      attributes: { color: 'brushed brass', material: 'aluminium', weight: '1.2 kg' },
      ...body,
    },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

for (const dialect of DIALECTS) {
  describe(`AI descriptions, builtin provider (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock();
    let api: Client;
    let tenantId: string;
    let otherApi: Client;

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
      const tenant = await createTenant(ctx);
      tenantId = tenant.tenant.id;
      api = client(ctx.app, tenant.apiKey.key);
      otherApi = client(ctx.app, (await createTenant(ctx)).apiKey.key);
    });
    after(() => ctx.close());
    // Each test starts with the tenant's per-minute AI allowance whole again.
    beforeEach(() => clock.advance(2 * 60_000));

    it('describes an inline product: 201, the documented shape, and a recorded generation', async () => {
      const res = await api<Reply>('POST', '/v1/ai/generate-description', {
        body: { product: LAMP, keywords: ['home office'] },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const gen = res.body;
      assert.deepEqual(Object.keys(gen).sort(), GENERATION_KEYS);
      assert.match(gen.id, /^gen_[0-9A-Za-z]{24}$/);
      assert.equal(gen.product_id, null);
      assert.equal(gen.tone, 'professional');
      assert.equal(gen.length, 'medium');
      assert.equal(gen.language, 'en');
      assert.equal(gen.provider, 'builtin');
      assert.equal(gen.model, BUILTIN_MODEL);
      assert.deepEqual(gen.usage, { input_tokens: 0, output_tokens: 0 });
      assert.equal(gen.saved, false);
      assert.equal(gen.truncated, false);
      assert.equal(gen.created, new Date(clock.now()).toISOString());
      assert.equal(gen.word_count, countWords(gen.description));
      assert.ok(gen.word_count >= 80 && gen.word_count <= 130, `${gen.word_count} words`);
      for (const fact of ['Aurora Desk Lamp', 'brushed brass', 'aluminium', 'adjustable arm', 'home office'])
        assert.ok(gen.description.includes(fact), `mentions ${fact}`);

      const rows = await generations(ctx, tenantId);
      const row = rows.find((r) => r.id === gen.id);
      assert.deepEqual(row, {
        id: gen.id,
        tenant_id: tenantId,
        product_id: null,
        provider: 'builtin',
        model: BUILTIN_MODEL,
        tone: 'professional',
        length: 'medium',
        language: 'en',
        variant: 0,
        description: gen.description,
        word_count: gen.word_count,
        input_tokens: 0,
        output_tokens: 0,
        truncated: 0,
        saved: 0,
        created: clock.now(),
      });
    });

    it('serves the same operation at both paths, and usage counts each path called', async () => {
      const fresh = await createTenant(ctx);
      const as = client(ctx.app, fresh.apiKey.key);
      const body = { product: LAMP, tone: 'playful', length: 'short', variant: 4 };
      const [a, b, c] = await Promise.all([
        as<Reply>('POST', '/v1/ai/generate-description', { body }),
        as<Reply>('POST', '/v1/ai/describe', { body }),
        as<Reply>('POST', '/v1/ai/describe', { body }),
      ]);
      for (const res of [a, b, c]) assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(b.body.description, a.body.description, 'the same input gives the same text');
      assert.notEqual(b.body.id, a.body.id, 'each call is its own generation');
      assert.equal(new Set([a.body.id, b.body.id, c.body.id]).size, 3);
      assert.equal((await generations(ctx, fresh.tenant.id)).length, 3);

      const usage = await as<Usage>('GET', '/v1/usage');
      assert.equal(usage.status, 200, JSON.stringify(usage.body));
      const calls = (endpoint: string) =>
        usage.body.top_endpoints.find((e) => e.endpoint === endpoint)?.calls;
      assert.equal(calls('POST /ai/describe'), 2);
      assert.equal(calls('POST /ai/generate-description'), 1);
    });

    it('describes a stored product from its own name, category and attributes', async () => {
      const product = await createProduct(api);
      const res = await api<Reply>('POST', '/v1/ai/describe', {
        body: { product_id: product.id, tone: 'technical', length: 'long', keywords: ['reading light'] },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.product_id, product.id);
      assert.equal(res.body.saved, false);
      assert.equal(res.body.tone, 'technical');
      assert.equal(res.body.length, 'long');
      assert.ok(res.body.word_count >= 180 && res.body.word_count <= 260);
      for (const fact of ['Aurora Desk Lamp', 'brushed brass', 'aluminium', '1.2 kg', 'reading light'])
        assert.ok(res.body.description.includes(fact), `mentions ${fact}:\n${res.body.description}`);
      assert.equal(res.body.description.split('\n\n').length, 3, 'long text comes in paragraphs');
      const unchanged = await api<ProductObject>('GET', `/v1/products/${product.id}`);
      assert.equal(unchanged.body.description, null, 'without save the product is untouched');
    });

    it('names the sizes and colours a stored product has in stock, and leaves a sold-out size out', async () => {
      const product = await createProduct(
        api,
        tshirt('Harbor Tee', ['S', 'M', 'L', 'XL'], ['Black', 'White'], (size) => (size === 'XL' ? 0 : 3)),
      );
      const res = await api<Reply>('POST', '/v1/ai/describe', { body: { product_id: product.id } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const text = res.body.description;
      assert.ok(text.includes('sizes S, M, and L'), `the sizes in stock:\n${text}`);
      assert.ok(text.includes('black and white'), `the colours:\n${text}`);
      assert.doesNotMatch(text, /\bXL\b/, 'XL is sold out in every colour');

      // Sold out everywhere: the product is still sold, so every size is named.
      const soldOut = await createProduct(
        api,
        tshirt('Quiet Tee', ['S', 'M', 'L', 'XL'], ['Black'], () => 0),
      );
      const all = await api<Reply>('POST', '/v1/ai/describe', { body: { product_id: soldOut.id } });
      assert.equal(all.status, 201, JSON.stringify(all.body));
      assert.ok(all.body.description.includes('sizes S, M, L, and XL'), all.body.description);
      assert.ok(all.body.description.includes('in black'), all.body.description);
    });

    it('describes an inline product in the options it is given', async () => {
      const res = await api<Reply>('POST', '/v1/ai/generate-description', {
        body: {
          product: {
            ...LAMP,
            options: [
              { name: 'Size', values: ['S', 'M', 'L'] },
              { name: 'Colour', values: ['Black', 'White'] },
            ],
          },
          tone: 'friendly',
        },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.ok(
        res.body.description.includes('sizes S, M, and L, and in black and white'),
        res.body.description,
      );
    });

    it("answers another tenant's product and an unknown product with 404, recording nothing", async () => {
      const theirs = await createProduct(otherApi, { name: 'Their Secret Lamp' });
      const before = (await generations(ctx, tenantId)).length;
      for (const productId of [theirs.id, 'prod_doesnotexist0000000000']) {
        for (const path of ['/v1/ai/generate-description', '/v1/ai/describe']) {
          const res = await api<Reply>('POST', path, { body: { product_id: productId, save: true } });
          assert.equal(res.status, 404, `${path} ${productId}`);
          assert.equal(res.body.code, 'not_found');
          assert.ok(!JSON.stringify(res.body).includes('Their Secret Lamp'));
        }
      }
      assert.equal((await generations(ctx, tenantId)).length, before);
      const still = await otherApi<ProductObject>('GET', `/v1/products/${theirs.id}`);
      assert.equal(still.body.description, null);
    });

    it('saves the text to the product: description and updated change, product.updated is emitted', async () => {
      const product = await createProduct(api, { name: 'Harbor Mug', category: 'kitchen', attributes: {} });
      clock.advance(5_000);
      const res = await api<Reply>('POST', '/v1/ai/generate-description', {
        body: { product_id: product.id, save: true, tone: 'friendly', length: 'short' },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.saved, true);
      assert.equal(res.body.product_id, product.id);

      const saved = await api<ProductObject>('GET', `/v1/products/${product.id}`);
      assert.equal(saved.body.description, res.body.description);
      assert.equal(saved.body.updated, new Date(clock.now()).toISOString());
      assert.notEqual(saved.body.updated, product.updated);

      const events = await api<{ data: { type: string; data: { object: ProductObject } }[] }>(
        'GET',
        '/v1/events?type=product.updated&limit=100',
      );
      const updates = events.body.data.filter((e) => e.data.object.id === product.id);
      assert.equal(updates.length, 1);
      assert.equal(updates[0]?.data.object.description, res.body.description);
      const row = (await generations(ctx, tenantId)).find((r) => r.id === res.body.id);
      assert.equal(row?.saved, 1);
      assert.equal(row?.product_id, product.id);
    });

    it('saves the description and its generation record together, or records the generation unsaved', async () => {
      const product = await createProduct(api, { name: 'Brittle Bowl', attributes: {} });
      let fail = true;
      // The save's transaction fails after the product row changed (its event cannot be written).
      ctx.deps.events.onEmit(async (_trx, events) => {
        if (fail && events.some((event) => event.type === 'product.updated'))
          throw new Error('injected failure');
      });
      const before = (await generations(ctx, tenantId)).length;
      const res = await api<Reply>('POST', '/v1/ai/generate-description', {
        body: { product_id: product.id, save: true },
      });
      fail = false;
      assert.equal(res.status, 500);
      assert.equal((await api<ProductObject>('GET', `/v1/products/${product.id}`)).body.description, null);
      const recorded = (await generations(ctx, tenantId)).slice(before);
      assert.equal(recorded.length, 1, 'the paid-for generation is on record once');
      assert.equal(recorded[0]?.saved, 0);
      assert.equal(recorded[0]?.product_id, product.id);
    });

    it('answers a retry with the generation it paid for when the first answer could not be stored', async () => {
      const product = await createProduct(api, { name: 'Paid Once Pan', attributes: {} });
      const send = () =>
        api<Reply>('POST', '/v1/ai/generate-description', {
          body: { product_id: product.id, save: true },
          headers: { 'idempotency-key': `gen-${product.id}` },
        });
      const before = (await generations(ctx, tenantId)).length;
      assert.ok((await whileResponsesAreRefused(ctx.deps.store.db, dialect, send)).status >= 500);
      const retried = await send();
      assert.equal(retried.status, 201, JSON.stringify(retried.body));
      assert.equal(retried.body.saved, true);
      const recorded = (await generations(ctx, tenantId)).slice(before);
      assert.deepEqual(
        recorded.map((row) => row.id),
        [retried.body.id],
        'the provider was paid once',
      );
      const saved = await api<ProductObject>('GET', `/v1/products/${product.id}`);
      assert.equal(saved.body.description, retried.body.description);
    });

    it('refuses save without write:products (403) before generating; save needs product_id (400)', async () => {
      const product = await createProduct(api, { name: 'Quiet Kettle', attributes: {} });
      const key = await api<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'copywriter', permissions: ['write:ai'] },
      });
      const writer = client(ctx.app, key.body.key);
      const before = (await generations(ctx, tenantId)).length;

      const refused = await writer<Reply>('POST', '/v1/ai/describe', {
        body: { product_id: product.id, save: true },
      });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'insufficient_permissions');
      assert.equal(refused.body.required_permission, 'write:products');
      assert.equal((await generations(ctx, tenantId)).length, before, 'nothing generated or recorded');
      assert.equal((await api<ProductObject>('GET', `/v1/products/${product.id}`)).body.description, null);

      const allowed = await writer<Reply>('POST', '/v1/ai/describe', { body: { product_id: product.id } });
      assert.equal(allowed.status, 201, 'write:ai alone may describe a stored product without saving');
      assert.equal(allowed.body.saved, false);

      const inline = await api<Reply>('POST', '/v1/ai/describe', { body: { product: LAMP, save: true } });
      assert.equal(inline.status, 400);
      assert.equal(inline.body.code, 'validation_failed');
      assert.equal(inline.body.errors?.[0]?.field, 'save');

      const noAi = await api<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'catalog only', permissions: ['write:products', 'read:products'] },
      });
      const denied = await client(ctx.app, noAi.body.key)<Reply>('POST', '/v1/ai/generate-description', {
        body: { product: LAMP },
      });
      assert.equal(denied.status, 403);
      assert.equal(denied.body.required_permission, 'write:ai');
    });

    /** Ten keywords of 13 words each. */
    const ROOMY_KEYWORDS = Array.from({ length: 10 }, (_, i) =>
      Array.from({ length: 13 }, (__, j) => `w${i}${String.fromCharCode(97 + j)}`).join(' '),
    );

    it('validates the body, field by field, without coercion', async () => {
      const before = (await generations(ctx, tenantId)).length;
      const cases: [unknown, string][] = [
        [{}, 'product_id'],
        [{ product_id: 'prod_x', product: LAMP }, 'product'],
        [{ product: LAMP, tone: 'angry' }, 'tone'],
        [{ product: LAMP, length: 'epic' }, 'length'],
        [{ product: LAMP, language: 'english please' }, 'language'],
        [{ product: LAMP, language: 'e' }, 'language'],
        [{ product: LAMP, language: 'en-abcdefghijk' }, 'language'],
        [{ product: LAMP, keywords: 'lamp' }, 'keywords'],
        [{ product: LAMP, keywords: [''] }, 'keywords[0]'],
        [{ product: LAMP, keywords: ['a', 'a'] }, 'keywords'],
        // More keywords than a short text has room for (the built-in writer keeps the length).
        [{ product: LAMP, length: 'short', keywords: ROOMY_KEYWORDS }, 'keywords'],
        [{ product: LAMP, variant: '1' }, 'variant'],
        [{ product: LAMP, variant: -1 }, 'variant'],
        [{ product: LAMP, variant: 1.5 }, 'variant'],
        [{ product: LAMP, save: 'yes' }, 'save'],
        [{ product: LAMP, temperature: 0.2 }, 'temperature'],
        [{ product: {} }, 'product.name'],
        [{ product: { name: '   ' } }, 'product.name'],
        [{ product: { name: 'X', colour: 'red' } }, 'product.colour'],
        [{ product: { name: 'X', attributes: { color: 5 } } }, 'product.attributes.color'],
        [{ product: { name: 'X', features: [1] } }, 'product.features[0]'],
        [{ product: { name: 'X'.repeat(201) } }, 'product.name'],
        [{ product: { name: 'X', options: { Size: ['S'] } } }, 'product.options'],
        [{ product: { name: 'X', options: [{ name: 'Size' }] } }, 'product.options[0].values'],
        [{ product: { name: 'X', options: [{ name: 'Size', values: [] }] } }, 'product.options[0].values'],
        [{ product: { name: 'X', options: [{ name: '', values: ['S'] }] } }, 'product.options[0].name'],
        [
          { product: { name: 'X', options: [{ name: 'Size', values: ['S'], price: 1 }] } },
          'product.options[0].price',
        ],
        [
          { product: { name: 'X', options: [{ name: 'Size', values: ['S'.repeat(101)] }] } },
          'product.options[0].values[0]',
        ],
        [
          {
            product: {
              name: 'X',
              options: [{ name: 'Size', values: Array.from({ length: 101 }, (_, i) => `${i}`) }],
            },
          },
          'product.options[0].values',
        ],
        [
          { product: { name: 'X', options: ['A', 'B', 'C', 'D'].map((name) => ({ name, values: ['1'] })) } },
          'product.options',
        ],
        // Past the schema, the rules of a stored product's options: names and values unique.
        [
          { product: { name: 'X', options: [{ name: 'Size', values: ['S', 's'] }] } },
          'product.options[0].values[1]',
        ],
        [
          {
            product: {
              name: 'X',
              options: [
                { name: 'Size', values: ['S'] },
                { name: 'size', values: ['M'] },
              ],
            },
          },
          'product.options[1].name',
        ],
      ];
      for (const [body, field] of cases) {
        const res = await api<Reply>('POST', '/v1/ai/generate-description', { body });
        assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.status}`);
        assert.equal(res.body.code, 'validation_failed');
        assert.ok(
          res.body.errors?.some((e) => e.field === field),
          `${JSON.stringify(body)}: expected an error on ${field}, got ${JSON.stringify(res.body.errors)}`,
        );
      }
      const text = await api<Reply>('POST', '/v1/ai/describe', {
        payload: 'product=lamp',
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(text.status, 415);
      assert.equal((await generations(ctx, tenantId)).length, before);
    });

    it('writes English with the builtin provider, and says so, whatever language is asked', async () => {
      const res = await api<Reply>('POST', '/v1/ai/describe', { body: { product: LAMP, language: 'de-ch' } });
      assert.equal(res.status, 201);
      assert.equal(res.body.language, 'en');
      const english = await api<Reply>('POST', '/v1/ai/describe', { body: { product: LAMP } });
      assert.equal(res.body.description, english.body.description);
    });

    it('asks for another wording with variant, and repeats a wording for the same input', async () => {
      const body = { product: LAMP, tone: 'luxury' };
      const first = await api<Reply>('POST', '/v1/ai/describe', { body });
      const again = await api<Reply>('POST', '/v1/ai/describe', { body });
      const other = await api<Reply>('POST', '/v1/ai/describe', { body: { ...body, variant: 1 } });
      assert.equal(again.body.description, first.body.description);
      assert.notEqual(other.body.description, first.body.description);
      const row = (await generations(ctx, tenantId)).find((r) => r.id === other.body.id);
      assert.equal(row?.variant, 1);
    });

    it('replays an idempotent request without generating again', async () => {
      const before = (await generations(ctx, tenantId)).length;
      const headers = { 'idempotency-key': `ai-${dialect}-replay` };
      const first = await api<Reply>('POST', '/v1/ai/describe', { body: { product: LAMP }, headers });
      const second = await api<Reply>('POST', '/v1/ai/describe', { body: { product: LAMP }, headers });
      assert.equal(first.status, 201);
      assert.equal(second.status, 201);
      assert.equal(second.headers['idempotent-replayed'], 'true');
      assert.equal(second.body.id, first.body.id);
      assert.equal((await generations(ctx, tenantId)).length, before + 1);
    });

    it('counts both paths against the per-minute AI limit', async () => {
      const fresh = await createTenant(ctx, { plan: 'enterprise' });
      const as = client(ctx.app, fresh.apiKey.key);
      const body = { product: { name: 'Pocket Notebook' }, length: 'short' };
      const admitted = await Promise.all(
        Array.from({ length: AI_LIMIT_PER_MINUTE }, (_, i) =>
          as('POST', i % 2 === 0 ? '/v1/ai/describe' : '/v1/ai/generate-description', { body }),
        ),
      );
      assert.deepEqual(
        admitted.map((r) => r.status),
        Array.from({ length: AI_LIMIT_PER_MINUTE }, () => 201),
      );
      const refused = await as<Problem>('POST', '/v1/ai/generate-description', { body });
      assert.equal(refused.status, 429);
      assert.equal(refused.body.code, 'rate_limited');
      assert.ok(Number(refused.headers['retry-after']) >= 1);
      // Other routes keep working: the AI limit is its own.
      assert.equal((await as('GET', '/v1/users/me')).status, 200);
      assert.equal((await generations(ctx, fresh.tenant.id)).length, AI_LIMIT_PER_MINUTE);
    });
  });
}

// The provider's HTTP exchange (retries, timeouts, what is kept of its answer) is the same on every store.
for (const dialect of LOGIC_ONLY) {
  describe(`AI descriptions, openai provider (${dialect})`, () => {
    interface Received {
      method: string;
      url: string;
      headers: IncomingHttpHeaders;
      body: {
        model: string;
        max_tokens: number;
        seed: number;
        messages: { role: string; content: string }[];
      };
    }
    type Handler = (res: http.ServerResponse, attempt: number) => void;

    let ctx: TestContext;
    const clock = new ManualClock();
    let api: Client;
    let tenantId: string;
    let server: http.Server;
    let received: Received[] = [];
    let handler: Handler;
    const timers = new Set<NodeJS.Timeout>();

    const json = (res: http.ServerResponse, status: number, body: unknown, headers = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const completion = (content: string, finishReason = 'stop') => ({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_780_000_000,
      model: 'test-model-2026-01',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
      usage: { prompt_tokens: 123, completion_tokens: 45, total_tokens: 168 },
    });

    before(async () => {
      server = http.createServer((req, res) => {
        let raw = '';
        req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
        req.on('end', () => {
          received.push({
            method: req.method ?? '',
            url: req.url ?? '',
            headers: req.headers,
            body: JSON.parse(raw) as Received['body'],
          });
          handler(res, received.length);
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      ctx = await createTestContext(dialect, {
        clock,
        env: {
          AI_PROVIDER: 'openai',
          AI_BASE_URL: `http://127.0.0.1:${port}/v1/`,
          AI_API_KEY: 'sk-test-provider-key',
          AI_MODEL: 'test-model',
          AI_TIMEOUT_MS: '1000',
        },
      });
      const tenant = await createTenant(ctx);
      tenantId = tenant.tenant.id;
      api = client(ctx.app, tenant.apiKey.key);
    });
    after(async () => {
      for (const timer of timers) clearTimeout(timer);
      await ctx.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    beforeEach(() => {
      received = [];
      clock.advance(2 * 60_000);
    });

    it('sends a chat-completions request and returns the completion with its token usage', async () => {
      const text = 'The Aurora Desk Lamp comes in brushed brass. Ideal for a home office.';
      handler = (res) => json(res, 200, completion(`  "${text}"  `));
      const res = await api<Reply>('POST', '/v1/ai/generate-description', {
        body: {
          product: LAMP,
          tone: 'luxury',
          length: 'short',
          language: 'de-ch',
          keywords: ['home office'],
        },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));

      assert.equal(received.length, 1);
      const sent = received[0];
      assert.ok(sent);
      assert.equal(sent.method, 'POST');
      assert.equal(sent.url, '/v1/chat/completions');
      assert.equal(sent.headers.authorization, 'Bearer sk-test-provider-key');
      assert.match(String(sent.headers['content-type']), /^application\/json/);
      assert.equal(sent.body.model, 'test-model');
      assert.equal(sent.body.max_tokens, 150, 'room for 60 words');
      assert.equal(sent.body.seed, 0);
      assert.deepEqual(
        sent.body.messages.map((m) => m.role),
        ['system', 'user'],
      );
      const [system, user] = sent.body.messages.map((m) => m.content);
      for (const part of ['German', 'de-CH', 'luxurious', '30 to 60 words', 'Use only the facts given'])
        assert.ok(system?.includes(part), `system prompt says ${part}:\n${system}`);
      for (const part of [
        'Product name: Aurora Desk Lamp',
        'Category: lighting',
        '- color: brushed brass',
        '- material: aluminium',
        '- adjustable arm',
        'Keywords: home office',
      ])
        assert.ok(user?.includes(part), `user prompt has ${part}:\n${user}`);

      const gen = res.body;
      assert.deepEqual(Object.keys(gen).sort(), GENERATION_KEYS);
      assert.equal(gen.description, text, 'wrapping quotes and spaces dropped');
      assert.equal(gen.provider, 'openai');
      assert.equal(gen.model, 'test-model-2026-01', 'the model that answered');
      assert.deepEqual(gen.usage, { input_tokens: 123, output_tokens: 45 });
      assert.equal(gen.language, 'de-CH');
      assert.equal(gen.word_count, 13);
      assert.equal(gen.truncated, false);
      const row = (await generations(ctx, tenantId)).find((r) => r.id === gen.id);
      assert.equal(row?.input_tokens, 123);
      assert.equal(row?.output_tokens, 45);
      assert.equal(row?.provider, 'openai');
      assert.equal(row?.model, 'test-model-2026-01');
    });

    it('lists the options on offer in the prompt, reading the variants past the first 100', async () => {
      const sizes = ['XS', 'S', 'M', 'L', 'XL', 'XXL', '3XL', '4XL', '5XL', '6XL'];
      const colors = [
        'Black',
        'White',
        'Navy',
        'Grey',
        'Red',
        'Sand',
        'Olive',
        'Rust',
        'Plum',
        'Sky',
        'Teal',
      ];
      // 110 variants, colour by colour: Teal's ten come after the first 100. XS and Red are sold
      // out everywhere; 6XL is in stock in Teal only.
      const product = await createProduct(
        api,
        tshirt('Wide Tee', sizes, colors, (size, color) =>
          size === 'XS' || color === 'Red' || (size === '6XL' && color !== 'Teal') ? 0 : 2,
        ),
      );
      assert.equal(product.variants_has_more, true);
      handler = (res) => json(res, 200, completion('The Wide Tee comes in many sizes.'));
      const res = await api<Reply>('POST', '/v1/ai/describe', { body: { product_id: product.id } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const user = received[0]?.body.messages[1]?.content ?? '';
      assert.ok(user.includes('Options (the choices it is available in):'), user);
      assert.ok(user.includes('- Size: S, M, L, XL, XXL, 3XL, 4XL, 5XL, 6XL\n'), user);
      assert.ok(user.includes('- Color: Black, White, Navy, Grey, Sand, Olive, Rust, Plum, Sky, Teal'), user);

      // An inline product's options are sent as given.
      received = [];
      const inline = await api<Reply>('POST', '/v1/ai/describe', {
        body: { product: { ...LAMP, options: [{ name: 'Finish', values: ['Brass', 'Chrome'] }] } },
      });
      assert.equal(inline.status, 201, JSON.stringify(inline.body));
      assert.match(received[0]?.body.messages[1]?.content ?? '', /\n- Finish: Brass, Chrome\n/);
      // Without options, no options line.
      received = [];
      await api<Reply>('POST', '/v1/ai/describe', { body: { product: LAMP } });
      assert.doesNotMatch(received[0]?.body.messages[1]?.content ?? '', /Options/);
    });

    it('serves /ai/describe too, asks for another wording with variant, and saves', async () => {
      const product = await createProduct(api, { name: 'Tide Clock' });
      handler = (res) => json(res, 200, completion('The Tide Clock comes in brushed brass.'));
      const res = await api<Reply>('POST', '/v1/ai/describe', {
        body: { product_id: product.id, variant: 3, length: 'long', save: true },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(received[0]?.body.seed, 3);
      assert.equal(received[0]?.body.max_tokens, 650);
      assert.match(received[0]?.body.messages[0]?.content ?? '', /alternative wording number 3/);
      assert.match(received[0]?.body.messages[1]?.content ?? '', /Product name: Tide Clock/);
      assert.equal(res.body.saved, true);
      const saved = await api<ProductObject>('GET', `/v1/products/${product.id}`);
      assert.equal(saved.body.description, 'The Tide Clock comes in brushed brass.');
    });

    it('retries a 500 once, then answers 502 without the provider’s words', async () => {
      const before = (await generations(ctx, tenantId)).length;
      handler = (res) => json(res, 500, { error: { message: 'internal: shard 7 exploded' } });
      const res = await api<Reply>('POST', '/v1/ai/describe', { body: { product: LAMP } });
      assert.equal(res.status, 502);
      assert.equal(res.body.code, 'ai_provider_error');
      assert.match(String(res.headers['content-type']), /application\/problem\+json/);
      assert.ok(!JSON.stringify(res.body).includes('shard 7'));
      assert.equal(received.length, 2, 'one retry');
      assert.equal((await generations(ctx, tenantId)).length, before, 'a failure is not a generation');
    });

    it('retries a 429 once and succeeds', async () => {
      handler = (res, attempt) =>
        attempt === 1
          ? json(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '0' })
          : json(res, 200, completion('A second try works.'));
      const res = await api<Reply>('POST', '/v1/ai/generate-description', { body: { product: LAMP } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.description, 'A second try works.');
      assert.equal(received.length, 2);
    });

    it('does not retry a request the provider refuses (400): 502', async () => {
      handler = (res) => json(res, 400, { error: { message: 'unknown model' } });
      const res = await api<Reply>('POST', '/v1/ai/generate-description', { body: { product: LAMP } });
      assert.equal(res.status, 502);
      assert.equal(res.body.code, 'ai_provider_error');
      assert.equal(received.length, 1);
    });

    it('answers 504 when the provider is slower than AI_TIMEOUT_MS', async () => {
      handler = (res) => {
        const timer = setTimeout(() => json(res, 200, completion('Too late.')), 3_000);
        timers.add(timer);
        res.on('close', () => clearTimeout(timer));
      };
      // The provider would answer 200 after 3 s: a 504 is the server giving up first.
      const res = await api<Reply>('POST', '/v1/ai/describe', { body: { product: LAMP } });
      assert.equal(res.status, 504);
      assert.equal(res.body.code, 'ai_provider_timeout');
      assert.equal(received.length, 1, 'a timeout is not retried: the deadline is spent');
    });

    it('answers 502 for a body that is not JSON, or JSON without a completion', async () => {
      for (const [status, body] of [
        [200, '{"choices": [ not json'],
        [200, { object: 'chat.completion', choices: [] }],
        [200, { choices: [{ message: { role: 'assistant', content: '   ' }, finish_reason: 'stop' }] }],
        [
          200,
          { choices: [{ message: { role: 'assistant', content: 'No.' }, finish_reason: 'content_filter' }] },
        ],
      ] as const) {
        handler = (res) => json(res, status, body);
        const res = await api<Reply>('POST', '/v1/ai/describe', { body: { product: LAMP } });
        assert.equal(res.status, 502, JSON.stringify(body));
        assert.equal(res.body.code, 'ai_provider_error');
      }
    });

    it('cuts a text the provider stopped at its token limit back to its last full sentence', async () => {
      handler = (res) =>
        json(
          res,
          200,
          completion('First full sentence. Second one ends here! Third one stops in the', 'length'),
        );
      const res = await api<Reply>('POST', '/v1/ai/describe', { body: { product: LAMP } });
      assert.equal(res.status, 201);
      assert.equal(res.body.description, 'First full sentence. Second one ends here!');
      assert.equal(res.body.truncated, true);
      assert.equal(res.body.word_count, 7);
      const row = (await generations(ctx, tenantId)).find((r) => r.id === res.body.id);
      assert.equal(row?.truncated, 1);
    });

    it('answers a redirect with 502 at once: never followed, never retried', async () => {
      for (const status of [301, 302, 307, 308]) {
        received = [];
        handler = (res) =>
          json(res, status, { error: 'moved' }, { location: '/v1/elsewhere/chat/completions' });
        const res = await api<Reply>('POST', '/v1/ai/describe', { body: { product: LAMP } });
        assert.equal(res.status, 502, `${status}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'ai_provider_error');
        assert.deepEqual(
          received.map((r) => r.url),
          ['/v1/chat/completions'],
          `${status}: one request, to the configured URL only`,
        );
      }
    });

    it('answers 502 without retrying for a reply over 1 MiB, and stops reading it', async () => {
      // A usable completion, only too large: read whole, it would be a 201.
      handler = (res) => json(res, 200, completion('A bright lamp. '.repeat(75_000)));
      const large = await api<Reply>('POST', '/v1/ai/describe', { body: { product: LAMP } });
      assert.equal(large.status, 502, JSON.stringify(large.body));
      assert.equal(large.body.code, 'ai_provider_error');
      assert.equal(received.length, 1, 'not retried');

      // A reply that never ends: the request is ended once the limit is passed, well before the deadline.
      received = [];
      let onClose = () => {};
      const closed = new Promise<void>((resolve) => (onClose = resolve));
      handler = (res) => {
        res.on('close', onClose);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"choices":[{"message":{"role":"assistant","content":"');
        const chunk = 'A bright lamp. '.repeat(4_000);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
        };
        res.on('drain', pump);
        pump();
      };
      const endless = await api<Reply>('POST', '/v1/ai/describe', { body: { product: LAMP } });
      // 502, not 504: the size limit ended it, not AI_TIMEOUT_MS.
      assert.equal(endless.status, 502, JSON.stringify(endless.body));
      assert.equal(endless.body.code, 'ai_provider_error');
      assert.equal(received.length, 1, 'not retried');
      await closed;
    });

    it('saves plain text: markdown and control characters go, an over-long model name is cut', async () => {
      const markdown = [
        '# Aurora Desk Lamp',
        '',
        'The **Aurora Desk Lamp** is *bright* and _warm_, with a ***brushed brass*** finish.',
        '',
        '## Highlights ##',
        '- Adjustable arm',
        '* Three brightness levels',
        '+ Aluminium body',
        '1. Works with `USB-C` power',
        '2) See [our guide](https://example.com/lamp_(2026) "Guide") for details.',
        '',
        'Keep snake_case_names and 2 * 3 * 4 as they are.\u0000\u0007\tDone.',
      ].join('\n');
      handler = (res) =>
        json(res, 200, { ...completion(markdown), model: `big\u0007-model-${'x'.repeat(500)}` });
      const res = await api<Reply>('POST', '/v1/ai/describe', { body: { product: LAMP } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(
        res.body.description,
        [
          'Aurora Desk Lamp',
          '',
          'The Aurora Desk Lamp is bright and warm, with a brushed brass finish.',
          '',
          'Highlights',
          'Adjustable arm',
          'Three brightness levels',
          'Aluminium body',
          'Works with USB-C power',
          'See our guide for details.',
          '',
          'Keep snake_case_names and 2 * 3 * 4 as they are. Done.',
        ].join('\n'),
      );
      assert.equal(res.body.model, `big-model-${'x'.repeat(190)}`);
      const row = (await generations(ctx, tenantId)).find((r) => r.id === res.body.id);
      assert.equal(row?.model, res.body.model);
    });

    it('cuts Chinese and Japanese text back to its last full sentence, and counts its words', async () => {
      handler = (res) => json(res, 200, completion('这是一盏台灯。它很亮！它的灯光', 'length'));
      const cut = await api<Reply>('POST', '/v1/ai/describe', { body: { product: LAMP, language: 'zh' } });
      assert.equal(cut.status, 201, JSON.stringify(cut.body));
      assert.equal(cut.body.description, '这是一盏台灯。它很亮！');
      assert.equal(cut.body.truncated, true);
      assert.equal(cut.body.word_count, 6);

      // Over the 5000 characters a description holds: cut back to a full sentence within them.
      const sentence = 'このランプはとても明るいです。';
      handler = (res) => json(res, 200, completion(sentence.repeat(400)));
      const long = await api<Reply>('POST', '/v1/ai/describe', { body: { product: LAMP, language: 'ja' } });
      assert.equal(long.status, 201, JSON.stringify(long.body));
      assert.equal(long.body.description, sentence.repeat(333));
      assert.equal(long.body.truncated, true);
      assert.equal(long.body.word_count, 333 * 6);
    });

    it('answers 502 when the provider cannot be reached', async () => {
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise((resolve) => closed.close(resolve));
      const unreachable = await createTestContext(dialect, {
        env: { AI_PROVIDER: 'openai', AI_BASE_URL: `http://127.0.0.1:${port}/v1`, AI_TIMEOUT_MS: '2000' },
      });
      try {
        const tenant = await createTenant(unreachable);
        const res = await client(unreachable.app, tenant.apiKey.key)<Reply>('POST', '/v1/ai/describe', {
          body: { product: LAMP },
        });
        assert.equal(res.status, 502);
        assert.equal(res.body.code, 'ai_provider_error');
      } finally {
        await unreachable.close();
      }
    });
  });
}
