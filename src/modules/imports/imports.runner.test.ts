import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import { allErrors, count, importOf, upload } from '../../../test/helpers/imports.js';
import type { Page } from '../../../test/helpers/responses.js';
import { ManualClock } from '../../lib/clock.js';
import type { ProductObject } from '../products/products.schemas.js';
import { createImportRunner } from './imports.runner.js';

const LEASE_MS = 60_000;

/** `n` products without options, one row each; rows listed in `bad` have a price that is no number. */
function file(prefix: string, n: number, bad: number[] = []): string {
  const rows = ['handle,name,sku,price,stock'];
  for (let i = 1; i <= n; i++)
    rows.push(`${prefix}${i},${prefix} ${i},${prefix}-${i},${bad.includes(i) ? 'n/a' : 100 + i},${i}`);
  return `${rows.join('\n')}\n`;
}

for (const dialect of DIALECTS) {
  describe(`import runners and their leases (${dialect})`, () => {
    let ctx: TestContext;
    let key: string;
    let api: Client;
    const clock = new ManualClock(Date.parse('2026-12-20T10:00:00.000Z'));
    /** Another process's runner on the same store: its own id, the same batches. */
    const second = () =>
      createImportRunner(
        { store: ctx.deps.store, clock, logger: ctx.deps.logger, events: ctx.deps.events },
        { batchRows: 2, leaseMs: LEASE_MS },
      );

    before(async () => {
      ctx = await createTestContext(dialect, { clock, imports: { batchRows: 2, leaseMs: LEASE_MS } });
      key = (await createTenant(ctx)).apiKey.key;
      api = client(ctx.app, key);
    });
    after(() => ctx.close());

    async function productsNamed(prefix: string): Promise<ProductObject[]> {
      const res = await api<Page<ProductObject>>('GET', `/v1/products?q=${prefix}&limit=100`);
      return res.body.data;
    }

    it('lets no second runner claim an import while the first holds its lease', async () => {
      const res = await upload(ctx, key, 'resource=products', file('Lease', 6));
      const first = ctx.deps.importRunner;
      assert.equal(await first.runNext({ batches: 1 }), 'paused');
      const row = await ctx.deps.store.db
        .selectFrom('imports')
        .select(['claimed_by', 'lease_until', 'status', 'attempts'])
        .where('id', '=', res.body.id)
        .executeTakeFirstOrThrow();
      assert.ok(row.claimed_by?.startsWith(`${first.id}:`));
      assert.deepEqual(
        [row.status, row.attempts, Number(row.lease_until)],
        ['running', 1, clock.now() + LEASE_MS],
      );
      const other = second();
      clock.advance(LEASE_MS - 1);
      assert.equal(await other.runNext(), 'none');
      assert.equal(await first.runNext(), 'none');
      // Its lease runs out: the other runner takes it over and finishes it.
      clock.advance(2);
      assert.equal(await other.runNext(), 'finished');
      const done = await importOf(ctx, key, res.body.id);
      assert.deepEqual([done.status, done.created_count, done.rows_processed], ['succeeded', 6, 6]);
      const after = await ctx.deps.store.db
        .selectFrom('imports')
        .select(['claimed_by', 'lease_until', 'attempts'])
        .where('id', '=', res.body.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([after.claimed_by, after.lease_until, after.attempts], [null, null, 2]);
    });

    it('resumes a run that stopped while writing, writing no row twice', async () => {
      const eventsBefore = await count(ctx, 'events');
      const res = await upload(ctx, key, 'resource=products&on_error=skip', file('Crash', 11, [4]));
      // 11 rows in batches of 2: 6 batches validate, then 2 write batches commit (4 rows), and the
      // process "dies" (its claim left to run out).
      assert.equal(await ctx.deps.importRunner.runNext({ batches: 8 }), 'paused');
      const midway = await importOf(ctx, key, res.body.id);
      assert.deepEqual(
        [midway.status, midway.rows_total, midway.rows_processed, midway.created_count, midway.error_count],
        ['running', 11, 4, 3, 1],
      );
      assert.equal((await productsNamed('Crash')).length, 3);
      clock.advance(LEASE_MS + 1);
      assert.equal(await second().runNext(), 'finished');
      const done = await importOf(ctx, key, res.body.id);
      assert.deepEqual(
        [done.status, done.rows_processed, done.created_count, done.error_count],
        ['succeeded', 11, 10, 1],
      );
      assert.deepEqual(await allErrors(api, res.body.id), [
        { line: 5, column: 'price', message: 'must be a whole number, not "n/a"' },
      ]);
      const products = await productsNamed('Crash');
      assert.equal(products.length, 10);
      assert.equal(new Set(products.map((p) => p.sku)).size, 10);
      // One product.created each, and one import.completed.
      assert.equal((await count(ctx, 'events')) - eventsBefore, 11);
    });

    it('resumes a run that stopped while validating, reporting each error once', async () => {
      const res = await upload(ctx, key, 'resource=products&on_error=skip', file('Check', 7, [1, 6]));
      assert.equal(await ctx.deps.importRunner.runNext({ batches: 3 }), 'paused');
      const midway = await importOf(ctx, key, res.body.id);
      assert.deepEqual([midway.rows_total, midway.error_count, midway.created_count], [6, 2, 0]);
      clock.advance(LEASE_MS + 1);
      assert.equal(await second().runNext(), 'finished');
      const done = await importOf(ctx, key, res.body.id);
      assert.deepEqual([done.error_count, done.created_count, done.rows_total], [2, 5, 7]);
      assert.deepEqual(
        (await allErrors(api, res.body.id)).map((e) => e.line),
        [2, 7],
      );
    });

    it('lets a stopping runner give its import up at once, for another to resume', async () => {
      const res = await upload(ctx, key, 'resource=products', file('Stop', 4));
      const runner = second();
      // Stopped as soon as it started: the run it began stops after its first batch and lets go.
      runner.start();
      await runner.stop();
      const row = await ctx.deps.store.db
        .selectFrom('imports')
        .select(['status', 'lease_until', 'position'])
        .where('id', '=', res.body.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual([row.status, Number(row.lease_until), Number(row.position)], ['running', 0, 2]);
      await ctx.deps.importRunner.drain();
      assert.equal((await importOf(ctx, key, res.body.id)).status, 'succeeded');
      assert.equal((await productsNamed('Stop')).length, 4);
    });

    it('gives up an import that stopped too many times', async () => {
      const res = await upload(ctx, key, 'resource=products', file('Gives', 2));
      await ctx.deps.store.db
        .updateTable('imports')
        .set({ attempts: 5 })
        .where('id', '=', res.body.id)
        .execute();
      await ctx.deps.importRunner.drain();
      const done = await importOf(ctx, key, res.body.id);
      assert.equal(done.status, 'failed');
      assert.match(done.errors[0]?.message ?? '', /stopped 5 times/);
      assert.equal((await productsNamed('Gives')).length, 0);
    });

    it('lets the process go on with other work between batches', async () => {
      // On SQLite every statement is synchronous: a run that never yields holds the event loop
      // from its first batch to its end, and the server answers nothing meanwhile.
      const res = await upload(ctx, key, 'resource=products', file('Turns', 8));
      let turns = 0;
      let running = true;
      const turn = () => {
        turns += 1;
        if (running) setImmediate(turn);
      };
      setImmediate(turn);
      const started = turns;
      assert.equal(await ctx.deps.importRunner.runNext(), 'finished');
      running = false;
      // Two passes of 4 batches of 2 rows: the loop turned after each.
      assert.ok(turns - started >= 8, `the event loop turned ${turns - started} times during the run`);
      assert.equal((await importOf(ctx, key, res.body.id)).created_count, 8);
    });
  });
}
