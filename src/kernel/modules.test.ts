import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyPluginAsync } from 'fastify';
import { type Kysely, sql } from 'kysely';
import { Type } from 'typebox';
import { client, createTenant, createTestContext, type TestContext } from '../../test/helpers/context.js';
import type { Db } from '../db/store.js';
import { principalOf } from '../http/auth.js';
import { AppError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { defineModule } from './module.js';
import { type AnyManifest, composeServices, declareModules, loadModules } from './modules.js';

/**
 * A module registers itself: a manifest the house has never seen, added to the modules it finds,
 * gets its routes served and named, its permission grantable, its event type emitted, listed and
 * documented, its effect run in the emitting transaction, its tag and component in the document,
 * its problem code answered and documented, its ids made with its prefix and its table made by its
 * migration, without a line changed anywhere else.
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
  problems: {
    probe_refused: {
      status: 409,
      title: 'Probe refused',
      example: { detail: 'The probe refuses this ping.' },
    },
  },
  idPrefixes: ['png'],
  // Numbered past any real migration: the probe's table, in this test's store only.
  migrations: {
    '9999_probe_pings': {
      up: async (db: Kysely<unknown>) => {
        await db.schema
          .createTable('probe_pings')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('tenant_id', 'text', (c) => c.notNull())
          .execute();
      },
    },
  },
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
              schema: {
                tags: ['Probe'],
                summary: 'Ping the probe',
                querystring: Type.Object({ refuse: Type.Optional(Type.Boolean()) }),
                response: { 200: PingSchema },
              },
            },
            async (request) => {
              if ((request.query as { refuse?: boolean }).refuse) {
                throw new AppError('probe_refused' as never, 'The probe refuses this ping.');
              }
              const tenantId = principalOf(request).tenant.id;
              const object = { id: newId('png' as never), note: 'hello' };
              await deps.store.transaction(async (trx: Db) => {
                await sql`INSERT INTO probe_pings (id, tenant_id) VALUES (${object.id}, ${tenantId})`.execute(
                  trx,
                );
                await deps.events.emit(trx, {
                  tenantId,
                  type: 'probe.pinged' as never,
                  objectType: 'ping',
                  object,
                });
              });
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
  after(async () => {
    await ctx.close();
    // The process's problem codes and id prefixes: the probe's go with it.
    declareModules([{ ...probe, problems: {}, idPrefixes: [] }]);
  });

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
    // Its id has its prefix, and its row is in the table its migration made.
    assert.match(pinged.body.id, /^png_[0-9A-Za-z]{24}$/);
    const rows = await sql<{ id: string }>`SELECT id FROM probe_pings`.execute(ctx.deps.store.db);
    assert.deepEqual(
      rows.rows.map((row) => row.id),
      [pinged.body.id],
    );
  });

  it('answers its own problem code, with its status and title', async () => {
    const api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
    const refused = await api<{ code: string; title: string; status: number }>(
      'POST',
      '/v1/probe/pings?refuse=true',
      { body: {} },
    );
    assert.equal(refused.status, 409);
    assert.deepEqual(
      [refused.body.code, refused.body.title, refused.body.status],
      ['probe_refused', 'Probe refused', 409],
    );
  });

  it('is in the OpenAPI document: operation, tag, component, event and permission', async () => {
    const api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
    type Doc = {
      paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>;
      tags: { name: string }[];
      components: {
        schemas: Record<
          string,
          { properties?: Record<string, { enum?: string[]; items?: { enum?: string[] } }> }
        >;
        examples: Record<string, { value: { code: string; title: string } }>;
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
    // Its problem code: listed with its status's, shown as an example, named in the reference.
    assert.ok(doc.components.schemas.Problem?.properties?.code?.enum?.includes('probe_refused'));
    assert.equal(doc.components.examples['problem-probe_refused']?.value.title, 'Probe refused');
    const conflict = (
      doc.paths['/v1/probe/pings']?.post as
        | {
            responses?: Record<
              string,
              { description?: string; content?: Record<string, { examples?: object }> }
            >;
          }
        | undefined
    )?.responses?.['409'];
    assert.match(conflict?.description ?? '', /`probe_refused`/);
    assert.ok(
      Object.keys(conflict?.content?.['application/problem+json']?.examples ?? {}).includes('probe_refused'),
    );
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
