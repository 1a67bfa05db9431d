import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { EmitInput } from '../events/events.service.js';
import type { WebhookObject } from './webhooks.presenter.js';

/**
 * Webhook fan-out of a batch of events (`events.emitMany`: an import's batch, a transfer's two
 * tenants): each event gets one pending delivery per enabled endpoint of its own tenant that
 * subscribes to its type, and nothing else, however many tenants and events the batch holds. No
 * worker runs here: the test reads the queued rows.
 */

for (const dialect of DIALECTS) {
  describe(`webhook fan-out of a batch of events (${dialect})`, () => {
    let ctx: TestContext;
    const tenants: { id: string; hooks: Record<string, string> }[] = [];

    before(async () => {
      ctx = await createTestContext(dialect, {
        // The endpoints' host resolves to a public address; nothing is ever sent to it.
        webhooks: { resolve: async () => [{ address: '93.184.215.14', family: 4 }] },
      });
      const plans: Record<string, { events: string[]; enabled?: boolean }>[] = [
        {
          all: { events: ['*'] },
          products: { events: ['product.created'] },
          disabled: { events: ['*'], enabled: false },
        },
        { transfers: { events: ['transfer.created'] } },
      ];
      for (const plan of plans) {
        const tenant = await createTenant(ctx);
        const api = client(ctx.app, tenant.apiKey.key);
        const hooks: Record<string, string> = {};
        for (const [name, { events, enabled }] of Object.entries(plan)) {
          const hook = await api<WebhookObject>('POST', '/v1/webhooks', {
            body: { url: `https://hooks.example.com/${name}`, events },
          });
          assert.equal(hook.status, 201, JSON.stringify(hook.body));
          hooks[name] = hook.body.id;
          if (enabled === false) {
            const off = await api('PATCH', `/v1/webhooks/${hook.body.id}`, { body: { enabled: false } });
            assert.equal(off.status, 200, JSON.stringify(off.body));
          }
        }
        tenants.push({ id: tenant.tenant.id, hooks });
      }
    });
    after(() => ctx.close());

    const event = (tenant: number, type: EmitInput['type'], id: string): EmitInput => ({
      tenantId: tenants[tenant]?.id ?? '',
      type,
      objectType: type.split('.')[0] ?? '',
      object: { id },
    });

    /** Each queued delivery of these events as `endpoint name <- event type object id`, in order. */
    async function queued(eventIds: readonly string[]): Promise<string[]> {
      const names = new Map(tenants.flatMap((t) => Object.entries(t.hooks).map(([name, id]) => [id, name])));
      const rows = await ctx.deps.store.db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('events as e', 'e.id', 'd.event_id')
        .select([
          'd.endpoint_id',
          'd.tenant_id',
          'd.status',
          'd.attempt',
          'e.type',
          'e.object_id',
          'e.tenant_id as event_tenant',
        ])
        .where('d.event_id', 'in', [...eventIds])
        .execute();
      for (const row of rows) {
        assert.equal(row.tenant_id, row.event_tenant);
        assert.equal(row.status, 'pending');
        assert.equal(row.attempt, 1);
      }
      return rows
        .map((row) => `${names.get(row.endpoint_id) ?? row.endpoint_id} <- ${row.type} ${row.object_id}`)
        .sort();
    }

    it("queues each event for its own tenant's subscribed, enabled endpoints only", async () => {
      const emitted = await ctx.deps.store.transaction((trx) =>
        ctx.deps.events.emitMany(trx, [
          event(0, 'product.created', 'prod_a'),
          event(1, 'transfer.created', 'tr_b'),
          event(0, 'customer.created', 'cus_a'),
          event(1, 'product.created', 'prod_b'),
          event(0, 'transfer.created', 'tr_a'),
        ]),
      );
      assert.deepEqual(await queued(emitted.map((row) => row.id)), [
        'all <- customer.created cus_a',
        'all <- product.created prod_a',
        'all <- transfer.created tr_a',
        'products <- product.created prod_a',
        'transfers <- transfer.created tr_b',
      ]);
    });

    it('queues a batch larger than one insert can hold, every delivery once', async () => {
      const count = 1_700;
      const emitted = await ctx.deps.store.transaction((trx) =>
        ctx.deps.events.emitMany(
          trx,
          Array.from({ length: count }, (_, i) => event(0, 'product.created', `prod_${i}`)),
        ),
      );
      const rows = await queued(emitted.map((row) => row.id));
      // Two endpoints of the first tenant take product.created: 3,400 deliveries (68,000 values, past
      // either store's limit of one statement's parameters), none twice.
      assert.equal(rows.length, 2 * count);
      assert.equal(new Set(rows).size, 2 * count);
      assert.equal(rows.filter((row) => row.startsWith('products <- ')).length, count);
    });

    it('queues nothing when a batch fails: its events and deliveries roll back together', async () => {
      const before = await ctx.deps.store.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      await assert.rejects(
        ctx.deps.store.transaction(async (trx) => {
          await ctx.deps.events.emitMany(trx, [event(0, 'product.created', 'prod_gone')]);
          throw new Error('the change fails after its events');
        }),
        /the change fails/,
      );
      const after = await ctx.deps.store.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(after.n), Number(before.n));
    });
  });
}
