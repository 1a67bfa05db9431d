import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { client, createTenant, createTestContext, type TestContext } from '../../test/helpers/context.js';
import { type ErrorCode, problemCodes, problemStatus } from '../lib/errors.js';
import { problemExample } from './openapi-problems.js';

/**
 * The OpenAPI document's example problems: each problem response shows the examples of exactly
 * the codes its status answers, and the examples are what the server answers, member for member.
 */

type Node = Record<string, unknown>;
interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, Node> }> }>>;
  components: { examples: Record<string, { summary: string; value: Node }> };
}

const EXAMPLES = '#/components/examples/';

describe('the example problems of the OpenAPI document', () => {
  let ctx: TestContext;
  let doc: Doc;
  let key: string;
  before(async () => {
    ctx = await createTestContext('sqlite');
    doc = (await client(ctx.app)<Doc>('GET', '/v1/openapi.json')).body;
    key = (await createTenant(ctx)).apiKey.key;
  });
  after(() => ctx.close());

  it('shows each problem response the examples of its status’s codes, each a problem of that code', () => {
    const codesOf = (status: number) => problemCodes().filter((code) => problemStatus(code) === status);
    let responses = 0;
    const wrong: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const media = response.content?.['application/problem+json'];
          if (media === undefined) continue;
          responses += 1;
          const where = `${method.toUpperCase()} ${path} ${status}`;
          const examples = (media.examples ?? {}) as Record<string, { $ref?: string }>;
          if (JSON.stringify(Object.keys(examples)) !== JSON.stringify(codesOf(Number(status))))
            wrong.push(`${where}: examples ${Object.keys(examples).join(', ')}`);
          for (const [code, example] of Object.entries(examples)) {
            const value = doc.components.examples[example.$ref?.slice(EXAMPLES.length) ?? '']?.value;
            if (value?.code !== code || value.status !== Number(status))
              wrong.push(`${where}: ${code} is ${example.$ref ?? 'inline'}`);
          }
        }
      }
    }
    assert.deepEqual(wrong, []);
    assert.ok(responses > 500, `${responses} problem responses`);
    // Each example is a problem as the server renders its code, and every code has one.
    for (const [name, { value }] of Object.entries(doc.components.examples)) {
      const code = name.replace(/^problem-/, '') as ErrorCode;
      assert.deepEqual(value, problemExample(code), name);
      assert.equal(value.type, `/docs#error-${code}`, name);
      assert.match(String(value.request_id), /^req_[0-9a-f]{32}$/, name);
    }
    for (const code of problemCodes()) assert.equal(problemExample(code).status, problemStatus(code), code);
  });

  it('shows what the server answers, member for member', async () => {
    const api = client(ctx.app, key);
    const answers: [ErrorCode, Promise<{ status: number; body: unknown }>][] = [
      ['authentication_required', client(ctx.app)('GET', '/v1/products')],
      ['invalid_api_key', client(ctx.app, `sk_live_${'x'.repeat(40)}`)('GET', '/v1/products')],
      ['not_found', api('GET', '/v1/products/prod_NUM03sM4JHrY5j5OPiOa7rZU')],
      ['method_not_allowed', api('PUT', '/v1/users/me')],
      [
        'invalid_json',
        api('POST', '/v1/products', { payload: '{"name":', headers: { 'content-type': 'application/json' } }),
      ],
      [
        'unsupported_media_type',
        api('POST', '/v1/products', { payload: 'name=Shirt', headers: { 'content-type': 'text/plain' } }),
      ],
      [
        'invalid_idempotency_key',
        api('POST', '/v1/products', {
          body: { name: 'Shirt', price: 100 },
          headers: { 'idempotency-key': '' },
        }),
      ],
    ];
    for (const [code, answer] of answers) {
      const { status, body } = await answer;
      const { request_id: _served, ...served } = body as Node;
      const { request_id: _shown, ...shown } = problemExample(code);
      assert.equal(status, problemStatus(code), code);
      assert.deepEqual(served, shown, code);
    }
  });
});
