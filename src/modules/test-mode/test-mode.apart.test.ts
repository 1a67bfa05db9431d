import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';

/**
 * What test mode keeps apart beyond its data: its audit entries, its money on the ledger, its usage
 * (shown beside live's) and `livemode` on the objects an order holds.
 */

interface AuditEntry {
  action: string;
  resource: { type: string; id: string };
  actor: { type: string; id: string; name: string };
  request_id: string;
  livemode: boolean;
  changes: Record<string, { from: unknown; to: unknown }> | null;
}

for (const dialect of DIALECTS) {
  describe(`test mode kept apart (${dialect})`, () => {
    let ctx: TestContext;

    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    /** A live store and a key of its test mode, both with every permission. */
    async function store(apiVersion?: string) {
      const created = await createTenant(ctx, apiVersion === undefined ? {} : { apiVersion });
      const live = client(ctx.app, created.apiKey.key);
      const made = await live<{ id: string; key: string; name: string }>('POST', '/v1/api-keys', {
        body: { name: 'Test', mode: 'test', permissions: created.apiKey.permissions },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const testId = (await ctx.deps.tenants.pairedStoreOf(created.tenant.id, 'test')).id;
      return {
        live,
        test: client(ctx.app, made.body.key),
        liveId: created.tenant.id,
        testId,
        testKey: made.body,
      };
    }

    it('audits a reset and a copy in test mode: the test store is the resource, the key the actor', async () => {
      const { live, test, testId, testKey } = await store();
      await live('POST', '/v1/products', { body: { name: 'Hat', price: 1500 } });
      await live('PATCH', '/v1/settings', { body: { unpaid_order_expiry_minutes: 90 } });
      const copy = await test('POST', '/v1/test-mode/copy', { body: { what: ['products', 'settings'] } });
      assert.equal(copy.status, 200, JSON.stringify(copy.body));
      const reset = await test('POST', '/v1/test-mode/reset');
      assert.equal(reset.status, 200, JSON.stringify(reset.body));
      await ctx.deps.auditSealer.seal(testId);
      const log = await test<{ data: AuditEntry[] }>('GET', '/v1/audit-log?resource_id=' + testId);
      assert.equal(log.status, 200, JSON.stringify(log.body));
      const entries = log.body.data.filter((e) => e.resource.type === 'test_mode');
      assert.deepEqual(
        entries.map((e) => [e.action, e.resource.id, e.actor.type, e.actor.id, e.livemode]),
        [
          ['test_mode.reset', testId, 'api_key', testKey.id, false],
          ['test_mode.copied', testId, 'api_key', testKey.id, false],
        ],
      );
      assert.equal(entries[0]?.request_id, reset.headers['x-request-id']);
      assert.equal(entries[1]?.request_id, copy.headers['x-request-id']);
      const copied = entries[1]?.changes?.copied?.to as Record<string, number>;
      assert.deepEqual([copied.settings, (copied.products ?? 0) >= 1], [1, true]);
      assert.ok(((entries[0]?.changes?.deleted?.to as Record<string, number>).products ?? 0) >= 1);
      // The settings the copy changed are audited by the same request, in the same transaction.
      const settings = await test<{ data: AuditEntry[] }>('GET', '/v1/audit-log?action=settings.updated');
      assert.deepEqual(
        settings.body.data.map((e) => e.request_id),
        [copy.headers['x-request-id']],
      );
      // Live's log holds none of it.
      const liveLog = await live<{ data: AuditEntry[] }>('GET', '/v1/audit-log?limit=100');
      assert.ok(liveLog.body.data.every((e) => !e.action.startsWith('test_mode.')));
    });

    it('rolls a copy back whole, its audit entry with it, when a part of it fails', async () => {
      const { live, test, testId } = await store();
      await live('PATCH', '/v1/settings', { body: { currency: 'EUR' } });
      // Test mode has an order: its currency may not change, so the copy of settings is refused.
      const product = await test<{ id: string }>('POST', '/v1/products', {
        body: { name: 'Kit', price: 900, stock: 5 },
      });
      const order = await test('POST', '/v1/orders', {
        body: { items: [{ product_id: product.body.id, quantity: 1 }], customer: { email: 'a@example.com' } },
      });
      assert.equal(order.status, 201, JSON.stringify(order.body));
      const copy = await test('POST', '/v1/test-mode/copy', { body: { what: ['products', 'settings'] } });
      assert.equal(copy.status, 409, JSON.stringify(copy.body));
      const { rows } = await sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM audit_entries
        WHERE tenant_id = ${testId} AND action = 'test_mode.copied'`.execute(ctx.deps.store.db);
      assert.equal(Number(rows[0]?.n), 0);
      const products = await test<{ data: { name: string }[] }>('GET', '/v1/products');
      assert.deepEqual(
        products.body.data.map((p) => p.name),
        ['Kit'],
        'the products part rolled back too',
      );
    });

    /** Live's money as its key sees it: balances, transactions and the orders export. */
    async function liveMoney(live: Client): Promise<string[]> {
      const paths = ['/v1/wallet/balances', '/v1/wallet/transactions', '/v1/exports/orders?format=csv'];
      return Promise.all(paths.map(async (path) => (await live('GET', path)).raw.body));
    }

    /** The accounts (id and mode) of every entry that touches a wallet of `tenantId`. */
    async function accountsOfEntries(tenantId: string) {
      const { rows } = await sql<{ id: string; mode: string }>`SELECT DISTINCT a.id, a.mode
        FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id
        WHERE p.entry_id IN (SELECT entry_id FROM ledger_postings WHERE tenant_id = ${tenantId})
        ORDER BY a.id`.execute(ctx.deps.store.db);
      return rows;
    }

    it('keeps test money off live’s accounts: funding, payments, refunds and resets post on test mode’s own', async () => {
      const { live, test, liveId, testId } = await store();
      const product = await live<{ id: string }>('POST', '/v1/products', {
        body: { name: 'Lamp', price: 2500, stock: 5 },
      });
      const paid = await live('POST', '/v1/orders', {
        body: {
          items: [{ product_id: product.body.id, quantity: 1 }],
          customer: { email: 'live@example.com' },
          payment_method: 'pm_card_visa',
        },
      });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      const before = await liveMoney(live);
      const liveAccounts = await accountsOfEntries(liveId);

      const funded = await test('POST', '/v1/wallet/fund', { body: { amount: 7000, currency: 'USD' } });
      assert.equal(funded.status, 201, JSON.stringify(funded.body));
      const kit = await test<{ id: string }>('POST', '/v1/products', {
        body: { name: 'Kit', price: 3000, stock: 5 },
      });
      const order = await test<{ id: string }>('POST', '/v1/orders', {
        body: {
          items: [{ product_id: kit.body.id, quantity: 1 }],
          customer: { email: 'test@example.com' },
          payment_method: 'pm_card_visa',
        },
      });
      assert.equal(order.status, 201, JSON.stringify(order.body));
      const refund = await test('POST', `/v1/orders/${order.body.id}/refunds`, { body: { amount: 1000 } });
      assert.equal(refund.status, 201, JSON.stringify(refund.body));
      assert.equal((await test('POST', '/v1/test-mode/reset')).status, 200);

      // Every entry of test mode's wallet is on test mode's accounts only, platform accounts included.
      const testAccounts = await accountsOfEntries(testId);
      assert.ok(
        testAccounts.some((a) => a.id === 'platform_test_funding_USD'),
        JSON.stringify(testAccounts),
      );
      assert.ok(
        testAccounts.some((a) => a.id === 'platform_test_clearing_USD'),
        JSON.stringify(testAccounts),
      );
      assert.deepEqual(
        testAccounts.filter((a) => a.mode !== 'test'),
        [],
      );
      assert.ok(liveAccounts.every((a) => a.mode === 'live'));
      // Live's accounts hold no posting of an entry of test mode's.
      const { rows } = await sql<{ n: number | string }>`SELECT COUNT(*) AS n
        FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id
        WHERE a.mode = 'live' AND p.entry_id IN (SELECT entry_id FROM ledger_postings WHERE tenant_id = ${testId})`.execute(
        ctx.deps.store.db,
      );
      assert.equal(Number(rows[0]?.n), 0);
      assert.deepEqual(
        await liveMoney(live),
        before,
        'live’s balances, transactions and exports as they were',
      );
      const report = await ctx.deps.wallet.verify();
      assert.deepEqual(report.violations, []);
    });

    it('fails the ledger check for an entry that moves money between a live and a test account', async () => {
      const { test, liveId, testId } = await store();
      assert.equal(
        (await test('POST', '/v1/wallet/fund', { body: { amount: 100, currency: 'USD' } })).status,
        201,
      );
      await ctx.deps.wallet.credit(liveId, { amount: 100, currency: 'USD' });
      const modes = await ctx.deps.store.db
        .selectFrom('ledger_accounts')
        .select(['id', 'mode'])
        .where((eb) => eb.or([eb('tenant_id', '=', testId), eb('id', 'like', 'platform_%_USD')]))
        .orderBy('id')
        .execute();
      assert.ok(modes.some((a) => a.id === 'platform_test_funding_USD'));
      for (const account of modes) {
        const test = account.id.startsWith('wal_') || account.id.startsWith('platform_test_');
        assert.equal(account.mode, test ? 'test' : 'live', account.id);
      }
      // Money moved by hand from live's funding account to test mode's: balanced, but mixed.
      const db = ctx.deps.store.db;
      const now = Date.now();
      const posting = {
        entry_id: 'je_mixed',
        type: 'adjustment' as const,
        currency: 'USD',
        description: 'mixed',
        source_id: null,
        tenant_id: null,
        seq: null,
        balance_after: null,
        created: now,
      };
      await db
        .insertInto('ledger_entries')
        .values({ id: 'je_mixed', type: 'adjustment', currency: 'USD', created: now })
        .execute();
      await db
        .insertInto('ledger_postings')
        .values([
          { ...posting, id: 'txn_mixed_a', account_id: 'platform_funding_USD', amount: -1 },
          { ...posting, id: 'txn_mixed_b', account_id: 'platform_test_funding_USD', amount: 1 },
        ])
        .execute();
      try {
        const report = await ctx.deps.wallet.verify();
        assert.deepEqual(
          report.violations.map((v) => [v.check, v.rows.map((r) => r.id)]),
          [['modes', ['je_mixed']]],
        );
      } finally {
        await db.deleteFrom('ledger_postings').where('entry_id', '=', 'je_mixed').execute();
        await db.deleteFrom('ledger_entries').where('id', '=', 'je_mixed').execute();
      }
      assert.deepEqual((await ctx.deps.wallet.verify()).violations, []);
    });

    interface ModeUsage {
      calls: number;
      counts_against_quota: boolean;
      rate_limit: { limit: number; remaining: number };
      top_endpoints: { endpoint: string; calls: number }[];
    }
    interface UsageBody {
      total_calls: number;
      quota: { used: number };
      by_mode?: { live: ModeUsage; test: ModeUsage | null };
    }

    it('shows live and test calls side by side from either key; the monthly quota counts live only', async () => {
      const created = await createTenant(ctx);
      const alone = await client(ctx.app, created.apiKey.key)<UsageBody>('GET', '/v1/usage');
      assert.equal(alone.status, 200, JSON.stringify(alone.body));
      assert.equal(alone.body.by_mode?.test, null, 'no test mode yet: null, and none is made');
      assert.equal((await ctx.deps.tenants.pairOf(created.tenant.id)) ?? null, null);

      const { live, test } = await store();
      const first = await live<UsageBody>('GET', '/v1/usage');
      for (let i = 0; i < 3; i++) assert.equal((await test('GET', '/v1/products')).status, 200);
      const second = await live<UsageBody>('GET', '/v1/usage');
      // Only the second /usage call counted against the quota between the two: no test call did.
      assert.equal(second.body.quota.used - first.body.quota.used, 1);
      const fromLive = second.body.by_mode;
      assert.ok(fromLive?.test, JSON.stringify(second.body));
      assert.equal(fromLive.test.calls, 3);
      assert.deepEqual(
        fromLive.test.top_endpoints.map((e) => [e.endpoint, e.calls]),
        [['GET /products', 3]],
      );
      assert.equal(fromLive.test.counts_against_quota, false);
      assert.equal(fromLive.live.counts_against_quota, true);
      assert.equal(fromLive.live.calls, second.body.total_calls);
      // Test mode's own hourly counter: its three calls.
      assert.equal(fromLive.test.rate_limit.limit - fromLive.test.rate_limit.remaining, 3);

      // From a test key: the same two modes, its own figures at the top.
      const fromTest = await test<UsageBody>('GET', '/v1/usage');
      assert.equal(fromTest.status, 200, JSON.stringify(fromTest.body));
      assert.equal(fromTest.body.total_calls, 3);
      assert.equal(fromTest.body.by_mode?.test?.calls, 3);
      assert.equal(fromTest.body.by_mode?.live.calls, second.body.total_calls + 1);
      assert.equal(fromTest.body.by_mode?.live.counts_against_quota, true);
      const third = await live<UsageBody>('GET', '/v1/usage');
      assert.equal(
        third.body.quota.used - second.body.quota.used,
        1,
        'the test key’s /usage call did not count',
      );
    });

    it('shows older versions /usage as it was: no by_mode', async () => {
      const { live, test } = await store('2026-12-15');
      for (const api of [live, test]) {
        const usage = await api<UsageBody & { storefront?: unknown }>('GET', '/v1/usage');
        assert.equal(usage.status, 200);
        assert.equal('by_mode' in usage.body, false);
        assert.equal('storefront' in usage.body, false);
      }
    });

    type Json = Record<string, unknown>;
    const flags = (objects: unknown) => (objects as Json[]).map((o) => o.livemode);

    /** A paid order of `api`'s store, fulfilled, partly returned and partly refunded. */
    async function fullOrder(api: Client): Promise<string> {
      const product = await api<{ id: string; variants: { id: string }[] }>('POST', '/v1/products', {
        body: { name: 'Tee', price: 2000, stock: 10 },
      });
      const order = await api<{ id: string }>('POST', '/v1/orders', {
        body: {
          items: [{ product_id: product.body.id, quantity: 2 }],
          customer: { email: 'ann@example.com' },
          shipping_address: { line1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' },
          payment_method: 'pm_card_visa',
        },
      });
      assert.equal(order.status, 201, JSON.stringify(order.body));
      const id = order.body.id;
      assert.equal((await api('POST', `/v1/orders/${id}/fulfillments`, { body: {} })).status, 201);
      const variant = product.body.variants[0]?.id;
      const made = await api('POST', `/v1/orders/${id}/returns`, {
        body: { items: [{ variant_id: variant, quantity: 1 }] },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const refund = await api('POST', `/v1/orders/${id}/refunds`, { body: { amount: 500 } });
      assert.equal(refund.status, 201, JSON.stringify(refund.body));
      return id;
    }

    it('puts livemode on nested objects of their own (refunds, fulfillments, returns, variants), not on lines', async () => {
      const { live, test } = await store();
      await test('POST', '/v1/wallet/fund', { body: { amount: 100000, currency: 'USD' } });
      for (const [api, flag] of [
        [live, true],
        [test, false],
      ] as const) {
        const id = await fullOrder(api);
        for (const order of [
          (await api<Json>('GET', `/v1/orders/${id}`)).body,
          (await api<{ data: Json[] }>('GET', '/v1/orders?limit=1')).body.data[0] as Json,
        ]) {
          assert.equal(order.livemode, flag);
          assert.deepEqual(flags(order.refunds), [flag]);
          assert.deepEqual(flags(order.fulfillments), [flag]);
          assert.deepEqual(flags(order.returns), [flag]);
          // Line items, addresses and the payment summary have no route of their own.
          assert.deepEqual(flags(order.items), [undefined]);
          assert.equal((order.shipping_address as Json).livemode, undefined);
          assert.equal((order.payment as Json).livemode, undefined);
          assert.equal(
            ((order.fulfillments as Json[])[0]?.items as Json[] | undefined)?.[0]?.livemode,
            undefined,
          );
        }
        const products = await api<{ data: Json[] }>('GET', '/v1/products?limit=1');
        const product = await api<Json>('GET', `/v1/products/${String(products.body.data[0]?.id)}`);
        assert.deepEqual(flags(product.body.variants), [flag]);
        // Events carry it on the same objects: what is left refunded makes `order.refunded`, whose
        // order holds its refunds, fulfilment and return; `product.created` holds the variants.
        const rest = await api('POST', `/v1/orders/${id}/refunds`, { body: {} });
        assert.equal(rest.status, 201, JSON.stringify(rest.body));
        type Event = { type: string; livemode: boolean; data: { object: Json } };
        const events = async (objectId: string) =>
          (await api<{ data: Event[] }>('GET', `/v1/events?object_id=${objectId}&limit=100`)).body.data;
        const refunded = (await events(id)).find((e) => e.type === 'order.refunded');
        assert.ok(refunded, 'order.refunded');
        const held = refunded.data.object;
        assert.deepEqual(
          [held.livemode, flags(held.refunds), flags(held.fulfillments), flags(held.returns)],
          [flag, [flag, flag], [flag], [flag]],
        );
        assert.deepEqual(flags(held.items), [undefined]);
        assert.equal((held.payment as Json).livemode, undefined);
        const created = (await events(String(product.body.id))).find((e) => e.type === 'product.created');
        assert.deepEqual(flags(created?.data.object.variants), [flag]);
        const balance = await api<Json>('GET', '/v1/wallet/balance');
        assert.ok((balance.body.transactions as Json[]).length > 0);
        assert.ok(flags(balance.body.transactions).every((f) => f === flag));
      }
      // The document's components declare it where such an object is nested.
      const doc = (await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as {
        components: { schemas: Record<string, { properties: Record<string, unknown> }> };
      };
      for (const name of ['Refund', 'Fulfillment', 'Return', 'Variant', 'WalletTransaction']) {
        assert.ok('livemode' in (doc.components.schemas[name]?.properties ?? {}), name);
      }
      for (const name of ['OrderItem', 'Address', 'OrderPayment']) {
        assert.equal('livemode' in (doc.components.schemas[name]?.properties ?? {}), false, name);
      }
    });

    it('shows older versions nested objects as they were: no livemode anywhere', async () => {
      const { live } = await store('2026-12-15');
      const product = await live<{ id: string }>('POST', '/v1/products', {
        body: { name: 'Mug', price: 900, stock: 5 },
      });
      const order = await live<{ id: string }>('POST', '/v1/orders', {
        body: {
          items: [{ product_id: product.body.id, quantity: 1 }],
          customer: { email: 'bob@example.com' },
          payment_method: 'pm_card_visa',
        },
      });
      assert.equal(
        (await live('POST', `/v1/orders/${order.body.id}/refunds`, { body: { amount: 100 } })).status,
        201,
      );
      const read = await live('GET', `/v1/orders/${order.body.id}`);
      assert.equal(read.raw.body.includes('"livemode"'), false, read.raw.body);
      const products = await live('GET', '/v1/products');
      assert.equal(products.raw.body.includes('"livemode"'), false);
      const events = await live('GET', `/v1/events?object_id=${order.body.id}`);
      assert.equal(events.status, 200);
      assert.ok(events.raw.body.includes('"refunds"'), events.raw.body);
      assert.equal(events.raw.body.includes('"livemode"'), false, events.raw.body);
    });
  });
}

export type { Client };
