import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import type { Page, Problem } from '../../../test/helpers/responses.js';
import { eventually, type Receiver, startReceiver } from '../../../test/helpers/webhook-receiver.js';
import { runAdmin } from '../../cli/admin.js';
import { ManualClock } from '../../lib/clock.js';
import { signature } from '../webhooks/webhooks.transport.js';
import type { PluginObject, RatingObject } from './plugins.schemas.js';

type PluginPage = Page<PluginObject>;

interface Delivered {
  id: string;
  type: string;
  installation_id?: string;
  tenant_id?: string;
  data: { object: Record<string, unknown> };
}

const FIRST_PARTY = ['ai-autowriter', 'sold-out-hider'];

for (const dialect of DIALECTS) {
  describe(`plugins are apps (${dialect})`, () => {
    let ctx: TestContext;
    let rx: Receiver;
    const clock = new ManualClock();
    /** The publisher, and two stores that install. */
    let publisherKey: string;
    let storeKey: string;
    let storeTenant: string;
    let otherKey: string;
    let otherTenant: string;

    const api = (key: string) => client(ctx.app, key);
    const manifest = (slug: string, extra: Record<string, unknown> = {}) => ({
      name: `App ${slug}`,
      slug,
      description: 'Keeps an eye on products.',
      category: 'inventory',
      permissions: ['read:products', 'write:products'],
      events: ['product.created', 'product.updated'],
      webhook_url: `${rx.url}/hooks/${slug}`,
      ...extra,
    });
    const publish = async (slug: string, extra: Record<string, unknown> = {}) => {
      const res = await api(publisherKey)<PluginObject>('POST', '/v1/plugins', {
        body: manifest(slug, extra),
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };
    const published = async (slug: string, extra: Record<string, unknown> = {}) => {
      const plugin = await publish(slug, extra);
      assert.equal((await api(publisherKey)('POST', `/v1/plugins/${plugin.id}/submit`)).status, 200);
      await ctx.deps.plugins.review(plugin.id, { approve: true });
      return plugin;
    };
    const pluginCount = async () =>
      Number(
        (
          await ctx.deps.store.db
            .selectFrom('plugins')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    /** The deliveries the receiver got for `path`, parsed. */
    const deliveredTo = (path: string): Delivered[] =>
      rx.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body) as Delivered);
    const waitFor = (path: string, type: string, what = type) =>
      eventually(() => deliveredTo(path).find((event) => event.type === type), 15_000, what);

    before(async () => {
      rx = await startReceiver();
      ctx = await createTestContext(dialect, { clock, webhooks: { worker: { pollMs: 20 } } });
      const publisher = await createTenant(ctx, { name: 'Plugin Works' });
      publisherKey = publisher.apiKey.key;
      const store = await createTenant(ctx, { name: 'Corner Shop' });
      storeKey = store.apiKey.key;
      storeTenant = store.tenant.id;
      const other = await createTenant(ctx, { name: 'Other Shop' });
      otherKey = other.apiKey.key;
      otherTenant = other.tenant.id;
      ctx.deps.webhookWorker.start({ pollMs: 20 });
    });
    after(async () => {
      await ctx.close();
      await rx.close();
    });

    it('ships exactly the two first-party plugins, published and real', async () => {
      const res = await api(storeKey)<PluginPage>('GET', '/v1/plugins?limit=100');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data.map((p) => p.slug).sort(), FIRST_PARTY);
      for (const plugin of res.body.data) {
        assert.equal(plugin.status, 'published');
        assert.equal(plugin.first_party, true);
        assert.equal(plugin.owned, false);
        assert.equal(plugin.my_rating, null);
        assert.equal(plugin.author, 'Commerce Platform');
        assert.equal(plugin.webhook_url, undefined, 'only a publisher sees its URL');
        assert.ok(plugin.permissions.length > 0 && plugin.events.length > 0);
      }
    });

    it('publishes a draft that only its publisher sees, with its secret shown once', async () => {
      const draft = await publish('stock-sync', { homepage_url: 'https://apps.example.com/stock-sync' });
      assert.match(draft.id, /^plg_/);
      assert.equal(draft.status, 'draft');
      assert.equal(draft.owned, true);
      assert.equal(draft.author, 'Plugin Works');
      assert.match(draft.secret ?? '', /^whsec_[A-Za-z0-9+/]+=*$/);
      assert.equal(draft.webhook_url, `${rx.url}/hooks/stock-sync`);
      const again = await api(publisherKey)<PluginObject>('GET', `/v1/plugins/${draft.id}`);
      assert.equal(again.status, 200);
      assert.equal(again.body.secret, undefined);
      // Another store does not see it, by id or slug, nor in the list.
      assert.equal((await api(storeKey)('GET', `/v1/plugins/${draft.id}`)).status, 404);
      assert.equal((await api(storeKey)('GET', '/v1/plugins/stock-sync')).status, 404);
      const theirs = await api(storeKey)<PluginPage>('GET', '/v1/plugins?limit=100');
      assert.ok(!theirs.body.data.some((p) => p.id === draft.id));
      assert.equal((await api(storeKey)('POST', `/v1/plugins/${draft.id}/install`)).status, 404);
      const mine = await api(publisherKey)<PluginPage>('GET', '/v1/plugins?owned=true');
      assert.deepEqual(
        mine.body.data.map((p) => p.id),
        [draft.id],
      );
    });

    it('refuses bad manifests naming the field, writing nothing', async () => {
      const before = await pluginCount();
      const cases: [Record<string, unknown>, string][] = [
        [{ slug: 'Bad Slug' }, 'slug'],
        [{ permissions: ['write:keys'] }, 'permissions[0]'],
        [{ permissions: ['read:keys'] }, 'permissions[0]'],
        [{ permissions: ['publish:plugins'] }, 'permissions[0]'],
        // The audit and request logs hold every request's bodies: no app reads them.
        [{ permissions: ['read:audit'] }, 'permissions[0]'],
        [{ events: ['webhook.test'] }, 'events[0]'],
        [{ category: 'toys' }, 'category'],
        [{ name: '' }, 'name'],
        [{ owner_tenant_id: otherTenant }, 'owner_tenant_id'],
        [{ status: 'published' }, 'status'],
      ];
      for (const [change, field] of cases) {
        const res = await api(publisherKey)<Problem>('POST', '/v1/plugins', {
          body: manifest(`bad-${Object.keys(change)[0]?.replace('_', '-') ?? 'x'}`, change),
        });
        assert.equal(res.status, 400, JSON.stringify(change));
        assert.equal(res.body.code, 'validation_failed');
        assert.ok(
          res.body.errors?.some((e) => e.field === field || e.field.startsWith(field)),
          `${JSON.stringify(change)} -> ${JSON.stringify(res.body.errors)}`,
        );
      }
      const homepage = await api(publisherKey)<Problem>('POST', '/v1/plugins', {
        body: manifest('bad-homepage', { homepage_url: 'ftp://example.com' }),
      });
      assert.equal(homepage.status, 400);
      assert.equal(homepage.body.errors?.[0]?.field, 'homepage_url');
      const taken = await api(publisherKey)<Problem>('POST', '/v1/plugins', { body: manifest('stock-sync') });
      assert.equal(taken.status, 400);
      assert.equal(taken.body.errors?.[0]?.field, 'slug');
      const firstParty = await api(publisherKey)<Problem>('POST', '/v1/plugins', {
        body: manifest('taken-too', { webhook_url: 'internal://first-party/ai-autowriter' }),
      });
      assert.equal(firstParty.status, 422);
      assert.equal(firstParty.body.code, 'invalid_webhook_url');
      assert.equal(await pluginCount(), before);
      // A key without publish:plugins cannot publish.
      const reader = await api(publisherKey)<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'no publish', permissions: ['read:plugins', 'write:plugins'] },
      });
      const refused = await api(reader.body.key)<Problem>('POST', '/v1/plugins', { body: manifest('nope') });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.required_permission, 'publish:plugins');
    });

    it('goes draft -> in_review -> rejected -> draft -> in_review -> published, by the operator CLI', async () => {
      const plugin = await publish('review-me');
      const submit = () => api(publisherKey)<PluginObject>('POST', `/v1/plugins/${plugin.id}/submit`);
      const patch = (body: unknown) =>
        api(publisherKey)<PluginObject & Problem>('PATCH', `/v1/plugins/${plugin.id}`, { body });
      assert.equal((await submit()).body.status, 'in_review');
      assert.equal((await submit()).status, 409);
      const locked = await patch({ description: 'New words.' });
      assert.equal(locked.status, 409);
      assert.equal(locked.body.code, 'invalid_state_transition');
      // Only the publisher may change it.
      assert.equal(
        (await api(storeKey)('PATCH', `/v1/plugins/${plugin.id}`, { body: { name: 'Mine now' } })).status,
        404,
      );
      const env = ctx.store.env;
      const config = (await import('../../config.js')).loadConfig(env);
      const rejected = await runAdmin(
        ['plugin:reject', '--plugin', plugin.id, '--reason', 'Describe what it stores', '--json'],
        config,
      );
      assert.equal(rejected.code, 0, rejected.stderr);
      assert.equal(JSON.parse(rejected.stdout).plugin.status, 'rejected');
      const seen = await api(publisherKey)<PluginObject>('GET', `/v1/plugins/${plugin.id}`);
      assert.equal(seen.body.status, 'rejected');
      assert.equal(seen.body.rejection_reason, 'Describe what it stores');
      const edited = await patch({
        description: 'Stores nothing; reads products.',
        events: ['product.updated'],
      });
      assert.equal(edited.status, 200);
      assert.equal(edited.body.status, 'draft');
      assert.deepEqual(edited.body.events, ['product.updated']);
      assert.equal((await submit()).body.status, 'in_review');
      const approved = await runAdmin(['plugin:approve', '--plugin', plugin.id, '--json'], config);
      assert.equal(approved.code, 0, approved.stderr);
      const twice = await runAdmin(['plugin:approve', '--plugin', plugin.id], config);
      assert.equal(twice.code, 1);
      assert.match(twice.stderr, /invalid_state_transition/);
      const listed = await api(storeKey)<PluginObject>('GET', `/v1/plugins/${plugin.id}`);
      assert.equal(listed.status, 200);
      assert.equal(listed.body.status, 'published');
      // Published: a change is a revision for the operator; the plugin stays as approved.
      const renamed = await patch({ name: 'Review Me Pro', homepage_url: null });
      assert.equal(renamed.status, 200);
      assert.equal(renamed.body.name, 'App review-me');
      assert.deepEqual(renamed.body.pending_revision?.changes, { name: 'Review Me Pro' });
      const bad = await patch({ permissions: 'read:products' });
      assert.equal(bad.status, 400);
      const empty = await patch({});
      assert.equal(empty.status, 400);
    });

    it('installs in one go: a token with exactly its permissions, delivered once, signed, to its URL only', async () => {
      const plugin = await published('product-watch');
      const secret = plugin.secret ?? '';
      const path = '/hooks/product-watch';
      // The store's own webhook, subscribed to everything, must never see the app events.
      const own = await api(storeKey)<{ id: string }>('POST', '/v1/webhooks', {
        body: { url: `${rx.url}/own`, events: ['*'] },
      });
      assert.equal(own.status, 201);
      const installed = await api(storeKey)<PluginObject>('POST', `/v1/plugins/${plugin.id}/install`);
      assert.equal(installed.status, 201, JSON.stringify(installed.body));
      assert.equal(installed.body.installed, true);
      assert.match(installed.body.installation?.id ?? '', /^ins_/);
      assert.deepEqual(installed.body.installation?.granted_permissions, ['read:products', 'write:products']);
      assert.equal(installed.body.installs, 1);
      const repeat = await api(storeKey)<PluginObject>('POST', `/v1/plugins/${plugin.id}/install`);
      assert.equal(repeat.status, 200);
      assert.equal(repeat.body.installs, 1);
      assert.equal(repeat.body.installation?.id, installed.body.installation?.id);

      const event = await waitFor(path, 'app.installed');
      const received = rx.received.find((r) => r.path === path && r.id === event.id);
      assert.ok(received);
      const headers = received.headers as Record<string, string>;
      assert.equal(
        headers['webhook-signature'],
        signature(secret, event.id, Number(headers['webhook-timestamp']), received.body),
      );
      const object = event.data.object;
      assert.equal(object.installation_id, installed.body.installation?.id);
      assert.equal(object.tenant_id, storeTenant);
      assert.deepEqual(object.permissions, ['read:products', 'write:products']);
      assert.deepEqual(object.events, ['product.created', 'product.updated']);
      const token = String(object.access_token);
      assert.match(token, /^sk_app_[0-9A-Za-z]{40}$/);
      assert.equal(deliveredTo(path).filter((e) => e.type === 'app.installed').length, 1);

      // Nowhere else: not in the store's events, not to its own webhook, not in its key list.
      const events = await api(storeKey)<Page<{ type: string }>>('GET', '/v1/events?limit=100');
      assert.ok(!JSON.stringify(events.body).includes(token));
      assert.ok(!events.body.data.some((e) => e.type.startsWith('app.')));
      assert.equal((await api(storeKey)('GET', `/v1/events/${event.id}`)).status, 404);
      assert.ok(!rx.received.some((r) => r.path === '/own' && r.body.includes('app.installed')));
      const keys = await api(storeKey)<Page<{ id: string }>>('GET', '/v1/api-keys?limit=100');
      assert.ok(!keys.body.data.some((k) => k.id === object.installation_id));
      const webhooks = await api(storeKey)<Page<{ id: string; url: string }>>('GET', '/v1/webhooks');
      assert.deepEqual(
        webhooks.body.data.map((w) => w.id),
        [own.body.id],
      );
      // Once delivered, the stored event no longer holds the token; only its hash is kept.
      await eventually(async () => {
        const row = await ctx.deps.store.db
          .selectFrom('events')
          .select('data')
          .where('id', '=', event.id)
          .executeTakeFirstOrThrow();
        return !row.data.includes(token);
      });
      const stored = await ctx.deps.store.db
        .selectFrom('plugin_installations')
        .selectAll()
        .where('id', '=', String(object.installation_id))
        .executeTakeFirstOrThrow();
      assert.notEqual(stored.token_hash, token);
      assert.equal(stored.token_hash.length, 64);

      // The token: a key of this store, with exactly those permissions.
      const app = api(token);
      const mine = await api(storeKey)<{ id: string }>('POST', '/v1/products', {
        body: { name: 'Lamp', price: 1500, currency: 'USD', stock: 3 },
      });
      const theirs = await api(otherKey)<{ id: string }>('POST', '/v1/products', {
        body: { name: 'Chair', price: 4000, currency: 'USD', stock: 1 },
      });
      const list = await app<Page<{ id: string }>>('GET', '/v1/products');
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.body.data.map((p) => p.id),
        [mine.body.id],
      );
      assert.equal((await app('GET', `/v1/products/${theirs.body.id}`)).status, 404);
      assert.equal(
        (await app('PATCH', `/v1/products/${theirs.body.id}`, { body: { name: 'Taken' } })).status,
        404,
      );
      assert.equal(
        (await app('PATCH', `/v1/products/${mine.body.id}`, { body: { name: 'Desk lamp' } })).status,
        200,
      );
      for (const [method, url, permission] of [
        ['GET', '/v1/orders', 'read:orders'],
        ['GET', '/v1/wallet/balance', 'read:wallet'],
        ['GET', '/v1/webhooks', 'read:webhooks'],
        ['GET', '/v1/api-keys', 'read:keys'],
        ['POST', '/v1/api-keys', 'write:keys'],
        ['POST', `/v1/plugins/${plugin.id}/install`, 'write:plugins'],
        ['POST', '/v1/plugins', 'publish:plugins'],
      ] as const) {
        const res = await app<Problem>(method, url, {
          body: method === 'POST' ? { name: 'x', permissions: ['read:products'] } : undefined,
        });
        assert.equal(res.status, 403, `${method} ${url}`);
        assert.equal(res.body.required_permission, permission);
      }
      // The service refuses key work to a token whatever it holds.
      const principal = await ctx.deps.apiKeys.authenticate(`Bearer ${token}`, '127.0.0.1');
      const widened = {
        ...principal,
        key: { ...principal.key, permissions: new Set(ctx.deps.vocabulary.permissions) },
      };
      await assert.rejects(
        ctx.deps.apiKeys.create(widened, { name: 'minted', permissions: ['read:products'] }),
        /cannot read, create, roll or revoke/,
      );
      await assert.rejects(ctx.deps.apiKeys.listAll(widened), /cannot read, create, roll or revoke/);

      // Its store events arrive at its URL, naming the installation.
      const created = await waitFor(path, 'product.created');
      assert.equal(created.installation_id, installed.body.installation?.id);
      assert.equal(created.tenant_id, storeTenant);
      assert.equal(created.data.object.id, mine.body.id);
      assert.ok(!deliveredTo(path).some((e) => e.data.object.id === theirs.body.id));

      // Its calls, under its name in the store's usage (2026-12-15).
      const usage = await api(storeKey)<{ apps: { plugin_id: string; name: string; calls: number }[] }>(
        'GET',
        '/v1/usage',
        { headers: { 'x-service-version': '2026-12-15' } },
      );
      const calls = usage.body.apps.find((a) => a.plugin_id === plugin.id);
      assert.equal(calls?.name, 'App product-watch');
      assert.equal(calls?.calls, 11);
      const old = await api(storeKey)<Record<string, unknown>>('GET', '/v1/usage', {
        headers: { 'x-service-version': '2026-11-21' },
      });
      assert.equal('apps' in old.body, false);

      // Publisher: installations and the delivery log; nobody else sees them.
      const installations = await api(publisherKey)<Page<{ tenant_id: string; store_name: string }>>(
        'GET',
        `/v1/plugins/${plugin.id}/installations`,
      );
      assert.equal(installations.status, 200);
      assert.deepEqual(
        installations.body.data.map((i) => [i.tenant_id, i.store_name]),
        [[storeTenant, 'Corner Shop']],
      );
      const log = await api(publisherKey)<Page<{ event: string; tenant_id: string; status: string }>>(
        'GET',
        `/v1/plugins/${plugin.id}/deliveries?limit=100`,
      );
      assert.ok(log.body.data.some((d) => d.event === 'app.installed' && d.tenant_id === storeTenant));
      assert.equal((await api(storeKey)('GET', `/v1/plugins/${plugin.id}/installations`)).status, 404);
      assert.equal((await api(storeKey)('GET', `/v1/plugins/${plugin.id}/deliveries`)).status, 404);

      // Uninstall: the very next call is refused; nothing more is delivered but app.uninstalled.
      const gone = await api(storeKey)<PluginObject>('DELETE', `/v1/plugins/${plugin.id}/install`);
      assert.equal(gone.status, 200);
      assert.equal(gone.body.installed, false);
      assert.equal(gone.body.installs, 0);
      const refused = await app<Problem>('GET', '/v1/products');
      assert.equal(refused.status, 401);
      assert.equal(refused.body.code, 'invalid_api_key');
      const bye = await waitFor(path, 'app.uninstalled');
      assert.equal(bye.data.object.installation_id, installed.body.installation?.id);
      assert.equal(bye.data.object.access_token, undefined);
      const after = await api(storeKey)<{ id: string }>('POST', '/v1/products', {
        body: { name: 'After', price: 100, currency: 'USD', stock: 1 },
      });
      await eventually(() => rx.received.some((r) => r.path === '/own' && r.body.includes(after.body.id)));
      // A delivery the receiver has seen is recorded by the worker a moment later: let it record them.
      await ctx.deps.webhookWorker.drain();
      const endpoints = await ctx.deps.store.db.selectFrom('webhook_endpoints').selectAll().execute();
      assert.ok(
        !deliveredTo(path).some((e) => e.data.object.id === after.body.id),
        JSON.stringify([endpoints, deliveredTo(path).filter((e) => e.data.object.id === after.body.id)]),
      );
      const pending = await ctx.deps.store.db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('endpoint_id', 'in', (eb) =>
          eb.selectFrom('webhook_endpoints').select('id').where('plugin_id', '=', plugin.id),
        )
        .where('status', '=', 'pending')
        .execute();
      assert.deepEqual(pending, []);
      assert.equal(
        (await api(storeKey)<PluginObject>('DELETE', `/v1/plugins/${plugin.id}/install`)).body.installs,
        0,
      );
      // Installing again makes a new installation with a new token.
      const again = await api(storeKey)<PluginObject>('POST', `/v1/plugins/${plugin.id}/install`);
      assert.equal(again.status, 201);
      assert.notEqual(again.body.installation?.id, installed.body.installation?.id);
      assert.equal(again.body.installs, 1);
    });

    it('refuses to install a plugin whose permissions the key does not hold', async () => {
      const plugin = await published('needs-orders', { permissions: ['read:orders', 'write:orders'] });
      const key = await api(otherKey)<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'plugins only', permissions: ['read:plugins', 'write:plugins', 'read:orders'] },
      });
      const res = await api(key.body.key)<Problem>('POST', `/v1/plugins/${plugin.id}/install`);
      assert.equal(res.status, 403);
      assert.equal(res.body.required_permission, 'write:orders');
      const rows = await ctx.deps.store.db
        .selectFrom('plugin_installations')
        .select('id')
        .where('plugin_id', '=', plugin.id)
        .execute();
      assert.deepEqual(rows, []);
    });

    it('refuses a plugin URL pointing at a private address, as webhook URLs', async () => {
      const strict = await createTestContext(dialect, {
        env: { WEBHOOK_ALLOW_INSECURE: 'false' },
        webhooks: { resolve: async () => [{ address: '10.0.0.8', family: 4 }] },
      });
      try {
        const key = (await createTenant(strict)).apiKey.key;
        for (const url of [
          'https://127.0.0.1/hooks',
          'https://[::1]/hooks',
          'https://169.254.169.254/latest',
          'https://internal.example.com/hooks',
          'http://apps.example.com/hooks',
          'https://user:pass@apps.example.com/hooks',
        ]) {
          const res = await client(strict.app, key)<Problem>('POST', '/v1/plugins', {
            body: { ...manifest('private-url'), webhook_url: url },
          });
          assert.equal(res.status, 422, url);
          assert.equal(res.body.code, 'invalid_webhook_url');
          assert.match(res.body.detail, /^webhook_url/);
        }
        const count = await strict.deps.store.db
          .selectFrom('plugins')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        assert.equal(Number(count.n), 2);
      } finally {
        await strict.close();
      }
    });

    it('takes ratings only from stores that installed, and shows my_rating in 2026-12-15 only', async () => {
      const plugin = await published('rated-app');
      const rate = (key: string, stars: number) =>
        api(key)<RatingObject & Problem>('POST', `/v1/plugins/${plugin.id}/ratings`, { body: { stars } });
      const refused = await rate(otherKey, 5);
      assert.equal(refused.status, 409);
      assert.equal(refused.body.code, 'invalid_state_transition');
      assert.equal(
        (await api(otherKey)<PluginObject>('GET', `/v1/plugins/${plugin.id}`)).body.rating_count,
        0,
      );
      assert.equal((await api(otherKey)('POST', `/v1/plugins/${plugin.id}/install`)).status, 201);
      assert.equal((await rate(otherKey, 4)).status, 201);
      assert.equal((await rate(otherKey, 2)).status, 200);
      const latest = await api(otherKey)<PluginObject>('GET', `/v1/plugins/${plugin.id}`, {
        headers: { 'x-service-version': '2026-12-15' },
      });
      assert.equal(latest.body.my_rating, 2);
      assert.equal(latest.body.rating, 2);
      assert.equal(
        (await api(storeKey)<PluginObject>('GET', `/v1/plugins/${plugin.id}`)).body.my_rating,
        null,
      );
      const listed = await api(otherKey)<PluginPage>('GET', '/v1/plugins?installed=true');
      assert.equal(listed.body.data.find((p) => p.id === plugin.id)?.my_rating, 2);
      // An uninstalled store keeps its rating and may change it: it did install the plugin.
      await api(otherKey)('DELETE', `/v1/plugins/${plugin.id}/install`);
      assert.equal((await rate(otherKey, 3)).status, 200);
      for (const version of ['2026-11-21', '2026-06-01']) {
        const old = await api(otherKey)<Record<string, unknown>>('GET', `/v1/plugins/${plugin.id}`, {
          headers: { 'x-service-version': version },
        });
        assert.deepEqual(Object.keys(old.body).sort(), [
          'author',
          'category',
          'description',
          'events',
          'id',
          'installation',
          'installed',
          'installs',
          'name',
          'permissions',
          'rating',
          'rating_count',
          'slug',
        ]);
        const page = await api(otherKey)<Page<Record<string, unknown>>>('GET', '/v1/plugins', {
          headers: { 'x-service-version': version },
        });
        assert.ok(page.body.data.every((p) => !('my_rating' in p) && !('status' in p)));
        const installed = await api(storeKey)<Record<string, unknown>>(
          'POST',
          `/v1/plugins/${plugin.id}/install`,
          { headers: { 'x-service-version': version } },
        );
        assert.deepEqual(Object.keys(installed.body.installation as object).sort(), [
          'granted_events',
          'granted_permissions',
          'installed_at',
        ]);
      }
    });

    it('counts concurrent installs from 20 stores exactly, repeats included', async () => {
      const plugin = await published('busy-app', { events: [] });
      const keys = await Promise.all(
        Array.from({ length: 20 }, async () => (await createTenant(ctx)).apiKey.key),
      );
      const results = await Promise.all(
        [...keys, ...keys].map((key) => api(key)('POST', `/v1/plugins/${plugin.id}/install`)),
      );
      assert.equal(results.filter((r) => r.status === 201).length, 20);
      assert.equal(results.filter((r) => r.status === 200).length, 20);
      const row = await ctx.deps.store.db
        .selectFrom('plugins')
        .select('installs')
        .where('id', '=', plugin.id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.installs), 20);
    });

    it('searches, filters and sorts the marketplace with stable paging', async () => {
      for (const name of ['Zeta Tags', 'alpha Feed', 'Mid Sync']) {
        await published(name.toLowerCase().replace(/ /g, '-'), { name, category: 'marketing' });
      }
      const byName = await api(storeKey)<PluginPage>(
        'GET',
        '/v1/plugins?sort=name&category=marketing&limit=100',
      );
      const names = byName.body.data.map((p) => p.name.toLowerCase());
      assert.deepEqual(names, [...names].sort());
      assert.ok(names.includes('alpha feed') && names.includes('zeta tags'));
      const found = await api(storeKey)<PluginPage>('GET', '/v1/plugins?q=zeta%20tags');
      assert.deepEqual(
        found.body.data.map((p) => p.name),
        ['Zeta Tags'],
      );
      const all: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: PluginPage } = await api(storeKey)<PluginPage>(
          'GET',
          `/v1/plugins?sort=name&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        );
        all.push(...page.body.data.map((p) => p.id));
        cursor = page.body.next_cursor;
      } while (cursor);
      const whole = await api(storeKey)<PluginPage>('GET', '/v1/plugins?sort=name&limit=100');
      assert.deepEqual(
        all,
        whole.body.data.map((p) => p.id),
      );
      assert.equal(whole.body.total, all.length);
      // The publisher's drafts are not in anyone else's marketplace.
      assert.ok(!whole.body.data.some((p) => p.status !== 'published'));
    });
  });
}
