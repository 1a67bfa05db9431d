import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import {
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import { eventually, type Receiver, startReceiver } from '../../../test/helpers/webhook-receiver.js';
import { ManualClock } from '../../lib/clock.js';
import { createTransport } from './webhooks.transport.js';
import { PREFETCH_ROUNDS } from './webhooks.slots.js';
import { createWebhookWorker, DEFAULT_CONCURRENCY } from './webhooks.worker.js';

/**
 * Claiming ahead for endpoints that answer fast: a worker holds several rounds of an endpoint's
 * attempts from one claim, still sends at most `perEndpoint` at once, and never sends an attempt
 * whose lease ran out while it waited (another worker may have claimed it by then).
 */

const PER_ENDPOINT = 8;

for (const dialect of DIALECTS) {
  describe(`claiming ahead for a fast endpoint (${dialect})`, () => {
    let ctx: TestContext | undefined;
    let receiver: Receiver | undefined;

    afterEach(async () => {
      await ctx?.close();
      await receiver?.close();
      ctx = undefined;
      receiver = undefined;
    });

    /** A tenant with one endpoint at the receiver, and `emit(n)` writing n events for it. */
    async function setUp(context: TestContext, rx: Receiver) {
      const tenant = await createTenant(context);
      const principal = {
        tenant: { ...tenant.tenant, livemode: true },
        userId: tenant.user.id,
        key: {
          id: tenant.apiKey.id,
          name: 'test',
          type: 'secret' as const,
          permissions: new Set<never>(),
          expiresAt: null,
        },
      };
      await context.deps.webhooks.create(principal, { url: `${rx.url}/hook`, events: ['product.updated'] });
      return async (count: number, from = 0) => {
        for (let start = from; start < from + count; start += 100) {
          await context.deps.store.transaction(async (trx) => {
            for (let i = start; i < Math.min(from + count, start + 100); i++) {
              await context.deps.events.emit(trx, {
                tenantId: tenant.tenant.id,
                type: 'product.updated',
                objectType: 'product',
                object: { id: `prod_${i}` },
              });
            }
          });
        }
      };
    }

    /** How many times each event arrived. */
    function arrivals(rx: Receiver): Map<string, number> {
      const seen = new Map<string, number>();
      for (const { id } of rx.received) seen.set(id, (seen.get(id) ?? 0) + 1);
      return seen;
    }

    it('holds several rounds of attempts from a claim, with at most 8 at the receiver', async () => {
      ctx = await createTestContext(dialect);
      // The first 40 attempts are answered at once (the endpoint is known to be fast); the next
      // eight wait until the test has seen what the worker holds.
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      receiver = await startReceiver(async (_request, index) => {
        if (index >= 40 && index < 48) await gate;
        return { status: 200, body: '{"ok":true}' };
      });
      const emit = await setUp(ctx, receiver);
      await emit(40);
      const worker = ctx.deps.webhookWorker;
      worker.start({ pollMs: 20 });
      await receiver.waitFor(40, 30_000);
      await eventually(() => worker.inFlight === 0, 30_000);
      await emit(560, 40);
      await receiver.waitFor(48, 30_000);
      // Eight at the receiver, and more claimed behind them: one claim's worth for a fast
      // endpoint is up to 8 rounds of 8.
      await eventually(() => worker.holding > 2 * PER_ENDPOINT, 30_000);
      // Attempts whose outcomes are being written hold no slot, so `holding`, not `inFlight`.
      assert.ok(worker.holding <= PER_ENDPOINT * PREFETCH_ROUNDS, `the worker held ${worker.holding}`);
      assert.equal(receiver.received.length, 48, 'nothing past the eight at the receiver was sent');
      open();
      await receiver.waitFor(600, 60_000);
      await eventually(() => worker.inFlight === 0, 30_000);
      assert.ok(receiver.maxConcurrent <= PER_ENDPOINT, `${receiver.maxConcurrent} at the receiver at once`);
      const seen = arrivals(receiver);
      assert.equal(seen.size, 600);
      assert.ok(
        [...seen.values()].every((n) => n === 1),
        'every event arrived once',
      );
    });

    it('gives back attempts whose lease ran out while they waited, and another worker sends them once', async () => {
      const clock = new ManualClock(Date.now());
      ctx = await createTestContext(dialect, { clock });
      // The first 40 attempts are answered at once (the endpoint is known to be fast), the next
      // eight wait until the test lets them go, while the worker holds the rest of its claim.
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      receiver = await startReceiver(async (_request, index) => {
        if (index >= 40 && index < 48) await gate;
        return { status: 200, body: '{"ok":true}' };
      });
      const emit = await setUp(ctx, receiver);
      await emit(40);
      const first = ctx.deps.webhookWorker;
      first.start({ pollMs: 20 });
      await receiver.waitFor(40, 30_000);
      await eventually(() => first.inFlight === 0, 30_000);
      await emit(200, 40);
      await receiver.waitFor(48, 30_000);
      await eventually(() => first.inFlight > 2 * PER_ENDPOINT, 30_000);

      // The leases of the attempts the first worker holds run out; a second worker claims them.
      clock.advance(2 * ctx.config.webhooks.timeoutMs + 5_000 + 1);
      const second = createWebhookWorker(
        {
          store: ctx.deps.store,
          clock,
          logger: ctx.deps.logger,
          config: ctx.config,
          events: ctx.deps.events,
          transport: createTransport({
            allowInsecure: true,
            timeoutMs: ctx.config.webhooks.timeoutMs,
            connectionsPerOrigin: DEFAULT_CONCURRENCY,
            resolve: async () => [{ address: '127.0.0.1', family: 4 }],
          }),
        },
        { perEndpoint: PER_ENDPOINT },
      );
      second.start({ pollMs: 20 });
      try {
        open();
        await receiver.waitFor(240, 30_000);
        await eventually(() => first.inFlight === 0 && second.inFlight === 0, 30_000);
        const seen = arrivals(receiver);
        assert.equal(seen.size, 240);
        // The eight at the receiver when their leases ran out may go twice (at least once); none of
        // the attempts that waited in the first worker does.
        const atTheReceiver = new Set(receiver.received.slice(40, 48).map(({ id }) => id));
        const twice = [...seen].filter(([id, n]) => n > 1 && !atTheReceiver.has(id)).map(([id]) => id);
        assert.deepEqual(twice, [], 'no waiting attempt was sent by both workers');
        const pending = await ctx.deps.store.db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', '=', 'pending')
          .executeTakeFirstOrThrow();
        assert.equal(Number(pending.n), 0);
      } finally {
        await second.stop();
      }
    });

    it('gives back what it claimed and did not start when it stops, for another worker at once', async () => {
      ctx = await createTestContext(dialect);
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      receiver = await startReceiver(async (_request, index) => {
        if (index >= 40) await gate;
        return { status: 200, body: '{"ok":true}' };
      });
      const emit = await setUp(ctx, receiver);
      await emit(40);
      const worker = ctx.deps.webhookWorker;
      worker.start({ pollMs: 20 });
      await receiver.waitFor(40, 30_000);
      await eventually(() => worker.inFlight === 0, 30_000);
      await emit(200, 40);
      await eventually(() => worker.inFlight > 2 * PER_ENDPOINT, 30_000);
      const stopped = worker.stop();
      open();
      await stopped;
      // Nothing is leased any longer: what was claimed and not sent waits in the queue, due now.
      const leased = await ctx.deps.store.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '=', 'pending')
        .where('lease_owner', 'is not', null)
        .executeTakeFirstOrThrow();
      assert.equal(Number(leased.n), 0);
      const sent = arrivals(receiver).size;
      assert.ok(sent < 240, `${sent} sent before the stop`);
      worker.start({ pollMs: 20 });
      await receiver.waitFor(240, 30_000);
      await eventually(() => worker.inFlight === 0, 30_000);
      assert.equal(arrivals(receiver).size, 240);
    });
  });
}
