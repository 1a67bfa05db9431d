import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  type Client,
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { OrProblem, Page, Problem } from '../../../test/helpers/responses.js';
import { ManualClock } from '../../lib/clock.js';
import { scryptDerivations } from '../../lib/passwords.js';
import type { CustomerObject } from '../customers/customers.schemas.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import type { ProductObject } from '../products/products.schemas.js';
import type { StoreCustomer, StoreOrder, StoreSession } from './shoppers.schemas.js';
import { THROTTLE } from './shoppers.service.js';
import { SESSION_TTL_MS } from './shoppers.sessions.js';

const PASSWORD = 'correct horse battery staple';
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

interface Shop {
  <T = Record<string, unknown>>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    options?: { body?: unknown; token?: string; address?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Record<string, unknown>; body: T }>;
}

/** A storefront caller: the store's key, the shopper's token and address. */
function storefront(ctx: TestContext, key: string): Shop {
  return async (method, url, options = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}`, ...options.headers };
    if (options.token !== undefined) headers['x-customer-token'] = options.token;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const raw = await ctx.app.inject({
      method,
      url,
      headers,
      ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
      remoteAddress: options.address ?? '203.0.113.1',
    });
    const body = raw.body === '' ? undefined : (JSON.parse(raw.body) as unknown);
    return { status: raw.statusCode, headers: raw.headers, body: body as never };
  };
}

let emails = 0;
const newEmail = () => `shopper${++emails}@example.com`;

for (const dialect of DIALECTS) {
  describe(`shopper accounts (${dialect})`, () => {
    let ctx: TestContext;
    let clock: ManualClock;
    let tenantId: string;
    let admin: Client;
    let shop: Shop;
    let otherShop: Shop;

    before(async () => {
      clock = new ManualClock();
      ctx = await createTestContext(dialect, { clock });
      const tenant = await createTenant(ctx);
      tenantId = tenant.tenant.id;
      admin = client(ctx.app, tenant.apiKey.key);
      // A server-rendered shop's key: it may read the catalog, which is what a storefront route needs.
      const key = await admin<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'Shop', permissions: ['read:products'] },
      });
      assert.equal(key.status, 201, JSON.stringify(key.body));
      shop = storefront(ctx, key.body.key);
      otherShop = storefront(ctx, (await createTenant(ctx)).apiKey.key);
    });
    after(() => ctx.close());

    const signUp = async (email = newEmail(), extra: Record<string, unknown> = {}) => {
      const res = await shop<StoreCustomer>('POST', '/v1/store/customers', {
        body: { email, password: PASSWORD, ...extra },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };
    const signIn = async (email: string, password = PASSWORD, address?: string) =>
      shop<OrProblem<StoreSession>>('POST', '/v1/store/sessions', {
        body: { email, password },
        ...(address === undefined ? {} : { address }),
      });
    const session = async (email: string, password = PASSWORD) => {
      const res = await signIn(email, password);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };
    const eventsOf = async (type: string) =>
      (
        await admin<Page<{ type: string; data: Record<string, unknown> }>>(
          'GET',
          `/v1/events?type=${type}&limit=100`,
        )
      ).body.data;
    const resetTokenFor = async (customerId: string) => {
      const [latest] = (await eventsOf('customer.password_reset')).filter(
        (event) => (event.data.object as { id: string }).id === customerId,
      );
      assert.ok(latest, 'a customer.password_reset event');
      return latest.data.reset_token as string;
    };
    const count = async (
      table: 'customer_logins' | 'customer_sessions' | 'customer_password_resets',
      id: string,
    ) => {
      const { n } = await ctx.deps.store.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('customer_id', '=', id)
        .executeTakeFirstOrThrow();
      return Number(n);
    };

    it('signs a shopper up, once per email, showing them none of the store’s own fields', async () => {
      const email = newEmail();
      const ada = await signUp(email.toUpperCase(), { name: 'Ada Lovelace' });
      assert.match(ada.id, /^cus_/);
      assert.deepEqual(Object.keys(ada).sort(), [
        'addresses',
        'created',
        'email',
        'id',
        'livemode',
        'marketing_consent',
        'name',
        'phone',
        'updated',
      ]);
      assert.equal(ada.name, 'Ada Lovelace');
      const stored = await admin<CustomerObject>('GET', `/v1/customers/${ada.id}`);
      assert.equal(stored.body.email, email.toUpperCase());
      assert.ok(
        (await eventsOf('customer.created')).some((e) => (e.data.object as { id: string }).id === ada.id),
      );
      // The password is kept only as a scrypt hash.
      const login = await ctx.deps.store.db
        .selectFrom('customer_logins')
        .selectAll()
        .where('customer_id', '=', ada.id)
        .executeTakeFirstOrThrow();
      assert.match(login.password_hash, /^scrypt\$/);
      assert.ok(!login.password_hash.includes(PASSWORD));

      const twice = await shop<Problem>('POST', '/v1/store/customers', {
        body: { email, password: PASSWORD },
      });
      assert.deepEqual([twice.status, twice.body.code], [409, 'duplicate_email']);
    });

    it('answers a customer without a login as a duplicate, and gives it no password', async () => {
      const email = newEmail();
      const made = await admin<CustomerObject>('POST', '/v1/customers', { body: { email } });
      assert.equal(made.status, 201);
      const claim = await shop<Problem>('POST', '/v1/store/customers', {
        body: { email, password: 'attacker chosen password' },
      });
      assert.deepEqual([claim.status, claim.body.code], [409, 'duplicate_email']);
      assert.equal(await count('customer_logins', made.body.id), 0);
      assert.equal((await signIn(email, 'attacker chosen password')).status, 401);
    });

    it('refuses a short, long or missing password naming the field, and unknown fields', async () => {
      for (const [body, field] of [
        [{ email: newEmail(), password: 'short' }, 'password'],
        [{ email: newEmail(), password: 'x'.repeat(201) }, 'password'],
        [{ email: newEmail() }, 'password'],
        [{ email: 'not-an-email', password: PASSWORD }, 'email'],
        [{ email: newEmail(), password: PASSWORD, tags: ['vip'] }, 'tags'],
      ] as const) {
        const res = await shop<Problem>('POST', '/v1/store/customers', { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.ok(
          res.body.errors?.some((e) => e.field === field),
          `${JSON.stringify(res.body.errors)} names ${field}`,
        );
      }
    });

    it('signs in with a token kept only as its hash, for 30 days', async () => {
      const email = newEmail();
      const ada = await signUp(email);
      const started = await session(email.toUpperCase());
      assert.match(started.token, /^cst_[0-9A-Za-z]{40}$/);
      assert.equal(started.expires_at, new Date(clock.now() + SESSION_TTL_MS).toISOString());
      assert.deepEqual({ ...started.customer, livemode: true }, ada);
      const rows = await ctx.deps.store.db
        .selectFrom('customer_sessions')
        .selectAll()
        .where('customer_id', '=', ada.id)
        .execute();
      assert.deepEqual(
        rows.map((row) => row.token_hash),
        [sha256(started.token)],
      );
      const me = await shop<StoreCustomer>('GET', '/v1/store/customers/me', { token: started.token });
      assert.deepEqual([me.status, me.body], [200, ada]);

      clock.advance(SESSION_TTL_MS - 1);
      assert.equal((await shop('GET', '/v1/store/customers/me', { token: started.token })).status, 200);
      clock.advance(1);
      const expired = await shop<Problem>('GET', '/v1/store/customers/me', { token: started.token });
      assert.deepEqual([expired.status, expired.body.code], [401, 'invalid_customer_token']);
      // The hourly purge deletes it.
      assert.equal(await count('customer_sessions', ada.id), 1);
      assert.ok((await ctx.deps.shopperAccounts.purgeExpired()) >= 1);
      assert.equal(await count('customer_sessions', ada.id), 0);
    });

    it('answers a wrong password and an unknown email alike, with one scrypt each', async () => {
      const email = newEmail();
      await signUp(email);
      const attempt = async (login: string, password: string, address: string) => {
        const before = scryptDerivations();
        const res = await signIn(login, password, address);
        return {
          status: res.status,
          code: res.body.code,
          detail: res.body.detail,
          scrypts: scryptDerivations() - before,
        };
      };
      const wrong = await attempt(email, 'not the password', '198.51.100.10');
      const unknown = await attempt(newEmail(), PASSWORD, '198.51.100.11');
      assert.deepEqual(wrong, {
        status: 401,
        code: 'invalid_credentials',
        detail: 'The email or password is incorrect.',
        scrypts: 1,
      });
      assert.deepEqual(unknown, wrong);
    });

    it('refuses a missing, malformed, ended or another store’s token', async () => {
      const email = newEmail();
      await signUp(email);
      const { token } = await session(email);
      for (const bad of [undefined, 'cst_short', `cst_${'A'.repeat(40)}`]) {
        const res = await shop<Problem>(
          'GET',
          '/v1/store/customers/me',
          bad === undefined ? {} : { token: bad },
        );
        assert.deepEqual([res.status, res.body.code], [401, 'invalid_customer_token'], String(bad));
      }
      const elsewhere = await otherShop<Problem>('GET', '/v1/store/customers/me', { token });
      assert.deepEqual([elsewhere.status, elsewhere.body.code], [401, 'invalid_customer_token']);
      assert.equal(await ctx.deps.shopperSessions.customerForToken('ten_other', token), null);
      assert.equal((await ctx.deps.shopperSessions.customerForToken(tenantId, token))?.email, email);

      assert.equal((await shop('DELETE', '/v1/store/sessions/current', { token })).status, 204);
      const ended = await shop<Problem>('GET', '/v1/store/customers/me', { token });
      assert.deepEqual([ended.status, ended.body.code], [401, 'invalid_customer_token']);
      assert.equal((await shop('DELETE', '/v1/store/sessions/current', { token })).status, 401);
      assert.equal(await ctx.deps.shopperSessions.customerForToken(tenantId, token), null);
    });

    it('lists only the shopper’s own orders, without the store’s fields', async () => {
      const email = newEmail();
      const ada = await signUp(email);
      const { token } = await session(email);
      const product = (
        await admin<ProductObject>('POST', '/v1/products', { body: { name: 'Cup', price: 1000, stock: 100 } })
      ).body;
      const order = async (body: Record<string, unknown>) => {
        const res = await admin<OrderObject>('POST', '/v1/orders', {
          body: { items: [{ product_id: product.id, quantity: 1 }], metadata: { internal: 'yes' }, ...body },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body;
      };
      const first = await order({ customer_id: ada.id });
      clock.advance(1000);
      const second = await order({ customer: { email } });
      await order({ customer: { email: newEmail() } });

      const page = await shop<Page<StoreOrder>>('GET', '/v1/store/customers/me/orders', { token });
      assert.equal(page.status, 200);
      assert.deepEqual(
        page.body.data.map((o) => o.id),
        [second.id, first.id],
      );
      assert.equal(page.body.total, 2);
      const [shown] = page.body.data;
      assert.ok(shown);
      for (const hidden of ['metadata', 'customer', 'restocked', 'refunds', 'refundable_amount', 'updated'])
        assert.ok(!(hidden in shown), hidden);
      assert.deepEqual(
        [shown.total, shown.currency, shown.items[0]?.quantity],
        [second.total, second.currency, 1],
      );

      const one = await shop<Page<StoreOrder>>('GET', '/v1/store/customers/me/orders?limit=1', { token });
      assert.ok(one.body.next_cursor);
      const next = await shop<Page<StoreOrder>>(
        'GET',
        `/v1/store/customers/me/orders?limit=1&cursor=${encodeURIComponent(one.body.next_cursor ?? '')}`,
        { token },
      );
      assert.deepEqual(
        next.body.data.map((o) => o.id),
        [first.id],
      );
      const anonymous = await shop<Problem>('GET', '/v1/store/customers/me/orders');
      assert.deepEqual([anonymous.status, anonymous.body.code], [401, 'invalid_customer_token']);
    });

    it('changes the shopper’s profile, and the password only with the current one', async () => {
      const email = newEmail();
      const ada = await signUp(email);
      const { token } = await session(email);
      const other = await session(email);
      const changed = await shop<StoreCustomer>('PATCH', '/v1/store/customers/me', {
        token,
        body: {
          name: 'Ada King',
          phone: '+442079460000',
          addresses: [{ line1: '12 St James Square', city: 'London', country: 'GB' }],
          marketing_consent: true,
        },
      });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.deepEqual(
        [
          changed.body.name,
          changed.body.phone,
          changed.body.addresses[0]?.city,
          changed.body.marketing_consent,
        ],
        ['Ada King', '+442079460000', 'London', true],
      );
      assert.ok(
        (await eventsOf('customer.updated')).some((e) => (e.data.object as { id: string }).id === ada.id),
      );
      for (const [body, field] of [
        [{ email: 'new@example.com' }, 'email'],
        [{ tags: ['vip'] }, 'tags'],
        [{ password: 'a brand new password' }, 'current_password'],
        [{ current_password: PASSWORD }, 'current_password'],
      ] as const) {
        const res = await shop<Problem>('PATCH', '/v1/store/customers/me', { token, body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.ok(
          res.body.errors?.some((e) => e.field === field),
          JSON.stringify(res.body),
        );
      }
      const wrong = await shop<Problem>('PATCH', '/v1/store/customers/me', {
        token,
        body: { password: 'a brand new password', current_password: 'not it' },
      });
      assert.deepEqual(
        [wrong.status, wrong.body.code, wrong.body.errors?.[0]?.field],
        [401, 'invalid_credentials', 'current_password'],
      );
      const right = await shop<StoreCustomer>('PATCH', '/v1/store/customers/me', {
        token,
        body: { password: 'a brand new password', current_password: PASSWORD },
      });
      assert.equal(right.status, 200);
      // This session goes on; the shopper's other sessions end.
      assert.equal((await shop('GET', '/v1/store/customers/me', { token })).status, 200);
      assert.equal((await shop('GET', '/v1/store/customers/me', { token: other.token })).status, 401);
      assert.equal((await signIn(email)).status, 401);
      assert.equal((await signIn(email, 'a brand new password')).status, 201);
    });

    it('resets a password by a single-use token the store’s webhook mails, signing the shopper in', async () => {
      const email = newEmail();
      const ada = await signUp(email);
      const old = await session(email);
      const before = (await eventsOf('customer.password_reset')).length;
      const unknown = await shop('POST', '/v1/store/customers/password-reset', {
        body: { email: newEmail() },
      });
      assert.equal(unknown.status, 202);
      assert.equal((await eventsOf('customer.password_reset')).length, before);

      const asked = await shop('POST', '/v1/store/customers/password-reset', {
        body: { email: email.toUpperCase() },
      });
      assert.equal(asked.status, 202);
      const [event] = await eventsOf('customer.password_reset');
      assert.ok(event);
      assert.equal((event.data.object as { id: string }).id, ada.id);
      const resetToken = event.data.reset_token as string;
      assert.match(resetToken, /^rst_[0-9A-Za-z]{40}$/);
      assert.equal(event.data.expires_at, new Date(clock.now() + 3_600_000).toISOString());
      // Only its hash is kept.
      const stored = await ctx.deps.store.db
        .selectFrom('customer_password_resets')
        .select('token_hash')
        .where('customer_id', '=', ada.id)
        .execute();
      assert.deepEqual(
        stored.map((row) => row.token_hash),
        [sha256(resetToken)],
      );

      const confirmed = await shop<StoreSession>('POST', '/v1/store/customers/password-reset/confirm', {
        body: { reset_token: resetToken, password: 'my new password' },
      });
      assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
      assert.equal(confirmed.body.customer.id, ada.id);
      assert.equal(
        (await shop('GET', '/v1/store/customers/me', { token: confirmed.body.token })).status,
        200,
      );
      assert.equal((await shop('GET', '/v1/store/customers/me', { token: old.token })).status, 401);
      assert.equal((await signIn(email)).status, 401);
      assert.equal((await signIn(email, 'my new password')).status, 201);

      const again = await shop<Problem>('POST', '/v1/store/customers/password-reset/confirm', {
        body: { reset_token: resetToken, password: 'yet another password' },
      });
      assert.deepEqual(
        [again.status, again.body.code, again.body.errors?.[0]?.field],
        [422, 'invalid_reset_token', 'reset_token'],
      );
    });

    it('lets a reset token expire after an hour', async () => {
      const email = newEmail();
      const ada = await signUp(email);
      await shop('POST', '/v1/store/customers/password-reset', { body: { email } });
      const resetToken = await resetTokenFor(ada.id);
      clock.advance(3_600_000);
      const late = await shop<Problem>('POST', '/v1/store/customers/password-reset/confirm', {
        body: { reset_token: resetToken, password: 'my new password' },
      });
      assert.deepEqual([late.status, late.body.code], [422, 'invalid_reset_token']);
      assert.equal((await signIn(email)).status, 201);
    });

    it('gives a customer without a login one through a reset', async () => {
      const email = newEmail();
      const made = (await admin<CustomerObject>('POST', '/v1/customers', { body: { email } })).body;
      await shop('POST', '/v1/store/customers/password-reset', { body: { email } });
      const resetToken = await resetTokenFor(made.id);
      const confirmed = await shop<StoreSession>('POST', '/v1/store/customers/password-reset/confirm', {
        body: { reset_token: resetToken, password: 'chosen by the owner' },
      });
      assert.equal(confirmed.status, 200);
      assert.equal(await count('customer_logins', made.id), 1);
      assert.equal((await signIn(email, 'chosen by the owner')).status, 201);
    });

    it('uses a reset token once however many confirmations race', async () => {
      const email = newEmail();
      const ada = await signUp(email);
      await shop('POST', '/v1/store/customers/password-reset', { body: { email } });
      const resetToken = await resetTokenFor(ada.id);
      const results = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          shop('POST', '/v1/store/customers/password-reset/confirm', {
            body: { reset_token: resetToken, password: `racing password ${i}` },
          }),
        ),
      );
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 422, 422, 422]);
      assert.equal(await count('customer_sessions', ada.id), 1);
    });

    it('throttles failed sign-ins per email, and a reset lets the owner back in', async () => {
      const email = newEmail();
      const ada = await signUp(email);
      const { limit, blockMs } = THROTTLE.signInPerEmail;
      // Guesses from many addresses, none of them over its own limit.
      for (let i = 0; i < limit; i++) {
        assert.equal((await signIn(email, `guess ${i}`, `192.0.2.${i + 1}`)).status, 401);
      }
      const blocked = await signIn(email, PASSWORD, '192.0.2.200');
      assert.deepEqual([blocked.status, blocked.body.code], [429, 'rate_limited']);
      assert.ok(Number(blocked.headers['retry-after']) > 0);
      await shop('POST', '/v1/store/customers/password-reset', { body: { email }, address: '192.0.2.201' });
      const confirmed = await shop<StoreSession>('POST', '/v1/store/customers/password-reset/confirm', {
        body: { reset_token: await resetTokenFor(ada.id), password: 'a fresh password' },
      });
      assert.equal(confirmed.status, 200);
      assert.equal((await signIn(email, 'a fresh password', '192.0.2.202')).status, 201);
      clock.advance(blockMs);
    });

    it('throttles failed sign-ins per buyer IP, whatever the email', async () => {
      const email = newEmail();
      await signUp(email);
      const address = '198.51.100.77';
      const { limit, blockMs } = THROTTLE.signInPerAddress;
      const guesses = await Promise.all(
        Array.from({ length: limit }, () => signIn(newEmail(), 'guess', address)),
      );
      assert.deepEqual(
        guesses.map((res) => res.status),
        Array.from({ length: limit }, () => 401),
      );
      const blocked = await signIn(email, PASSWORD, address);
      assert.deepEqual([blocked.status, blocked.body.code], [429, 'rate_limited']);
      assert.equal((await signIn(email, PASSWORD, '198.51.100.78')).status, 201);
      // A server-rendered shop (a secret key) names each shopper's address: that is what is counted.
      const named = await shop('POST', '/v1/store/sessions', {
        body: { email, password: PASSWORD },
        address,
        headers: { 'x-buyer-ip': '198.51.100.79' },
      });
      assert.equal(named.status, 201);
      clock.advance(blockMs);
      assert.equal((await signIn(email, PASSWORD, address)).status, 201);
    });

    it('erases the login, sessions and resets with the customer, and exports only that a login exists', async () => {
      const email = newEmail();
      const ada = await signUp(email);
      const { token } = await session(email);
      await shop('POST', '/v1/store/customers/password-reset', { body: { email } });
      const resetToken = await resetTokenFor(ada.id);

      const exported = await admin<{ login: Record<string, unknown> | null }>(
        'GET',
        `/v1/customers/${ada.id}/export`,
      );
      assert.equal(exported.status, 200);
      const now = new Date(clock.now()).toISOString();
      assert.deepEqual(exported.body.login, { created: now, password_set: now, active_sessions: 1 });
      assert.ok(!JSON.stringify(exported.body).includes('scrypt'));
      const older = await admin<Record<string, unknown>>('GET', `/v1/customers/${ada.id}/export`, {
        headers: { 'x-service-version': '2026-12-15' },
      });
      assert.ok(!('login' in older.body));
      assert.ok('customer' in older.body);

      assert.equal((await admin('POST', `/v1/customers/${ada.id}/redact`)).status, 200);
      for (const table of ['customer_logins', 'customer_sessions', 'customer_password_resets'] as const)
        assert.equal(await count(table, ada.id), 0, table);
      assert.equal((await shop('GET', '/v1/store/customers/me', { token })).status, 401);
      const confirm = await shop('POST', '/v1/store/customers/password-reset/confirm', {
        body: { reset_token: resetToken, password: 'after the erasure' },
      });
      assert.equal(confirm.status, 422);
      const redacted = (await admin<CustomerObject>('GET', `/v1/customers/${ada.id}`)).body;
      const before = (await eventsOf('customer.password_reset')).length;
      await shop('POST', '/v1/store/customers/password-reset', { body: { email: redacted.email } });
      assert.equal((await eventsOf('customer.password_reset')).length, before);
      const withoutLogin = await admin<{ login: unknown }>('GET', `/v1/customers/${ada.id}/export`);
      assert.equal(withoutLogin.body.login, null);
    });

    it('serves a browser holding the store’s publishable key', async () => {
      const origin = 'https://shop.example.com';
      const made = await admin<{ key: string }>('POST', '/v1/api-keys', {
        body: { type: 'publishable', name: 'Web shop', allowed_origins: [origin] },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const browser = storefront(ctx, made.body.key);
      const email = newEmail();
      const signedUp = await browser('POST', '/v1/store/customers', {
        body: { email, password: PASSWORD },
        headers: { origin },
      });
      assert.equal(signedUp.status, 201, JSON.stringify(signedUp.body));
      const started = await browser<StoreSession>('POST', '/v1/store/sessions', {
        body: { email, password: PASSWORD },
        headers: { origin },
      });
      assert.equal(started.status, 201);
      const me = await browser<StoreCustomer>('GET', '/v1/store/customers/me', {
        token: started.body.token,
        headers: { origin },
      });
      assert.deepEqual(
        [me.status, me.body.email, me.headers['access-control-allow-origin']],
        [200, email, origin],
      );
      // A session token opens nothing outside the storefront.
      const admin401 = await browser('GET', `/v1/customers/${me.body.id}`, { token: started.body.token });
      assert.equal(admin401.status, 403);
    });

    it('deletes the login with a customer without orders', async () => {
      const email = newEmail();
      const ada = await signUp(email);
      await session(email);
      assert.equal((await admin('DELETE', `/v1/customers/${ada.id}`)).status, 204);
      assert.equal(await count('customer_logins', ada.id), 0);
      assert.equal(await count('customer_sessions', ada.id), 0);
      assert.equal((await signIn(email)).status, 401);
    });
  });
}
