import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../db/store.js';
import { DIALECTS } from '../../../test/helpers/context.js';
import type { Page } from '../../../test/helpers/responses.js';
import { upgradeFrom } from '../../../test/helpers/upgrade.js';
import { eventually } from '../../../test/helpers/webhook-receiver.js';
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
