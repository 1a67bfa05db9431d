import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runAdmin } from '../../cli/admin.js';
import { loadConfig } from '../../config.js';
import { createDeps } from '../../deps.js';
import type { DialectName } from '../../db/store.js';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  migratedStore,
  type TestContext,
  type TestStore,
} from '../../../test/helpers/context.js';
import { type ServerProcess, SKIP_IN_UNIT_RUN, spawnServer } from '../../../test/helpers/process.js';
import type { BalanceObject, TransferObject } from './wallet.schemas.js';

/**
 * Money under contention and crashes: a double spend, crossing transfer loops, the same over two
 * server processes on PostgreSQL, and kill -9 right after an acknowledged transfer.
 */

interface Party {
  tenantId: string;
  key: string;
  walletId: string;
}

interface Outcome {
  status: number;
  body: TransferObject & { code?: string };
}

/** Two tenants with wallets, made through the real services; `funded` gets `amount` USD. */
async function seedPair(env: Record<string, string>, amount: number): Promise<[Party, Party]> {
  const deps = await createDeps(loadConfig(env));
  try {
    const make = async (name: string): Promise<Party> => {
      const created = await deps.tenants.create({ name, email: `${name.toLowerCase()}@example.com` });
      const balance = await deps.wallet.balance(created.tenant);
      return { tenantId: created.tenant.id, key: created.apiKey.key, walletId: balance.wallet_id };
    };
    const funded = await make('Sender');
    const other = await make('Receiver');
    await deps.wallet.credit(funded.tenantId, { amount, currency: 'USD' });
    return [funded, other];
  } finally {
    await deps.close();
  }
}

async function post(url: string, from: Party, body: Record<string, unknown>): Promise<Outcome> {
  const res = await fetch(`${url}/v1/wallet/transfer`, {
    method: 'POST',
    headers: { authorization: `Bearer ${from.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Outcome['body'] };
}

async function httpBalance(url: string, party: Party): Promise<number> {
  const res = await fetch(`${url}/v1/wallet/balance`, { headers: { authorization: `Bearer ${party.key}` } });
  assert.equal(res.status, 200);
  return ((await res.json()) as BalanceObject).available;
}

async function verify(env: Record<string, string>): Promise<void> {
  const result = await runAdmin(['ledger:verify'], loadConfig(env));
  assert.equal(result.code, 0, `${result.stdout}${result.stderr}`);
}

/** Random amounts from a fixed seed, so a failure repeats. */
function amounts(count: number, seed: number, max: number): number[] {
  let state = seed;
  return Array.from({ length: count }, () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return 1 + (state % max);
  });
}

/** Sends A->B and B->A loops at once; returns what each side got acknowledged. */
async function crossingLoops(
  send: (from: Party, to: Party, amount: number, i: number) => Promise<Outcome>,
  a: Party,
  b: Party,
  rounds: number,
): Promise<{ aToB: number; bToA: number; statuses: number[] }> {
  const forward = amounts(rounds, 7, 900);
  const backward = amounts(rounds, 11, 900);
  const results = await Promise.all([
    ...forward.map(async (amount, i) => ({ dir: 'ab', amount, out: await send(a, b, amount, i) })),
    ...backward.map(async (amount, i) => ({ dir: 'ba', amount, out: await send(b, a, amount, i) })),
  ]);
  const sum = (dir: string) =>
    results.filter((r) => r.dir === dir && r.out.status === 201).reduce((total, r) => total + r.amount, 0);
  for (const r of results) {
    assert.ok(
      r.out.status === 201 || (r.out.status === 422 && r.out.body.code === 'insufficient_funds'),
      `${r.out.status} ${JSON.stringify(r.out.body)}`,
    );
  }
  return { aToB: sum('ab'), bToA: sum('ba'), statuses: results.map((r) => r.out.status) };
}

for (const dialect of DIALECTS) {
  describe(`wallet under concurrency (${dialect})`, () => {
    let ctx: TestContext;

    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    async function party(funds: number): Promise<Party & { api: ReturnType<typeof client> }> {
      const created = await createTenant(ctx);
      const api = client(ctx.app, created.apiKey.key);
      if (funds > 0) await ctx.deps.wallet.credit(created.tenant.id, { amount: funds, currency: 'USD' });
      const balance = await api<BalanceObject>('GET', '/v1/wallet/balance');
      return { tenantId: created.tenant.id, key: created.apiKey.key, walletId: balance.body.wallet_id, api };
    }

    it('lets exactly one of 50 concurrent transfers of the whole balance through', async () => {
      const a = await party(100);
      const b = await party(0);
      const results = await Promise.all(
        Array.from({ length: 50 }, () =>
          a.api<Outcome['body']>('POST', '/v1/wallet/transfer', {
            body: { amount: 100, currency: 'USD', destination_wallet_id: b.walletId },
          }),
        ),
      );
      const statuses = results.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 201).length, 1, statuses.join(','));
      assert.equal(statuses.filter((s) => s === 422).length, 49, statuses.join(','));
      assert.ok(results.filter((r) => r.status === 422).every((r) => r.body.code === 'insufficient_funds'));
      const balanceOf = async (p: typeof a) =>
        (await p.api<BalanceObject>('GET', '/v1/wallet/balance')).body.available;
      assert.equal(await balanceOf(a), 0);
      assert.equal(await balanceOf(b), 100);
      const report = await ctx.deps.wallet.verify();
      assert.ok(report.ok, JSON.stringify(report.violations));
    });

    it('conserves the total when A->B and B->A transfer loops run at once, without a 500', async () => {
      const a = await party(5000);
      const b = await party(5000);
      const send = async (from: typeof a, to: Party, amount: number): Promise<Outcome> => {
        const res = await from.api<Outcome['body']>('POST', '/v1/wallet/transfer', {
          body: { amount, currency: 'USD', destination_wallet_id: to.walletId },
        });
        return { status: res.status, body: res.body };
      };
      const { aToB, bToA, statuses } = await crossingLoops(
        (from, to, amount) => send(from as typeof a, to, amount),
        a,
        b,
        60,
      );
      assert.ok(statuses.filter((s) => s === 201).length > 10, statuses.join(','));
      const balanceOf = async (p: typeof a) =>
        (await p.api<BalanceObject>('GET', '/v1/wallet/balance')).body.available;
      const [finalA, finalB] = [await balanceOf(a), await balanceOf(b)];
      assert.equal(finalA + finalB, 10_000);
      assert.equal(finalA, 5000 - aToB + bToA);
      assert.equal(finalB, 5000 - bToA + aToB);
      const report = await ctx.deps.wallet.verify();
      assert.ok(report.ok, JSON.stringify(report.violations));
    });
  });

  describe(`wallet across a crash (${dialect})`, { skip: SKIP_IN_UNIT_RUN }, () => {
    let store: TestStore;
    const servers: ServerProcess[] = [];

    before(async () => {
      store = await migratedStore(dialect as DialectName);
    });
    after(async () => {
      for (const server of servers) if (server.child.exitCode === null) await server.kill();
      await store.drop();
    });

    it('keeps every acknowledged transfer after kill -9 right after the 201, and the ledger verifies', async () => {
      const [a, b] = await seedPair(store.env, 10_000);
      const first = await spawnServer(store.env);
      servers.push(first);
      const acknowledged: TransferObject[] = [];
      let killed: Promise<void> | undefined;
      // Twenty transfers in flight; the process dies the moment the first 201 arrives.
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          try {
            const res = await post(first.url, a, {
              amount: 100 + i,
              currency: 'USD',
              destination_wallet_id: b.walletId,
            });
            if (res.status === 201) {
              acknowledged.push(res.body);
              killed ??= first.kill();
            }
          } catch {
            // The connection died with the process: the transfer was never acknowledged.
          }
        }),
      );
      await killed;
      assert.ok(acknowledged.length >= 1);
      assert.notEqual(first.child.exitCode, 0);

      const second = await spawnServer(store.env);
      servers.push(second);
      for (const transfer of acknowledged) {
        const res = await fetch(`${second.url}/v1/wallet/transfers/${transfer.id}`, {
          headers: { authorization: `Bearer ${a.key}` },
        });
        assert.equal(res.status, 200, `acknowledged transfer ${transfer.id} is gone`);
        assert.deepEqual(await res.json(), transfer);
      }
      const listed = await fetch(`${second.url}/v1/wallet/transfers?limit=100`, {
        headers: { authorization: `Bearer ${a.key}` },
      });
      const page = (await listed.json()) as { data: TransferObject[] };
      const sent = page.data.reduce((total, t) => total + t.amount, 0);
      assert.equal(await httpBalance(second.url, a), 10_000 - sent);
      assert.equal(await httpBalance(second.url, b), sent);
      await verify(store.env);
      assert.equal(await second.stop(), 0);
    });
  });
}

describe(
  'wallet across two server processes (postgres)',
  { skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL' },
  () => {
    let store: TestStore;
    let servers: ServerProcess[] = [];

    before(async () => {
      store = await migratedStore('postgres');
    });
    after(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      await store.drop();
    });

    it('lets exactly one of 50 transfers of the whole balance through, spread over two processes', async () => {
      const [a, b] = await seedPair(store.env, 100);
      servers = await Promise.all([spawnServer(store.env), spawnServer(store.env)]);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          post(servers[i % 2]?.url ?? '', a, {
            amount: 100,
            currency: 'USD',
            destination_wallet_id: b.walletId,
          }),
        ),
      );
      const statuses = results.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 201).length, 1, statuses.join(','));
      assert.ok(
        results.every((r) => r.status === 201 || r.body.code === 'insufficient_funds'),
        statuses.join(','),
      );
      const url = servers[0]?.url ?? '';
      assert.equal(await httpBalance(url, a), 0);
      assert.equal(await httpBalance(url, b), 100);

      // And crossing loops over both processes: no deadlock surfaces, the total holds.
      for (const party of [a, b]) {
        const credited = await runAdmin(
          ['wallet:credit', '--tenant', party.tenantId, '--amount', '5000', '--currency', 'USD'],
          loadConfig(store.env),
        );
        assert.equal(credited.code, 0, credited.stderr);
      }
      const { aToB, bToA } = await crossingLoops(
        (from, to, amount, i) =>
          post(servers[i % 2]?.url ?? '', from, {
            amount,
            currency: 'USD',
            destination_wallet_id: to.walletId,
          }),
        a,
        b,
        60,
      );
      assert.equal(await httpBalance(url, a), 5000 - aToB + bToA);
      assert.equal(await httpBalance(url, b), 5100 - bToA + aToB);
      await verify(store.env);
    });
  },
);
