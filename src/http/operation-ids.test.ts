import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { client, createTenant, createTestContext, type TestContext } from '../../test/helpers/context.js';
import { operationIdsOf } from './operation-ids.js';

type Doc = {
  paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>;
  tags: { name: string; description?: string }[];
};

describe('operation ids in the OpenAPI document', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext('sqlite');
  });
  after(() => ctx.close());

  it('names every operation once, in camelCase, and lists no operation that is gone', async () => {
    const api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
    const doc = (await api<Doc>('GET', '/v1/openapi.json')).body;
    const seen = new Map<string, string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        assert.match(operation.operationId ?? '', /^[a-z][a-zA-Z]+$/, where);
        assert.equal(
          seen.get(operation.operationId as string),
          undefined,
          `${where}: a second ${operation.operationId}`,
        );
        seen.set(operation.operationId as string, where);
      }
    }
    // Every name of the table belongs to an operation of the document.
    assert.deepEqual([...seen.keys()].sort(), [...operationIdsOf(ctx.deps.modules).values()].sort());
  });

  it('groups every operation under one declared tag with a description', async () => {
    const api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
    const doc = (await api<Doc>('GET', '/v1/openapi.json')).body;
    const declared = new Map(doc.tags.map((tag) => [tag.name, tag.description ?? '']));
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        assert.equal(operation.tags?.length, 1, where);
        assert.ok(
          (declared.get(operation.tags?.[0] ?? '') ?? '').length > 10,
          `${where}: ${operation.tags?.[0]}`,
        );
      }
    }
  });
});
