import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { client, createTenant, createTestContext, type TestContext } from '../../test/helpers/context.js';
import type { Db } from '../db/store.js';
import { principalOf } from '../http/auth.js';
import { defineModule } from './module.js';
import { type AnyManifest, composeServices, loadModules } from './modules.js';

/**
 * A module registers itself: a manifest the house has never seen, added to the modules it finds,
 * gets its routes served and named, its permission grantable, its event type emitted, listed and
 * documented, its effect run in the emitting transaction, its tag and component in the document,
 * without a line changed anywhere else.
 */

const PingSchema = Type.Object(
  { id: Type.String(), note: Type.String() },
  { examples: [{ id: 'png_1', note: 'hello' }] },
);

/** Event ids the probe's effect saw, inside the transactions that wrote them. */
const seen: string[] = [];

const probe = defineModule({
  name: 'probe',
  position: 999,
  tags: [{ name: 'Probe', description: 'A module only this test adds to the house' }],
  permissions: ['write:probe'],
  events: [{ types: ['probe.pinged'], object: PingSchema }],
  operationIds: { 'POST /v1/probe/pings': 'createProbePing' },
  components: () => ({ ProbePing: PingSchema }),
  needs: ['events'],
  effects: () => [
    async (_trx, events) => {
      for (const event of events) if (event.type === 'probe.pinged') seen.push(event.id);
    },
  ],
  routes: [
    {
      plugin:
        (deps): FastifyPluginAsync =>
        async (app) => {
          app.post(
            '/probe/pings',
            {
              // Words of a module the compiler does not know: this test's own.
              config: { auth: 'write:probe' as never },
              schema: { tags: ['Probe'], summary: 'Ping the probe', response: { 200: PingSchema } },
            },
            async (request) => {
              const object = { id: `png_${seen.length + 1}`, note: 'hello' };
              await deps.store.transaction((trx: Db) =>
                deps.events.emit(trx, {
                  tenantId: principalOf(request).tenant.id,
                  type: 'probe.pinged' as never,
                  objectType: 'ping',
                  object,
                }),
              );
              return object;
            },
          );
        },
    },
  ],
}) as AnyManifest;

describe('a module that registers itself', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext('sqlite', { modules: [...(await loadModules()), probe] });
  });
  after(() => ctx.close());

  it('serves its route behind its own permission and runs its effect with its event', async () => {
    const tenant = await createTenant(ctx);
    const api = client(ctx.app, tenant.apiKey.key);
    const made = await api<{ id: string; key: string; permissions: string[] }>('POST', '/v1/api-keys', {
      body: { name: 'probe only', permissions: ['write:probe'] },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const other = await api<{ key: string }>('POST', '/v1/api-keys', {
      body: { name: 'catalog', permissions: ['read:products'] },
    });
    const refused = await client(ctx.app, other.body.key)('POST', '/v1/probe/pings', { body: {} });
    assert.equal(refused.status, 403);

    const pinged = await client(ctx.app, made.body.key)<{ id: string }>('POST', '/v1/probe/pings', {
      body: {},
    });
    assert.equal(pinged.status, 200);
    const events = await api<{ data: { id: string; type: string; data: { object: { id: string } } }[] }>(
      'GET',
      '/v1/events?type=probe.pinged',
    );
    assert.equal(events.status, 200);
    assert.deepEqual(
      events.body.data.map((event) => event.data.object.id),
      [pinged.body.id],
    );
    assert.ok(seen.includes(events.body.data[0]?.id ?? ''), 'the effect saw the event');
  });

  it('is in the OpenAPI document: operation, tag, component, event and permission', async () => {
    const api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
    type Doc = {
      paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>;
      tags: { name: string }[];
      components: {
        schemas: Record<string, { properties?: Record<string, { items?: { enum?: string[] } }> }>;
      };
      webhooks: Record<string, unknown>;
    };
    const doc = (await api<Doc>('GET', '/v1/openapi.json')).body;
    assert.equal(doc.paths['/v1/probe/pings']?.post?.operationId, 'createProbePing');
    assert.deepEqual(doc.paths['/v1/probe/pings']?.post?.tags, ['Probe']);
    assert.ok(doc.tags.some((tag) => tag.name === 'Probe'));
    assert.ok(doc.components.schemas.ProbePing);
    assert.ok(doc.webhooks['probe.pinged']);
    assert.ok(doc.components.schemas.ApiKey?.properties?.permissions?.items?.enum?.includes('write:probe'));
  });
});

describe('composing modules', () => {
  it('builds a module once the services it needs are built, whatever their order', () => {
    const made: string[] = [];
    const first = defineModule({ name: 'first', position: 1, needs: [], services: () => ({}) });
    const built = composeServices(
      [
        { ...first, name: 'late', needs: ['events'], services: () => (made.push('late'), { late: 1 }) },
        { ...first, name: 'events', services: () => (made.push('events'), { events: 2 }) },
      ] as AnyManifest[],
      {},
    );
    assert.deepEqual(made, ['events', 'late']);
    assert.equal(built.late, 1);
  });

  it('refuses at start a need no module offers, naming it', () => {
    assert.throws(
      () =>
        composeServices(
          [{ name: 'lonely', position: 1, needs: ['nothing'], services: () => ({}) }] as AnyManifest[],
          {},
        ),
      /lonely needs nothing/,
    );
  });
});
