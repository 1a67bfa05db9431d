import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { loadConfig } from '../../config.js';
import { createDeps } from '../../deps.js';
import { openStore, type Store } from '../../db/store.js';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  migratedStore,
  type TestContext,
  type TestStore,
} from '../../../test/helpers/context.js';
import {
  type ServerProcess,
  SKIP_IN_UNIT_RUN,
  spawnServer,
  WORKER_READY,
} from '../../../test/helpers/process.js';
import { eventually } from '../../../test/helpers/webhook-receiver.js';
import { verifyRun } from './audit.chain.js';
import { createAuditSealer } from './audit.sealer.js';

/**
 * Sealers that run at once: two processes' sealers (here, two pools of one store) chaining one
 * tenant's entries while changes keep writing them make one unbroken chain; an erasure that rewrites
 * the entries a sealer is chaining leaves a chain `audit:verify` accepts and none of the person's
 * data; and `npm run worker` seals too.
 */

async function unsealed(store: Store, tenantId: string): Promise<number> {
  const row = await store.db
    .selectFrom('audit_entries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('seq', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The tenant's entries in chain order, checked link by link. */
async function chainOf(store: Store, tenantId: string) {
  const rows = await store.db
    .selectFrom('audit_entries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('seq')
    .execute();
  return { rows, run: verifyRun({ hash: '', seq: 0 }, rows) };
}

for (const dialect of DIALECTS) {
  describe(`audit sealers at once (${dialect})`, () => {
    let ctx: TestContext;
    /**
     * PostgreSQL: a second pool on the same store, another process's sealer as far as the database
     * can tell. SQLite: the same store (a second connection of this process would wait for the
     * write lock on the thread that holds it; two processes' sealers take turns on the lock).
     */
    let other: Store;

    before(async () => {
      ctx = await createTestContext(dialect);
      other = dialect === 'postgres' ? openStore({ ...ctx.config, poolSize: 2 }) : ctx.deps.store;
    });
    after(async () => {
      if (other !== ctx.deps.store) await other.close();
      await ctx.close();
    });

    it(
      'two sealers sealing while changes write entries make one unbroken chain',
      { timeout: 120_000 },
      async () => {
        const shop = await createTenant(ctx);
        const tenantId = shop.tenant.id;
        const api = client(ctx.app, shop.apiKey.key);
        const made = await api('POST', '/v1/products', { body: { name: 'Raced mug', price: 100 } });
        assert.equal(made.status, 201);
        const sealers = [createAuditSealer({ store: ctx.deps.store }), createAuditSealer({ store: other })];

        let writing = true;
        let sealed = 0;
        const sealing = sealers.map(async (sealer) => {
          while (writing) {
            const n = await sealer.seal(tenantId);
            sealed += n;
            await sleep(2);
          }
        });
        const ROUNDS = 8;
        const PER_ROUND = 15;
        for (let round = 0; round < ROUNDS; round++) {
          const answers = await Promise.all(
            Array.from({ length: PER_ROUND }, (_, i) =>
              api('PATCH', `/v1/products/${String(made.body.id)}`, {
                body: { price: 1000 + round * 100 + i },
              }),
            ),
          );
          assert.deepEqual(new Set(answers.map((res) => res.status)), new Set([200]));
          // While both sealers seal: the count by action is exact, each entry counted once, sealed or not.
          const page = await api<{ total: number }>('GET', '/v1/audit-log?action=product.updated&limit=1');
          assert.equal(page.body.total, (round + 1) * PER_ROUND, `round ${round}`);
        }
        writing = false;
        await Promise.all(sealing);
        sealed += (await Promise.all(sealers.map((sealer) => sealer.seal(tenantId)))).reduce((a, b) => a + b);

        const expected = 1 + ROUNDS * PER_ROUND;
        assert.equal(await unsealed(ctx.deps.store, tenantId), 0);
        assert.equal(sealed, expected, 'each entry sealed once, by one of the two');
        const { rows, run } = await chainOf(ctx.deps.store, tenantId);
        assert.equal(run.ok, true, JSON.stringify(run));
        assert.deepEqual(
          rows.map((row) => Number(row.seq)),
          Array.from({ length: expected }, (_, i) => i + 1),
        );
        assert.deepEqual(await ctx.deps.auditLog.verify(tenantId), {
          ok: true,
          tenant_id: tenantId,
          checked: expected,
          broken: null,
        });
        const byAction = await api<{ total: number }>('GET', '/v1/audit-log?action=product.updated&limit=1');
        assert.equal(byAction.body.total, ROUNDS * PER_ROUND, 'all sealed: the kept count alone');
      },
    );

    it('chains a backlog of more entries than one batch, each batch in one statement', async () => {
      const shop = await createTenant(ctx);
      const tenantId = shop.tenant.id;
      // 1,201 entries: two full batches of 500 and one of 201, after the store's own.
      await ctx.deps.store.transaction(async (trx) => {
        for (let i = 0; i < 1_201; i++) {
          await ctx.deps.audit.record(trx, {
            tenantId,
            action: 'settings.updated',
            resource: { type: 'settings', id: tenantId },
            before: { note: i },
            after: { note: i + 1 },
          });
        }
      });
      const backlog = await unsealed(ctx.deps.store, tenantId);
      assert.ok(backlog >= 1_201, `${backlog} unsealed`);
      assert.equal(await createAuditSealer({ store: ctx.deps.store }).seal(tenantId), backlog);
      assert.equal(await unsealed(ctx.deps.store, tenantId), 0);
      const { rows, run } = await chainOf(ctx.deps.store, tenantId);
      assert.equal(run.ok, true, JSON.stringify(run));
      assert.deepEqual(
        rows.map((row) => Number(row.seq)),
        Array.from({ length: rows.length }, (_, i) => i + 1),
      );
      // Each entry its own changes, as the change wrote them.
      const last = rows.at(-1);
      assert.deepEqual(JSON.parse(last?.changes ?? 'null'), { note: { from: 1200, to: 1201 } });
      assert.equal((await ctx.deps.auditLog.verify(tenantId)).ok, true);
    });

    it(
      'an erasure while a sealer seals the same entries leaves a chain that verifies and no personal data',
      { timeout: 120_000 },
      async () => {
        const shop = await createTenant(ctx);
        const tenantId = shop.tenant.id;
        const api = client(ctx.app, shop.apiKey.key);
        const sealer = createAuditSealer({ store: other });
        await sealer.seal(tenantId);
        // First in line to be sealed, an entry the erasure does not touch: holding its row, the test
        // stops the sealer after it has read every entry it is about to chain.
        const made = await api('POST', '/v1/products', { body: { name: 'Before them', price: 100 } });
        assert.equal(made.status, 201);
        const person = { email: 'erased.person@example.org', name: 'Erased Person' };
        const people = [person];
        const customer = await api('POST', '/v1/customers', {
          body: { ...person, phone: '+44 20 7946 0042' },
        });
        assert.equal(customer.status, 201, JSON.stringify(customer.body));
        const id = String(customer.body.id);
        // Entries of the customer not chained yet: their changes are worked out from their states
        // (which hold the person's data) as they are sealed.
        for (let i = 0; i < 20; i++) {
          const res = await api('PATCH', `/v1/customers/${id}`, {
            body: { note: `Call ${person.name} (${i})` },
          });
          assert.equal(res.status, 200);
        }
        const first = await ctx.deps.store.db
          .selectFrom('audit_entries')
          .select('id')
          .where('tenant_id', '=', tenantId)
          .where('seq', 'is', null)
          .orderBy('id')
          .executeTakeFirstOrThrow();

        let release = () => {};
        const released = new Promise<void>((resolve) => (release = resolve));
        let held = () => {};
        const holding = new Promise<void>((resolve) => (held = resolve));
        // PostgreSQL: the first entry's row lock, held by another connection while the sealer reads
        // and then waits for it, and the erasure runs. SQLite has no row lock: its transactions take
        // turns on the store's write lock, and the two run at once as they can.
        const holder =
          dialect === 'postgres'
            ? ctx.deps.store.db.transaction().execute(async (trx) => {
                await sql`SELECT id FROM audit_entries WHERE id = ${first.id} FOR UPDATE`.execute(trx);
                held();
                await released;
              })
            : (held(), released);
        await holding;
        const sealing = sealer.seal(tenantId);
        // PostgreSQL: the erasure starts once the sealer waits for the held row (a backend of this
        // database waiting on a lock), however slow the machine; SQLite: after a moment.
        if (dialect === 'postgres') {
          await eventually(
            async () => {
              const { rows } = await sql<{ waiting: number }>`SELECT count(*)::int AS waiting
              FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(
                ctx.deps.store.db,
              );
              return (rows[0]?.waiting ?? 0) > 0;
            },
            30_000,
            'the sealer waiting for the held row',
          );
        } else await sleep(300);
        const erasing = ctx.deps.customerPrivacy.redact(tenantId, id);
        // Without a turn of its own on the chain, the erasure is done by now; with one, it waits for
        // the sealer (which waits for the row).
        await Promise.race([erasing, sleep(700)]);
        release();
        await holder;
        const [sealedNow, redacted] = await Promise.all([sealing, erasing]);
        assert.ok(sealedNow > 20);
        assert.equal(redacted.email.startsWith('redacted+'), true);
        const report = await ctx.deps.auditLog.verify(tenantId);
        assert.equal(report.ok, true, JSON.stringify(report));
        const { rows } = await chainOf(ctx.deps.store, tenantId);
        for (const row of rows) {
          const text = `${row.changes ?? ''} ${row.snapshot ?? ''}`;
          for (const person of people) {
            assert.ok(!text.includes(person.email), `entry ${row.seq} (${row.action}) holds ${person.email}`);
            assert.ok(!text.includes(person.name), `entry ${row.seq} (${row.action}) holds ${person.name}`);
          }
          assert.ok(!text.includes('7946'), `entry ${row.seq} (${row.action}) holds the phone number`);
        }
      },
    );
  });

  describe(`the sealer of npm run worker (${dialect})`, { skip: SKIP_IN_UNIT_RUN }, () => {
    let store: TestStore;
    let worker: ServerProcess | undefined;

    before(async () => {
      store = await migratedStore(dialect);
    });
    after(async () => {
      if (worker && worker.child.exitCode === null) await worker.stop();
      await store.drop();
    });

    it('chains the entries servers wrote without sealing them', { timeout: 120_000 }, async () => {
      const deps = await createDeps(loadConfig(store.env));
      try {
        const made = await deps.tenants.create({
          name: 'Sealed by worker',
          email: 'worker-seal@example.com',
        });
        const tenantId = made.tenant.id;
        // Changes of a process that never seals (an API process that is not running its background work).
        for (let i = 0; i < 5; i++) {
          await deps.store.transaction((trx) =>
            deps.audit.record(trx, {
              tenantId,
              action: 'settings.updated',
              resource: { type: 'settings', id: tenantId },
              before: { note: i },
              after: { note: i + 1 },
            }),
          );
        }
        const written = await unsealed(deps.store, tenantId);
        assert.ok(written >= 5, `${written} unsealed entries`);
        worker = await spawnServer(store.env, 'src/worker.ts', { ready: WORKER_READY });
        let left = written;
        for (let attempt = 0; attempt < 100 && left > 0; attempt++) {
          await sleep(100);
          left = await unsealed(deps.store, tenantId);
        }
        assert.equal(left, 0, 'the worker sealed every entry within 10 s');
        const { run } = await chainOf(deps.store, tenantId);
        assert.equal(run.ok, true, JSON.stringify(run));
        assert.equal(await worker.stop(), 0);
      } finally {
        await deps.close();
      }
    });
  });
}
