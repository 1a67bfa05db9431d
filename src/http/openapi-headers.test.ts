import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { client, createTenant, createTestContext, type TestContext } from '../../test/helpers/context.js';
import { Validator } from '@seriousme/openapi-schema-validator';

type Parameter = { in: string; name: string };
type Operation = {
  security?: unknown[];
  /** Inline, or one of `components/parameters` (`$ref`). */
  parameters?: (Parameter | { $ref: string })[];
  responses: Record<string, { headers?: Record<string, unknown> }>;
};
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { parameters: Record<string, Parameter> };
  webhooks: Record<
    string,
    {
      post: {
        requestBody: {
          content: Record<
            string,
            { schema: { properties: Record<string, { properties?: Record<string, unknown> }> } }
          >;
        };
        parameters: { name: string }[];
      };
    }
  >;
};

describe('headers in the OpenAPI document', () => {
  let ctx: TestContext;
  let doc: Doc;
  before(async () => {
    ctx = await createTestContext('sqlite');
    const api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
    doc = (await api<Doc>('GET', '/v1/openapi.json')).body;
  });
  after(() => ctx.close());

  it('declares every request and response header the API reads and sends, on every operation', () => {
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        operations += 1;
        const where = `${method.toUpperCase()} ${path}`;
        const sent = new Set(
          (operation.parameters ?? [])
            .map((p) =>
              '$ref' in p ? doc.components.parameters[p.$ref.replace('#/components/parameters/', '')] : p,
            )
            .filter((p) => p?.in === 'header')
            .map((p) => p?.name),
        );
        const keyed = (operation.security ?? []).length > 0;
        assert.ok(sent.has('X-Service-Version'), where);
        assert.equal(sent.has('Idempotency-Key'), method === 'post' && keyed, `${where}: Idempotency-Key`);
        assert.equal(sent.has('If-None-Match'), method === 'get', `${where}: If-None-Match`);
        for (const [status, response] of Object.entries(operation.responses)) {
          const headers = Object.keys(response.headers ?? {});
          const at = `${where} ${status}`;
          assert.ok(headers.includes('X-Request-Id'), at);
          if (keyed && status !== '401') {
            for (const name of ['X-Service-Version', 'RateLimit-Policy', 'RateLimit']) {
              assert.ok(headers.includes(name), `${at}: ${name}`);
            }
            // The tenant's hourly limit, which storefront calls do not count against.
            assert.equal(headers.includes('X-RateLimit-Remaining'), !path.startsWith('/v1/store/'), at);
          }
          if (status === '429' || status === '503') assert.ok(headers.includes('Retry-After'), at);
          if (method === 'get' && status === '200') assert.ok(headers.includes('ETag'), at);
        }
      }
    }
    assert.ok(operations > 90, `${operations} operations`);
  });

  it('describes every event type an endpoint receives in the webhooks section', () => {
    assert.deepEqual(
      Object.keys(doc.webhooks).sort(),
      [...ctx.deps.vocabulary.eventTypes, ...ctx.deps.vocabulary.appEventTypes].sort(),
    );
    for (const [type, item] of Object.entries(doc.webhooks)) {
      const body = item.post.requestBody.content['application/json']?.schema;
      assert.ok(body?.properties.data?.properties?.object, `${type}: data.object`);
      assert.deepEqual(
        item.post.parameters.map((p) => p.name),
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
        type,
      );
    }
    assert.ok(
      doc.webhooks['product.outofstock']?.post.requestBody.content['application/json']?.schema.properties.data
        ?.properties?.variant,
    );
  });

  it('is a valid OpenAPI 3.1 document, by a maintained validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Parameters<Validator['validate']>[0]);
    assert.equal(validator.version, '3.1');
    assert.ok(result.valid, JSON.stringify(result.errors, null, 1)?.slice(0, 3000));
  });
});
