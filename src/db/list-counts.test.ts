import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../test/helpers/context.js';
import type { Page } from '../../test/helpers/responses.js';
import { upgradeFrom } from '../../test/helpers/upgrade.js';
import { loadVocabulary } from '../kernel/modules.js';
import { countList, foldListCounts } from './list-counts.js';
import type { Db } from './store.js';

const T0 = Date.parse('2026-12-01T09:00:00.000Z');
/** Installation events, which the event log leaves out. */
const APP_EVENT_TYPES = (await loadVocabulary()).appEventTypes;
const TYPES = ['product.created', 'product.updated', 'order.created', 'app.installed'] as const;
const STATUSES = ['pending', 'succeeded', 'failed'] as const;

async function countEvents(db: Db, tenantId: string, type: string | undefined): Promise<number> {
  let query = db
    .selectFrom('events')
    .where('tenant_id', '=', tenantId)
    .select((eb) => eb.fn.countAll<number>().as('n'));
  query =
    type === undefined ? query.where('type', 'not in', [...APP_EVENT_TYPES]) : query.where('type', '=', type);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

async function countDeliveries(db: Db, endpointId: string, status: string | undefined): Promise<number> {
  let query = db
    .selectFrom('webhook_deliveries')
    .where('endpoint_id', '=', endpointId)
    .select((eb) => eb.fn.countAll<number>().as('n'));
  if (status !== undefined) query = query.where('status', '=', status as (typeof STATUSES)[number]);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

async function writeEvent(db: Db, tenantId: string, type: string, n: number): Promise<void> {
  await db
    .insertInto('events')
    .values({
      id: `evt_${tenantId.slice(-6)}_${n}`,
      tenant_id: tenantId,
      type,
      object_type: type.split('.')[0] as string,
      object_id: `obj_${n}`,
      data: '{"id":"obj"}',
      extra: null,
      created: T0 + n,
    })
    .execute();
}

async function foldAll(ctx: TestContext): Promise<void> {
  while ((await foldListCounts(ctx.deps.store, 100)) > 0);
}

for (const dialect of DIALECTS) {
  describe(`kept list counts (${dialect})`, () => {
    let ctx: TestContext;

    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    it('count the event log as COUNT(*) does after any writes, deletes and folds', async () => {
      const db = ctx.deps.store.db;
      const tenants = [(await createTenant(ctx)).tenant.id, (await createTenant(ctx)).tenant.id] as const;
      let n = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.oneof(
              fc.record({
                op: fc.constant('write' as const),
                tenant: fc.constantFrom(...tenants),
                type: fc.constantFrom(...TYPES),
                many: fc.integer({ min: 1, max: 4 }),
              }),
              fc.record({ op: fc.constant('delete' as const), tenant: fc.constantFrom(...tenants) }),
              fc.record({ op: fc.constant('fold' as const), limit: fc.integer({ min: 1, max: 6 }) }),
            ),
            { maxLength: 25 },
          ),
          async (steps) => {
            for (const step of steps) {
              if (step.op === 'write') {
                await ctx.deps.store.transaction(async (trx) => {
                  for (let i = 0; i < step.many; i++) await writeEvent(trx, step.tenant, step.type, n++);
                });
              } else if (step.op === 'delete') {
                // As the retention purge does: the oldest event of the tenant goes.
                const oldest = await db
                  .selectFrom('events')
                  .select('id')
                  .where('tenant_id', '=', step.tenant)
                  .orderBy('created')
                  .limit(1)
                  .executeTakeFirst();
                if (oldest) await db.deleteFrom('events').where('id', '=', oldest.id).execute();
              } else {
                await foldListCounts(ctx.deps.store, step.limit);
              }
              for (const tenant of tenants) {
                for (const type of [undefined, ...TYPES]) {
                  const keys = type === undefined ? { except: APP_EVENT_TYPES } : { only: type };
                  assert.equal(
                    await countList(db, tenant, 'events', keys),
                    await countEvents(db, tenant, type),
                    `${tenant} ${type ?? 'all'} after ${JSON.stringify(step)}`,
                  );
                }
              }
            }
          },
        ),
        { numRuns: 15 },
      );
      await foldAll(ctx);
      const { left } = await db
        .selectFrom('list_count_deltas')
        .select((eb) => eb.fn.countAll<number>().as('left'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(left), 0, 'folded to the end, no delta is left');
      assert.equal(
        await countList(db, tenants[0], 'events', { except: APP_EVENT_TYPES }),
        await countEvents(db, tenants[0], undefined),
      );
    });

    it('count a delivery log by status as deliveries are queued, attempted and deleted', async () => {
      const db = ctx.deps.store.db;
      const tenant = await createTenant(ctx);
      const api: Client = client(ctx.app, tenant.apiKey.key);
      const hooks: string[] = [];
      for (const path of ['a', 'b']) {
        const hook = await api<{ id: string }>('POST', '/v1/webhooks', {
          body: {
            url: `https://example.com/hooks/${path}`,
            events: path === 'a' ? ['*'] : ['product.created'],
          },
        });
        assert.equal(hook.status, 201, hook.raw.body);
        hooks.push(hook.body.id);
      }
      let n = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.oneof(
              fc.record({ op: fc.constant('product' as const) }),
              fc.record({
                op: fc.constant('move' as const),
                pick: fc.nat(),
                to: fc.constantFrom(...STATUSES),
              }),
              fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }),
              fc.record({ op: fc.constant('fold' as const), limit: fc.integer({ min: 1, max: 6 }) }),
            ),
            { maxLength: 15 },
          ),
          async (steps) => {
            for (const step of steps) {
              const rows = await db
                .selectFrom('webhook_deliveries')
                .select('id')
                .where('tenant_id', '=', tenant.tenant.id)
                .orderBy('id')
                .execute();
              const picked = 'pick' in step ? rows[step.pick % Math.max(rows.length, 1)] : undefined;
              if (step.op === 'product') {
                const res = await api('POST', '/v1/products', {
                  body: { name: `Counted ${n++}`, price: 100 },
                });
                assert.equal(res.status, 201);
              } else if (step.op === 'move' && picked) {
                // As an attempt does: the row's status changes (or stays).
                await db
                  .updateTable('webhook_deliveries')
                  .set({ status: step.to })
                  .where('id', '=', picked.id)
                  .execute();
              } else if (step.op === 'delete' && picked) {
                await db.deleteFrom('webhook_deliveries').where('id', '=', picked.id).execute();
              } else if (step.op === 'fold') {
                await foldListCounts(ctx.deps.store, step.limit);
              }
              for (const hook of hooks) {
                for (const status of [undefined, ...STATUSES]) {
                  const keys = status === undefined ? { except: [] } : { only: status };
                  assert.equal(
                    await countList(db, tenant.tenant.id, `deliveries:${hook}`, keys),
                    await countDeliveries(db, hook, status),
                    `${hook} ${status ?? 'all'} after ${JSON.stringify(step)}`,
                  );
                }
              }
            }
          },
        ),
        { numRuns: 10 },
      );
      // The delivery log's total, with and without a status.
      const hook = hooks[0] as string;
      const all = await api<Page<unknown>>('GET', `/v1/webhooks/${hook}/deliveries?limit=1`);
      assert.equal(all.body.total, await countDeliveries(db, hook, undefined));
      const pending = await api<Page<unknown>>(
        'GET',
        `/v1/webhooks/${hook}/deliveries?status=pending&limit=1`,
      );
      assert.equal(pending.body.total, await countDeliveries(db, hook, 'pending'));
      // An endpoint deleted takes its deliveries, and their counts, with it.
      assert.equal((await api('DELETE', `/v1/webhooks/${hook}`)).status, 204);
      assert.equal(await countList(db, tenant.tenant.id, `deliveries:${hook}`, { except: [] }), 0);
      // Folded, they leave no count rows behind.
      await foldAll(ctx);
      const left = await db
        .selectFrom('list_counts')
        .select(['key', 'n'])
        .where('tenant_id', '=', tenant.tenant.id)
        .where('list', '=', `deliveries:${hook}`)
        .execute();
      assert.deepEqual(left, []);
      assert.equal(await countList(db, tenant.tenant.id, `deliveries:${hook}`, { except: [] }), 0);
      // The other endpoint's counts are whole.
      const other = hooks[1] as string;
      assert.equal(
        await countList(db, tenant.tenant.id, `deliveries:${other}`, { except: [] }),
        await countDeliveries(db, other, undefined),
      );
    });

    it('keep exact counts, and no count of zero, while folds run at once with writes', async () => {
      const db = ctx.deps.store.db;
      const tenant = await createTenant(ctx);
      const lists = ['deliveries:wh_a', 'deliveries:wh_b'];
      // Deltas as a log's rows come and go: each key's count rises and falls back to 0 again and
      // again, so concurrent folds bring counts to zero (and drop them) while others add to them.
      const deltas = Array.from({ length: 240 }, (_, i) => ({
        tenant_id: tenant.tenant.id,
        list: lists[i % 2] as string,
        key: i % 3 === 0 ? 'pending' : 'succeeded',
        // Back to 0 again and again, then up to counts the last deltas leave above 0.
        delta: i >= 192 || Math.floor(i / 6) % 2 === 0 ? 1 : -1,
      }));
      const write = async (from: number, to: number) => {
        for (let i = from; i < to; i += 4) {
          await db
            .insertInto('list_count_deltas')
            .values(deltas.slice(i, Math.min(i + 4, to)))
            .execute();
        }
      };
      await write(0, 120);
      let writing = true;
      const writer = write(120, 240).finally(() => (writing = false));
      const folder = async (limit: number) => {
        while (writing || (await foldListCounts(ctx.deps.store, limit)) > 0) {
          await foldListCounts(ctx.deps.store, limit);
        }
      };
      await Promise.all([writer, folder(1), folder(2), folder(3), folder(5)]);
      await foldAll(ctx);
      let kept = 0;
      for (const list of lists) {
        for (const key of ['pending', 'succeeded']) {
          const sum = deltas
            .filter((d) => d.list === list && d.key === key)
            .reduce((total, d) => total + d.delta, 0);
          assert.equal(await countList(db, tenant.tenant.id, list, { only: key }), sum, `${list} ${key}`);
          kept += sum;
        }
      }
      assert.ok(kept > 0, 'some counts stay above 0');
      const zero = await db
        .selectFrom('list_counts')
        .select(['list', 'key'])
        .where('tenant_id', '=', tenant.tenant.id)
        .where('n', '=', 0)
        .execute();
      assert.deepEqual(zero, []);
    });

    it('gives GET /events its total, with and without a type, as orders come', async () => {
      const api: Client = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      const product = await api<{ id: string }>('POST', '/v1/products', {
        body: { name: 'Counted cup', price: 500, stock: 50 },
      });
      const orders = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          api('POST', '/v1/orders', {
            body: {
              items: [{ product_id: product.body.id, quantity: 1 }],
              customer: { email: `c${i}@example.com` },
            },
          }),
        ),
      );
      assert.ok(orders.every((r) => r.status === 201));
      await foldListCounts(ctx.deps.store, 3);
      const all = await api<Page<{ type: string }>>('GET', '/v1/events?limit=100');
      assert.equal(all.body.total, all.body.data.length);
      const created = await api<Page<{ type: string }>>('GET', '/v1/events?type=order.created');
      assert.equal(created.body.total, 8);
      const ranged = await api<Page<{ type: string }>>(
        'GET',
        `/v1/events?created_from=${new Date(Date.now() - 3_600_000).toISOString()}&limit=100`,
      );
      assert.equal(ranged.body.total, all.body.total);
    });
  });

  describe(`migration 0031: kept list counts on a store holding events and deliveries (${dialect})`, () => {
    it('starts the counts from the rows already there', async () => {
      const upgraded = await upgradeFrom(dialect, '0029_app_runtime', async (db) => {
        await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
          VALUES ('ten_old', 'Old Store', 'pro', 'EUR', '2026-12-15', ${T0}, ${T0})`.execute(db);
        await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
          VALUES ('usr_old', 'ten_old', 'owner@old.example', 'Owner', 'owner', NULL, ${T0}, ${T0})`.execute(
          db,
        );
        await sql`INSERT INTO webhook_endpoints (id, tenant_id, url, events, description, status, secret,
            retired_secrets, api_version, last_triggered, failing_since, created, updated)
          VALUES ('wh_old', 'ten_old', 'https://example.com/old', '["*"]', NULL, 'Active',
            'whsec_b2xkb2xkb2xkb2xkb2xkb2xkb2xkb2xk', '[]', '2026-12-15', NULL, NULL, ${T0}, ${T0})`.execute(
          db,
        );
        for (let i = 0; i < 7; i++) {
          await writeEvent(db, 'ten_old', i < 5 ? 'product.created' : 'order.created', i);
          await sql`INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, event_type, attempt, manual,
              status, due_at, lease_until, lease_owner, held, time, url, response, created)
            VALUES (${`del_old${i}`}, 'ten_old', 'wh_old', ${`evt_en_old_${i}`}, 'product.created', 1, 0,
              ${i < 4 ? 'succeeded' : 'pending'}, ${T0 + i}, NULL, NULL, 0, ${i < 4 ? T0 + i : null},
              ${i < 4 ? 'https://example.com/old' : null}, NULL, ${T0 + i})`.execute(db);
        }
      });
      try {
        const api = await upgraded.clientFor('ten_old', 'usr_old');
        assert.equal((await api<Page<unknown>>('GET', '/v1/events?limit=2')).body.total, 7);
        assert.equal((await api<Page<unknown>>('GET', '/v1/events?type=order.created')).body.total, 2);
        const log = await api<Page<unknown>>('GET', '/v1/webhooks/wh_old/deliveries?limit=1');
        assert.equal(log.body.total, 7, log.raw.body);
        const done = await api<Page<unknown>>('GET', '/v1/webhooks/wh_old/deliveries?status=succeeded');
        assert.equal(done.body.total, 4);
      } finally {
        await upgraded.close();
      }
    });
  });
}
