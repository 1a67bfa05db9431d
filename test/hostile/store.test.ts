import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { sqliteFile } from '../../src/db/store.js';
import { createDeps, type Deps } from '../../src/deps.js';
import { randomBase62 } from '../../src/lib/ids.js';
import type { CreatedTenant } from '../../src/modules/tenants/tenants.service.js';
import {
  type ApiResponse,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  freshStore,
  type TestContext,
  type TestStore,
} from '../helpers/context.js';
import type { Problem as ProblemBody } from '../helpers/responses.js';
import { eventually } from '../helpers/webhook-receiver.js';

/**
 * Hostile use of the store (src/db/store.ts, src/db/tenant-share.ts):
 * - a write waiting on a lock held elsewhere (a PostgreSQL row lock, SQLite's write lock) gives up
 *   after DATABASE_LOCK_TIMEOUT_MS with a retryable 503, changes nothing, and goes through on retry;
 * - PostgreSQL: one tenant's transfers stuck on its wallet's row lock take at most its share of the
 *   pool, so another tenant's reads and writes are served meanwhile;
 * - PostgreSQL refusing new connections (the role's connection limit): 503 with Retry-After, not
 *   500, and /readyz says so until connections are taken again.
 */

const PG = DIALECTS.includes('postgres');
const USD = 'USD';

/** A body that may be a problem: these requests may also go through. */
type Problem = Partial<ProblemBody>;

function assertRetryable(res: ApiResponse<Problem>, what: string): void {
  assert.equal(res.status, 503, `${what}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.code, 'service_unavailable', what);
  assert.equal(res.headers['retry-after'], '1', `${what}: Retry-After`);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
}

/** A PostgreSQL session of its own on the context's database, in its schema. */
async function outsideSession(ctx: TestContext): Promise<pg.Client> {
  const session = new pg.Client({
    connectionString: ctx.config.databaseUrl,
    options: `-c search_path=${ctx.config.databaseSchema ?? 'public'}`,
  });
  await session.connect();
  return session;
}

async function transferCount(ctx: TestContext, tenantId: string) {
  const transfers = await ctx.deps.store.db
    .selectFrom('wallet_transfers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return Number(transfers.n);
}

for (const dialect of DIALECTS) {
  describe(`a write waiting on a lock held elsewhere (${dialect})`, () => {
    let ctx: TestContext;
    let payer: CreatedTenant;
    let destination = '';

    before(async () => {
      ctx = await createTestContext(dialect, { env: { DATABASE_LOCK_TIMEOUT_MS: '500' } });
      payer = await createTenant(ctx);
      const payee = await createTenant(ctx);
      await ctx.deps.wallet.credit(payer.tenant.id, { amount: 1_000, currency: USD });
      destination = (await ctx.deps.wallet.balance(payee.tenant)).wallet_id;
    });
    after(async () => {
      await ctx?.close();
    });

    it('answers 503 with Retry-After once the lock wait times out, changes nothing, and the retry goes through', async () => {
      const api = client(ctx.app, payer.apiKey.key);
      const source = (await ctx.deps.wallet.balance(payer.tenant)).wallet_id;
      const transfer = () =>
        api<Problem & { id?: string }>('POST', '/v1/wallet/transfer', {
          body: { amount: 250, currency: USD, destination_wallet_id: destination },
          headers: { 'idempotency-key': 'locked-out' },
        });

      let refused: ApiResponse<Problem>;
      if (dialect === 'postgres') {
        const session = await outsideSession(ctx);
        try {
          await session.query('BEGIN');
          await session.query('SELECT id FROM ledger_accounts WHERE id = $1 FOR UPDATE', [source]);
          refused = await transfer();
        } finally {
          await session.query('ROLLBACK');
          await session.end();
        }
      } else {
        // Another process writing: the operator CLI, say, in a write transaction.
        const other = new SqliteDatabase(sqliteFile(ctx.config.dataDir));
        try {
          other.exec('BEGIN IMMEDIATE');
          refused = await transfer();
        } finally {
          other.exec('ROLLBACK');
          other.close();
        }
      }
      assertRetryable(refused, 'the transfer waiting on the lock');
      assert.match(refused.body.detail ?? '', /locked/);
      assert.equal((await ctx.deps.wallet.balance(payer.tenant)).available, 1_000);
      assert.equal(await transferCount(ctx, payer.tenant.id), 0);

      // The 503 let go of the Idempotency-Key: the same request now goes through, once.
      const retried = await transfer();
      assert.equal(retried.status, 201, JSON.stringify(retried.body));
      assert.equal((await ctx.deps.wallet.balance(payer.tenant)).available, 750);
      assert.equal(await transferCount(ctx, payer.tenant.id), 1);
      assert.equal((await ctx.deps.wallet.verify()).ok, true);
    });
  });
}

describe('one tenant whose wallet row is locked, beside another tenant (postgres)', { skip: !PG }, () => {
  const POOL = 10;
  const SHARE = POOL / 2;
  const TRANSFERS = 20;
  let ctx: TestContext;
  let hot: CreatedTenant;
  let neighbour: CreatedTenant;
  let destination = '';

  before(async () => {
    // The production pool size; a lock timeout that leaves room to serve the neighbour meanwhile.
    ctx = await createTestContext('postgres', {
      poolSize: POOL,
      env: { DATABASE_LOCK_TIMEOUT_MS: '2000' },
    });
    hot = await createTenant(ctx);
    neighbour = await createTenant(ctx);
    const payee = await createTenant(ctx);
    await ctx.deps.wallet.credit(hot.tenant.id, { amount: 100_000, currency: USD });
    destination = (await ctx.deps.wallet.balance(payee.tenant)).wallet_id;
  });
  after(async () => {
    await ctx?.close();
  });

  it("serves the neighbour while the hot tenant's transfers wait, which then give up with 503 and move nothing", async () => {
    const hotApi = client(ctx.app, hot.apiKey.key);
    const neighbourApi = client(ctx.app, neighbour.apiKey.key);
    const source = (await ctx.deps.wallet.balance(hot.tenant)).wallet_id;
    const ledgerBefore = await ctx.deps.wallet.verify();
    const session = await outsideSession(ctx);
    // Watched from a session of its own: inside a transaction, pg_stat_activity stays as first read.
    const observer = await outsideSession(ctx);
    /**
     * Sessions waiting on a lock of this schema's ledger: the hot tenant's transfers, one per
     * connection (the first waits on the outside session, the others queue behind it).
     */
    const blocked = async () =>
      Number(
        (
          await observer.query<{ n: string }>(
            `SELECT count(DISTINCT a.pid) AS n FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid
             WHERE a.wait_event_type = 'Lock' AND l.relation = 'ledger_accounts'::regclass`,
          )
        ).rows[0]?.n,
      );

    let transfers: Promise<ApiResponse<Problem>[]>;
    try {
      await session.query('BEGIN');
      await session.query('SELECT id FROM ledger_accounts WHERE id = $1 FOR UPDATE', [source]);
      transfers = Promise.all(
        Array.from({ length: TRANSFERS }, (_, i) =>
          hotApi<Problem>('POST', '/v1/wallet/transfer', {
            body: { amount: 10 + i, currency: USD, destination_wallet_id: destination },
            headers: { 'idempotency-key': `hot-${i}` },
          }),
        ),
      );
      await eventually(async () => (await blocked()) === SHARE, 10_000, 'the hot tenant filling its share');

      // The hot tenant holds its share of the pool, all of it waiting; the neighbour gets the rest.
      const listed = await neighbourApi('GET', '/v1/products');
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      const created = await neighbourApi('POST', '/v1/products', {
        body: { name: 'Served meanwhile', price: 1_250, currency: USD },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const read = await neighbourApi('GET', `/v1/products/${String(created.body.id)}`);
      assert.equal(read.status, 200);
      // ...all while the lock is held and the hot tenant's transfers still wait, never more than its share.
      const waiting = await blocked();
      assert.ok(waiting > 0 && waiting <= SHARE, `${waiting} transfers waiting on the lock`);

      for (const [i, res] of (await transfers).entries()) assertRetryable(res, `transfer ${i}`);
    } finally {
      await session.query('ROLLBACK');
      await session.end();
      await observer.end();
    }

    // Nothing moved: no transfer, the balance as it was, the ledger exactly as before.
    assert.equal(await transferCount(ctx, hot.tenant.id), 0);
    assert.equal((await ctx.deps.wallet.balance(hot.tenant)).available, 100_000);
    const ledgerAfter = await ctx.deps.wallet.verify();
    assert.equal(ledgerAfter.ok, true);
    assert.deepEqual(ledgerAfter.currencies, ledgerBefore.currencies);

    // With the lock let go, the retry of a refused transfer (same Idempotency-Key) goes through once.
    const retried = await hotApi<Problem>('POST', '/v1/wallet/transfer', {
      body: { amount: 10, currency: USD, destination_wallet_id: destination },
      headers: { 'idempotency-key': 'hot-0' },
    });
    assert.equal(retried.status, 201, JSON.stringify(retried.body));
    assert.equal(await transferCount(ctx, hot.tenant.id), 1);
    assert.equal((await ctx.deps.wallet.balance(hot.tenant)).available, 100_000 - 10);
    assert.equal((await ctx.deps.wallet.verify()).ok, true);
  });
});

describe('PostgreSQL refusing new connections (postgres)', { skip: !PG }, () => {
  const role = `cp_limited_${randomBase62(8).toLowerCase()}`;
  let store: TestStore;
  let admin: pg.Client;
  let deps: Deps;
  let api: ReturnType<typeof client>;
  let app: Awaited<ReturnType<typeof buildApp>>;

  before(async () => {
    store = await freshStore('postgres');
    const schema = store.env.DATABASE_SCHEMA ?? '';
    // Migrated and seeded as the test database's owner; served as a role of its own.
    let key = '';
    const owner = await createDeps(loadConfig(store.env), { poolSize: 2 });
    try {
      key = (await owner.tenants.create({ name: 'Limited', email: 'limited@example.com' })).apiKey.key;
    } finally {
      await owner.close();
    }
    admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 10`);
    await admin.query(`GRANT USAGE, CREATE ON SCHEMA ${schema} TO ${role}`);
    await admin.query(`GRANT ALL ON ALL TABLES IN SCHEMA ${schema} TO ${role}`);
    await admin.query(`GRANT ALL ON ALL SEQUENCES IN SCHEMA ${schema} TO ${role}`);
    const url = new URL(process.env.TEST_DATABASE_URL ?? '');
    url.username = role;
    url.password = '';
    deps = await createDeps(loadConfig({ ...store.env, DATABASE_URL: url.toString() }), {
      poolSize: 8,
    });
    app = await buildApp(deps);
    api = client(app, key);
  });
  after(async () => {
    await app?.close();
    await deps?.close();
    if (admin) {
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1`, [role]);
      await admin.query(`DROP OWNED BY ${role}`);
      await admin.query(`DROP ROLE ${role}`);
      await admin.end();
    }
    await store?.drop();
  });

  /** More requests at once than the pool holds connections: some need a new one. */
  const burst = () => Promise.all(Array.from({ length: 16 }, () => api<Problem>('GET', '/v1/products')));

  it('answers 503 with Retry-After (not 500) and /readyz says so, until connections are taken again', async () => {
    const warm = await api('GET', '/v1/products');
    assert.equal(warm.status, 200);
    assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);

    // The role at its connection limit: the few connections this process holds now are all it may
    // have, and its pool wants more.
    const held = await admin.query<{ n: string }>(
      'SELECT count(*) AS n FROM pg_stat_activity WHERE usename = $1',
      [role],
    );
    await admin.query(`ALTER ROLE ${role} CONNECTION LIMIT ${Number(held.rows[0]?.n)}`);
    const refused = await burst();
    const statuses = refused.map((res) => res.status);
    assert.ok(statuses.includes(503), `some requests needed a new connection: ${statuses.join(' ')}`);
    for (const res of refused) {
      if (res.status === 200) continue;
      assertRetryable(res, 'a request refused a connection');
      assert.match(res.body.detail ?? '', /refusing new connections|unreachable/);
    }

    const notReady = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(notReady.statusCode, 503, notReady.body);
    assert.equal(notReady.headers['retry-after'], '1');
    const problem = notReady.json<Problem>();
    assert.equal(problem.code, 'service_unavailable');
    assert.match(problem.detail ?? '', /refusing new connections/);

    await admin.query(`ALTER ROLE ${role} CONNECTION LIMIT 10`);
    await eventually(
      async () => (await app.inject({ method: 'GET', url: '/readyz' })).statusCode === 200,
      10_000,
      '/readyz ready once connections are taken again',
    );
    assert.deepEqual(
      (await burst()).map((res) => res.status),
      Array.from({ length: 16 }, () => 200),
    );
  });
});
