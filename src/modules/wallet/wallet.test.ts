import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runAdmin } from '../../cli/admin.js';
import { ManualClock } from '../../lib/clock.js';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
  whileResponsesAreRefused,
} from '../../../test/helpers/context.js';
import type { OrProblem, Page, Problem } from '../../../test/helpers/responses.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { BalanceObject, TransactionObject, TransferObject } from './wallet.schemas.js';

/** The wallet API, the CLI commands, the ledger invariants and the orders integration. */

interface Tenant {
  id: string;
  key: string;
  api: Client;
  walletId: string;
}

const DAY = 86_400_000;

for (const dialect of DIALECTS) {
  describe(`wallet (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock(Date.parse('2026-11-21T10:00:00.000Z'));

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
    });
    after(() => ctx.close());

    async function tenant(input: { currency?: string; apiVersion?: string } = {}): Promise<Tenant> {
      const created = await createTenant(ctx, input);
      const api = client(ctx.app, created.apiKey.key);
      const balance = await api<BalanceObject>('GET', '/v1/wallet/balance');
      assert.equal(balance.status, 200, JSON.stringify(balance.body));
      return { id: created.tenant.id, key: created.apiKey.key, api, walletId: balance.body.wallet_id };
    }

    async function balance(t: Tenant, currency?: string): Promise<number> {
      const res = await t.api<BalanceObject>(
        'GET',
        `/v1/wallet/balance${currency ? `?currency=${currency}` : ''}`,
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.available;
    }

    async function credit(t: Tenant, amount: number, currency = 'USD'): Promise<TransactionObject> {
      return ctx.deps.wallet.credit(t.id, { amount, currency, description: 'Test funding' });
    }

    function transfer(from: Tenant, body: Record<string, unknown>, headers: Record<string, string> = {}) {
      return from.api<OrProblem<TransferObject>>('POST', '/v1/wallet/transfer', { body, headers });
    }

    async function verifyOk(): Promise<void> {
      const report = await ctx.deps.wallet.verify();
      assert.ok(report.ok, JSON.stringify(report.violations));
    }

    it('gives a new tenant a wallet in its currency with balance 0', async () => {
      const t = await tenant({ currency: 'EUR' });
      const res = await t.api<BalanceObject>('GET', '/v1/wallet/balance');
      assert.equal(res.status, 200);
      assert.match(res.body.wallet_id, /^wal_[0-9A-Za-z]{24}$/);
      assert.deepEqual(
        { ...res.body, wallet_id: 'x' },
        {
          wallet_id: 'x',
          currency: 'EUR',
          available: 0,
          pending: 0,
          transactions: [],
          updated: '2026-11-21T10:00:00.000Z',
          livemode: true,
        },
      );
      const none = await t.api<Problem>('GET', '/v1/wallet/balance?currency=USD');
      assert.equal(none.status, 404);
      assert.equal(none.body.code, 'not_found');
      // Not a currency at all is a 400, as on a transfer; a currency without a wallet is a 404.
      for (const code of ['usd', 'XYZ']) {
        const bad = await t.api<Problem>('GET', `/v1/wallet/balance?currency=${code}`);
        assert.equal(bad.status, 400, code);
        assert.deepEqual(bad.body.errors, [
          { field: 'currency', message: 'must be an ISO 4217 currency code in upper case' },
        ]);
      }
    });

    it('renders the balance in the 2026-06-01 shape for a pinned tenant and by header', async () => {
      const old = await tenant({ apiVersion: '2026-06-01' });
      await credit(old, 700);
      const pinned = await old.api<Record<string, unknown>>('GET', '/v1/wallet/balance');
      assert.equal(pinned.status, 200);
      assert.equal(pinned.headers['x-service-version'], '2026-06-01');
      assert.equal(pinned.body.balance, 700);
      assert.ok(!('available' in pinned.body) && !('pending' in pinned.body), JSON.stringify(pinned.body));
      assert.deepEqual(Object.keys(pinned.body).sort(), [
        'balance',
        'currency',
        'transactions',
        'updated',
        'wallet_id',
      ]);
      const upgraded = await old.api<Record<string, unknown>>('GET', '/v1/wallet/balance', {
        headers: { 'x-service-version': '2026-11-21' },
      });
      assert.equal(upgraded.headers['x-service-version'], '2026-11-21');
      assert.equal(upgraded.body.available, 700);
      assert.equal(upgraded.body.pending, 0);
      assert.ok(!('balance' in upgraded.body));

      const latest = await tenant();
      await credit(latest, 300);
      const byHeader = await latest.api<Record<string, unknown>>('GET', '/v1/wallet/balance', {
        headers: { 'x-service-version': '2026-07-15' },
      });
      assert.equal(byHeader.headers['x-service-version'], '2026-06-01');
      assert.equal(byHeader.body.balance, 300);
      assert.ok(!('available' in byHeader.body));
      const now = await latest.api<Record<string, unknown>>('GET', '/v1/wallet/balance');
      assert.equal(now.headers['x-service-version'], '2027-01-20');
      assert.equal(now.body.available, 300);
      // An error is never transformed.
      const missing = await latest.api<Problem>('GET', '/v1/wallet/balance?currency=JPY', {
        headers: { 'x-service-version': '2026-06-01' },
      });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, 'not_found');
    });

    it('transfers between tenants: balanced postings, a transfer_in for the receiver, an event for each side', async () => {
      const a = await tenant();
      const b = await tenant();
      await credit(a, 5000);
      clock.advance(1000);
      const res = await transfer(a, {
        amount: 1200,
        currency: 'USD',
        destination_wallet_id: b.walletId,
        description: 'Invoice 42',
        metadata: { invoice: '42' },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.match(res.body.id, /^tr_[0-9A-Za-z]{24}$/);
      assert.deepEqual(res.body, {
        id: res.body.id,
        amount: 1200,
        currency: 'USD',
        source_wallet_id: a.walletId,
        destination_wallet_id: b.walletId,
        status: 'succeeded',
        description: 'Invoice 42',
        metadata: { invoice: '42' },
        created: new Date(clock.now()).toISOString(),
        livemode: true,
      });

      const sender = await a.api<BalanceObject>('GET', '/v1/wallet/balance');
      assert.equal(sender.body.available, 3800);
      assert.equal(sender.body.updated, new Date(clock.now()).toISOString());
      assert.deepEqual(
        sender.body.transactions.map((t) => [t.type, t.amount, t.balance_after, t.source_id]),
        [
          ['transfer_out', -1200, 3800, res.body.id],
          ['adjustment', 5000, 5000, null],
        ],
      );
      assert.equal(sender.body.transactions[0]?.description, 'Invoice 42');
      assert.match(sender.body.transactions[0]?.id ?? '', /^txn_/);
      const receiver = await b.api<BalanceObject>('GET', '/v1/wallet/balance');
      assert.equal(receiver.body.available, 1200);
      assert.deepEqual(
        receiver.body.transactions.map((t) => [
          t.type,
          t.amount,
          t.balance_after,
          t.source_id,
          t.description,
        ]),
        [['transfer_in', 1200, 1200, res.body.id, 'Invoice 42']],
      );

      const events = await a.api<Page<{ id: string; type: string; data: { object: TransferObject } }>>(
        'GET',
        '/v1/events?type=transfer.created',
      );
      assert.equal(events.body.total, 1);
      assert.deepEqual(events.body.data[0]?.data.object, res.body);
      // The receiver gets its own event with the same transfer, without the sender's metadata.
      const receiverEvents = await b.api<Page<{ id: string; data: { object: TransferObject } }>>(
        'GET',
        '/v1/events?type=transfer.created',
      );
      assert.equal(receiverEvents.body.total, 1);
      assert.deepEqual(receiverEvents.body.data[0]?.data.object, { ...res.body, metadata: {} });
      assert.notEqual(receiverEvents.body.data[0]?.id, events.body.data[0]?.id);

      const listed = await a.api<Page<TransferObject>>('GET', '/v1/wallet/transfers');
      assert.deepEqual(listed.body.data, [res.body]);
      assert.equal(listed.body.total, 1);
      const one = await a.api<TransferObject>('GET', `/v1/wallet/transfers/${res.body.id}`);
      assert.deepEqual(one.body, res.body);
      // The receiver reads the transfer its transfer_in points at; the metadata stays the sender's.
      const received = await b.api<TransferObject>('GET', `/v1/wallet/transfers/${res.body.id}`);
      assert.equal(received.status, 200);
      assert.deepEqual(received.body, { ...res.body, metadata: {} });
      const receivedList = await b.api<Page<TransferObject>>('GET', '/v1/wallet/transfers');
      assert.deepEqual(receivedList.body.data, [{ ...res.body, metadata: {} }]);
      assert.equal(receivedList.body.total, 1);
      await verifyOk();
    });

    it('refuses bad transfers with the documented codes and changes nothing', async () => {
      const a = await tenant();
      const b = await tenant();
      const euro = await tenant({ currency: 'EUR' });
      await credit(a, 1000);
      await credit(a, 50, 'EUR');
      const valid = { amount: 100, currency: 'USD', destination_wallet_id: b.walletId };
      const cases: [Record<string, unknown>, number, string, string?][] = [
        [{ ...valid, amount: 0 }, 400, 'validation_failed', 'amount'],
        [{ ...valid, amount: -5 }, 400, 'validation_failed', 'amount'],
        [{ ...valid, amount: 1.5 }, 400, 'validation_failed', 'amount'],
        [{ ...valid, amount: '100' }, 400, 'validation_failed', 'amount'],
        [{ ...valid, amount: 1e13 }, 400, 'validation_failed', 'amount'],
        [{ ...valid, currency: 'usd' }, 400, 'validation_failed', 'currency'],
        [{ ...valid, currency: 'XYZ' }, 400, 'validation_failed', 'currency'],
        [{ ...valid, status: 'succeeded' }, 400, 'validation_failed', 'status'],
        [{ amount: 100, currency: 'USD' }, 400, 'validation_failed', 'destination_wallet_id'],
        [{ ...valid, metadata: { n: 1 } }, 400, 'validation_failed'],
        [{ ...valid, destination_wallet_id: 'wal_doesnotexist' }, 422, 'invalid_destination'],
        [{ ...valid, destination_wallet_id: 'platform_funding_USD' }, 422, 'invalid_destination'],
        [{ ...valid, destination_wallet_id: a.walletId }, 422, 'invalid_destination'],
        [{ ...valid, destination_wallet_id: euro.walletId }, 422, 'currency_mismatch'],
        [{ ...valid, currency: 'EUR' }, 422, 'currency_mismatch'],
        [{ ...valid, amount: 1001 }, 422, 'insufficient_funds'],
        [{ ...valid, currency: 'GBP', destination_wallet_id: euro.walletId }, 422, 'currency_mismatch'],
        [
          { ...valid, currency: 'EUR', amount: 51, destination_wallet_id: euro.walletId },
          422,
          'insufficient_funds',
        ],
      ];
      for (const [body, status, code, field] of cases) {
        const res = await transfer(a, body);
        assert.equal(res.status, status, `${JSON.stringify(body)} -> ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, code, JSON.stringify(body));
        if (field)
          assert.ok(
            res.body.errors?.some((e) => e.field === field),
            JSON.stringify(res.body),
          );
      }
      // A tenant without a wallet in the currency has nothing to send.
      const broke = await transfer(b, { ...valid, currency: 'EUR', destination_wallet_id: euro.walletId });
      assert.equal(broke.body.code, 'insufficient_funds');
      assert.equal(await balance(a), 1000);
      assert.equal(await balance(a, 'EUR'), 50);
      assert.equal(await balance(b), 0);
      assert.equal((await a.api<Page<TransferObject>>('GET', '/v1/wallet/transfers')).body.total, 0);
      // Exactly the balance goes through; the wallet is then empty, not negative.
      const all = await transfer(a, { ...valid, amount: 1000 });
      assert.equal(all.status, 201);
      assert.equal(await balance(a), 0);
      const more = await transfer(a, { ...valid, amount: 1 });
      assert.equal(more.body.code, 'insufficient_funds');
      const euros = await transfer(a, { amount: 50, currency: 'EUR', destination_wallet_id: euro.walletId });
      assert.equal(euros.status, 201);
      assert.equal(await balance(euro), 50);
      await verifyOk();
    });

    it('replays an idempotent transfer without moving the money again', async () => {
      const a = await tenant();
      const b = await tenant();
      await credit(a, 1000);
      const body = { amount: 300, currency: 'USD', destination_wallet_id: b.walletId };
      const first = await transfer(a, body, { 'idempotency-key': 'tr-1' });
      assert.equal(first.status, 201);
      const again = await transfer(a, body, { 'idempotency-key': 'tr-1' });
      assert.equal(again.status, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.deepEqual(again.body, first.body);
      const other = await transfer(a, { ...body, amount: 301 }, { 'idempotency-key': 'tr-1' });
      assert.equal(other.status, 422);
      assert.equal(other.body.code, 'idempotency_key_reused');
      // A refused transfer is stored too: its replay is the same refusal, even once funds arrive.
      const refused = await transfer(a, { ...body, amount: 5000 }, { 'idempotency-key': 'tr-2' });
      assert.equal(refused.body.code, 'insufficient_funds');
      await credit(a, 10_000);
      const refusedAgain = await transfer(a, { ...body, amount: 5000 }, { 'idempotency-key': 'tr-2' });
      assert.equal(refusedAgain.status, 422);
      assert.equal(refusedAgain.headers['idempotent-replayed'], 'true');
      assert.equal(await balance(a), 10_700);
      assert.equal(await balance(b), 300);
      assert.equal((await a.api<Page<TransferObject>>('GET', '/v1/wallet/transfers')).body.total, 1);
    });

    it('answers a retry whose first answer was lost with the transfer it made, moving the money once', async () => {
      const a = await tenant();
      const b = await tenant();
      await credit(a, 1000);
      const body = { amount: 250, currency: 'USD', destination_wallet_id: b.walletId };
      const send = () => transfer(a, body, { 'idempotency-key': 'lost-response' });
      // Storing the response fails after the transfer committed (a trigger refuses the update).
      assert.ok((await whileResponsesAreRefused(ctx.deps.store.db, dialect, send)).status >= 500);
      const retried = await send();
      assert.equal(retried.status, 201, JSON.stringify(retried.body));
      assert.equal(retried.body.amount, 250);
      assert.equal(await balance(a), 750);
      assert.equal(await balance(b), 250);
      const sent = await a.api<Page<TransferObject>>('GET', '/v1/wallet/transfers');
      assert.deepEqual(
        sent.body.data.map((t) => t.id),
        [retried.body.id],
        'one transfer',
      );
      assert.equal((await send()).headers['idempotent-replayed'], 'true');
      // Without a key, two calls are two transfers.
      await ctx.deps.wallet.transfer(a.id, body);
      await ctx.deps.wallet.transfer(a.id, body);
      assert.equal(await balance(a), 250);
      await verifyOk();
    });

    it('treats a key used again after it lapsed (24 hours) as a new request', async () => {
      const a = await tenant();
      const b = await tenant();
      await credit(a, 1000);
      const headers = { 'idempotency-key': 'payout-key' };
      const first = await transfer(
        a,
        { amount: 7, currency: 'USD', destination_wallet_id: b.walletId },
        headers,
      );
      assert.equal(first.status, 201);
      clock.advance(25 * 3600 * 1000);
      const later = await transfer(
        a,
        { amount: 90, currency: 'USD', destination_wallet_id: b.walletId, description: 'new payout' },
        headers,
      );
      assert.equal(later.status, 201, JSON.stringify(later.body));
      assert.equal(later.headers['idempotent-replayed'], undefined);
      assert.notEqual(later.body.id, first.body.id);
      assert.equal(later.body.amount, 90);
      assert.equal(await balance(a), 903);
      assert.equal(await balance(b), 97);
      await verifyOk();
    });

    it('enforces the daily transfer limit per wallet and UTC day, set through the CLI', async () => {
      const a = await tenant();
      const b = await tenant();
      await credit(a, 100_000);
      await credit(a, 100_000, 'EUR');
      const euro = await tenant({ currency: 'EUR' });
      const set = await runAdmin(
        ['tenant:set-limits', '--tenant', a.id, '--daily-transfer', '1000', '--json'],
        ctx.config,
      );
      assert.equal(set.code, 0, set.stderr);
      const out = JSON.parse(set.stdout) as { tenant: { id: string; daily_transfer_limit: number } };
      assert.equal(out.tenant.daily_transfer_limit, 1000);
      const send = (amount: number) =>
        transfer(a, { amount, currency: 'USD', destination_wallet_id: b.walletId });
      assert.equal((await send(600)).status, 201);
      const over = await send(401);
      assert.equal(over.status, 422);
      assert.equal(over.body.code, 'limit_exceeded');
      assert.equal((await send(400)).status, 201);
      assert.equal((await send(1)).body.code, 'limit_exceeded');
      // Each wallet has its own allowance in its own currency.
      const eur = await transfer(a, { amount: 1000, currency: 'EUR', destination_wallet_id: euro.walletId });
      assert.equal(eur.status, 201);
      // Another tenant is not limited.
      await credit(b, 5000);
      assert.equal(
        (await transfer(b, { amount: 4000, currency: 'USD', destination_wallet_id: a.walletId })).status,
        201,
      );
      // The next UTC day starts afresh.
      clock.set(clock.now() - (clock.now() % DAY) + DAY);
      assert.equal((await send(1000)).status, 201);
      assert.equal((await send(1)).body.code, 'limit_exceeded');
      const removed = await runAdmin(
        ['tenant:set-limits', '--tenant', a.id, '--daily-transfer', 'default'],
        ctx.config,
      );
      assert.equal(removed.code, 0, removed.stderr);
      assert.match(removed.stdout, /daily transfer no limit/);
      assert.equal((await send(50_000)).status, 201);
      const bad = await runAdmin(
        ['tenant:set-limits', '--tenant', a.id, '--daily-transfer', '-3'],
        ctx.config,
      );
      assert.equal(bad.code, 2);
      const unknown = await runAdmin(
        ['tenant:set-limits', '--tenant', 'ten_nope', '--daily-transfer', '5'],
        ctx.config,
      );
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /not_found/);
    });

    it('lists transactions newest first with type, currency and date filters and cursors', async () => {
      const t = await tenant();
      const b = await tenant();
      const start = Date.parse('2026-12-01T08:00:00.000Z');
      clock.set(start);
      await credit(t, 10_000);
      clock.set(start + DAY);
      await credit(t, 2_000, 'EUR');
      clock.set(start + 2 * DAY);
      for (let i = 1; i <= 5; i++) {
        clock.advance(1000);
        const res = await transfer(t, { amount: i * 10, currency: 'USD', destination_wallet_id: b.walletId });
        assert.equal(res.status, 201);
      }
      const all = await t.api<Page<TransactionObject>>('GET', '/v1/wallet/transactions');
      assert.equal(all.status, 200);
      assert.equal(all.body.total, 7);
      assert.deepEqual(
        all.body.data.map((x) => [x.type, x.amount, x.currency]),
        [
          ['transfer_out', -50, 'USD'],
          ['transfer_out', -40, 'USD'],
          ['transfer_out', -30, 'USD'],
          ['transfer_out', -20, 'USD'],
          ['transfer_out', -10, 'USD'],
          ['adjustment', 2000, 'EUR'],
          ['adjustment', 10_000, 'USD'],
        ],
      );
      assert.equal(all.body.data[0]?.balance_after, 10_000 - 150);

      const outs = await t.api<Page<TransactionObject>>('GET', '/v1/wallet/transactions?type=transfer_out');
      assert.equal(outs.body.total, 5);
      const eur = await t.api<Page<TransactionObject>>('GET', '/v1/wallet/transactions?currency=EUR');
      assert.deepEqual(
        eur.body.data.map((x) => x.amount),
        [2000],
      );
      assert.equal(eur.body.total, 1);
      const day2 = await t.api<Page<TransactionObject>>(
        'GET',
        '/v1/wallet/transactions?from=2026-12-02&to=2026-12-02',
      );
      assert.deepEqual(
        day2.body.data.map((x) => x.currency),
        ['EUR'],
      );
      const since = await t.api<Page<TransactionObject>>(
        'GET',
        `/v1/wallet/transactions?from=${encodeURIComponent(new Date(start + 2 * DAY + 3000).toISOString())}`,
      );
      assert.deepEqual(
        since.body.data.map((x) => x.amount),
        [-50, -40, -30],
      );
      const receiver = await b.api<Page<TransactionObject>>(
        'GET',
        '/v1/wallet/transactions?type=transfer_in',
      );
      assert.equal(receiver.body.total, 5);
      assert.equal(
        (await b.api<Page<TransactionObject>>('GET', '/v1/wallet/transactions?type=transfer_out')).body.total,
        0,
      );

      // Pages: by offset and by cursor, the same rows in the same order.
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const url: string = `/v1/wallet/transactions?limit=3${cursor ? `&cursor=${cursor}` : ''}`;
        const page = await t.api<Page<TransactionObject>>('GET', url);
        assert.equal(page.status, 200);
        assert.equal(page.body.total, 7);
        seen.push(...page.body.data.map((x) => x.id));
        cursor = page.body.next_cursor;
      } while (cursor);
      assert.deepEqual(
        seen,
        all.body.data.map((x) => x.id),
      );
      const second = await t.api<Page<TransactionObject>>('GET', '/v1/wallet/transactions?limit=3&page=2');
      assert.deepEqual(
        second.body.data.map((x) => x.id),
        seen.slice(3, 6),
      );
      assert.equal(second.body.offset, 3);
      assert.equal(second.body.has_more, true);

      for (const query of [
        'type=bonus',
        'from=yesterday',
        // RFC 3339 allows a leap second, which no instant here can be: a 400, not an empty list.
        'to=2026-12-31T23:59:60Z',
        'limit=0',
        'limit=101',
        'colour=red',
        'currency=eur',
        'currency=XYZ',
      ]) {
        const bad = await t.api<Problem>('GET', `/v1/wallet/transactions?${query}`);
        assert.equal(bad.status, 400, query);
        assert.equal(bad.body.code, 'validation_failed', query);
      }
      const backwards = await t.api<Problem>('GET', '/v1/wallet/transactions?from=2026-12-03&to=2026-12-01');
      assert.equal(backwards.status, 400);
      assert.equal(backwards.body.errors?.[0]?.field, 'from');
      // Another tenant's transactions never show.
      const stranger = await tenant();
      assert.equal((await stranger.api<Page<unknown>>('GET', '/v1/wallet/transactions')).body.total, 0);
    });

    it('pages transfers newest first', async () => {
      const a = await tenant();
      const b = await tenant();
      await credit(a, 1000);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        clock.advance(10);
        const res = await transfer(a, { amount: 1, currency: 'USD', destination_wallet_id: b.walletId });
        ids.unshift(res.body.id);
      }
      const first = await a.api<Page<TransferObject>>('GET', '/v1/wallet/transfers?limit=2');
      assert.deepEqual(
        first.body.data.map((x) => x.id),
        ids.slice(0, 2),
      );
      assert.equal(first.body.total, 5);
      const next = await a.api<Page<TransferObject>>(
        'GET',
        `/v1/wallet/transfers?limit=2&cursor=${first.body.next_cursor}`,
      );
      assert.deepEqual(
        next.body.data.map((x) => x.id),
        ids.slice(2, 4),
      );
      assert.equal(next.body.page, 2);
    });

    it('shows the receiving tenant a transfer, lists sent and received, and hides it from a third tenant', async () => {
      const a = await tenant();
      const b = await tenant();
      const c = await tenant();
      await credit(a, 5000);
      await credit(a, 5000, 'EUR');
      await credit(b, 500);
      await credit(b, 1, 'EUR');
      const bEur = (await b.api<BalanceObject>('GET', '/v1/wallet/balance?currency=EUR')).body.wallet_id;
      const hook = await b.api<{ id: string }>('POST', '/v1/webhooks', {
        body: { url: 'http://127.0.0.1:9/hooks', events: ['transfer.created'] },
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      const sent: TransferObject[] = [];
      for (const body of [
        { amount: 1200, currency: 'USD', destination_wallet_id: b.walletId, metadata: { invoice: '42' } },
        { amount: 300, currency: 'EUR', destination_wallet_id: bEur, metadata: { invoice: '43' } },
      ]) {
        clock.advance(1000);
        const res = await transfer(a, body);
        assert.equal(res.status, 201, JSON.stringify(res.body));
        sent.push(res.body);
      }
      clock.advance(1000);
      const back = await transfer(b, {
        amount: 100,
        currency: 'USD',
        destination_wallet_id: a.walletId,
        metadata: { refund: 'yes' },
      });
      assert.equal(back.status, 201, JSON.stringify(back.body));
      const [usd, eur] = sent.map((t) => ({ ...t, metadata: {} }));
      assert.ok(usd && eur);

      // The receiver reads each transfer by the source_id of its transfer_in.
      const txns = await b.api<Page<TransactionObject>>('GET', '/v1/wallet/transactions?type=transfer_in');
      assert.deepEqual(
        txns.body.data.map((t) => t.source_id),
        [eur.id, usd.id],
      );
      for (const expected of [usd, eur]) {
        const one = await b.api<TransferObject>('GET', `/v1/wallet/transfers/${expected.id}`);
        assert.equal(one.status, 200, JSON.stringify(one.body));
        assert.deepEqual(one.body, expected);
      }

      // Sent and received in one list, newest first across wallets, with exact totals and paging.
      const all = await b.api<Page<TransferObject>>('GET', '/v1/wallet/transfers');
      assert.deepEqual(all.body.data, [back.body, eur, usd]);
      assert.equal(all.body.total, 3);
      const seen: TransferObject[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: Page<TransferObject> } = await b.api<Page<TransferObject>>(
          'GET',
          `/v1/wallet/transfers?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        );
        assert.equal(page.body.total, 3);
        seen.push(...page.body.data);
        cursor = page.body.next_cursor;
      } while (cursor !== null);
      assert.deepEqual(seen, [back.body, eur, usd]);
      const third = await b.api<Page<TransferObject>>('GET', '/v1/wallet/transfers?limit=1&offset=2');
      assert.deepEqual(third.body.data, [usd]);
      assert.equal(third.body.has_more, false);
      const received = await b.api<Page<TransferObject>>('GET', '/v1/wallet/transfers?direction=received');
      assert.deepEqual(received.body.data, [eur, usd]);
      assert.equal(received.body.total, 2);
      const own = await b.api<Page<TransferObject>>('GET', '/v1/wallet/transfers?direction=sent');
      assert.deepEqual(own.body.data, [back.body]);
      assert.equal(own.body.total, 1);
      const bad = await b.api<Problem>('GET', '/v1/wallet/transfers?direction=both');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'validation_failed');

      // The sender's view keeps its metadata; what it received shows without the other's.
      const senderList = await a.api<Page<TransferObject>>('GET', '/v1/wallet/transfers');
      assert.deepEqual(senderList.body.data, [{ ...back.body, metadata: {} }, ...sent.slice().reverse()]);
      const senderSent = await a.api<Page<TransferObject>>('GET', '/v1/wallet/transfers?direction=sent');
      assert.deepEqual(senderSent.body.data, sent.slice().reverse());

      // The receiver's events, one per transfer it took part in, and a delivery queued for each.
      const events = await b.api<Page<{ id: string; data: { object: TransferObject } }>>(
        'GET',
        '/v1/events?type=transfer.created',
      );
      assert.deepEqual(
        events.body.data.map((e) => e.data.object),
        [back.body, eur, usd],
      );
      const deliveries = await b.api<Page<{ event_id: string; event: string }>>(
        'GET',
        `/v1/webhooks/${hook.body.id}/deliveries?limit=100`,
      );
      assert.deepEqual(
        deliveries.body.data.map((d) => d.event_id).sort(),
        events.body.data.map((e) => e.id).sort(),
      );

      // A third tenant sees none of it.
      for (const t of [...sent, back.body]) {
        const foreign = await c.api<Problem>('GET', `/v1/wallet/transfers/${t.id}`);
        assert.equal(foreign.status, 404);
        assert.equal(foreign.body.code, 'not_found');
      }
      assert.equal((await c.api<Page<TransferObject>>('GET', '/v1/wallet/transfers')).body.total, 0);
      assert.equal((await c.api<Page<unknown>>('GET', '/v1/events?type=transfer.created')).body.total, 0);
      await verifyOk();
    });

    it("writes the receiver's transfer.created in the transfer's transaction: no event, no transfer", async () => {
      const a = await tenant();
      const b = await tenant();
      await credit(a, 1000);
      let failFor: string | null = b.id;
      ctx.deps.events.onEmit(async (_trx, events) => {
        if (events.some((event) => event.tenant_id === failFor && event.type === 'transfer.created'))
          throw new Error('outbox refused');
      });
      try {
        const res = await transfer(a, { amount: 400, currency: 'USD', destination_wallet_id: b.walletId });
        assert.equal(res.status, 500, JSON.stringify(res.body));
      } finally {
        failFor = null;
      }
      assert.equal(await balance(a), 1000);
      assert.equal(await balance(b), 0);
      for (const t of [a, b]) {
        assert.equal((await t.api<Page<unknown>>('GET', '/v1/wallet/transfers')).body.total, 0);
        assert.equal((await t.api<Page<unknown>>('GET', '/v1/events?type=transfer.created')).body.total, 0);
      }
      await verifyOk();
    });

    async function product(t: Tenant, price: number, currency?: string): Promise<string> {
      const res = await t.api<{ id: string }>('POST', '/v1/products', {
        body: { name: `Thing ${price}`, price, stock: 1000, ...(currency ? { currency } : {}) },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.id;
    }

    async function order(t: Tenant, productId: string, quantity: number, method?: string) {
      return t.api<OrProblem<OrderObject>>('POST', '/v1/orders', {
        body: {
          items: [{ product_id: productId, quantity }],
          customer: { email: 'buyer@example.com' },
          ...(method ? { payment_method: method } : {}),
        },
      });
    }

    it('credits a paid order to the wallet and debits its refund, in the order currency', async () => {
      const t = await tenant();
      const shirt = await product(t, 2500);
      const paid = await order(t, shirt, 2, 'pm_card_visa');
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      assert.equal(paid.body.status, 'paid');
      const afterPay = await t.api<BalanceObject>('GET', '/v1/wallet/balance');
      assert.equal(afterPay.body.available, 5000);
      assert.deepEqual(
        afterPay.body.transactions.map((x) => [x.type, x.amount, x.balance_after, x.source_id]),
        [['payment', 5000, 5000, paid.body.id]],
      );
      assert.match(
        afterPay.body.transactions[0]?.description ?? '',
        new RegExp(paid.body.payment?.id ?? 'x'),
      );

      // Paying a pending order later credits too; a declined attempt credits nothing.
      const later = await order(t, shirt, 1);
      assert.equal(later.body.status, 'pending');
      const declined = await t.api<Problem>('POST', `/v1/orders/${later.body.id}/pay`, {
        body: { payment_method: 'pm_card_declined' },
      });
      assert.equal(declined.status, 422);
      assert.equal(await balance(t), 5000);
      const payLater = await t.api<OrderObject>('POST', `/v1/orders/${later.body.id}/pay`, {
        body: { payment_method: 'pm_card_mastercard' },
      });
      assert.equal(payLater.status, 200);
      assert.equal(await balance(t), 7500);

      const refunded = await t.api<OrderObject>('POST', `/v1/orders/${paid.body.id}/refund`, { body: {} });
      assert.equal(refunded.status, 200, JSON.stringify(refunded.body));
      assert.equal(refunded.body.status, 'refunded');
      const afterRefund = await t.api<BalanceObject>('GET', '/v1/wallet/balance');
      assert.equal(afterRefund.body.available, 2500);
      assert.deepEqual(
        afterRefund.body.transactions
          .slice(0, 1)
          .map((x) => [x.type, x.amount, x.balance_after, x.source_id]),
        [['refund', -5000, 2500, paid.body.id]],
      );
      // Cancelling a paid order returns its payment: the wallet gives it back too.
      const cancelled = await t.api<OrderObject>('POST', `/v1/orders/${later.body.id}/cancel`, { body: {} });
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.body.status, 'cancelled');
      assert.equal(await balance(t), 0);
      const refunds = await t.api<Page<TransactionObject>>('GET', '/v1/wallet/transactions?type=refund');
      assert.equal(refunds.body.total, 2);

      // An order in another currency credits (and creates) the wallet in that currency.
      const euroThing = await product(t, 990, 'EUR');
      const euroOrder = await order(t, euroThing, 3, 'pm_card_visa');
      assert.equal(euroOrder.body.status, 'paid');
      assert.equal(await balance(t, 'EUR'), 2970);
      assert.equal(await balance(t), 0);
      await verifyOk();
    });

    it('refuses a refund the wallet cannot cover with 422 insufficient_funds and changes nothing', async () => {
      const t = await tenant();
      const other = await tenant();
      const lamp = await product(t, 4000);
      const paid = await order(t, lamp, 1, 'pm_card_visa');
      assert.equal(paid.body.status, 'paid');
      const moved = await transfer(t, {
        amount: 1000,
        currency: 'USD',
        destination_wallet_id: other.walletId,
      });
      assert.equal(moved.status, 201);
      const eventsBefore = await t.api<Page<unknown>>('GET', '/v1/events');

      const refused = await t.api<Problem>('POST', `/v1/orders/${paid.body.id}/refund`, {
        body: { restock: true },
      });
      assert.equal(refused.status, 422, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 'insufficient_funds');
      const cancelRefused = await t.api<Problem>('POST', `/v1/orders/${paid.body.id}/cancel`, { body: {} });
      assert.equal(cancelRefused.status, 422);
      assert.equal(cancelRefused.body.code, 'insufficient_funds');

      const still = await t.api<OrderObject>('GET', `/v1/orders/${paid.body.id}`);
      assert.equal(still.body.status, 'paid');
      assert.equal(still.body.payment?.status, 'succeeded');
      const stock = await t.api<{ stock: number }>('GET', `/v1/products/${lamp}`);
      assert.equal(stock.body.stock, 999);
      assert.equal(await balance(t), 3000);
      assert.equal((await t.api<Page<unknown>>('GET', '/v1/events')).body.total, eventsBefore.body.total);

      // With the money back, the same refund goes through.
      const back = await transfer(other, {
        amount: 1000,
        currency: 'USD',
        destination_wallet_id: t.walletId,
      });
      assert.equal(back.status, 201);
      const refund = await t.api<OrderObject>('POST', `/v1/orders/${paid.body.id}/refund`, { body: {} });
      assert.equal(refund.status, 200);
      assert.equal(await balance(t), 0);
      await verifyOk();
    });

    it('credits through the CLI and verifies the ledger, exiting non-zero on a violation', async () => {
      const t = await tenant();
      const credited = await runAdmin(
        [
          'wallet:credit',
          '--tenant',
          t.id,
          '--amount',
          '2500',
          '--currency',
          'USD',
          '--description',
          'Promo',
          '--json',
        ],
        ctx.config,
      );
      assert.equal(credited.code, 0, credited.stderr);
      const txn = JSON.parse(credited.stdout) as TransactionObject;
      assert.match(txn.id, /^txn_/);
      assert.deepEqual(
        { ...txn, id: 'x', created: 'x' },
        {
          id: 'x',
          type: 'adjustment',
          amount: 2500,
          currency: 'USD',
          balance_after: 2500,
          description: 'Promo',
          source_id: null,
          created: 'x',
        },
      );
      const text = await runAdmin(
        ['wallet:credit', '--tenant', t.id, '--amount', '40', '--currency', 'chf'],
        ctx.config,
      );
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^Credited 40 CHF \(txn_\w+\); balance 40\.\n$/);
      assert.equal(await balance(t, 'CHF'), 40);
      assert.equal(await balance(t), 2500);
      for (const [argv, code, pattern] of [
        [['wallet:credit', '--tenant', t.id, '--amount', '1.5', '--currency', 'USD'], 2, /--amount/],
        [['wallet:credit', '--tenant', t.id, '--amount', '0', '--currency', 'USD'], 2, /--amount/],
        [['wallet:credit', '--tenant', t.id, '--amount', '10'], 2, /--currency is required/],
        [['wallet:credit', '--tenant', t.id, '--amount', '10', '--currency', 'XYZ'], 1, /currency/],
        [['wallet:credit', '--tenant', 'ten_nope', '--amount', '10', '--currency', 'USD'], 1, /not_found/],
      ] as const) {
        const res = await runAdmin([...argv], ctx.config);
        assert.equal(res.code, code, `${argv.join(' ')}: ${res.stderr}`);
        assert.match(res.stderr, pattern);
        assert.equal(res.stdout, '');
      }

      const ok = await runAdmin(['ledger:verify', '--json'], ctx.config);
      assert.equal(ok.code, 0, ok.stdout);
      const report = JSON.parse(ok.stdout) as {
        ok: boolean;
        checked: { wallets: number; postings: number };
        currencies: { currency: string; total: number }[];
      };
      assert.equal(report.ok, true);
      assert.ok(report.checked.wallets > 5 && report.checked.postings > 10);
      assert.ok(report.currencies.every((c) => c.total === 0));
      assert.ok(report.currencies.some((c) => c.currency === 'CHF'));
      const okText = await runAdmin(['ledger:verify'], ctx.config);
      assert.match(okText.stdout, /^Ledger OK: /);
    });

    it('ledger:verify finds a tampered balance, posting and a missing wallet', async () => {
      const own = await createTestContext(dialect);
      try {
        const created = await own.deps.tenants.create({ name: 'Tamper', email: 'tamper@example.com' });
        await own.deps.wallet.credit(created.tenant.id, { amount: 900, currency: 'USD' });
        assert.equal((await runAdmin(['ledger:verify'], own.config)).code, 0);
        const db = own.deps.store.db;
        await db
          .updateTable('ledger_accounts')
          .set({ balance: 901 })
          .where('tenant_id', '=', created.tenant.id)
          .execute();
        const wrongBalance = await runAdmin(['ledger:verify', '--json'], own.config);
        assert.equal(wrongBalance.code, 1);
        const report = JSON.parse(wrongBalance.stdout) as { ok: boolean; violations: { check: string }[] };
        assert.equal(report.ok, false);
        assert.deepEqual(
          report.violations.map((v) => v.check),
          ['wallet_balances'],
        );
        await db
          .updateTable('ledger_accounts')
          .set({ balance: 900 })
          .where('tenant_id', '=', created.tenant.id)
          .execute();
        await db
          .updateTable('ledger_postings')
          .set({ amount: 901, balance_after: 901 })
          .where('tenant_id', '=', created.tenant.id)
          .execute();
        const unbalanced = await runAdmin(['ledger:verify'], own.config);
        assert.equal(unbalanced.code, 1);
        assert.match(unbalanced.stdout, /^Ledger INVALID/);
        for (const check of ['unbalanced_entries', 'currency_totals', 'wallet_balances']) {
          assert.match(unbalanced.stdout, new RegExp(`  ${check}: `));
        }
        await db
          .updateTable('ledger_postings')
          .set({ amount: 900, balance_after: 900 })
          .where('tenant_id', '=', created.tenant.id)
          .execute();
        assert.equal((await runAdmin(['ledger:verify'], own.config)).code, 0);
        const checksOf = async () => {
          const res = await runAdmin(['ledger:verify', '--json'], own.config);
          assert.equal(res.code, 1);
          return (JSON.parse(res.stdout) as { violations: { check: string }[] }).violations.map(
            (v) => v.check,
          );
        };
        const bare = await own.deps.tenants.create({ name: 'No wallet', email: 'nowallet@example.com' });
        await db.deleteFrom('ledger_accounts').where('tenant_id', '=', bare.tenant.id).execute();
        assert.deepEqual(await checksOf(), ['tenant_wallets']);
        await db.deleteFrom('ledger_postings').where('tenant_id', '=', created.tenant.id).execute();
        assert.deepEqual(await checksOf(), [
          'unbalanced_entries',
          'currency_totals',
          'wallet_balances',
          'tenant_wallets',
        ]);
      } finally {
        await own.close();
      }
    });
  });
}
