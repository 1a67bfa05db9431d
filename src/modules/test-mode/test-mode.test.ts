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
import type { Problem } from '../../../test/helpers/responses.js';
import { limitsOf, PLAN_LIMITS, TEST_MODE_MONTHLY } from '../limits/index.js';
import { resetOrder, schemaTables, unclassifiedTables, KEPT_TABLES } from './test-mode.tables.js';

interface Key {
  id: string;
  key: string;
  mode: string;
  type: string;
  livemode?: boolean;
}

/** Every export of a store, as the API streams it: what "live untouched, byte for byte" compares. */
async function exports(api: Client): Promise<string[]> {
  const files: string[] = [];
  for (const resource of ['products', 'customers', 'orders']) {
    for (const format of ['csv', 'jsonl']) {
      const res = await api('GET', `/v1/exports/${resource}?format=${format}`);
      assert.equal(res.status, 200, `${resource} ${format}`);
      files.push(res.raw.body);
    }
  }
  for (const path of [
    '/v1/products',
    '/v1/customers',
    '/v1/orders',
    '/v1/events',
    '/v1/webhooks',
    '/v1/wallet/balances',
  ]) {
    files.push((await api('GET', path)).raw.body);
  }
  return files;
}

for (const dialect of DIALECTS) {
  describe(`test mode (${dialect})`, () => {
    let ctx: TestContext;

    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    /** A live store and a key of its test mode, both with every permission. */
    async function store(): Promise<{ live: Client; test: Client; liveId: string; testKey: Key }> {
      const created = await createTenant(ctx);
      const live = client(ctx.app, created.apiKey.key);
      const made = await live<Key>('POST', '/v1/api-keys', {
        body: { name: 'Test', mode: 'test', permissions: created.apiKey.permissions },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      return { live, test: client(ctx.app, made.body.key), liveId: created.tenant.id, testKey: made.body };
    }

    it('makes keys per mode: sk_test_ keys of the paired test store, listed apart', async () => {
      const { live, test, testKey } = await store();
      assert.match(testKey.key, /^sk_test_[0-9A-Za-z]{40}$/);
      assert.equal(testKey.mode, 'test');
      assert.equal(testKey.livemode, false);
      // A test key's keys are test keys unless said; a publishable one is pk_test_.
      const child = await test<Key>('POST', '/v1/api-keys', {
        body: { name: 'child', permissions: ['read:products'] },
      });
      assert.equal(child.status, 201);
      assert.match(child.body.key, /^sk_test_/);
      const pk = await test<Key>('POST', '/v1/api-keys', {
        body: { name: 'shop', type: 'publishable', allowed_origins: [] },
      });
      assert.match(pk.body.key, /^pk_test_/);
      const testKeys = (await test<{ data: Key[] }>('GET', '/v1/api-keys')).body.data;
      assert.deepEqual(
        testKeys.map((k) => k.mode),
        ['test', 'test', 'test'],
      );
      assert.ok(testKeys.every((k) => k.key.startsWith('sk_test_****') || k.key.startsWith('pk_test_')));
      const liveKeys = (await live<{ data: Key[] }>('GET', '/v1/api-keys')).body.data;
      assert.deepEqual(
        liveKeys.map((k) => k.mode),
        ['live'],
      );
      // A test key may make a live key (default: its own mode) and the live key is the live store's.
      const back = await test<Key>('POST', '/v1/api-keys', {
        body: { name: 'back', mode: 'live', permissions: ['read:products'] },
      });
      assert.match(back.body.key, /^sk_live_/);
      assert.equal((await live<{ data: Key[] }>('GET', '/v1/api-keys')).body.data.length, 2);
      const bad = await live<Problem>('POST', '/v1/api-keys', {
        body: { name: 'x', mode: 'sandbox', permissions: ['read:products'] },
      });
      assert.equal(bad.status, 400);
      assert.ok(
        bad.body.errors?.some((e) => e.field === 'mode'),
        JSON.stringify(bad.body),
      );
    });

    it('keeps every object apart: same SKU in each mode, a live id is 404 with a test key and the reverse', async () => {
      const { live, test } = await store();
      const a = await live<{ id: string; livemode: boolean }>('POST', '/v1/products', {
        body: { name: 'Mug', sku: 'MUG-1', price: 1200, stock: 3 },
      });
      const b = await test<{ id: string; livemode: boolean }>('POST', '/v1/products', {
        body: { name: 'Mug', sku: 'MUG-1', price: 1200, stock: 3 },
      });
      assert.equal(a.status, 201);
      assert.equal(b.status, 201, 'SKUs are unique per mode');
      assert.equal(a.body.livemode, true);
      assert.equal(b.body.livemode, false);
      assert.equal((await test('GET', `/v1/products/${a.body.id}`)).status, 404);
      assert.equal((await live('GET', `/v1/products/${b.body.id}`)).status, 404);
      const list = await test<{ data: { id: string; livemode: boolean }[] }>('GET', '/v1/products');
      assert.deepEqual(
        list.body.data.map((p) => [p.id, p.livemode]),
        [[b.body.id, false]],
      );
    });

    it('shows livemode and key modes from 2027-01-20 only: older versions see what they saw', async () => {
      const { test } = await store();
      const made = await test<{ id: string }>('POST', '/v1/products', { body: { name: 'Cup', price: 500 } });
      for (const version of ['2026-11-21', '2026-12-15']) {
        const headers = { 'x-service-version': version };
        const one = await test<Record<string, unknown>>('GET', `/v1/products/${made.body.id}`, { headers });
        assert.equal(one.status, 200);
        assert.equal('livemode' in one.body, false, version);
        const keys = await test<{ data: Record<string, unknown>[] }>('GET', '/v1/api-keys', { headers });
        assert.ok(
          keys.body.data.every((k) => !('mode' in k) && !('livemode' in k)),
          version,
        );
        const events = await test<{ data: Record<string, unknown>[] }>('GET', '/v1/events', { headers });
        assert.equal(events.status, 200, JSON.stringify(events.body));
        const first = events.body.data[0] as { data: { object: Record<string, unknown> } };
        assert.equal('livemode' in (events.body.data[0] ?? {}), false);
        assert.equal('livemode' in first.data.object, false);
      }
      const events = await test<{ data: { livemode: boolean; data: { object: { livemode: boolean } } }[] }>(
        'GET',
        '/v1/events',
        { headers: { 'x-service-version': '2027-01-20' } },
      );
      assert.equal(events.body.data[0]?.livemode, false);
      assert.equal(events.body.data[0]?.data.object.livemode, false);
    });

    it('funds the test wallet in test mode only (403 wrong_mode with a live key)', async () => {
      const { live, test } = await store();
      const refused = await live<Problem>('POST', '/v1/wallet/fund', {
        body: { amount: 5000, currency: 'USD' },
      });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'wrong_mode');
      const funded = await test<{ amount: number }>('POST', '/v1/wallet/fund', {
        body: { amount: 5000, currency: 'USD' },
      });
      assert.equal(funded.status, 201, JSON.stringify(funded.body));
      const testWallet = await test<{ available: number }>('GET', '/v1/wallet/balance?currency=USD');
      const liveWallet = await live<{ available: number }>('GET', '/v1/wallet/balance?currency=USD');
      assert.equal(testWallet.body.available, 5000);
      assert.equal(liveWallet.body.available, 0);
      const bad = await test<Problem>('POST', '/v1/wallet/fund', { body: { amount: -1, currency: 'USD' } });
      assert.equal(bad.status, 400);
      assert.ok(bad.body.errors?.some((e) => e.field === 'amount'));
      assert.equal((await live<Problem>('POST', '/v1/test-mode/reset')).body.code, 'wrong_mode');
      assert.equal(
        (await live<Problem>('POST', '/v1/test-mode/copy', { body: { what: ['products'] } })).body.code,
        'wrong_mode',
      );
    });

    it('resets every test table and leaves live byte for byte as it was', async () => {
      const { live, test } = await store();
      for (const api of [live, test]) {
        const product = await api<{ id: string }>('POST', '/v1/products', {
          body: { name: 'Tee', sku: 'TEE', price: 2000, stock: 10 },
        });
        await api('POST', '/v1/customers', { body: { email: 'ann@example.com', name: 'Ann' } });
        const order = await api<{ id: string }>('POST', '/v1/orders', {
          body: {
            items: [{ product_id: product.body.id, quantity: 1 }],
            customer: { email: 'ann@example.com' },
          },
        });
        assert.equal(order.status, 201, JSON.stringify(order.body));
        await api('POST', `/v1/orders/${order.body.id}/pay`, { body: { payment_method: 'pm_card_visa' } });
        await api('POST', '/v1/discounts', { body: { code: 'SAVE10', type: 'percentage', value: 10 } });
        await api('POST', '/v1/webhooks', {
          body: { url: 'https://hooks.example.com/x', events: ['order.created'] },
        });
      }
      await test('POST', '/v1/wallet/fund', { body: { amount: 7000, currency: 'USD' } });
      const before = await exports(live);
      const reset = await test<{ deleted: Record<string, number> }>('POST', '/v1/test-mode/reset');
      assert.equal(reset.status, 200, JSON.stringify(reset.body));
      assert.ok((reset.body.deleted.products ?? 0) >= 1);
      assert.deepEqual(await exports(live), before);
      assert.equal((await test<{ total: number }>('GET', '/v1/products')).body.total, 0);
      assert.equal((await test<{ total: number }>('GET', '/v1/orders')).body.total, 0);
      assert.equal((await test<{ total: number }>('GET', '/v1/customers')).body.total, 0);
      assert.equal(
        (await test<{ available: number }>('GET', '/v1/wallet/balance?currency=USD')).body.available,
        0,
      );
      // Every table a reset deletes from holds nothing of the test store.
      const testId = (
        await ctx.deps.tenants.pairedStoreOf(
          (await live<{ data: { id: string }[] }>('GET', '/v1/products')).body.data[0]
            ? await liveIdOf(live)
            : '',
          'test',
        )
      ).id;
      const schema = await schemaTables(ctx.deps.store, ctx.deps.store.db);
      for (const table of resetOrder(schema)) {
        const { rows } = await sql<{
          n: number;
        }>`SELECT count(*) AS n FROM ${sql.table(table)} WHERE tenant_id = ${testId}`.execute(
          ctx.deps.store.db,
        );
        assert.equal(Number(rows[0]?.n), 0, table);
      }
      // The store still works after a reset: the same SKU again, and the keys still open it.
      assert.equal(
        (await test('POST', '/v1/products', { body: { name: 'Tee', sku: 'TEE', price: 2000 } })).status,
        201,
      );
    });

    /** The live store of a client (from its key's tenant). */
    async function liveIdOf(api: Client): Promise<string> {
      const me = await api<{ tenant: { id: string } }>('GET', '/v1/users/me');
      return me.body.tenant.id;
    }

    it('keeps the request log’s and the audit log’s totals with their rows through a reset', async () => {
      const { test } = await store();
      for (let i = 0; i < 3; i++) await test('GET', '/v1/products');
      await ctx.deps.requestLogWriter.flush();
      // A test product's entry, sealed: its count by action is a kept count the reset must keep.
      assert.equal((await test('POST', '/v1/products', { body: { name: 'Kept', price: 100 } })).status, 201);
      await ctx.deps.auditSealer.seal();
      assert.equal((await test('POST', '/v1/test-mode/reset', { body: {} })).status, 200);
      await ctx.deps.requestLogWriter.flush();
      type Page = { total: number; data: unknown[] };
      for (const query of ['', '?route=/v1/products', '?status=2xx', '?method=GET']) {
        const page = await test<Page>('GET', `/v1/request-logs${query}`);
        assert.equal(page.status, 200);
        assert.ok(page.body.data.length >= 3, query);
        assert.equal(page.body.total, page.body.data.length, query);
      }
      const audited = await test<Page>('GET', '/v1/audit-log?action=product.created');
      assert.deepEqual([audited.body.total, audited.body.data.length], [1, 1]);
    });

    it('knows every table: a store’s (tenant_id), kept with a reason, or the platform’s', async () => {
      const schema = await schemaTables(ctx.deps.store, ctx.deps.store.db);
      assert.deepEqual(unclassifiedTables(schema), []);
      for (const table of Object.keys(KEPT_TABLES)) {
        if (schema.all.includes(table))
          assert.ok(schema.withTenant.has(table), `${table} is kept but has no tenant_id`);
      }
      assert.ok(resetOrder(schema).includes('products'));
      assert.ok(resetOrder(schema).indexOf('order_items') < resetOrder(schema).indexOf('orders'));
    });

    it('keeps a test order out of live analytics and away from live webhook endpoints', async () => {
      const { live, test } = await store();
      const hooks: Record<string, string> = {};
      for (const [name, api] of [
        ['live', live],
        ['test', test],
      ] as const) {
        const hook = await api<{ id: string }>('POST', '/v1/webhooks', {
          body: { url: `https://hooks.example.com/${name}`, events: ['order.created'] },
        });
        assert.equal(hook.status, 201);
        hooks[name] = hook.body.id;
      }
      const product = await test<{ id: string }>('POST', '/v1/products', {
        body: { name: 'Kit', price: 3000, stock: 5 },
      });
      const order = await test<{ id: string; livemode: boolean }>('POST', '/v1/orders', {
        body: {
          items: [{ product_id: product.body.id, quantity: 1 }],
          customer: { email: 'tester@example.com' },
          payment_method: 'pm_card_visa',
        },
      });
      assert.equal(order.status, 201, JSON.stringify(order.body));
      assert.equal(order.body.livemode, false);
      const deliveries = async (api: Client, id: string) =>
        (await api<{ data: { event_id: string }[] }>('GET', `/v1/webhooks/${id}/deliveries`)).body.data;
      assert.equal(
        (await deliveries(test, hooks.test ?? '')).length,
        1,
        'the test endpoint gets the test order',
      );
      assert.deepEqual(await deliveries(live, hooks.live ?? ''), [], 'the live endpoint gets nothing');
      const liveAnalytics = await live<{ summary: { orders: number } }>('GET', '/v1/analytics');
      const testAnalytics = await test<{ summary: { orders: number } }>('GET', '/v1/analytics');
      assert.equal(liveAnalytics.body.summary.orders, 0);
      assert.equal(testAnalytics.body.summary.orders, 1);
      assert.equal((await live<{ total: number }>('GET', '/v1/orders')).body.total, 0);
    });

    it('gives test mode the plan’s hourly limit, its own counters and no monthly quota', async () => {
      const { live, test, liveId } = await store();
      await ctx.deps.tenants.setLimits(liveId, { plan: 'enterprise' });
      const testStore = await ctx.deps.tenants.pairedStoreOf(liveId, 'test');
      assert.equal(testStore.plan, 'enterprise', 'the plan follows live’s');
      const limits = limitsOf({ ...testStore, livemode: false });
      assert.deepEqual(limits, { hourly: PLAN_LIMITS.enterprise.hourly, monthly: TEST_MODE_MONTHLY });
      // Test calls are counted for test mode, never for live.
      for (let i = 0; i < 3; i++) await test('GET', '/v1/products');
      const left = async (api: Client) =>
        Number((await api('GET', '/v1/products')).headers['x-ratelimit-remaining']);
      const liveLeft = await left(live);
      const testLeft = await left(test);
      assert.ok(Number.isInteger(liveLeft) && Number.isInteger(testLeft), `${liveLeft} ${testLeft}`);
      assert.ok(liveLeft > testLeft, `live's hour is untouched by test calls: ${liveLeft} > ${testLeft}`);
    });

    it('installs a plugin in test mode alone: live does not have it', async () => {
      const { live, test } = await store();
      type Plugin = { id: string; slug: string; installed: boolean; installation: { id: string } | null };
      const listed = await test<{ data: Plugin[] }>('GET', '/v1/plugins?limit=100');
      const plugin = listed.body.data.find((p) => p.slug === 'sold-out-hider');
      assert.ok(plugin, 'a first-party plugin is listed in test mode');
      const installed = await test<Plugin>('POST', `/v1/plugins/${plugin.id}/install`, { body: {} });
      assert.equal(installed.status, 201, JSON.stringify(installed.body));
      assert.match(installed.body.installation?.id ?? '', /^ins_/);
      const inLive = await live<Plugin>('GET', `/v1/plugins/${plugin.id}`);
      assert.deepEqual([inLive.status, inLive.body.installed, inLive.body.installation], [200, false, null]);
      const inTest = await test<Plugin>('GET', `/v1/plugins/${plugin.id}`);
      assert.equal(inTest.body.installation?.id, installed.body.installation?.id);
      // Live installs it for itself, a second installation of its own.
      const liveInstalled = await live<Plugin>('POST', `/v1/plugins/${plugin.id}/install`, { body: {} });
      assert.equal(liveInstalled.status, 201, 'live installs it anew');
      assert.notEqual(liveInstalled.body.installation?.id, installed.body.installation?.id);
    });

    it('pins a version upgrade made with a test key to test mode only', async () => {
      const created = await createTenant(ctx, { apiVersion: '2026-12-15' });
      const live = client(ctx.app, created.apiKey.key);
      const made = await live<Key>('POST', '/v1/api-keys', {
        body: { name: 'Test', mode: 'test', permissions: created.apiKey.permissions },
      });
      const test = client(ctx.app, made.body.key);
      const upgraded = await test<{ api_version: string }>('POST', '/v1/versions/upgrade', { body: {} });
      assert.equal(upgraded.status, 200, JSON.stringify(upgraded.body));
      assert.equal(upgraded.body.api_version, ctx.deps.versions.latest.version);
      const answered = async (api: Client) => (await api('GET', '/v1/products')).headers['x-service-version'];
      assert.equal(await answered(test), ctx.deps.versions.latest.version);
      assert.equal(await answered(live), '2026-12-15');
    });

    it('copies live’s catalog, pricing and settings into test mode, leaving live as it was', async () => {
      const { live, test } = await store();
      const product = await live<{ id: string }>('POST', '/v1/products', {
        body: { name: 'Hat', sku: 'HAT', price: 1500, stock: 4 },
      });
      await live('POST', '/v1/discounts', { body: { code: 'WELCOME', type: 'percentage', value: 15 } });
      await live('PATCH', '/v1/settings', { body: { unpaid_order_expiry_minutes: 90 } });
      await test('POST', '/v1/products', { body: { name: 'Old test product', price: 100 } });
      const before = await exports(live);
      const copied = await test<{ copied: Record<string, number> }>('POST', '/v1/test-mode/copy', {
        body: { what: ['products', 'pricing', 'settings'] },
      });
      assert.equal(copied.status, 200, JSON.stringify(copied.body));
      assert.deepEqual(await exports(live), before);
      const products = (
        await test<{ data: { id: string; sku: string; name: string }[] }>('GET', '/v1/products')
      ).body.data;
      assert.deepEqual(
        products.map((p) => [p.name, p.sku]),
        [['Hat', 'HAT']],
      );
      assert.notEqual(products[0]?.id, product.body.id);
      const discounts = (await test<{ data: { code: string }[] }>('GET', '/v1/discounts')).body.data;
      assert.deepEqual(
        discounts.map((d) => d.code),
        ['WELCOME'],
      );
      const settings = await test<{ unpaid_order_expiry_minutes: number }>('GET', '/v1/settings');
      assert.equal(settings.body.unpaid_order_expiry_minutes, 90);
      const bad = await test<Problem>('POST', '/v1/test-mode/copy', { body: { what: ['orders'] } });
      assert.equal(bad.status, 400);
    });
  });
}
