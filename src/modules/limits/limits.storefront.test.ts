import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createGate } from '../../http/auth.js';
import { ManualClock } from '../../lib/clock.js';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  LOGIC_ONLY,
  type TestContext,
} from '../../../test/helpers/context.js';
import { counterBackends } from '../../../test/helpers/redis.js';
import type { Problem } from '../../../test/helpers/responses.js';
import type { Usage } from '../usage/usage.schemas.js';
import { monthWindow } from './limits.policy.js';

/**
 * The storefront's limits (contract section 16, "Limits"): per buyer address, per cart and for
 * completions, answered 429 `rate_limited` with `Retry-After` and the storefront's RateLimit
 * headers; none of it counted against the tenant's hourly limit or quota; and `/usage` reporting
 * storefront calls apart. The clock stands still unless a test moves it, so no bucket refills
 * behind a test's back.
 */

interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: Problem;
}

/** The members of `GET /usage` in version 2026-12-15, exactly. */
const USAGE_V2026_12_15 = [
  'period',
  'total_calls',
  'average_response_time_ms',
  'total_errors',
  'quota',
  'rate_limit',
  'top_endpoints',
  'daily_calls',
  'days',
  'apps',
];

for (const dialect of DIALECTS) {
  for (const backend of counterBackends()) {
    describe(`storefront limits (${dialect}, ${backend.name})`, () => {
      let ctx: TestContext;
      const clock = new ManualClock();

      before(async () => {
        ctx = await createTestContext(dialect, { clock, env: backend.env });
        assert.equal(ctx.deps.rateLimiter.backend, backend.name);
      });
      after(async () => {
        await ctx.close();
        await backend.cleanup();
      });

      interface Store {
        tenantId: string;
        admin: Client;
        publishable: string;
        secret: string;
      }

      async function openStore(requestsPerMinute?: number): Promise<Store> {
        const tenant = await createTenant(ctx);
        const admin = client(ctx.app, tenant.apiKey.key);
        const made = await admin<{ key: string }>('POST', '/v1/api-keys', {
          body: { type: 'publishable', name: 'Shop', allowed_origins: [] },
        });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        if (requestsPerMinute !== undefined) {
          const set = await admin('PATCH', '/v1/settings', {
            body: { storefront: { requests_per_minute: requestsPerMinute } },
          });
          assert.equal(set.status, 200, JSON.stringify(set.body));
        }
        return { tenantId: tenant.tenant.id, admin, publishable: made.body.key, secret: tenant.apiKey.key };
      }

      /** A storefront call from `address` (the connection's), with the store's publishable key by default. */
      async function shop(
        store: Store,
        method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
        url: string,
        options: { address?: string; body?: unknown; key?: string; headers?: Record<string, string> } = {},
      ): Promise<Answer> {
        const res = await ctx.app.inject({
          method,
          url,
          remoteAddress: options.address ?? '203.0.113.1',
          headers: {
            authorization: `Bearer ${options.key ?? store.publishable}`,
            ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
            ...options.headers,
          },
          ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
        });
        return { status: res.statusCode, headers: res.headers, body: res.json<Problem>() };
      }

      async function productOf(
        store: Store,
        name: string,
      ): Promise<{ productId: string; variantId: string }> {
        const res = await store.admin<{ id: string; variants: { id: string }[] }>('POST', '/v1/products', {
          body: { name, price: 1500, stock: 100 },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        const variantId = res.body.variants[0]?.id;
        assert.ok(variantId);
        return { productId: res.body.id, variantId };
      }

      async function cartOf(store: Store, variantIds: string[] = []): Promise<string> {
        const res = await shop(store, 'POST', '/v1/store/carts', {
          address: '192.0.2.250',
          body: { lines: variantIds.map((variant_id) => ({ variant_id, quantity: 1 })) },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return (res.body as unknown as { id: string }).id;
      }

      /** The tenant's hourly allowance left, as an admin call reports it (that call included). */
      async function hourlyRemaining(store: Store): Promise<number> {
        const res = await store.admin('GET', '/v1/users/me');
        assert.equal(res.status, 200);
        return Number(res.headers['x-ratelimit-remaining']);
      }

      function assertRefused(
        res: Answer,
        policy: string,
        limit: number,
        window: number,
        retry: number,
      ): void {
        assert.equal(res.status, 429, JSON.stringify(res.body));
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        assert.equal(res.body.code, 'rate_limited');
        assert.equal(res.headers['retry-after'], String(retry));
        assert.equal(res.headers['ratelimit-policy'], `"${policy}";q=${limit};w=${window}`);
        assert.equal(res.headers['ratelimit'], `"${policy}";r=0;t=${retry}`);
        assert.equal(res.headers['x-ratelimit-remaining'], undefined, 'not the tenant’s hourly headers');
      }

      it('admits the store’s requests_per_minute per buyer address, refuses the next with 429, and leaves other addresses, the hour and the quota alone', async () => {
        clock.set('2026-11-21T10:00:00.000Z');
        const store = await openStore(10);
        const before = await hourlyRemaining(store);

        for (let i = 1; i <= 10; i++) {
          const res = await shop(store, 'GET', '/v1/store/products');
          assert.equal(res.status, 200, JSON.stringify(res.body));
          assert.equal(res.headers['ratelimit-policy'], '"storefront";q=10;w=60');
          // One request of 10 a minute comes back every 6 s.
          assert.equal(res.headers['ratelimit'], `"storefront";r=${10 - i};t=${6 * i}`);
          for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
            assert.equal(res.headers[header], undefined, header);
        }
        const refused = await shop(store, 'GET', '/v1/store/products');
        assertRefused(refused, 'storefront', 10, 60, 6);
        assert.match(refused.body.detail ?? '', /10 requests a minute/);
        // Every storefront route shares the address's allowance.
        assertRefused(
          await shop(store, 'GET', '/v1/store/shipping-rates?country=US'),
          'storefront',
          10,
          60,
          6,
        );

        // Another shopper's address is not held back.
        assert.equal(
          (await shop(store, 'GET', '/v1/store/products', { address: '203.0.113.2' })).status,
          200,
        );
        // A secret key is counted by the address it names in X-Buyer-IP, else by its own.
        const bySecret = (address: string, buyer?: string) =>
          shop(store, 'GET', '/v1/store/products', {
            key: store.secret,
            address,
            headers: buyer === undefined ? {} : { 'x-buyer-ip': buyer },
          });
        assert.equal((await bySecret('198.51.100.9', '203.0.113.1')).status, 429);
        assert.equal((await bySecret('203.0.113.1')).status, 429);
        assert.equal((await bySecret('203.0.113.1', '203.0.113.3')).status, 200);

        // None of it touched the tenant's hourly limit (the two admin calls take one each) or quota.
        assert.equal(await hourlyRemaining(store), before - 1);
        const { start, end } = monthWindow(clock.now());
        assert.equal(await ctx.deps.usageMeter.countedCalls(store.tenantId, start, end), 4);

        // Six seconds later one more request fits, and only one.
        clock.advance(6_000);
        const back = await shop(store, 'GET', '/v1/store/products');
        assert.equal(back.status, 200);
        assert.equal(back.headers['ratelimit'], '"storefront";r=0;t=60');
        assertRefused(await shop(store, 'GET', '/v1/store/products'), 'storefront', 10, 60, 6);

        // Raising the store's limit lets the address through at once.
        const raised = await store.admin('PATCH', '/v1/settings', {
          body: { storefront: { requests_per_minute: 100 } },
        });
        assert.equal(raised.status, 200);
        const after = await shop(store, 'GET', '/v1/store/products');
        assert.equal(after.status, 200);
        assert.equal(after.headers['ratelimit-policy'], '"storefront";q=100;w=60');
      });

      it('counts an IPv6 buyer by its /64', async () => {
        clock.set('2026-11-21T10:00:00.000Z');
        const store = await openStore(10);
        for (let i = 1; i <= 10; i++) {
          const res = await shop(store, 'GET', '/v1/store/products', { address: `2001:db8:1:2::${i}` });
          assert.equal(res.status, 200);
        }
        const sameNetwork = await shop(store, 'GET', '/v1/store/products', {
          address: '2001:db8:1:2:ffff::1',
        });
        assertRefused(sameNetwork, 'storefront', 10, 60, 6);
        const otherNetwork = await shop(store, 'GET', '/v1/store/products', { address: '2001:db8:1:3::1' });
        assert.equal(otherNetwork.status, 200);
      });

      it('allows 300 changes an hour to one cart, whatever their outcome, and refuses the next', async () => {
        clock.set('2026-11-21T10:00:00.000Z');
        const store = await openStore(10_000);
        const { variantId } = await productOf(store, 'Mug');
        const cart = await cartOf(store, [variantId]);
        const other = await cartOf(store);
        // Changes the route then refuses (a body it does not take) count as changes all the same.
        for (let i = 0; i < 300; i++) {
          const res = await shop(store, 'PATCH', `/v1/store/carts/${cart}`, { body: { nope: true } });
          assert.equal(res.status, 400, `change ${i}: ${JSON.stringify(res.body)}`);
        }
        const refused = await shop(store, 'PATCH', `/v1/store/carts/${cart}`, {
          body: { email: 'ada@example.com' },
        });
        // 3600 s / 300 changes: one more every 12 s.
        assertRefused(refused, 'cart', 300, 3600, 12);
        assert.match(refused.body.detail ?? '', /300 changes an hour to one cart/);
        // Every changing route of the cart, from any address.
        for (const [method, url, body] of [
          ['POST', `/v1/store/carts/${cart}/lines`, { variant_id: variantId, quantity: 1 }],
          ['PATCH', `/v1/store/carts/${cart}/lines/cli_x`, { quantity: 2 }],
          ['DELETE', `/v1/store/carts/${cart}/lines/cli_x`, undefined],
          ['POST', `/v1/store/carts/${cart}/complete`, { payment_method: 'pm_card_visa', expected_total: 0 }],
        ] as const) {
          const res = await shop(store, method, url, { address: '203.0.113.77', body });
          assertRefused(res, 'cart', 300, 3600, 12);
        }
        // Reading the cart is no change; another cart is not held back.
        assert.equal((await shop(store, 'GET', `/v1/store/carts/${cart}`)).status, 200);
        const otherChange = await shop(store, 'PATCH', `/v1/store/carts/${other}`, {
          body: { email: 'bob@example.com' },
        });
        assert.equal(otherChange.status, 200, JSON.stringify(otherChange.body));
        // The admitted answers show the per-address policy, not the cart's.
        assert.equal(otherChange.headers['ratelimit-policy'], '"storefront";q=10000;w=60');

        clock.advance(12_000);
        const admitted = await shop(store, 'PATCH', `/v1/store/carts/${cart}`, {
          body: { email: 'ada@example.com' },
        });
        assert.equal(admitted.status, 200, JSON.stringify(admitted.body));
        assertRefused(
          await shop(store, 'PATCH', `/v1/store/carts/${cart}`, { body: { email: 'ada@example.com' } }),
          'cart',
          300,
          3600,
          12,
        );
      });

      it('allows 10 checkouts an hour per buyer address', async () => {
        clock.set('2026-11-21T10:00:00.000Z');
        const store = await openStore();
        const { variantId } = await productOf(store, 'Tea');
        const cart = await cartOf(store, [variantId]);
        const complete = (address: string) =>
          shop(store, 'POST', `/v1/store/carts/${cart}/complete`, { address, body: {} });
        for (let i = 0; i < 10; i++) assert.equal((await complete('203.0.113.10')).status, 400);
        const refused = await complete('203.0.113.10');
        assertRefused(refused, 'checkout', 10, 3600, 360);
        assert.match(refused.body.detail ?? '', /10 checkouts an hour from one address/);
        // The address may still change carts; another address may complete.
        const change = await shop(store, 'PATCH', `/v1/store/carts/${cart}`, {
          address: '203.0.113.10',
          body: { email: 'ada@example.com' },
        });
        assert.equal(change.status, 200);
        assert.equal((await complete('203.0.113.11')).status, 400);
        // A completion of an unknown cart is its route's 404, and counts as a checkout.
        const unknown = await shop(store, 'POST', '/v1/store/carts/cart_unknown/complete', {
          address: '203.0.113.11',
          body: { payment_method: 'pm_card_visa', expected_total: 0 },
        });
        assert.equal(unknown.status, 404);
      });

      it('allows 300 checkouts a minute of carts holding a product, from any addresses, and refuses the next', async () => {
        clock.set('2026-11-21T10:00:00.000Z');
        const store = await openStore();
        const hot = await productOf(store, 'Limited sneaker');
        const calm = await productOf(store, 'Socks');
        // Per cart 300 an hour, per address 10 an hour: 300 checkouts take two carts and 30 addresses.
        const carts = [
          await cartOf(store, [hot.variantId, calm.variantId]),
          await cartOf(store, [hot.variantId]),
        ];
        for (let i = 0; i < 300; i++) {
          const cart = carts[i % 2];
          const res = await shop(store, 'POST', `/v1/store/carts/${cart}/complete`, {
            address: `198.51.100.${Math.floor(i / 10) + 1}`,
            body: {},
          });
          assert.equal(res.status, 400, `checkout ${i}: ${JSON.stringify(res.body)}`);
        }
        const third = await cartOf(store, [calm.variantId, hot.variantId]);
        const refused = await shop(store, 'POST', `/v1/store/carts/${third}/complete`, {
          address: '198.51.100.200',
          body: {},
        });
        // 60 s / 300: one more every 0.2 s, said in whole seconds.
        assertRefused(refused, 'product', 300, 60, 1);
        assert.match(refused.body.detail ?? '', /300 checkouts a minute of one product/);
        // A cart without the product is not held back, and the refused call spent nothing of its
        // address's checkouts (nine more pass from it).
        const calmCart = await cartOf(store, [calm.variantId]);
        for (let i = 0; i < 10; i++) {
          const res = await shop(store, 'POST', `/v1/store/carts/${calmCart}/complete`, {
            address: '198.51.100.200',
            body: {},
          });
          assert.equal(res.status, 400, `calm checkout ${i}: ${JSON.stringify(res.body)}`);
        }
        clock.advance(200);
        const later = await shop(store, 'POST', `/v1/store/carts/${third}/complete`, {
          address: '198.51.100.201',
          body: {},
        });
        assert.equal(later.status, 400);
      });

      it('reports storefront calls apart in /usage, outside the tenant’s calls and quota, and hides them from 2026-12-15', async () => {
        clock.set('2026-11-21T10:00:00.000Z');
        const store = await openStore(10);
        for (let i = 0; i < 12; i++) await shop(store, 'GET', '/v1/store/products');
        const missing = await shop(store, 'GET', '/v1/store/products/nope', { address: '203.0.113.2' });
        assert.equal(missing.status, 404);
        assert.equal((await store.admin('GET', '/v1/users/me')).status, 200);

        const usage = await store.admin<Usage>('GET', '/v1/usage');
        assert.equal(usage.status, 200);
        // The tenant's own: POST /api-keys, PATCH /settings, GET /users/me (this call is not metered yet).
        assert.equal(usage.body.total_calls, 3);
        assert.equal(usage.body.total_errors, 0);
        assert.equal(usage.body.quota.used, 4);
        assert.ok(usage.body.top_endpoints.every((e) => !e.endpoint.includes('/store/')));
        assert.equal(
          usage.body.days.reduce((sum, d) => sum + d.calls, 0),
          3,
        );
        const { storefront } = usage.body;
        assert.equal(storefront.calls, 13);
        assert.equal(storefront.errors, 3, 'two 429s and a 404');
        assert.equal(storefront.rate_limited, 2);
        assert.deepEqual(
          storefront.top_endpoints.map((e) => [e.endpoint, e.calls, e.errors]),
          [
            ['GET /store/products', 12, 2],
            ['GET /store/products/{id_or_handle}', 1, 1],
          ],
        );
        assert.deepEqual(storefront.days.at(-1), { date: '2026-11-21', calls: 13, errors: 3 });
        assert.equal(storefront.days.length, usage.body.days.length);
        assert.equal(
          storefront.days.reduce((sum, d) => sum + d.calls, 0),
          13,
        );

        // A store pinned to 2026-12-15 sees the shape it knew: no `storefront`.
        const pinned = await createTenant(ctx, { apiVersion: '2026-12-15' });
        const old = await client(ctx.app, pinned.apiKey.key)<Usage>('GET', '/v1/usage');
        assert.equal(old.status, 200);
        assert.equal(old.headers['x-service-version'], '2026-12-15');
        assert.deepEqual(Object.keys(old.body), USAGE_V2026_12_15);
        const asked = await store.admin<Usage>('GET', '/v1/usage', {
          headers: { 'x-service-version': '2026-12-15' },
        });
        assert.deepEqual(Object.keys(asked.body), USAGE_V2026_12_15);
        assert.equal(asked.body.total_calls, 4);
      });

      it('refuses at start a rateLimit a route cannot have', () => {
        const gateFor = createGate({
          apiKeys: ctx.deps.apiKeys,
          versions: ctx.deps.versions,
          limiter: ctx.deps.rateLimiter,
        });
        assert.throws(
          () => gateFor({ auth: 'storefront', rateLimit: 'ai' }),
          /'ai' is for the tenant's routes/,
        );
        assert.throws(() => gateFor({ auth: 'read:orders', rateLimit: 'cart' }), /for storefront routes/);
        assert.doesNotThrow(() => gateFor({ auth: 'storefront', rateLimit: 'checkout' }));
      });
    });
  }
}

for (const dialect of LOGIC_ONLY) {
  describe(`storefront limits while Redis is unreachable (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock();

    before(async () => {
      // Port 1: nothing listens, connections are refused at once.
      ctx = await createTestContext(dialect, { clock, env: { REDIS_URL: 'redis://127.0.0.1:1' } });
    });
    after(() => ctx.close());

    it('holds a buyer address to its allowance with this process’s own counters', async () => {
      const tenant = await createTenant(ctx);
      const admin = client(ctx.app, tenant.apiKey.key);
      const made = await admin<{ key: string }>('POST', '/v1/api-keys', {
        body: { type: 'publishable', name: 'Shop', allowed_origins: [] },
      });
      assert.equal(made.status, 201);
      const set = await admin('PATCH', '/v1/settings', { body: { storefront: { requests_per_minute: 10 } } });
      assert.equal(set.status, 200);
      const shopper = client(ctx.app, made.body.key);
      const answers = await Promise.all(
        Array.from({ length: 15 }, () => shopper('GET', '/v1/store/products')),
      );
      assert.deepEqual(answers.map((res) => res.status).sort(), [
        ...Array.from({ length: 10 }, () => 200),
        ...Array.from({ length: 5 }, () => 429),
      ]);
      assert.equal(ctx.deps.rateLimiter.redisState()?.inUse, false);
    });
  });
}
