import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../db/store.js';
import { client, DIALECTS } from '../../../test/helpers/context.js';
import type { Page } from '../../../test/helpers/responses.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import { eventually } from '../../../test/helpers/webhook-receiver.js';
import { hashKey } from '../api-keys/api-keys.service.js';
import type { PluginObject } from './plugins.schemas.js';

/**
 * Migration 0028 makes plugins apps on a store of the previous release: the pretend catalog goes
 * with its installations and ratings, except the AI Product Copywriter, whose installations become
 * real installations of the AI Autowriter (same plugin id), which then really write descriptions.
 */

const T0 = Date.parse('2026-12-01T09:00:00.000Z');
const COPYWRITER = 'plg_PC8mtaZFdtNl1B4GuNNGNQka';
const SLACK = 'plg_JzyZ3ddSKRqbTo5vIrpPwvll';
const SHIPSTATION = 'plg_MuTbLuYKjr1qSkKeKKN0C4Mm';

async function writeOldStore(db: Db): Promise<void> {
  for (const tenant of ['ten_a', 'ten_b']) {
    await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
      VALUES (${tenant}, ${`Store ${tenant}`}, 'pro', 'USD', '2026-12-15', ${T0}, ${T0})`.execute(db);
    await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
      VALUES (${`usr_${tenant}`}, ${tenant}, ${`${tenant}@example.com`}, 'Owner', 'owner', NULL, ${T0}, ${T0})`.execute(
      db,
    );
  }
  const installs: [string, string, string[]][] = [
    ['ten_a', COPYWRITER, ['read:products', 'write:products', 'write:ai']],
    ['ten_a', SLACK, ['read:orders', 'read:products']],
    ['ten_b', SHIPSTATION, ['read:orders', 'write:orders', 'read:products']],
  ];
  for (const [tenant, plugin, permissions] of installs) {
    await sql`INSERT INTO plugin_installations (tenant_id, plugin_id, granted_permissions, granted_events, installed_at)
      VALUES (${tenant}, ${plugin}, ${JSON.stringify(permissions)}, '[]', ${T0})`.execute(db);
    await sql`UPDATE plugins SET installs = installs + 1 WHERE id = ${plugin}`.execute(db);
  }
  for (const [tenant, plugin, stars] of [
    ['ten_a', COPYWRITER, 4],
    ['ten_a', SLACK, 5],
    ['ten_b', COPYWRITER, 2],
  ] as const) {
    await sql`INSERT INTO plugin_ratings (tenant_id, plugin_id, stars, comment, created, updated)
      VALUES (${tenant}, ${plugin}, ${stars}, NULL, ${T0}, ${T0})`.execute(db);
  }
}

for (const dialect of DIALECTS) {
  describe(`migration 0028: plugins become apps (${dialect})`, () => {
    it('keeps the copywriter installs as real AI Autowriter installations and drops the pretend catalog', async () => {
      const upgraded = await upgradeFrom(dialect, '0027_webhook_fairness', writeOldStore);
      try {
        const a = await upgraded.clientFor('ten_a', 'usr_ten_a');
        const b = await upgraded.clientFor('ten_b', 'usr_ten_b');
        const catalog = await a<Page<PluginObject>>('GET', '/v1/plugins?limit=100');
        assert.deepEqual(catalog.body.data.map((p) => p.slug).sort(), ['ai-autowriter', 'sold-out-hider']);
        const autowriter = catalog.body.data.find((p) => p.slug === 'ai-autowriter');
        assert.equal(autowriter?.id, COPYWRITER);
        // Real figures: one store has it installed; the two stores' ratings (4 and 2).
        assert.equal(autowriter?.installs, 1);
        assert.equal(autowriter?.rating_count, 2);
        assert.equal(autowriter?.rating, 3);
        assert.equal(autowriter?.installed, true);
        assert.equal(autowriter?.my_rating, 4);
        assert.match(autowriter?.installation?.id ?? '', /^ins_/);
        assert.deepEqual(autowriter?.installation?.granted_permissions, [
          'read:products',
          'write:products',
          'write:ai',
        ]);
        assert.equal((await a('GET', `/v1/plugins/${SLACK}`)).status, 404);
        const theirs = await b<Page<PluginObject>>('GET', '/v1/plugins?installed=true');
        assert.deepEqual(theirs.body.data, []);
        const { db } = upgraded.deps.store;
        const leftovers = await db.selectFrom('plugin_ratings').select('plugin_id').execute();
        assert.deepEqual(
          leftovers.map((r) => r.plugin_id),
          [COPYWRITER, COPYWRITER],
        );
        // Its app.installed waits for the app, which then works for the store.
        upgraded.deps.webhookWorker.start({ pollMs: 20 });
        await eventually(async () => {
          const rows = await db.selectFrom('app_runtime_tokens').select('tenant_id').execute();
          return rows.length === 1 && rows[0]?.tenant_id === 'ten_a';
        });
        const created = await a<{ id: string }>('POST', '/v1/products', {
          body: { name: 'Linen shirt', price: 4500, currency: 'USD', stock: 3 },
        });
        assert.equal(created.status, 201);
        const described = await eventually(async () => {
          const product = await a<{ description: string | null }>('GET', `/v1/products/${created.body.id}`);
          return product.body.description ?? undefined;
        });
        assert.match(described, /shirt/i);
        // The token was blanked from the delivered event.
        const events = await db
          .selectFrom('events')
          .select('data')
          .where('type', '=', 'app.installed')
          .execute();
        assert.equal(events.length, 1);
        assert.ok(!events[0]?.data.includes('sk_app_'));
      } finally {
        await upgraded.close();
      }
    });
  });
}

/**
 * Migration 0034 makes changes to a published plugin revisions: on a store of the previous release
 * that holds a published plugin and a store's installation of it, the installation has nothing
 * pending and keeps its token; the plugin's next change waits for the operator, and what it takes
 * away leaves the installation's token at approval.
 */
const PUBLISHED = 'plg_Rv8mQ2xT4bN6kP1sW3yZ5cD7';
const INSTALLATION = 'ins_Rv8mQ2xT4bN6kP1sW3yZ5cD7';
const APP_TOKEN = `sk_app_${'Rv8mQ2xT4bN6kP1sW3yZ5cD7'.padEnd(40, 'q')}`;

async function writeStoreWithInstallation(db: Db): Promise<void> {
  for (const tenant of ['ten_pub', 'ten_shop']) {
    await sql`INSERT INTO tenants (id, name, plan, currency, api_version, created, updated)
      VALUES (${tenant}, ${`Store ${tenant}`}, 'pro', 'USD', '2026-12-15', ${T0}, ${T0})`.execute(db);
    await sql`INSERT INTO users (id, tenant_id, email, name, role, password_hash, created, updated)
      VALUES (${`usr_${tenant}`}, ${tenant}, ${`${tenant}@example.com`}, 'Owner', 'owner', NULL, ${T0}, ${T0})`.execute(
      db,
    );
  }
  const permissions = JSON.stringify(['read:products', 'read:orders']);
  const events = JSON.stringify(['product.created']);
  await sql`INSERT INTO plugins (id, slug, name, description, category, author, permissions, events, installs,
      rating_sum, rating_count, owner_tenant_id, status, rejection_reason, webhook_url, homepage_url, secret, runtime,
      created, updated)
    VALUES (${PUBLISHED}, 'order-lens', 'Order Lens', 'Reads orders.', 'analytics', 'Store ten_pub', ${permissions},
      ${events}, 1, 0, 0, 'ten_pub', 'published', NULL, 'https://apps.example.com/hooks', NULL,
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwZ0vj1xDkQ8c=', NULL, ${T0}, ${T0})`.execute(db);
  await sql`INSERT INTO webhook_endpoints (id, tenant_id, url, events, description, status, secret, retired_secrets,
      api_version, last_triggered, failing_since, created, updated, plugin_id, installation_id)
    VALUES ('wh_orderlens', 'ten_shop', 'https://apps.example.com/hooks', ${events}, 'Order Lens (installed app)',
      'Active', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwZ0vj1xDkQ8c=', '[]', '2026-12-15', NULL, NULL, ${T0}, ${T0},
      ${PUBLISHED}, ${INSTALLATION})`.execute(db);
  await sql`INSERT INTO plugin_installations (id, tenant_id, plugin_id, user_id, permissions, events, token_hash,
      token_last4, endpoint_id, installed_at, uninstalled_at)
    VALUES (${INSTALLATION}, 'ten_shop', ${PUBLISHED}, 'usr_ten_shop', ${permissions}, ${events},
      ${hashKey(APP_TOKEN)}, ${APP_TOKEN.slice(-4)}, 'wh_orderlens', ${T0}, NULL)`.execute(db);
}

for (const dialect of DIALECTS) {
  describe(`migration 0034: plugin revisions (${dialect})`, () => {
    it('keeps published plugins and their installations as they were, and reviews their next change', async () => {
      const upgraded = await upgradeFrom(dialect, '0033_catalog_versions', writeStoreWithInstallation);
      try {
        const publisher = await upgraded.clientFor('ten_pub', 'usr_ten_pub');
        const shop = await upgraded.clientFor('ten_shop', 'usr_ten_shop');
        const app = client(upgraded.app, APP_TOKEN);
        const seen = await shop<PluginObject>('GET', `/v1/plugins/${PUBLISHED}`);
        assert.equal(seen.status, 200);
        assert.equal(seen.body.installation?.id, INSTALLATION);
        assert.deepEqual(seen.body.installation?.granted_permissions, ['read:products', 'read:orders']);
        assert.equal(seen.body.installation?.pending_permissions, null);
        const mine = await publisher<PluginObject>('GET', `/v1/plugins/${PUBLISHED}`);
        assert.equal(mine.body.pending_revision, null);
        assert.equal((await app('GET', '/v1/orders')).status, 200);

        const changed = await publisher<PluginObject>('PATCH', `/v1/plugins/${PUBLISHED}`, {
          body: { name: 'Order Lens Lite', permissions: ['read:products'] },
        });
        assert.equal(changed.status, 200);
        assert.equal(changed.body.name, 'Order Lens');
        assert.equal(changed.body.pending_revision?.status, 'pending');
        assert.equal((await app('GET', '/v1/orders')).status, 200);

        await upgraded.deps.plugins.review(PUBLISHED, { approve: true });
        assert.equal((await app('GET', '/v1/orders')).status, 403);
        assert.equal((await app('GET', '/v1/products')).status, 200);
        const after = await shop<PluginObject>('GET', `/v1/plugins/${PUBLISHED}`);
        assert.equal(after.body.name, 'Order Lens Lite');
        assert.deepEqual(after.body.installation?.granted_permissions, ['read:products']);
        assert.equal(after.body.installation?.pending_permissions, null);
      } finally {
        await upgraded.close();
      }
    });
  });
}
