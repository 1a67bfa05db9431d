import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import { isAppError } from '../../lib/errors.js';
import { MAX_BALANCE } from '../../lib/money.js';
import { ensurePlatformAccount, openWallet, type PostingLine, postEntry } from './wallet.ledger.js';

/**
 * `postEntry` itself, on each store: on PostgreSQL an entry is one statement (balances, entry and
 * postings), on SQLite one statement per write. Either way a refused wallet leaves nothing behind,
 * every posting carries its wallet's `seq` and `balance_after`, and the ledger verifies.
 */

for (const dialect of DIALECTS) {
  describe(`wallet ledger entries (${dialect})`, () => {
    let ctx: TestContext;

    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    /** Two funded wallets (A: 500, B: 300) of two tenants, and the funding account, in USD. */
    async function setUp() {
      const a = await createTenant(ctx, { currency: 'USD' });
      const b = await createTenant(ctx, { currency: 'USD' });
      await ctx.deps.wallet.credit(a.tenant.id, { amount: 500, currency: 'USD' });
      await ctx.deps.wallet.credit(b.tenant.id, { amount: 300, currency: 'USD' });
      return ctx.deps.store.transaction(async (trx) => {
        const now = Date.now();
        const walletA = await openWallet(trx, a.tenant.id, 'USD', now);
        const walletB = await openWallet(trx, b.tenant.id, 'USD', now);
        const funding = await ensurePlatformAccount(trx, 'funding', 'USD', true, now);
        return {
          a: { id: walletA.id, wallet: true, tenantId: a.tenant.id },
          b: { id: walletB.id, wallet: true, tenantId: b.tenant.id },
          funding: { id: funding, wallet: false, tenantId: null },
        };
      });
    }

    function line(account: PostingLine['account'], amount: number): PostingLine {
      return { account, type: 'adjustment', amount, description: 'test', sourceId: null };
    }

    async function post(lines: PostingLine[], uncapped = false) {
      return ctx.deps.store.transaction((trx) =>
        postEntry(
          trx,
          { type: 'adjustment', currency: 'USD', created: Date.now(), lines, uncapped },
          ctx.deps.store.dialect,
        ),
      );
    }

    async function balances(...ids: string[]) {
      const rows = await ctx.deps.store.db
        .selectFrom('ledger_accounts')
        .select(['id', 'balance', 'postings'])
        .where('id', 'in', ids)
        .execute();
      return ids.map((id) => {
        const row = rows.find((r) => r.id === id);
        return [Number(row?.balance), Number(row?.postings)];
      });
    }

    async function entryCount() {
      const row = await ctx.deps.store.db
        .selectFrom('ledger_entries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    }

    it('writes balances, entry and postings, each wallet posting with its seq and balance after', async () => {
      const { a, b, funding } = await setUp();
      const { entryId, postings } = await post([line(a, -120), line(b, 100), line(funding, 20)]);
      assert.deepEqual(
        postings.map((p) => [p.account_id, p.amount, p.seq, p.balance_after, p.entry_id]),
        [
          [a.id, -120, 2, 380, entryId],
          [b.id, 100, 2, 400, entryId],
          [funding.id, 20, null, null, entryId],
        ],
      );
      const stored = await ctx.deps.store.db
        .selectFrom('ledger_postings')
        .selectAll()
        .where('entry_id', '=', entryId)
        .execute();
      assert.deepEqual(
        [...stored].sort((x, y) => (x.id < y.id ? -1 : 1)),
        [...postings].sort((x, y) => (x.id < y.id ? -1 : 1)),
      );
      assert.deepEqual(await balances(a.id, b.id), [
        [380, 2],
        [400, 2],
      ]);
      assert.equal((await ctx.deps.wallet.verify()).ok, true);
    });

    it('refuses a debit past the balance, whichever wallet it is, and writes nothing', async () => {
      const { a, b, funding } = await setUp();
      const entries = await entryCount();
      // B would take 200 but A cannot give 600: neither balance moves, no entry or posting appears.
      await assert.rejects(
        post([line(a, -600), line(b, 200), line(funding, 400)]),
        (error: unknown) =>
          isAppError(error) && error.code === 'insufficient_funds' && error.message.includes(a.id),
      );
      await assert.rejects(
        post([line(b, -301), line(a, 301)]),
        (error: unknown) =>
          isAppError(error) && error.code === 'insufficient_funds' && error.message.includes(b.id),
      );
      assert.deepEqual(await balances(a.id, b.id), [
        [500, 1],
        [300, 1],
      ]);
      assert.equal(await entryCount(), entries);
      // Exactly the whole balance is allowed.
      await post([line(b, -300), line(a, 300)]);
      assert.deepEqual(await balances(a.id, b.id), [
        [800, 2],
        [0, 2],
      ]);
      assert.equal((await ctx.deps.wallet.verify()).ok, true);
    });

    it('refuses a credit past MAX_BALANCE unless uncapped', async () => {
      const { a, funding } = await setUp();
      const entries = await entryCount();
      await assert.rejects(
        post([line(a, MAX_BALANCE - 499), line(funding, -(MAX_BALANCE - 499))]),
        (error: unknown) => isAppError(error) && error.code === 'limit_exceeded',
      );
      assert.deepEqual(await balances(a.id), [[500, 1]]);
      assert.equal(await entryCount(), entries);
      await post([line(a, MAX_BALANCE - 500), line(funding, -(MAX_BALANCE - 500))]);
      await post([line(a, 7), line(funding, -7)], true);
      assert.deepEqual(await balances(a.id), [[MAX_BALANCE + 7, 3]]);
      assert.equal((await ctx.deps.wallet.verify()).ok, true);
    });

    it('posts twice to one wallet in one entry, one seq after the other', async () => {
      const { a, funding } = await setUp();
      const { postings } = await post([line(a, 50), line(a, -20), line(funding, -30)]);
      assert.deepEqual(
        postings.map((p) => [p.amount, p.seq, p.balance_after]),
        [
          [50, 2, 550],
          [-20, 3, 530],
          [-30, null, null],
        ],
      );
      assert.deepEqual(await balances(a.id), [[530, 3]]);
      assert.equal((await ctx.deps.wallet.verify()).ok, true);
    });
  });
}
