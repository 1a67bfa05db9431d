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
import type { PluginObject } from './plugins.schemas.js';

/**
 * A published plugin changes only through a revision the operator approves: until then every
 * store keeps the approved plugin (its listing, its token's permissions, the URL its events go
 * to). An approved revision asking for more waits for each store to accept it; asking for less
 * takes effect in every store at approval.
 */

interface Delivered {
  id: string;
  type: string;
  installation_id?: string;
  tenant_id?: string;
  data: { object: Record<string, unknown> };
}

interface Store {
  key: string;
  tenantId: string;
}

for (const dialect of DIALECTS) {
  describe(`plugin revisions (${dialect})`, () => {
    let ctx: TestContext;
    let rx: Receiver;
    let publisherKey: string;
    let storeA: Store;
    let storeB: Store;

    const api = (key: string) => client(ctx.app, key);
    const admin = (...args: string[]) => runAdmin(args, ctx.config);
    const deliveredTo = (path: string): Delivered[] =>
      rx.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body) as Delivered);
    const waitFor = (path: string, match: (event: Delivered) => boolean, what: string) =>
      eventually(() => deliveredTo(path).find(match), 15_000, what);

    /** A plugin of the publisher, published by the operator. */
    const published = async (slug: string, extra: Record<string, unknown> = {}) => {
      const created = await api(publisherKey)<PluginObject>('POST', '/v1/plugins', {
        body: {
          name: `App ${slug}`,
          slug,
          description: 'Keeps an eye on products.',
          category: 'inventory',
          permissions: ['read:products'],
          events: ['product.created'],
          webhook_url: `${rx.url}/hooks/${slug}/v1`,
          ...extra,
        },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal((await api(publisherKey)('POST', `/v1/plugins/${created.body.id}/submit`)).status, 200);
      const approved = await admin('plugin:approve', '--plugin', created.body.id, '--json');
      assert.equal(approved.code, 0, approved.stderr);
      return created.body;
    };
    /** Installs the plugin in the store; answers its installation id and token (from `app.installed`). */
    const install = async (store: Store, plugin: PluginObject, path: string) => {
      const res = await api(store.key)<PluginObject>('POST', `/v1/plugins/${plugin.id}/install`);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const installed = await waitFor(
        path,
        (e) => e.type === 'app.installed' && e.tenant_id === store.tenantId,
        `app.installed for ${store.tenantId}`,
      );
      return { id: String(installed.installation_id), token: String(installed.data.object.access_token) };
    };
    const patch = (plugin: PluginObject, body: unknown) =>
      api(publisherKey)<PluginObject & Problem>('PATCH', `/v1/plugins/${plugin.id}`, { body });
    const product = async (store: Store, name: string) => {
      const res = await api(store.key)<{ id: string }>('POST', '/v1/products', {
        body: { name, price: 1200, currency: 'USD', stock: 4 },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.id;
    };
    /** The event types queued to the store's installation of the plugin (its endpoint's deliveries). */
    const queued = async (installationId: string) => {
      const rows = await ctx.deps.store.db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
        .select('d.event_type')
        .where('e.installation_id', '=', installationId)
        .execute();
      return rows.map((row) => row.event_type);
    };

    before(async () => {
      rx = await startReceiver();
      ctx = await createTestContext(dialect, { webhooks: { worker: { pollMs: 20 } } });
      publisherKey = (await createTenant(ctx, { name: 'Plugin Works' })).apiKey.key;
      const a = await createTenant(ctx, { name: 'Corner Shop' });
      const b = await createTenant(ctx, { name: 'Harbour Goods' });
      storeA = { key: a.apiKey.key, tenantId: a.tenant.id };
      storeB = { key: b.apiKey.key, tenantId: b.tenant.id };
      ctx.deps.webhookWorker.start({ pollMs: 20 });
    });
    after(async () => {
      await ctx.close();
      await rx.close();
    });

    it('keeps the approved plugin live in every store until the operator approves its revision', async () => {
      const plugin = await published('relay');
      const [v1, v2] = ['/hooks/relay/v1', '/hooks/relay/v2'];
      const a = await install(storeA, plugin, v1);
      const b = await install(storeB, plugin, v1);

      const changed = await patch(plugin, { name: 'Relay Zephyr', webhook_url: `${rx.url}${v2}` });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.equal(changed.body.name, 'App relay');
      assert.equal(changed.body.webhook_url, `${rx.url}${v1}`);
      assert.equal(changed.body.status, 'published');
      const revision = changed.body.pending_revision;
      assert.equal(revision?.status, 'pending');
      assert.deepEqual(revision.changes, { name: 'Relay Zephyr', webhook_url: `${rx.url}${v2}` });
      assert.equal(revision.rejection_reason, null);
      // A later change adds to the revision.
      const more = await patch(plugin, { description: 'Relays product news.' });
      assert.deepEqual(more.body.pending_revision?.changes, {
        name: 'Relay Zephyr',
        webhook_url: `${rx.url}${v2}`,
        description: 'Relays product news.',
      });
      assert.equal(more.body.pending_revision?.created, revision.created);
      assert.equal(more.body.description, 'Keeps an eye on products.');

      // The stores see the approved plugin, without the revision.
      const seen = await api(storeB.key)<PluginObject>('GET', `/v1/plugins/${plugin.id}`);
      assert.equal(seen.body.name, 'App relay');
      assert.equal('pending_revision' in seen.body, false);
      const listed = await api(storeB.key)<Page<PluginObject>>('GET', '/v1/plugins?q=relay&limit=100');
      assert.deepEqual(
        listed.body.data.map((p) => p.name),
        ['App relay'],
      );
      const byNewName = await api(storeB.key)<Page<PluginObject>>('GET', '/v1/plugins?q=zephyr');
      assert.deepEqual(byNewName.body.data, []);

      // Deliveries still go to the approved URL.
      const before = await product(storeA, 'Lamp');
      const old = await waitFor(v1, (e) => e.data.object.id === before, 'product.created at the live URL');
      assert.equal(old.installation_id, a.id);
      assert.ok(!deliveredTo(v2).some((e) => e.data.object.id === before));

      // The operator sees the changes, live and proposed, and approves them.
      const approved = await admin('plugin:approve', '--plugin', plugin.id, '--json');
      assert.equal(approved.code, 0, approved.stderr);
      const output = JSON.parse(approved.stdout) as {
        plugin: { name: string; status: string };
        revision: { status: string; changes: Record<string, { from: unknown; to: unknown }> };
      };
      assert.equal(output.plugin.name, 'Relay Zephyr');
      assert.equal(output.plugin.status, 'published');
      assert.equal(output.revision.status, 'approved');
      assert.deepEqual(output.revision.changes.webhook_url, { from: `${rx.url}${v1}`, to: `${rx.url}${v2}` });
      assert.deepEqual(output.revision.changes.name, { from: 'App relay', to: 'Relay Zephyr' });
      const twice = await admin('plugin:approve', '--plugin', plugin.id);
      assert.equal(twice.code, 1);
      assert.match(twice.stderr, /invalid_state_transition/);

      const live = await api(storeB.key)<PluginObject>('GET', `/v1/plugins/${plugin.id}`);
      assert.equal(live.body.name, 'Relay Zephyr');
      assert.equal(live.body.description, 'Relays product news.');
      const mine = await api(publisherKey)<PluginObject>('GET', `/v1/plugins/${plugin.id}`);
      assert.equal(mine.body.pending_revision, null);
      assert.equal(mine.body.webhook_url, `${rx.url}${v2}`);
      const after = await product(storeB, 'Chair');
      const moved = await waitFor(v2, (e) => e.data.object.id === after, 'product.created at the new URL');
      assert.equal(moved.installation_id, b.id);
      assert.ok(!deliveredTo(v1).some((e) => e.data.object.id === after));
    });

    it('grants more only to stores that accept it, and takes away less from every store at approval', async () => {
      const plugin = await published('orders-peek');
      const path = '/hooks/orders-peek/v1';
      const a = await install(storeA, plugin, path);
      const b = await install(storeB, plugin, path);
      const orders = async (token: string) => (await api(token)<Problem>('GET', '/v1/orders')).status;
      assert.equal(await orders(a.token), 403);

      const asked = await patch(plugin, {
        permissions: ['read:products', 'read:orders'],
        events: ['product.created', 'product.updated'],
      });
      assert.equal(asked.status, 200);
      assert.deepEqual(asked.body.permissions, ['read:products']);
      assert.deepEqual(asked.body.pending_revision?.changes, {
        permissions: ['read:products', 'read:orders'],
        events: ['product.created', 'product.updated'],
      });
      // Not before approval.
      assert.equal(await orders(a.token), 403);
      const approved = await admin('plugin:approve', '--plugin', plugin.id, '--json');
      assert.equal(approved.code, 0, approved.stderr);

      // Approved: the plugin asks for more, but each installation keeps its grant until its store accepts.
      assert.equal(await orders(a.token), 403);
      const waiting = await api(storeA.key)<PluginObject>('GET', `/v1/plugins/${plugin.id}`);
      assert.deepEqual(waiting.body.permissions, ['read:products', 'read:orders']);
      assert.deepEqual(waiting.body.installation?.granted_permissions, ['read:products']);
      assert.deepEqual(waiting.body.installation?.granted_events, ['product.created']);
      assert.deepEqual(waiting.body.installation?.pending_permissions, {
        permissions: ['read:products', 'read:orders'],
        events: ['product.created', 'product.updated'],
      });
      const productId = await product(storeA, 'Vase');
      assert.equal(
        (await api(storeA.key)('PATCH', `/v1/products/${productId}`, { body: { name: 'Tall vase' } })).status,
        200,
      );
      assert.ok(!(await queued(a.id)).includes('product.updated'));

      // Accepting needs a key holding what the plugin asks for, and changes nothing otherwise.
      const narrow = await api(storeA.key)<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'plugins', permissions: ['read:plugins', 'write:plugins', 'read:products'] },
      });
      const refused = await api(narrow.body.key)<Problem>('POST', `/v1/plugins/${plugin.id}/install/accept`);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.required_permission, 'read:orders');
      assert.equal(await orders(a.token), 403);

      const accepted = await api(storeA.key)<PluginObject>('POST', `/v1/plugins/${plugin.id}/install/accept`);
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      assert.deepEqual(accepted.body.installation?.granted_permissions, ['read:products', 'read:orders']);
      assert.deepEqual(accepted.body.installation?.granted_events, ['product.created', 'product.updated']);
      assert.equal(accepted.body.installation?.pending_permissions, null);
      assert.equal(await orders(a.token), 200);
      const told = await waitFor(
        path,
        (e) => e.type === 'app.permissions_updated' && e.installation_id === a.id,
        'app.permissions_updated for store A',
      );
      assert.deepEqual(told.data.object.permissions, ['read:products', 'read:orders']);
      assert.equal(told.data.object.access_token, undefined);
      const again = await api(storeA.key)<Problem>('POST', `/v1/plugins/${plugin.id}/install/accept`);
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'invalid_state_transition');
      assert.equal(
        (await api(storeA.key)('PATCH', `/v1/products/${productId}`, { body: { name: 'Short vase' } }))
          .status,
        200,
      );
      assert.ok((await queued(a.id)).includes('product.updated'));

      // Store B has not accepted: its token and subscription are as it installed them.
      assert.equal(await orders(b.token), 403);
      const other = await product(storeB, 'Rug');
      await api(storeB.key)('PATCH', `/v1/products/${other}`, { body: { name: 'Wool rug' } });
      assert.ok(!(await queued(b.id)).includes('product.updated'));
      const stillWaiting = await api(storeB.key)<PluginObject>('GET', `/v1/plugins/${plugin.id}`);
      assert.deepEqual(stillWaiting.body.installation?.pending_permissions?.permissions, [
        'read:products',
        'read:orders',
      ]);

      // Asking for less: every token loses it at approval, and nothing waits any longer.
      await patch(plugin, { permissions: ['read:products'] });
      assert.equal(await orders(a.token), 200);
      const shrunk = await admin('plugin:approve', '--plugin', plugin.id, '--json');
      assert.equal(shrunk.code, 0, shrunk.stderr);
      assert.equal(await orders(a.token), 403);
      const afterA = await api(storeA.key)<PluginObject>('GET', `/v1/plugins/${plugin.id}`);
      assert.deepEqual(afterA.body.installation?.granted_permissions, ['read:products']);
      assert.deepEqual(afterA.body.installation?.granted_events, ['product.created', 'product.updated']);
      assert.equal(afterA.body.installation?.pending_permissions, null);
      const afterB = await api(storeB.key)<PluginObject>('GET', `/v1/plugins/${plugin.id}`);
      assert.deepEqual(afterB.body.installation?.granted_permissions, ['read:products']);
      assert.deepEqual(afterB.body.installation?.granted_events, ['product.created']);
      assert.deepEqual(afterB.body.installation?.pending_permissions, {
        permissions: ['read:products'],
        events: ['product.created', 'product.updated'],
      });
    });

    it('rejects a revision and keeps the live plugin; the publisher revises it again', async () => {
      const plugin = await published('tidy-tags');
      await patch(plugin, { name: 'Tidy Tags Max' });
      const rejected = await admin('plugin:reject', '--plugin', plugin.id, '--reason', 'Name is misleading');
      assert.equal(rejected.code, 0, rejected.stderr);
      assert.match(rejected.stdout, /revision is rejected/);
      assert.match(rejected.stdout, /name: "App tidy-tags" -> "Tidy Tags Max"/);
      const seen = await api(publisherKey)<PluginObject>('GET', `/v1/plugins/${plugin.id}`);
      assert.equal(seen.body.name, 'App tidy-tags');
      assert.equal(seen.body.status, 'published');
      assert.equal(seen.body.rejection_reason, null);
      assert.equal(seen.body.pending_revision?.status, 'rejected');
      assert.equal(seen.body.pending_revision.rejection_reason, 'Name is misleading');
      assert.equal(
        (await api(storeA.key)<PluginObject>('GET', `/v1/plugins/${plugin.id}`)).body.name,
        'App tidy-tags',
      );
      assert.equal((await admin('plugin:reject', '--plugin', plugin.id, '--reason', 'Again')).code, 1);

      const revised = await patch(plugin, { description: 'Tidies tags.' });
      assert.equal(revised.body.pending_revision?.status, 'pending');
      assert.equal(revised.body.pending_revision.rejection_reason, null);
      assert.deepEqual(revised.body.pending_revision.changes, {
        name: 'Tidy Tags Max',
        description: 'Tidies tags.',
      });
      // Back to the live values: nothing is left to review.
      const withdrawn = await patch(plugin, {
        name: 'App tidy-tags',
        description: 'Keeps an eye on products.',
      });
      assert.equal(withdrawn.body.pending_revision, null);
      const nothing = await admin('plugin:approve', '--plugin', plugin.id);
      assert.equal(nothing.code, 1);
      assert.match(nothing.stderr, /invalid_state_transition/);
    });

    it('refuses bad changes to a published plugin naming the field, and keeps its revision as it was', async () => {
      const plugin = await published('steady');
      await patch(plugin, { name: 'Steady Two' });
      const cases: [Record<string, unknown>, number, string][] = [
        [{ permissions: ['write:keys'] }, 400, 'permissions'],
        [{ events: ['webhook.test'] }, 400, 'events'],
        [{ slug: 'steady-two' }, 400, 'slug'],
        [{ homepage_url: 'ftp://example.com' }, 400, 'homepage_url'],
        [{ webhook_url: 'ftp://example.com/hooks' }, 422, 'webhook_url'],
      ];
      for (const [body, status, field] of cases) {
        const res = await patch(plugin, body);
        assert.equal(res.status, status, JSON.stringify(body));
        const named =
          res.body.errors?.some((e) => e.field.startsWith(field)) ?? res.body.detail.startsWith(field);
        assert.ok(named, `${JSON.stringify(body)} -> ${JSON.stringify(res.body)}`);
      }
      const seen = await api(publisherKey)<PluginObject>('GET', `/v1/plugins/${plugin.id}`);
      assert.deepEqual(seen.body.pending_revision?.changes, { name: 'Steady Two' });
      // Only its publisher changes it, and only a store that installed it accepts anything.
      assert.equal(
        (await api(storeA.key)('PATCH', `/v1/plugins/${plugin.id}`, { body: { name: 'Mine' } })).status,
        404,
      );
      const notInstalled = await api(storeA.key)<Problem>('POST', `/v1/plugins/${plugin.id}/install/accept`);
      assert.equal(notInstalled.status, 409);
      assert.equal(notInstalled.body.code, 'invalid_state_transition');
    });
  });
}
