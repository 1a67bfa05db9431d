import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import { eventually } from '../../../test/helpers/webhook-receiver.js';
import type { PluginObject } from '../plugins/plugins.schemas.js';

interface Product {
  id: string;
  description: string | null;
  status: string;
  stock: number;
}

/**
 * The first-party apps run through the mechanism every app uses: installed like any plugin, told
 * of their token by `app.installed`, fed by their subscriptions, acting through the HTTP API with
 * their token (so their calls are metered under their names and limited to their permissions).
 */
for (const dialect of DIALECTS) {
  describe(`first-party apps (${dialect})`, () => {
    let ctx: TestContext;
    let key: string;
    let tenantId: string;
    const api = () => client(ctx.app, key);
    const product = async (id: string) => (await api()<Product>('GET', `/v1/products/${id}`)).body;
    /** Whether every delivery of `eventType` about `objectId` to `pluginId` succeeded (and there was one). */
    const delivered = async (pluginId: string, eventType: string, objectId: string) => {
      const rows = await ctx.deps.store.db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
        .innerJoin('events as ev', 'ev.id', 'd.event_id')
        .select(['d.status'])
        .where('e.plugin_id', '=', pluginId)
        .where('ev.type', '=', eventType)
        .where('ev.object_id', '=', objectId)
        .where('e.tenant_id', '=', tenantId)
        .execute();
      return rows.length > 0 && rows.some((row) => row.status === 'succeeded');
    };
    let autowriter: PluginObject;
    let hider: PluginObject;

    before(async () => {
      ctx = await createTestContext(dialect, { webhooks: { worker: { pollMs: 20 } } });
      const created = await createTenant(ctx, { name: 'Apps Store' });
      key = created.apiKey.key;
      tenantId = created.tenant.id;
      ctx.deps.webhookWorker.start({ pollMs: 20 });
      autowriter = (await api()<PluginObject>('POST', '/v1/plugins/ai-autowriter/install')).body;
      hider = (await api()<PluginObject>('POST', '/v1/plugins/sold-out-hider/install')).body;
      // Each app received its token.
      await eventually(async () => {
        const tokens = await ctx.deps.store.db
          .selectFrom('app_runtime_tokens')
          .selectAll()
          .where('tenant_id', '=', tenantId)
          .execute();
        return tokens.length === 2;
      });
    });
    after(() => ctx.close());

    it('keeps the tokens it received encrypted', async () => {
      const tokens = await ctx.deps.store.db.selectFrom('app_runtime_tokens').selectAll().execute();
      for (const token of tokens) assert.ok(!token.token_ciphertext.includes('sk_app_'));
      assert.deepEqual(
        tokens.map((t) => t.installation_id).sort(),
        [autowriter.installation?.id, hider.installation?.id].sort(),
      );
    });

    it('AI Autowriter describes a new product that has no description, and leaves others alone', async () => {
      const bare = await api()<Product>('POST', '/v1/products', {
        body: { name: 'Walnut desk', price: 25000, currency: 'USD', stock: 4, category: 'furniture' },
      });
      const described = await api()<Product>('POST', '/v1/products', {
        body: { name: 'Oak desk', description: 'Our own words.', price: 30000, currency: 'USD', stock: 2 },
      });
      const text = await eventually(
        async () => {
          const now = await product(bare.body.id);
          return now.description !== null && now.description.length > 0 ? now.description : undefined;
        },
        20_000,
        'the written description',
      );
      assert.match(text, /desk/i);
      await eventually(() => delivered(autowriter.id, 'product.created', described.body.id));
      assert.equal((await product(described.body.id)).description, 'Our own words.');
      // Its calls are its own, under its name.
      const usage = await api()<{ apps: { name: string; top_endpoints: { endpoint: string }[] }[] }>(
        'GET',
        '/v1/usage',
      );
      const app = usage.body.apps.find((a) => a.name === 'AI Autowriter');
      assert.ok(app?.top_endpoints.some((e) => e.endpoint === 'POST /ai/generate-description'));
    });

    it('Sold-out hider drafts a sold-out product and reactivates it when restocked', async () => {
      const lamp = await api()<Product>('POST', '/v1/products', {
        body: { name: 'Lamp', description: 'A lamp.', price: 1500, currency: 'USD', stock: 2 },
      });
      assert.equal(lamp.body.status, 'active');
      await api()('PATCH', `/v1/products/${lamp.body.id}`, { body: { stock: 0 } });
      await eventually(async () => (await product(lamp.body.id)).status === 'draft', 20_000, 'draft');
      await api()('PATCH', `/v1/products/${lamp.body.id}`, { body: { stock: 5 } });
      await eventually(async () => (await product(lamp.body.id)).status === 'active', 20_000, 'active');
      const usage = await api()<{ apps: { name: string; calls: number }[] }>('GET', '/v1/usage');
      assert.ok((usage.body.apps.find((a) => a.name === 'Sold-out hider')?.calls ?? 0) > 0);
    });

    it('Sold-out hider leaves a product the merchant drafted as it is', async () => {
      const draft = await api()<Product>('POST', '/v1/products', {
        body: {
          name: 'Prototype',
          description: 'Not yet.',
          price: 900,
          currency: 'USD',
          stock: 0,
          status: 'draft',
        },
      });
      const restocked = await api()<Product>('PATCH', `/v1/products/${draft.body.id}`, {
        body: { stock: 3 },
      });
      assert.equal(restocked.status, 200);
      await eventually(() => delivered(hider.id, 'product.updated', draft.body.id));
      assert.equal((await product(draft.body.id)).status, 'draft');
    });

    it('stops at uninstall: the app forgets its token and gets no more events', async () => {
      const gone = await api()<PluginObject>('DELETE', '/v1/plugins/ai-autowriter/install');
      assert.equal(gone.body.installed, false);
      await eventually(async () => {
        const rows = await ctx.deps.store.db
          .selectFrom('app_runtime_tokens')
          .select('installation_id')
          .where('installation_id', '=', autowriter.installation?.id ?? '')
          .execute();
        return rows.length === 0;
      }).catch(async (error: unknown) => {
        const log = await ctx.deps.store.db
          .selectFrom('webhook_deliveries')
          .select(['event_type', 'status', 'response'])
          .where('endpoint_id', 'in', (eb) =>
            eb.selectFrom('webhook_endpoints').select('id').where('plugin_id', '=', autowriter.id),
          )
          .execute();
        throw new Error(`${String(error)} ${JSON.stringify(log)}`);
      });
      const later = await api()<Product>('POST', '/v1/products', {
        body: { name: 'Stool', price: 4000, currency: 'USD', stock: 1 },
      });
      // Fan-out happens in the product's own transaction: no delivery to the app was queued.
      const queued = await ctx.deps.store.db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
        .select('d.id')
        .where('e.plugin_id', '=', autowriter.id)
        .where('d.event_type', '=', 'product.created')
        .where('d.created', '>=', Date.parse(String((later.body as unknown as { created: string }).created)))
        .execute();
      assert.deepEqual(queued, []);
      assert.equal((await product(later.body.id)).description, null);
    });
  });
}
