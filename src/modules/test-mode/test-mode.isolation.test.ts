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
import { upload } from '../../../test/helpers/imports.js';

/**
 * The isolation walk across modes: every `/v1` route with an id in its path, called with an id of
 * the other mode, is 404, both ways (a live id with a test key, a test id with a live key). The
 * ids are real objects of every kind the API makes, found by the collection their parameter
 * follows (`/products/:id/variants/:variant_id`: a product, then its variant); a new route whose
 * collection has no object here fails the walk until one is made or it is named below with why.
 */

/** Collections whose ids are not a store's: the marketplace's plugins, a version by its date. */
const NOT_A_STORES: Readonly<Record<string, string>> = {
  plugins: 'a plugin is the marketplace’s, listed to every store (its installation is the store’s)',
  versions: 'a version is a date, the same for every store',
};

type Ids = Record<string, string>;

/** A store's objects of every kind, made through the API; their ids by the collection in paths. */
async function objectsOf(ctx: TestContext, api: Client, rawKey: string, payee: string): Promise<Ids> {
  const ok = <T>(res: { status: number; body: T }, what: string): T => {
    assert.ok(res.status >= 200 && res.status < 300, `${what}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const product = ok(
    await api<{ id: string; handle: string; variants: { id: string }[] }>('POST', '/v1/products', {
      body: {
        name: 'Walk Tee',
        sku: `WALK-${Math.random().toString(36).slice(2, 8)}`,
        price: 2500,
        stock: 20,
      },
    }),
    'product',
  );
  const customer = ok(
    await api<{ id: string }>('POST', '/v1/customers', {
      body: { email: 'walk@example.com', name: 'Walker' },
    }),
    'customer',
  );
  const order = ok(
    await api<{ id: string }>('POST', '/v1/orders', {
      body: {
        items: [{ product_id: product.id, quantity: 2 }],
        customer: { email: 'walk@example.com' },
        payment_method: 'pm_card_visa',
      },
    }),
    'order',
  );
  const refund = ok(
    await api<{ id: string }>('POST', `/v1/orders/${order.id}/refunds`, { body: { amount: 100 } }),
    'refund',
  );
  const discount = ok(
    await api<{ id: string }>('POST', '/v1/discounts', {
      body: { code: 'WALK10', type: 'percentage', value: 10 },
    }),
    'discount',
  );
  const shippingRate = ok(
    await api<{ id: string }>('POST', '/v1/shipping-rates', {
      body: { name: 'Walk', countries: ['US'], price: 500, currency: 'USD' },
    }),
    'shipping rate',
  );
  const taxRate = ok(
    await api<{ id: string }>('POST', '/v1/tax-rates', {
      body: { name: 'Walk', country: 'US', rate_bps: 500, inclusive: false, shipping_taxable: false },
    }),
    'tax rate',
  );
  const webhook = ok(
    await api<{ id: string }>('POST', '/v1/webhooks', {
      body: { url: 'https://hooks.example.com/walk', events: ['order.created'] },
    }),
    'webhook',
  );
  const key = ok(
    await api<{ id: string }>('POST', '/v1/api-keys', {
      body: { name: 'walk', permissions: ['read:products'] },
    }),
    'key',
  );
  const events = ok(await api<{ data: { id: string }[] }>('GET', '/v1/events?limit=1'), 'events');
  const cart = ok(
    await api<{ id: string; lines: { id: string }[] }>('POST', '/v1/store/carts', {
      body: { lines: [{ variant_id: product.variants[0]?.id, quantity: 1 }] },
    }),
    'cart',
  );
  const locations = ok(await api<{ data: { id: string }[] }>('GET', '/v1/locations'), 'locations');
  // A return: the order ships, then one unit comes back.
  ok(
    await api('POST', `/v1/orders/${order.id}/ship`, { body: { carrier: 'UPS', tracking_number: '1Z' } }),
    'ship',
  );
  const returned = ok(
    await api<{ id: string }>('POST', `/v1/orders/${order.id}/returns`, {
      body: { items: [{ variant_id: product.variants[0]?.id, quantity: 1 }] },
    }),
    'return',
  );
  const transfer = ok(
    await api<{ id: string }>('POST', '/v1/wallet/transfer', {
      body: { destination_wallet_id: payee, amount: 100, currency: 'USD' },
    }),
    'transfer',
  );
  // A delivery of the endpoint: its test ping.
  ok(await api('POST', `/v1/webhooks/${webhook.id}/test`, { body: {} }), 'webhook test');
  const deliveries = ok(
    await api<{ data: { id: string }[] }>('GET', `/v1/webhooks/${webhook.id}/deliveries`),
    'deliveries',
  );
  const imported = await upload(ctx, rawKey, 'resource=products', 'name,price\nWalk Mug,900\n');
  assert.equal(imported.status, 202, JSON.stringify(imported.body));
  const requestId = String((await api('GET', '/v1/products')).headers['x-request-id']);
  const ids: Ids = {
    products: product.id,
    variants: product.variants[0]?.id ?? '',
    customers: customer.id,
    orders: order.id,
    refunds: refund.id,
    discounts: discount.id,
    'shipping-rates': shippingRate.id,
    'tax-rates': taxRate.id,
    webhooks: webhook.id,
    'api-keys': key.id,
    events: events.data[0]?.id ?? '',
    carts: cart.id,
    lines: cart.lines[0]?.id ?? '',
    locations: locations.data[0]?.id ?? '',
    returns: returned.id,
    transfers: transfer.id,
    deliveries: deliveries.data[0]?.id ?? '',
    imports: (imported.body as { id: string }).id,
    'request-logs': requestId,
  };
  return ids;
}

for (const dialect of DIALECTS) {
  describe(`test mode: the isolation walk across modes (${dialect})`, () => {
    let ctx: TestContext;
    let live: Client;
    let test: Client;
    let liveKey: string;
    let testKey: string;
    /** A wallet of another store, in each mode, that each mode pays in its walk. */
    const payees: Record<'live' | 'test', string> = { live: '', test: '' };

    before(async () => {
      ctx = await createTestContext(dialect);
      const created = await createTenant(ctx);
      liveKey = created.apiKey.key;
      live = client(ctx.app, liveKey);
      const made = await live<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'Test', mode: 'test', permissions: created.apiKey.permissions },
      });
      assert.equal(made.status, 201);
      testKey = made.body.key;
      test = client(ctx.app, testKey);
      // Money to send in each mode, and a store to send it to.
      await ctx.deps.wallet.credit(created.tenant.id, { amount: 10_000, currency: 'USD' });
      assert.equal(
        (await test('POST', '/v1/wallet/fund', { body: { amount: 10_000, currency: 'USD' } })).status,
        201,
      );
      const other = await createTenant(ctx, { currency: 'USD' });
      payees.live = (
        await client(ctx.app, other.apiKey.key)<{ wallet_id: string }>('GET', '/v1/wallet/balance')
      ).body.wallet_id;
      const otherTest = await ctx.deps.tenants.pairedStoreOf(other.tenant.id, 'test');
      payees.test = (await ctx.deps.wallet.balances(otherTest.id)).data[0]?.wallet_id ?? '';
      // Money never crosses modes: a live wallet is no such wallet to a test key.
      const crossing = await test<{ code: string }>('POST', '/v1/wallet/transfer', {
        body: { destination_wallet_id: payees.live, amount: 100, currency: 'USD' },
      });
      assert.equal(crossing.body.code, 'invalid_destination');
      // Stock holds on in both, so a hold looks its cart up rather than refusing every cart alike.
      for (const api of [live, test]) {
        const held = await api('PATCH', '/v1/settings', { body: { storefront: { hold_minutes: 15 } } });
        assert.equal(held.status, 200);
      }
    });
    after(() => ctx.close());

    /** Each id route's URL with `ids`, or the collections it names that have no object here. */
    function urlOf(route: string, ids: Ids): { url?: string; missing: string[] } {
      const parts = route.split('/');
      const missing: string[] = [];
      const filled = parts.map((part, i) => {
        if (!part.startsWith(':')) return part;
        const collection = parts[i - 1] ?? '';
        const id = ids[collection];
        if (id === undefined || id === '') missing.push(collection);
        return id ?? part;
      });
      return missing.length > 0 ? { missing } : { url: filled.join('/'), missing };
    }

    for (const [from, to] of [
      ['live', 'test'],
      ['test', 'live'],
    ] as const) {
      it(`answers 404 to every id route called with an id of ${from} mode in ${to} mode`, async () => {
        const owner = from === 'live' ? live : test;
        const caller = to === 'live' ? live : test;
        const ids = await objectsOf(ctx, owner, from === 'live' ? liveKey : testKey, payees[from]);
        const routes = ctx.app.routeTable.entries.filter(
          (r) => r.url.startsWith('/v1') && r.url.includes('/:'),
        );
        assert.ok(routes.length > 30, `${routes.length} id routes`);
        const unwalked = new Set<string>();
        const leaked: string[] = [];
        let walked = 0;
        for (const route of routes) {
          const { url, missing } = urlOf(route.url, ids);
          if (url === undefined) {
            for (const collection of missing)
              if (!(collection in NOT_A_STORES)) unwalked.add(`${route.method} ${route.url}`);
            continue;
          }
          const method = route.method as 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT' | 'HEAD';
          const res = await caller(
            method as 'GET',
            url,
            ['GET', 'HEAD', 'DELETE'].includes(method) ? {} : { body: {} },
          );
          walked += 1;
          // 404, or a refusal of the empty body before anything is looked up (400), never an answer.
          if (res.status !== 404 && res.status !== 400) leaked.push(`${method} ${url}: ${res.status}`);
          // The owner still sees its object where a read names it.
          if ((method === 'GET' || method === 'HEAD') && res.status !== 404)
            leaked.push(`${method} ${url}: ${res.status}`);
        }
        assert.deepEqual(leaked, []);
        assert.deepEqual([...unwalked], [], 'id routes of a collection the walk made nothing of');
        assert.ok(walked > 30, `${walked} routes walked`);
        // Nothing of the other mode changed: the owner's product is as it was.
        assert.equal((await owner('GET', `/v1/products/${ids.products}`)).status, 200);
      });
    }
  });
}
