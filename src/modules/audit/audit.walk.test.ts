import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import {
  type ApiResponse,
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { ActorType } from './audit.context.js';

/**
 * The route walk of the audit log: every write route of `/v1` (POST, PATCH, PUT, DELETE that take
 * a key) either makes a change the walk performs and finds audited (an entry whose `request_id`
 * is the request's), or is named in `NOT_AUDITED` with the reason. A new write route that is in
 * neither fails the walk, as does a step whose change wrote no entry.
 */

/**
 * `testApi`: a client of the store's test mode (a test key with the live key's permissions);
 * `ctx` stands in for the operator where a route's change needs one first (a plugin's review).
 */
type Step = (
  api: Client,
  state: Record<string, string>,
  testApi: () => Promise<Client>,
  ctx: TestContext,
) => Promise<ApiResponse<Record<string, unknown>>>;

/** A walked route, its change, and who its entry names (`api_key`, the walking key, unless said). */
type Walked = readonly [route: string, step: Step, actor?: ActorType];

/** Write routes that change no audited resource, or whose entries are still to come (see docs). */
export const NOT_AUDITED: Readonly<Record<string, string>> = {
  'POST /v1/orders/preview': 'a read: prices a cart without storing anything',
  'POST /v1/ai/describe': 'a suggestion answered to the caller; nothing stored changes',
  'POST /v1/ai/generate-description': 'a suggestion answered to the caller; nothing stored changes',
  'POST /v1/imports': 'each imported product or customer is audited by its event; the job itself is not',
  'POST /v1/webhooks/:id/deliveries/:delivery_id/retry': 'a delivery attempt, logged in the delivery log',
  // Shoppers' own writes (storefront routes, a publishable key): carts and sessions are not the
  // store's configuration or catalog; the order a cart completes into is audited by its event.
  'POST /v1/store/carts': 'a shopper’s cart',
  'PATCH /v1/store/carts/:id': 'a shopper’s cart',
  'POST /v1/store/carts/:id/lines': 'a shopper’s cart',
  'PATCH /v1/store/carts/:id/lines/:line_id': 'a shopper’s cart',
  'DELETE /v1/store/carts/:id/lines/:line_id': 'a shopper’s cart',
  'POST /v1/store/carts/:id/hold': 'a shopper’s cart',
  'POST /v1/store/carts/:id/complete': 'audited by the order’s events',
  'POST /v1/store/sessions': 'a shopper signing in',
  'DELETE /v1/store/sessions/current': 'a shopper signing out',
  'POST /v1/store/customers': 'audited by customer.created',
  'PATCH /v1/store/customers/me': 'audited by customer.updated',
  'POST /v1/store/customers/password-reset': 'a mail sent; audited by customer.password_reset',
};

const ok = (res: ApiResponse<Record<string, unknown>>, what: string) => {
  assert.ok(res.status >= 200 && res.status < 300, `${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
};

/** The walk's changes, in order, by the route each exercises. */
export const STEPS: readonly Walked[] = [
  [
    'POST /v1/products',
    async (api, s) => {
      const res = await api('POST', '/v1/products', { body: { name: 'Walk', price: 1500, stock: 10 } });
      s.product = String(res.body.id);
      return res;
    },
  ],
  [
    'PATCH /v1/products/:id',
    (api, s) => api('PATCH', `/v1/products/${s.product}`, { body: { price: 1600 } }),
  ],
  [
    'POST /v1/products/:id/variants',
    async (api, s) => {
      const shirt = ok(
        await api('POST', '/v1/products', {
          body: {
            name: 'Shirt',
            options: [{ name: 'Size', values: ['M', 'L'] }],
            variants: [{ options: { Size: 'M' }, price: 1500, stock: 3 }],
          },
        }),
        'shirt',
      );
      s.shirt = String(shirt.body.id);
      const res = await api('POST', `/v1/products/${s.shirt}/variants`, {
        body: { price: 1700, stock: 5, options: { Size: 'L' } },
      });
      s.variant = String(res.body.id);
      return res;
    },
  ],
  [
    'PATCH /v1/products/:id/variants/:variant_id',
    (api, s) => api('PATCH', `/v1/products/${s.shirt}/variants/${s.variant}`, { body: { price: 1800 } }),
  ],
  [
    'DELETE /v1/products/:id/variants/:variant_id',
    (api, s) => api('DELETE', `/v1/products/${s.shirt}/variants/${s.variant}`),
  ],
  [
    'POST /v1/customers',
    async (api, s) => {
      const res = await api('POST', '/v1/customers', { body: { email: 'walk@example.com', name: 'Walker' } });
      s.customer = String(res.body.id);
      return res;
    },
  ],
  [
    'PATCH /v1/customers/:id',
    (api, s) => api('PATCH', `/v1/customers/${s.customer}`, { body: { name: 'W' } }),
  ],
  ['DELETE /v1/customers/:id', (api, s) => api('DELETE', `/v1/customers/${s.customer}`)],
  [
    'POST /v1/discounts',
    async (api, s) => {
      const res = await api('POST', '/v1/discounts', {
        body: { code: 'WALK10', type: 'percentage', value: 1000 },
      });
      s.discount = String(res.body.id);
      return res;
    },
  ],
  [
    'PATCH /v1/discounts/:id',
    (api, s) => api('PATCH', `/v1/discounts/${s.discount}`, { body: { value: 1500 } }),
  ],
  ['DELETE /v1/discounts/:id', (api, s) => api('DELETE', `/v1/discounts/${s.discount}`)],
  [
    'POST /v1/shipping-rates',
    async (api, s) => {
      const res = await api('POST', '/v1/shipping-rates', {
        body: { name: 'Std', price: 500, currency: 'USD', countries: ['US'] },
      });
      s.shipping = String(res.body.id);
      return res;
    },
  ],
  [
    'PATCH /v1/shipping-rates/:id',
    (api, s) => api('PATCH', `/v1/shipping-rates/${s.shipping}`, { body: { price: 600 } }),
  ],
  ['DELETE /v1/shipping-rates/:id', (api, s) => api('DELETE', `/v1/shipping-rates/${s.shipping}`)],
  [
    'POST /v1/tax-rates',
    async (api, s) => {
      const res = await api('POST', '/v1/tax-rates', {
        body: { name: 'VAT', country: 'PT', rate_bps: 2300, inclusive: true, shipping_taxable: false },
      });
      s.tax = String(res.body.id);
      return res;
    },
  ],
  [
    'PATCH /v1/tax-rates/:id',
    (api, s) => api('PATCH', `/v1/tax-rates/${s.tax}`, { body: { rate_bps: 2200 } }),
  ],
  ['DELETE /v1/tax-rates/:id', (api, s) => api('DELETE', `/v1/tax-rates/${s.tax}`)],
  [
    'POST /v1/api-keys',
    async (api, s) => {
      const res = await api('POST', '/v1/api-keys', {
        body: { name: 'walk', permissions: ['read:products'] },
      });
      s.key = String(res.body.id);
      return res;
    },
  ],
  [
    'POST /v1/api-keys/:id/roll',
    async (api, s) => {
      const res = await api('POST', `/v1/api-keys/${s.key}/roll`, { body: {} });
      s.key = String(res.body.id);
      return res;
    },
  ],
  ['DELETE /v1/api-keys/:id', (api, s) => api('DELETE', `/v1/api-keys/${s.key}`)],
  [
    'POST /v1/webhooks',
    async (api, s) => {
      const res = await api('POST', '/v1/webhooks', {
        body: { url: 'https://example.com/hook', events: ['*'] },
      });
      s.webhook = String(res.body.id);
      return res;
    },
  ],
  [
    'PATCH /v1/webhooks/:id',
    (api, s) => api('PATCH', `/v1/webhooks/${s.webhook}`, { body: { description: 'walk' } }),
  ],
  [
    'POST /v1/webhooks/:id/rotate-secret',
    (api, s) => api('POST', `/v1/webhooks/${s.webhook}/rotate-secret`, { body: {} }),
  ],
  ['POST /v1/webhooks/:id/test', (api, s) => api('POST', `/v1/webhooks/${s.webhook}/test`, { body: {} })],
  ['DELETE /v1/webhooks/:id', (api, s) => api('DELETE', `/v1/webhooks/${s.webhook}`)],
  [
    'PATCH /v1/settings',
    (api) => api('PATCH', '/v1/settings', { body: { unpaid_order_expiry_minutes: 60 } }),
  ],
  [
    'POST /v1/orders',
    async (api, s) => {
      const res = await api('POST', '/v1/orders', {
        body: { items: [{ product_id: s.product, quantity: 1 }], customer: { email: 'buyer@example.com' } },
      });
      s.order = String(res.body.id);
      return res;
    },
  ],
  [
    'POST /v1/orders/:id/pay',
    (api, s) => api('POST', `/v1/orders/${s.order}/pay`, { body: { payment_method: 'pm_card_visa' } }),
  ],
  [
    'POST /v1/orders/:id/refunds',
    (api, s) => api('POST', `/v1/orders/${s.order}/refunds`, { body: { amount: 100 } }),
  ],
  [
    'POST /v1/orders/:id/ship',
    (api, s) =>
      api('POST', `/v1/orders/${s.order}/ship`, { body: { carrier: 'UPS', tracking_number: '1Z999' } }),
  ],
  ['POST /v1/orders/:id/deliver', (api, s) => api('POST', `/v1/orders/${s.order}/deliver`, { body: {} })],
  [
    'POST /v1/orders/:id/cancel',
    async (api, s) => {
      const made = ok(
        await api('POST', '/v1/orders', {
          body: { items: [{ product_id: s.product, quantity: 1 }], customer: { email: 'buyer@example.com' } },
        }),
        'second order',
      );
      return api('POST', `/v1/orders/${String(made.body.id)}/cancel`, { body: {} });
    },
  ],
  [
    'POST /v1/orders/:id/refund',
    async (api, s) => {
      const made = ok(
        await api('POST', '/v1/orders', {
          body: {
            items: [{ product_id: s.product, quantity: 1 }],
            customer: { email: 'buyer@example.com' },
            payment_method: 'pm_card_visa',
          },
        }),
        'paid order',
      );
      return api('POST', `/v1/orders/${String(made.body.id)}/refund`, { body: {} });
    },
  ],
  [
    'POST /v1/customers/:id/redact',
    async (api) => {
      const made = ok(
        await api('POST', '/v1/customers', { body: { email: 'forget-me@example.com' } }),
        'customer to redact',
      );
      return api('POST', `/v1/customers/${String(made.body.id)}/redact`, { body: {} });
    },
  ],
  [
    'POST /v1/locations',
    async (api, s) => {
      const res = await api('POST', '/v1/locations', { body: { name: 'Walk warehouse' } });
      s.location = String(res.body.id);
      return res;
    },
  ],
  [
    'POST /v1/inventory/adjustments',
    async (api, s) => {
      const product = ok(await api('GET', `/v1/products/${s.product}`), 'product');
      const variants = product.body.variants as { id: string }[];
      return api('POST', '/v1/inventory/adjustments', {
        body: { variant_id: variants[0]?.id, location_id: s.location, delta: 3 },
      });
    },
  ],
  [
    'PATCH /v1/locations/:id',
    (api, s) => api('PATCH', `/v1/locations/${s.location}`, { body: { name: 'Walk store' } }),
  ],
  [
    'DELETE /v1/locations/:id',
    async (api) => {
      const made = ok(await api('POST', '/v1/locations', { body: { name: 'Empty' } }), 'empty location');
      return api('DELETE', `/v1/locations/${String(made.body.id)}`);
    },
  ],
  [
    'POST /v1/orders/:id/fulfillments',
    async (api, s) => {
      const product = ok(await api('GET', `/v1/products/${s.product}`), 'product');
      s.productVariant = String((product.body.variants as { id: string }[])[0]?.id);
      const made = ok(
        await api('POST', '/v1/orders', {
          body: {
            items: [{ product_id: s.product, quantity: 2 }],
            customer: { email: 'buyer@example.com' },
            payment_method: 'pm_card_visa',
          },
        }),
        'order to fulfil',
      );
      s.shipped = String(made.body.id);
      return api('POST', `/v1/orders/${s.shipped}/fulfillments`, { body: {} });
    },
  ],
  [
    'POST /v1/orders/:id/returns',
    async (api, s) => {
      const res = await api('POST', `/v1/orders/${s.shipped}/returns`, {
        body: { items: [{ variant_id: s.productVariant, quantity: 1 }] },
      });
      s.return = String(res.body.id);
      return res;
    },
  ],
  ['POST /v1/returns/:id/receive', (api, s) => api('POST', `/v1/returns/${s.return}/receive`, { body: {} })],
  [
    'POST /v1/returns/:id/cancel',
    async (api, s) => {
      const made = ok(
        await api('POST', `/v1/orders/${s.shipped}/returns`, {
          body: { items: [{ variant_id: s.productVariant, quantity: 1 }] },
        }),
        'second return',
      );
      return api('POST', `/v1/returns/${String(made.body.id)}/cancel`, { body: {} });
    },
  ],
  ['POST /v1/versions/upgrade', (api) => api('POST', '/v1/versions/upgrade', { body: {} })],
  [
    'POST /v1/wallet/transfer',
    async (api, _s, _testApi, ctx) => {
      const other = client(ctx.app, (await createTenant(ctx)).apiKey.key);
      const theirs = ok(await other('GET', '/v1/wallet/balance'), 'their wallet');
      const mine = ok(await api('GET', '/v1/wallet/balance'), 'my wallet');
      return api('POST', '/v1/wallet/transfer', {
        body: { amount: 100, currency: mine.body.currency, destination_wallet_id: theirs.body.wallet_id },
      });
    },
  ],
  [
    'POST /v1/wallet/fund',
    async (_api, _s, testApi) =>
      (await testApi())('POST', '/v1/wallet/fund', { body: { amount: 5000, currency: 'USD' } }),
  ],
  [
    'POST /v1/store/customers/password-reset/confirm',
    async (api) => {
      const email = 'reset-walk@example.com';
      ok(
        await api('POST', '/v1/store/customers', { body: { email, password: 'first password' } }),
        'shopper',
      );
      ok(await api('POST', '/v1/store/customers/password-reset', { body: { email } }), 'reset asked');
      const asked = ok(await api('GET', '/v1/events?type=customer.password_reset&limit=1'), 'reset event');
      const [event] = asked.body.data as { data: { reset_token: string } }[];
      return api('POST', '/v1/store/customers/password-reset/confirm', {
        body: { reset_token: event?.data.reset_token, password: 'a new password' },
      });
    },
    'customer',
  ],
  [
    'POST /v1/plugins',
    async (api, s) => {
      const res = await api('POST', '/v1/plugins', {
        body: {
          name: 'Walk app',
          slug: 'walk-app',
          description: 'Walks the routes.',
          category: 'inventory',
          permissions: ['read:products'],
          events: ['product.created'],
          webhook_url: 'https://example.com/hooks/walk',
        },
      });
      s.plugin = String(res.body.id);
      return res;
    },
  ],
  [
    'PATCH /v1/plugins/:id',
    (api, s) => api('PATCH', `/v1/plugins/${s.plugin}`, { body: { description: 'Walks every route.' } }),
  ],
  ['POST /v1/plugins/:id/submit', (api, s) => api('POST', `/v1/plugins/${s.plugin}/submit`, { body: {} })],
  [
    'POST /v1/plugins/:id/install',
    async (api, s, _testApi, ctx) => {
      await ctx.deps.plugins.review(String(s.plugin), { approve: true });
      return api('POST', `/v1/plugins/${s.plugin}/install`, { body: {} });
    },
  ],
  [
    'POST /v1/plugins/:id/ratings',
    (api, s) => api('POST', `/v1/plugins/${s.plugin}/ratings`, { body: { stars: 4 } }),
  ],
  [
    'POST /v1/plugins/:id/install/accept',
    async (api, s, _testApi, ctx) => {
      // A revision that asks for more, approved by the operator: the installation waits for the store.
      ok(
        await api('PATCH', `/v1/plugins/${s.plugin}`, {
          body: { permissions: ['read:products', 'write:products'] },
        }),
        'revision',
      );
      await ctx.deps.plugins.review(String(s.plugin), { approve: true });
      return api('POST', `/v1/plugins/${s.plugin}/install/accept`, { body: {} });
    },
  ],
  ['DELETE /v1/plugins/:id/install', (api, s) => api('DELETE', `/v1/plugins/${s.plugin}/install`)],
  [
    'POST /v1/test-mode/copy',
    async (_api, _s, testApi) =>
      (await testApi())('POST', '/v1/test-mode/copy', {
        body: { what: ['products', 'pricing', 'settings'] },
      }),
  ],
  ['POST /v1/test-mode/reset', async (_api, _s, testApi) => (await testApi())('POST', '/v1/test-mode/reset')],
  ['DELETE /v1/products/:id', (api, s) => api('DELETE', `/v1/products/${s.product}`)],
];

/** The write routes of `/v1` that take a key, as `METHOD /path`. */
function writeRoutes(app: FastifyInstance): string[] {
  return [
    ...new Set(
      app.routeTable.entries
        .filter(
          (r) =>
            r.url.startsWith('/v1') &&
            ['POST', 'PATCH', 'PUT', 'DELETE'].includes(r.method) &&
            r.auth !== undefined &&
            r.auth !== 'public',
        )
        .map((r) => `${r.method} ${r.url}`),
    ),
  ];
}

/** What the walk finds wrong: routes it does not know, and steps whose change wrote no entry. */
async function walk(ctx: TestContext, steps: readonly Walked[]): Promise<string[]> {
  const failures: string[] = [];
  const known = new Set([...steps.map(([route]) => route), ...Object.keys(NOT_AUDITED)]);
  for (const route of writeRoutes(ctx.app)) {
    if (!known.has(route)) failures.push(`${route}: neither walked nor named in NOT_AUDITED`);
  }
  const tenant = await createTenant(ctx);
  const api = client(ctx.app, tenant.apiKey.key as string);
  const state: Record<string, string> = {};
  let testClient: Client | undefined;
  const testApi = async (): Promise<Client> => {
    if (testClient) return testClient;
    const made = ok(
      await api('POST', '/v1/api-keys', {
        body: { name: 'Walk (test mode)', mode: 'test', permissions: tenant.apiKey.permissions },
      }),
      'test key',
    );
    testClient = client(ctx.app, String(made.body.key));
    return testClient;
  };
  for (const [route, step, actor = 'api_key'] of steps) {
    const res = ok(await step(api, state, testApi, ctx), route);
    const requestId = String(res.headers['x-request-id']);
    // The store's entries, its test mode's included (a test key's changes are test mode's).
    const { rows } = await sql<{ actor_type: string }>`SELECT actor_type FROM audit_entries
      WHERE request_id = ${requestId} AND tenant_id IN (SELECT id FROM tenants
        WHERE id = ${tenant.tenant.id} OR live_tenant_id = ${tenant.tenant.id})`.execute(ctx.deps.store.db);
    if (rows.length === 0) failures.push(`${route}: answered ${res.status} and wrote no audit entry`);
    else if (!rows.some((row) => row.actor_type === actor))
      failures.push(
        `${route}: its entries name ${rows.map((row) => row.actor_type).join(', ')}, not ${actor}`,
      );
  }
  return failures;
}

for (const dialect of DIALECTS) {
  describe(`audit route walk (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    it('finds an audit entry for every change of every write route it walks, and knows every write route', async () => {
      assert.deepEqual(await walk(ctx, STEPS), []);
    });
  });
}

describe('audit route walk, against a route that writes no entry', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext('sqlite', {
      extraRoutes: (app) => {
        app.post(
          '/v1/unaudited',
          { config: { auth: 'write:products' }, schema: { hide: true } },
          async () => ({
            ok: true,
          }),
        );
        app.post(
          '/v1/unknown-write',
          { config: { auth: 'write:products' }, schema: { hide: true } },
          async () => ({
            ok: true,
          }),
        );
      },
    });
  });
  after(() => ctx.close());

  it('fails for a change without an entry and for a write route it does not know', async () => {
    const failures = await walk(ctx, [
      ...STEPS.slice(0, 1),
      ['POST /v1/unaudited', (api) => api('POST', '/v1/unaudited', { body: {} })],
    ]);
    assert.ok(
      failures.includes('POST /v1/unaudited: answered 200 and wrote no audit entry'),
      failures.join('\n'),
    );
    assert.ok(
      failures.includes('POST /v1/unknown-write: neither walked nor named in NOT_AUDITED'),
      failures.join('\n'),
    );
  });

  it('fails for a change whose entry names another kind of actor', async () => {
    const [route, step] = STEPS[0] ?? [];
    assert.ok(route !== undefined && step !== undefined);
    const failures = await walk(ctx, [[route, step, 'customer']]);
    assert.ok(failures.includes(`${route}: its entries name api_key, not customer`), failures.join('\n'));
  });
});
