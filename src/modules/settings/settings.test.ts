import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runAdmin } from '../../cli/admin.js';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { Problem } from '../../../test/helpers/responses.js';
import type { SettingsObject } from './settings.schemas.js';

const DEFAULTS = {
  currency: 'USD',
  unpaid_order_expiry_minutes: 1440,
  storefront: {
    hold_minutes: null,
    abandoned_after_minutes: 60,
    recovery_url_template: null,
    requests_per_minute: 120,
  },
};

for (const dialect of DIALECTS) {
  describe(`store settings (${dialect})`, () => {
    let ctx: TestContext;

    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    /** A new store: its full-permission client and its tenant id. */
    async function store(name = 'Settings Shop'): Promise<{ api: Client; tenantId: string }> {
      const created = await createTenant(ctx, { name });
      return { api: client(ctx.app, created.apiKey.key as string), tenantId: created.tenant.id };
    }

    async function keyWith(api: Client, permissions: string[]): Promise<Client> {
      const res = await api<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'narrow', permissions },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return client(ctx.app, res.body.key);
    }

    it('answers a new store’s settings: its name and currency and every default', async () => {
      const { api } = await store('Northwind');
      const res = await api<SettingsObject>('GET', '/v1/settings');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, { name: 'Northwind', ...DEFAULTS, livemode: true });
      assert.deepEqual(Object.keys(res.body), [
        'name',
        'currency',
        'unpaid_order_expiry_minutes',
        'storefront',
        'livemode',
      ]);
    });

    it('changes only the members given, the storefront’s member by member', async () => {
      const { api, tenantId } = await store();
      // Read once, so the service holds them in memory: a change must not leave them there.
      assert.equal((await ctx.deps.settings.get(tenantId)).storefront.hold_minutes, null);

      const hold = await api<SettingsObject>('PATCH', '/v1/settings', {
        body: { storefront: { hold_minutes: 15 } },
      });
      assert.equal(hold.status, 200, JSON.stringify(hold.body));
      assert.deepEqual(hold.body.storefront, { ...DEFAULTS.storefront, hold_minutes: 15 });
      assert.equal(hold.body.unpaid_order_expiry_minutes, 1440);
      assert.equal((await ctx.deps.settings.get(tenantId)).storefront.hold_minutes, 15);

      const more = await api<SettingsObject>('PATCH', '/v1/settings', {
        body: {
          unpaid_order_expiry_minutes: 0,
          storefront: {
            recovery_url_template: 'https://shop.example.com/cart/{cart_id}?utm_source=recovery',
            abandoned_after_minutes: 10_080,
            requests_per_minute: 10_000,
          },
        },
      });
      assert.equal(more.status, 200, JSON.stringify(more.body));
      const expected = {
        name: 'Settings Shop',
        currency: 'USD',
        unpaid_order_expiry_minutes: 0,
        storefront: {
          hold_minutes: 15,
          abandoned_after_minutes: 10_080,
          recovery_url_template: 'https://shop.example.com/cart/{cart_id}?utm_source=recovery',
          requests_per_minute: 10_000,
        },
      };
      assert.deepEqual(more.body, { ...expected, livemode: true });
      assert.deepEqual((await api<SettingsObject>('GET', '/v1/settings')).body, {
        ...expected,
        livemode: true,
      });
      assert.deepEqual(await ctx.deps.settings.get(tenantId), expected);

      // null turns holds off and clears the template; an empty patch changes nothing.
      const off = await api<SettingsObject>('PATCH', '/v1/settings', {
        body: { storefront: { hold_minutes: null, recovery_url_template: null } },
      });
      assert.equal(off.status, 200);
      assert.equal(off.body.storefront.hold_minutes, null);
      assert.equal(off.body.storefront.recovery_url_template, null);
      assert.equal(off.body.storefront.requests_per_minute, 10_000);
      const same = await api<SettingsObject>('PATCH', '/v1/settings', { body: {} });
      assert.deepEqual(same.body, off.body);
      assert.deepEqual({ ...(await ctx.deps.settings.get(tenantId)), livemode: true }, off.body);
    });

    it('refuses each value out of bounds with a 400 naming its field, and changes nothing', async () => {
      const { api } = await store();
      const cases: [Record<string, unknown>, string][] = [
        [{ name: '' }, 'name'],
        [{ name: 'x'.repeat(201) }, 'name'],
        [{ currency: 'usd' }, 'currency'],
        [{ currency: 'XYZ' }, 'currency'],
        [{ unpaid_order_expiry_minutes: -1 }, 'unpaid_order_expiry_minutes'],
        [{ unpaid_order_expiry_minutes: 43_201 }, 'unpaid_order_expiry_minutes'],
        [{ unpaid_order_expiry_minutes: 1.5 }, 'unpaid_order_expiry_minutes'],
        [{ unpaid_order_expiry_minutes: '60' }, 'unpaid_order_expiry_minutes'],
        [{ storefront: { hold_minutes: 0 } }, 'storefront.hold_minutes'],
        [{ storefront: { hold_minutes: 61 } }, 'storefront.hold_minutes'],
        [{ storefront: { abandoned_after_minutes: 0 } }, 'storefront.abandoned_after_minutes'],
        [{ storefront: { abandoned_after_minutes: 10_081 } }, 'storefront.abandoned_after_minutes'],
        [{ storefront: { abandoned_after_minutes: null } }, 'storefront.abandoned_after_minutes'],
        [{ storefront: { requests_per_minute: 9 } }, 'storefront.requests_per_minute'],
        [{ storefront: { requests_per_minute: 10_001 } }, 'storefront.requests_per_minute'],
        [
          { storefront: { recovery_url_template: 'http://shop.example.com/{cart_id}' } },
          'storefront.recovery_url_template',
        ],
        [
          { storefront: { recovery_url_template: 'https://shop.example.com/cart' } },
          'storefront.recovery_url_template',
        ],
        [
          { storefront: { recovery_url_template: 'https://user:pw@shop.example.com/{cart_id}' } },
          'storefront.recovery_url_template',
        ],
        [{ storefront: { recovery_url_template: 'https://{cart_id}' } }, 'storefront.recovery_url_template'],
        [
          { storefront: { recovery_url_template: 'https://[::1/{cart_id}' } },
          'storefront.recovery_url_template',
        ],
        [{ storefront: { holds: 5 } }, 'storefront.holds'],
        [{ storefront: null }, 'storefront'],
        [{ plan: 'enterprise' }, 'plan'],
      ];
      for (const [body, field] of cases) {
        const res = await api<Problem>('PATCH', '/v1/settings', { body });
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.status}`);
        assert.equal(res.body.code, 'validation_failed');
        assert.ok(
          res.body.errors?.some((error) => error.field === field),
          `${JSON.stringify(body)}: ${JSON.stringify(res.body.errors)}`,
        );
      }
      const now = await api<SettingsObject>('GET', '/v1/settings');
      assert.deepEqual(now.body, { name: 'Settings Shop', ...DEFAULTS, livemode: true });
    });

    it('shows a new name wherever the store is named: the tenant of every key at once', async () => {
      const { api } = await store('Old Name');
      assert.equal(
        (await api<{ tenant: { name: string } }>('GET', '/v1/users/me')).body.tenant.name,
        'Old Name',
      );
      const res = await api<SettingsObject>('PATCH', '/v1/settings', { body: { name: '  New Name  ' } });
      assert.equal(res.status, 200);
      assert.equal(res.body.name, 'New Name');
      const me = await api<{ tenant: { name: string; currency: string } }>('GET', '/v1/users/me');
      assert.equal(me.body.tenant.name, 'New Name');
    });

    it('changes the currency only while the store has no orders (409 after), opening its wallet', async () => {
      const { api, tenantId } = await store();
      const euro = await api<SettingsObject>('PATCH', '/v1/settings', { body: { currency: 'EUR' } });
      assert.equal(euro.status, 200, JSON.stringify(euro.body));
      assert.equal(euro.body.currency, 'EUR');
      const me = await api<{ tenant: { currency: string } }>('GET', '/v1/users/me');
      assert.equal(me.body.tenant.currency, 'EUR');
      const wallet = await api<{ currency: string }>('GET', '/v1/wallet/balance');
      assert.equal(wallet.status, 200, JSON.stringify(wallet.body));
      assert.equal(wallet.body.currency, 'EUR');

      // Products priced without a currency take the store's; an order makes it final.
      const product = await api<{ id: string; currency: string; variants: { id: string }[] }>(
        'POST',
        '/v1/products',
        { body: { name: 'Mug', price: 1200, stock: 5 } },
      );
      assert.equal(product.status, 201, JSON.stringify(product.body));
      assert.equal(product.body.currency, 'EUR');
      const order = await api('POST', '/v1/orders', {
        body: { items: [{ product_id: product.body.id, quantity: 1 }], customer: { email: 'a@example.com' } },
      });
      assert.equal(order.status, 201, JSON.stringify(order.body));

      const refused = await api<Problem>('PATCH', '/v1/settings', {
        body: { currency: 'GBP', name: 'Renamed' },
      });
      assert.equal(refused.status, 409);
      assert.equal(refused.body.code, 'invalid_state_transition');
      assert.match(refused.body.detail, /no orders/);
      // Nothing of the refused change was kept; the same currency is no change, and goes through.
      assert.deepEqual((await api<SettingsObject>('GET', '/v1/settings')).body.name, 'Settings Shop');
      const same = await api<SettingsObject>('PATCH', '/v1/settings', {
        body: { currency: 'EUR', name: 'Renamed' },
      });
      assert.equal(same.status, 200);
      assert.equal(same.body.currency, 'EUR');
      assert.equal((await ctx.deps.settings.get(tenantId)).name, 'Renamed');
    });

    it('reads with read:users, changes with write:settings, and never another store’s', async () => {
      const { api } = await store();
      const other = await store('Other Shop');
      const reader = await keyWith(api, ['read:users']);
      const writer = await keyWith(api, ['write:settings']);

      assert.equal((await reader('GET', '/v1/settings')).status, 200);
      const cannotWrite = await reader<Problem & { required_permission: string }>('PATCH', '/v1/settings', {
        body: { name: 'Nope' },
      });
      assert.equal(cannotWrite.status, 403);
      assert.equal(cannotWrite.body.code, 'insufficient_permissions');
      assert.equal(cannotWrite.body.required_permission, 'write:settings');

      const cannotRead = await writer<Problem & { required_permission: string }>('GET', '/v1/settings');
      assert.equal(cannotRead.status, 403);
      assert.equal(cannotRead.body.required_permission, 'read:users');
      const written = await writer<SettingsObject>('PATCH', '/v1/settings', { body: { name: 'By writer' } });
      assert.equal(written.status, 200);
      assert.equal(written.body.name, 'By writer');

      assert.equal((await other.api<SettingsObject>('GET', '/v1/settings')).body.name, 'Other Shop');
      assert.equal((await client(ctx.app)('GET', '/v1/settings')).status, 401);
    });

    it('makes a store in the currency `tenant:create --currency` names, and refuses an unknown one', async () => {
      const created = await runAdmin(
        [
          'tenant:create',
          '--name',
          'Euro Shop',
          '--email',
          `euro-${dialect}@example.com`,
          '--currency',
          'eur',
          '--json',
        ],
        ctx.config,
      );
      assert.equal(created.code, 0, created.stderr);
      const out = JSON.parse(created.stdout) as { api_key: { key: string }; wallet: { currency: string } };
      assert.equal(out.wallet.currency, 'EUR');
      const settings = await client(ctx.app, out.api_key.key)<SettingsObject>('GET', '/v1/settings');
      assert.deepEqual(settings.body, { ...DEFAULTS, name: 'Euro Shop', currency: 'EUR', livemode: true });

      const refused = await runAdmin(
        ['tenant:create', '--name', 'Odd', '--email', `odd-${dialect}@example.com`, '--currency', 'XYZ'],
        ctx.config,
      );
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /currency must be an ISO 4217 currency code/);
    });

    it('makes a console sign-up’s store in the currency it chose (USD when none)', async () => {
      let address = 0;
      // Each from its own address: sign-ups are limited per address.
      const signup = async (body: Record<string, unknown>) =>
        ctx.app.inject({
          method: 'POST',
          url: '/console/api/signup',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ store_name: 'Console Shop', password: 'correct horse battery', ...body }),
          remoteAddress: `10.41.0.${(address += 1)}`,
        });
      const chf = await signup({ email: `chf-${dialect}@example.com`, currency: 'CHF' });
      assert.equal(chf.statusCode, 201, chf.body);
      assert.equal(chf.json<{ tenant: { currency: string } }>().tenant.currency, 'CHF');
      const plain = await signup({ email: `usd-${dialect}@example.com` });
      assert.equal(plain.statusCode, 201, plain.body);
      assert.equal(plain.json<{ tenant: { currency: string } }>().tenant.currency, 'USD');
      const bad = await signup({ email: `bad-${dialect}@example.com`, currency: 'ABC' });
      assert.equal(bad.statusCode, 400);
      assert.deepEqual(
        bad.json<Problem>().errors?.map((error) => error.field),
        ['currency'],
      );
    });
  });
}
