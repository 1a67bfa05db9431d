import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import { entryArgs, SKIP_IN_UNIT_RUN } from '../../../test/helpers/process.js';
import { type Receiver, startReceiver } from '../../../test/helpers/webhook-receiver.js';
import type { DeliveryObject, WebhookObject } from './webhooks.presenter.js';
import { retryDelayMs } from './webhooks.outcomes.js';

/** `src/worker.ts` as real processes: crash safety (kill -9) and several workers sharing the queue. */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

interface WorkerProcess {
  id: string;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  /** SIGTERM, and the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash. */
  kill(): Promise<void>;
}

/** Starts `src/worker.ts` and resolves once it prints that it runs. */
async function spawnWorker(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, entryArgs('src/worker.ts'), {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const id = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${out}`)), 30_000);
    const check = () => {
      const match = /Webhook worker (\S+) running/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} before starting:\n${out}`));
    });
  });
  return {
    id,
    child,
    exited,
    output: () => out,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

describe('retry schedule', () => {
  it('waits the scheduled seconds with +/- 10% jitter, and stops after the last one', () => {
    const schedule = [5, 300, 1800];
    assert.equal(
      retryDelayMs(schedule, 1, () => 0.5),
      5_000,
    );
    assert.equal(
      retryDelayMs(schedule, 1, () => 0),
      4_500,
    );
    assert.equal(
      retryDelayMs(schedule, 2, () => 1),
      330_000,
    );
    assert.equal(
      retryDelayMs(schedule, 3, () => 0.5),
      1_800_000,
    );
    assert.equal(retryDelayMs(schedule, 4), null);
  });
});

for (const dialect of DIALECTS) {
  describe(`webhook worker process (${dialect})`, { skip: SKIP_IN_UNIT_RUN }, () => {
    let ctx: TestContext;
    let api: Client;
    let rx: Receiver;
    const workers: WorkerProcess[] = [];
    const env = () => ({ ...ctx.store.env, WEBHOOK_TIMEOUT_MS: '1000' });

    before(async () => {
      ctx = await createTestContext(dialect, { env: { WEBHOOK_TIMEOUT_MS: '1000' } });
      api = client(ctx.app, (await createTenant(ctx)).apiKey.key);
    });
    after(async () => {
      for (const worker of workers) if (worker.child.exitCode === null) await worker.kill();
      await rx?.close();
      await ctx.close();
    });

    it('delivers after kill -9 mid-delivery, once the lease runs out, with the same webhook-id', async () => {
      // First request: hang (the worker dies holding it). Later ones: answer after a moment.
      rx = await startReceiver((_req, index) =>
        index === 0 ? { hang: true } : { status: 200, delayMs: 400 },
      );
      const first = await spawnWorker(env());
      workers.push(first);
      const hook = (
        await api<WebhookObject & { secret: string }>('POST', '/v1/webhooks', {
          body: { url: `${rx.url}/crash`, events: ['*'] },
        })
      ).body;
      const queued = (await api<DeliveryObject>('POST', `/v1/webhooks/${hook.id}/test`)).body;
      const [held] = await rx.waitFor(1, 20_000);
      assert.ok(held);
      await first.kill();

      const row = await ctx.deps.store.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('id', '=', queued.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.status, 'pending', 'the crash left the attempt unrecorded');
      assert.equal(row.lease_owner, first.id);
      assert.ok(row.lease_until !== null && row.lease_until > Date.now());

      const second = await spawnWorker(env());
      workers.push(second);
      const [, again] = await rx.waitFor(2, 30_000);
      assert.ok(again);
      // Lease: 2 x timeout + 5 s after the claim.
      assert.ok(again.at - held.at >= 6_000, `redelivered ${again.at - held.at} ms after the crash`);
      assert.equal(again.id, held.id);
      assert.equal(again.id, queued.event_id);
      assert.equal(again.body, held.body);
      const headers = (r: typeof held) => ({
        'webhook-id': String(r.headers['webhook-id']),
        'webhook-timestamp': String(r.headers['webhook-timestamp']),
        'webhook-signature': String(r.headers['webhook-signature']),
      });
      const verifier = new Webhook(hook.secret);
      assert.ok(verifier.verify(held.body, headers(held)));
      assert.ok(verifier.verify(again.body, headers(again)));

      // SIGTERM while the redelivery is in flight: the worker records it before exiting.
      assert.equal(await second.stop(), 0, second.output());
      const log = (await api<{ data: DeliveryObject[] }>('GET', `/v1/webhooks/${hook.id}/deliveries`)).body
        .data;
      assert.equal(log.length, 1);
      assert.equal(log[0]?.id, queued.id);
      assert.equal(log[0]?.attempt, 1);
      assert.equal(log[0]?.status, 'succeeded');
      assert.equal(log[0]?.response, '200 OK');
      const done = await ctx.deps.store.db
        .selectFrom('webhook_deliveries')
        .select(['lease_owner', 'lease_until'])
        .where('id', '=', queued.id)
        .executeTakeFirstOrThrow();
      assert.equal(done.lease_owner, second.id);
      assert.equal(done.lease_until, null);
      assert.equal(rx.received.length, 2);
    });
  });
}

describe('two webhook workers on PostgreSQL', () => {
  const skip = DIALECTS.includes('postgres') ? false : 'TEST_DATABASE_URL is not set';
  let ctx: TestContext;
  let rx: Receiver;
  const workers: WorkerProcess[] = [];

  before(async () => {
    if (skip) return;
    ctx = await createTestContext('postgres');
  });
  after(async () => {
    if (skip) return;
    for (const worker of workers) if (worker.child.exitCode === null) await worker.kill();
    await rx?.close();
    await ctx.close();
  });

  it('share 1,000 events: every one delivered exactly once, never twice at once', { skip }, async () => {
    rx = await startReceiver(() => ({ status: 200, delayMs: Math.floor(Math.random() * 4) }));
    const tenant = await createTenant(ctx);
    const api = client(ctx.app, tenant.apiKey.key);
    const hook = await api<WebhookObject>('POST', '/v1/webhooks', {
      body: { url: `${rx.url}/shared`, events: ['product.updated'] },
    });
    assert.equal(hook.status, 201);
    workers.push(await spawnWorker(ctx.store.env), await spawnWorker(ctx.store.env));

    const emitted: string[] = [];
    for (let batch = 0; batch < 10; batch++) {
      await ctx.deps.store.transaction(async (trx) => {
        for (let i = 0; i < 100; i++) {
          const event = await ctx.deps.events.emit(trx, {
            tenantId: tenant.tenant.id,
            type: 'product.updated',
            objectType: 'product',
            object: { id: `prod_${batch}_${i}`, stock: i },
          });
          emitted.push(event.id);
        }
      });
    }
    await rx.waitFor(1_000, 60_000);
    // A stopping worker lets its attempts in flight finish and records them before it exits: once
    // both have exited, whatever either sent, twice or not, has reached the receiver.
    for (const worker of workers) assert.equal(await worker.stop(), 0, worker.output());
    const counts = new Map<string, number>();
    for (const r of rx.received) counts.set(r.id, (counts.get(r.id) ?? 0) + 1);
    assert.equal(counts.size, 1_000);
    assert.deepEqual(new Set(counts.keys()), new Set(emitted));
    assert.equal(rx.received.length, 1_000, 'no event was delivered twice');
    assert.equal(rx.maxConcurrentPerId, 1);

    const rows = await ctx.deps.store.db
      .selectFrom('webhook_deliveries')
      .select(['status', 'lease_owner', 'attempt'])
      .where('endpoint_id', '=', hook.body.id)
      .execute();
    assert.equal(rows.length, 1_000);
    assert.ok(rows.every((r) => r.status === 'succeeded' && r.attempt === 1));
    const owners = new Set(rows.map((r) => r.lease_owner));
    assert.deepEqual(owners, new Set(workers.map((w) => w.id)), 'both workers took a share');
  });
});
