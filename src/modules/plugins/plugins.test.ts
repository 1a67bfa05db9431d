import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  client,
  createTenant,
  createTestContext,
  DIALECTS,
  type TestContext,
} from '../../../test/helpers/context.js';
import { type ServerProcess, SKIP_IN_UNIT_RUN, spawnServer } from '../../../test/helpers/process.js';
import type { Page } from '../../../test/helpers/responses.js';
import { PERMISSIONS } from '../../lib/permissions.js';
import { ManualClock } from '../../lib/clock.js';
import { EVENT_TYPES } from '../events/events.types.js';
import { PLUGIN_CATEGORIES, type PluginObject, type RatingObject } from './plugins.schemas.js';

type PluginPage = Page<PluginObject>;

const SLACK = 'slack-order-notifications';

/** The search semantics, written independently of the SQL: every word occurs in some field. */
function matches(plugin: PluginObject, q: string): boolean {
  const fields = [plugin.name, plugin.description, plugin.author, plugin.slug, plugin.category].map((f) =>
    f.toLowerCase(),
  );
  return q
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => fields.some((field) => field.includes(word)));
}

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The documented orders, with the id as the final tie-breaker. */
const EXPECTED_ORDER: Record<string, (a: PluginObject, b: PluginObject) => number> = {
  installs: (a, b) => b.installs - a.installs || byCodePoint(b.id, a.id),
  rating: (a, b) => b.rating - a.rating || b.rating_count - a.rating_count || byCodePoint(b.id, a.id),
  name: (a, b) => byCodePoint(a.name.toLowerCase(), b.name.toLowerCase()) || byCodePoint(a.id, b.id),
};

for (const dialect of DIALECTS) {
  describe(`plugin marketplace (${dialect})`, () => {
    let ctx: TestContext;
    const clock = new ManualClock();
    let keyA: string;
    let keyB: string;
    let tenantA: string;

    const api = (key: string) => client(ctx.app, key);
    const listAll = async (key: string, query = '') => {
      const res = await api(key)<PluginPage>('GET', `/v1/plugins?limit=100${query}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.has_more, false);
      return res.body;
    };
    const getPlugin = async (key: string, ref: string) => {
      const res = await api(key)<PluginObject>('GET', `/v1/plugins/${ref}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body;
    };
    const counters = async (pluginId: string) =>
      ctx.deps.store.db
        .selectFrom('plugins')
        .select(['installs', 'rating_sum', 'rating_count'])
        .where('id', '=', pluginId)
        .executeTakeFirstOrThrow();
    const keyWith = async (permissions: string[]) => {
      const res = await api(keyA)<{ key: string }>('POST', '/v1/api-keys', {
        body: { name: 'scoped', permissions },
      });
      assert.equal(res.status, 201);
      return res.body.key;
    };

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
      const a = await createTenant(ctx);
      tenantA = a.tenant.id;
      keyA = a.apiKey.key;
      keyB = (await createTenant(ctx)).apiKey.key;
    });
    after(() => ctx.close());

    it('seeds a realistic catalog whose fields, permissions and events are all valid', async () => {
      const { data, total } = await listAll(keyA);
      assert.ok(total >= 15, `only ${total} plugins`);
      assert.equal(data.length, total);
      assert.equal(new Set(data.map((p) => p.id)).size, total);
      assert.equal(new Set(data.map((p) => p.slug)).size, total);
      for (const plugin of data) {
        assert.match(plugin.id, /^plg_[0-9A-Za-z]{24}$/);
        assert.match(plugin.slug, /^[a-z0-9]+(-[a-z0-9]+)*$/);
        assert.ok(plugin.name.length > 0 && plugin.description.length > 40 && plugin.author.length > 0);
        assert.ok((PLUGIN_CATEGORIES as readonly string[]).includes(plugin.category), plugin.category);
        assert.ok(plugin.permissions.length > 0, `${plugin.slug} needs no permission`);
        for (const p of plugin.permissions) assert.ok((PERMISSIONS as readonly string[]).includes(p), p);
        for (const e of plugin.events) assert.ok((EVENT_TYPES as readonly string[]).includes(e), e);
        assert.ok(Number.isInteger(plugin.installs) && plugin.installs >= 0);
        assert.ok(plugin.rating >= 0 && plugin.rating <= 5);
        assert.equal(Math.round(plugin.rating * 10) / 10, plugin.rating, 'one decimal');
        assert.equal(plugin.installed, false);
        assert.equal(plugin.installation, null);
      }
      // Every category the filter accepts has plugins.
      assert.deepEqual([...new Set(data.map((p) => p.category))].sort(), [...PLUGIN_CATEGORIES].sort());
      // The rating is the stored average, rounded half up to one decimal.
      for (const plugin of data) {
        const { rating_sum, rating_count } = await counters(plugin.id);
        assert.equal(plugin.rating_count, rating_count);
        const expected = rating_count === 0 ? 0 : Math.round((rating_sum * 10) / rating_count) / 10;
        assert.equal(plugin.rating, expected, plugin.slug);
      }
    });

    it('searches name, description, author, slug and category; every word must match', async () => {
      const all = (await listAll(keyA)).data;
      const queries = [
        'slack',
        'SLACK',
        'Ledgerline',
        'stock alerts',
        'refund',
        'Order   Notifications',
        'inventory',
      ];
      // An empty `q` (an empty search box) filters nothing.
      for (const q of [...queries, 'zz-nothing', '%', '_', '100%', '']) {
        const found = await listAll(keyA, `&q=${encodeURIComponent(q)}`);
        const expected = all.filter((p) => matches(p, q)).map((p) => p.id);
        assert.deepEqual(
          found.data.map((p) => p.id),
          expected,
          `q=${q}`,
        );
        assert.equal(found.total, expected.length);
      }
      const ledgerline = await listAll(keyA, '&q=ledgerline');
      assert.deepEqual(ledgerline.data.map((p) => p.slug).sort(), [
        'payout-reconciliation',
        'quickbooks-online-export',
        'xero-accounting-sync',
      ]);
      assert.ok((await listAll(keyA, '&q=slack')).data.some((p) => p.slug === SLACK));
      assert.equal((await listAll(keyA, '&q=%25')).total, 0, 'LIKE wildcards are escaped');
      const tooLong = await api(keyA)('GET', `/v1/plugins?q=${'a'.repeat(101)}`);
      assert.equal(tooLong.status, 400);
      assert.equal(tooLong.body.code, 'validation_failed');
    });

    it('filters by category, alone and with a search', async () => {
      const all = (await listAll(keyA)).data;
      for (const category of PLUGIN_CATEGORIES) {
        const found = await listAll(keyA, `&category=${category}`);
        assert.ok(found.total > 0);
        assert.ok(found.data.every((p) => p.category === category));
        assert.equal(found.total, all.filter((p) => p.category === category).length);
      }
      const xero = await listAll(keyA, '&category=accounting&q=xero');
      assert.deepEqual(
        xero.data.map((p) => p.slug),
        ['xero-accounting-sync'],
      );
      assert.equal((await listAll(keyA, '&category=shipping&q=xero')).total, 0);
      const unknown = await api(keyA)('GET', '/v1/plugins?category=gardening');
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.code, 'validation_failed');
      assert.equal((unknown.body.errors as { field: string }[])[0]?.field, 'category');
      const stray = await api(keyA)('GET', '/v1/plugins?colour=blue');
      assert.equal(stray.status, 400);
    });

    it('sorts by installs (the default), rating and name, ties broken by id', async () => {
      const defaultOrder = (await listAll(keyA)).data;
      for (const sort of ['installs', 'rating', 'name']) {
        const { data } = await listAll(keyA, `&sort=${sort}`);
        assert.deepEqual(
          data.map((p) => p.slug),
          [...data].sort(EXPECTED_ORDER[sort]).map((p) => p.slug),
          `sort=${sort}`,
        );
        if (sort === 'installs') assert.deepEqual(data, defaultOrder);
      }
      const byRating = (await listAll(keyA, '&sort=rating')).data;
      assert.equal(byRating.at(-1)?.rating, 0, 'unrated plugins come last');
      const bad = await api(keyA)('GET', '/v1/plugins?sort=popular');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'validation_failed');
    });

    it('pages by offset, page and cursor over the same order, ties included', async () => {
      // Catalog rows come from migrations; these extra ones tie on every sort key but the id.
      const tied = Array.from({ length: 5 }, (_, i) => ({
        id: `plg_TieTieTieTieTieTieTieTi${i}`,
        slug: `tied-plugin-${i}`,
        name: i % 2 === 0 ? 'Tied Plugin' : 'tied plugin',
        description: 'A plugin that ties with its siblings on installs, rating and name.',
        category: 'analytics',
        author: 'Test Fixtures',
        permissions: '["read:analytics"]',
        events: '[]',
        installs: 1000,
        rating_sum: 9,
        rating_count: 2,
      }));
      await ctx.deps.store.db.insertInto('plugins').values(tied).execute();
      try {
        for (const sort of ['installs', 'rating', 'name']) {
          const full = (await listAll(keyA, `&sort=${sort}`)).data.map((p) => p.id);
          const tiedIds = full.filter((id) => id.startsWith('plg_TieTie'));
          const descending = sort !== 'name';
          assert.deepEqual(
            tiedIds,
            [...tiedIds].sort(descending ? (a, b) => byCodePoint(b, a) : byCodePoint),
          );

          const viaCursor: string[] = [];
          let cursor: string | null = null;
          let pages = 0;
          do {
            const query: string = cursor === null ? '' : `&cursor=${cursor}`;
            const res = await api(keyA)<PluginPage>('GET', `/v1/plugins?sort=${sort}&limit=4${query}`);
            assert.equal(res.status, 200, JSON.stringify(res.body));
            assert.equal(res.body.total, full.length);
            assert.equal(res.body.offset, pages * 4);
            assert.equal(res.body.page, pages + 1);
            viaCursor.push(...res.body.data.map((p) => p.id));
            assert.equal(res.body.has_more, res.body.next_cursor !== null);
            cursor = res.body.next_cursor;
            pages += 1;
          } while (cursor !== null);
          assert.deepEqual(viaCursor, full, `cursor walk, sort=${sort}`);

          const page3 = await api(keyA)<PluginPage>('GET', `/v1/plugins?sort=${sort}&limit=5&page=3`);
          assert.deepEqual(
            page3.body.data.map((p) => p.id),
            full.slice(10, 15),
          );
          const offset7 = await api(keyA)<PluginPage>('GET', `/v1/plugins?sort=${sort}&limit=5&offset=7`);
          assert.deepEqual(
            offset7.body.data.map((p) => p.id),
            full.slice(7, 12),
          );
          assert.equal(offset7.body.page, 2);
        }
        const first = await api(keyA)<PluginPage>('GET', '/v1/plugins?sort=rating&limit=2');
        const wrongSort = await api(keyA)('GET', `/v1/plugins?sort=name&cursor=${first.body.next_cursor}`);
        assert.equal(wrongSort.status, 400, 'a cursor only continues the sort it was made for');
        for (const query of ['limit=0', 'limit=101', 'offset=-1', 'page=0', 'cursor=garbage']) {
          assert.equal((await api(keyA)('GET', `/v1/plugins?${query}`)).status, 400, query);
        }
      } finally {
        await ctx.deps.store.db.deleteFrom('plugins').where('slug', 'like', 'tied-plugin-%').execute();
      }
    });

    it('gets one plugin by id or by slug; unknown ones are 404', async () => {
      const bySlug = await getPlugin(keyA, SLACK);
      assert.equal(bySlug.name, 'Slack Order Notifications');
      assert.deepEqual(await getPlugin(keyA, bySlug.id), bySlug);
      for (const ref of ['plg_000000000000000000000000', 'no-such-plugin', 'SLACK-ORDER-NOTIFICATIONS']) {
        for (const [method, url] of [
          ['GET', `/v1/plugins/${ref}`],
          ['POST', `/v1/plugins/${ref}/install`],
          ['DELETE', `/v1/plugins/${ref}/install`],
          ['POST', `/v1/plugins/${ref}/ratings`],
        ] as const) {
          const res = await api(keyA)(
            method,
            url,
            method === 'POST' ? { body: url.endsWith('ratings') ? { stars: 4 } : {} } : {},
          );
          assert.equal(res.status, 404, `${method} ${url}`);
          assert.equal(res.body.code, 'not_found');
        }
      }
      const tooLong = await api(keyA)('GET', `/v1/plugins/${'x'.repeat(65)}`);
      assert.equal(tooLong.status, 400);
    });

    it('installs once, records the grant, and uninstalls idempotently', async () => {
      const plugin = await getPlugin(keyA, 'shipstation-sync');
      const start = plugin.installs;

      const first = await api(keyA)<PluginObject>('POST', `/v1/plugins/${plugin.id}/install`);
      assert.equal(first.status, 201);
      assert.equal(first.body.installed, true);
      assert.equal(first.body.installs, start + 1);
      assert.deepEqual(first.body.installation, {
        installed_at: new Date(clock.now()).toISOString(),
        granted_permissions: plugin.permissions,
        granted_events: plugin.events,
      });
      const installedAt = first.body.installation?.installed_at;

      clock.advance(60_000);
      const again = await api(keyA)<PluginObject>('POST', `/v1/plugins/shipstation-sync/install`, {
        body: {},
      });
      assert.equal(again.status, 200, 'already installed');
      assert.equal(again.body.installs, start + 1, 'counted once');
      assert.equal(again.body.installation?.installed_at, installedAt, 'the original grant stands');
      assert.deepEqual(await getPlugin(keyA, plugin.id), again.body);
      assert.equal((await counters(plugin.id)).installs, start + 1);

      // The list shows it, and `installed=true|false` filters by it.
      const mine = await listAll(keyA, '&installed=true');
      assert.deepEqual(
        mine.data.map((p) => p.slug),
        ['shipstation-sync'],
      );
      assert.equal(mine.data[0]?.installation?.installed_at, installedAt);
      const notMine = await listAll(keyA, '&installed=false');
      assert.equal(notMine.total, (await listAll(keyA)).total - 1);
      assert.ok(notMine.data.every((p) => !p.installed && p.installation === null));

      const removed = await api(keyA)<PluginObject>('DELETE', `/v1/plugins/${plugin.id}/install`);
      assert.equal(removed.status, 200);
      assert.equal(removed.body.installed, false);
      assert.equal(removed.body.installation, null);
      assert.equal(removed.body.installs, start);
      const removedAgain = await api(keyA)<PluginObject>('DELETE', `/v1/plugins/shipstation-sync/install`);
      assert.equal(removedAgain.status, 200);
      assert.equal(removedAgain.body.installs, start, 'a second uninstall changes nothing');
      const grants = await ctx.deps.store.db
        .selectFrom('plugin_installations')
        .selectAll()
        .where('tenant_id', '=', tenantA)
        .execute();
      assert.deepEqual(grants, [], 'the grant is gone');

      const reinstalled = await api(keyA)<PluginObject>('POST', `/v1/plugins/${plugin.id}/install`);
      assert.equal(reinstalled.status, 201);
      assert.equal(reinstalled.body.installs, start + 1);
      assert.equal(reinstalled.body.installation?.installed_at, new Date(clock.now()).toISOString());
      await api(keyA)('DELETE', `/v1/plugins/${plugin.id}/install`);
    });

    it('replays an install sent with the same Idempotency-Key and rejects unknown body fields', async () => {
      const headers = { 'idempotency-key': 'install-ga4-once' };
      const first = await api(keyA)<PluginObject>('POST', '/v1/plugins/ga4-ecommerce-tracking/install', {
        headers,
      });
      assert.equal(first.status, 201);
      const replay = await api(keyA)<PluginObject>('POST', '/v1/plugins/ga4-ecommerce-tracking/install', {
        headers,
      });
      assert.equal(replay.status, 201);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.deepEqual(replay.body, first.body);
      const extra = await api(keyA)('POST', '/v1/plugins/ga4-ecommerce-tracking/install', {
        body: { permissions: ['read:orders'] },
      });
      assert.equal(extra.status, 400);
      assert.equal(extra.body.code, 'validation_failed');
      await api(keyA)('DELETE', '/v1/plugins/ga4-ecommerce-tracking/install');
    });

    it('refuses to grant a plugin permissions the calling key does not hold', async () => {
      const narrow = await keyWith(['read:plugins', 'write:plugins', 'read:orders']);
      const before = (await counters((await getPlugin(keyA, SLACK)).id)).installs;
      const refused = await api(narrow)('POST', `/v1/plugins/${SLACK}/install`);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'insufficient_permissions');
      assert.equal(refused.body.required_permission, 'read:products');
      const after = await getPlugin(keyA, SLACK);
      assert.equal(after.installed, false);
      assert.equal(after.installs, before);

      const enough = await keyWith(['read:plugins', 'write:plugins', 'read:orders', 'read:products']);
      const ok = await api(enough)<PluginObject>('POST', `/v1/plugins/${SLACK}/install`);
      assert.equal(ok.status, 201);
      assert.deepEqual(ok.body.installation?.granted_permissions, ['read:orders', 'read:products']);
      // Uninstalling grants nothing, so any write:plugins key may do it.
      const minimal = await keyWith(['write:plugins']);
      assert.equal((await api(minimal)('DELETE', `/v1/plugins/${SLACK}/install`)).status, 200);
      assert.equal((await getPlugin(keyA, SLACK)).installed, false);
    });

    it('keeps installations apart between tenants', async () => {
      const start = (await getPlugin(keyA, 'klaviyo-email-flows')).installs;
      assert.equal((await api(keyA)('POST', '/v1/plugins/klaviyo-email-flows/install')).status, 201);
      const seenByB = await getPlugin(keyB, 'klaviyo-email-flows');
      assert.equal(seenByB.installed, false);
      assert.equal(seenByB.installation, null);
      assert.equal(seenByB.installs, start + 1, 'the public counter includes every tenant');
      assert.equal((await listAll(keyB, '&installed=true')).total, 0);

      // B uninstalling leaves A's installation alone; B installing counts B once.
      const bRemoves = await api(keyB)<PluginObject>('DELETE', '/v1/plugins/klaviyo-email-flows/install');
      assert.equal(bRemoves.body.installs, start + 1);
      assert.equal((await getPlugin(keyA, 'klaviyo-email-flows')).installed, true);
      assert.equal((await api(keyB)('POST', '/v1/plugins/klaviyo-email-flows/install')).status, 201);
      assert.equal((await getPlugin(keyA, 'klaviyo-email-flows')).installs, start + 2);
      await api(keyA)('DELETE', '/v1/plugins/klaviyo-email-flows/install');
      await api(keyB)('DELETE', '/v1/plugins/klaviyo-email-flows/install');
      assert.equal((await getPlugin(keyA, 'klaviyo-email-flows')).installs, start);
    });

    it('counts concurrent installs from 30 tenants exactly, repeats included', async () => {
      const plugin = await getPlugin(keyA, 'loyalty-points');
      const tenants = await Promise.all(Array.from({ length: 30 }, () => createTenant(ctx)));
      const keys = tenants.map((t) => t.apiKey.key);
      // Every tenant installs three times, all 90 requests at once.
      const installs = await Promise.all(
        keys.flatMap((key) =>
          [1, 2, 3].map(() => api(key)<PluginObject>('POST', '/v1/plugins/loyalty-points/install')),
        ),
      );
      const statuses = installs.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 201).length, 30, String(statuses));
      assert.equal(statuses.filter((s) => s === 200).length, 60, String(statuses));
      assert.ok(installs.every((r) => r.body.installed));
      assert.equal((await counters(plugin.id)).installs, plugin.installs + 30);
      const rows = await ctx.deps.store.db
        .selectFrom('plugin_installations')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('plugin_id', '=', plugin.id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(rows.n), 30);

      // And concurrent uninstalls (twice each) take exactly those 30 back.
      const removals = await Promise.all(
        keys.flatMap((key) => [1, 2].map(() => api(key)('DELETE', '/v1/plugins/loyalty-points/install'))),
      );
      assert.ok(removals.every((r) => r.status === 200));
      assert.equal((await counters(plugin.id)).installs, plugin.installs);
    });

    it('averages ratings to one decimal, half up, with one rating per tenant', async () => {
      const plugin = await getPlugin(keyA, 'returns-portal');
      assert.equal(plugin.rating, 0);
      assert.equal(plugin.rating_count, 0);
      const raters = [
        keyA,
        keyB,
        ...(await Promise.all([1, 2, 3].map(() => createTenant(ctx)))).map((t) => t.apiKey.key),
      ];
      const rate = (key: string, body: unknown) =>
        api(key)<RatingObject>('POST', `/v1/plugins/${plugin.id}/ratings`, { body });
      const expectRating = async (rating: number, count: number) => {
        const seen = await getPlugin(keyB, 'returns-portal');
        assert.equal(seen.rating, rating);
        assert.equal(seen.rating_count, count);
      };

      const first = await rate(keyA, { stars: 5, comment: 'Returns dropped by half.' });
      assert.equal(first.status, 201);
      const created = new Date(clock.now()).toISOString();
      assert.deepEqual(first.body, {
        plugin_id: plugin.id,
        stars: 5,
        comment: 'Returns dropped by half.',
        created,
        updated: created,
      });
      await expectRating(5, 1);
      assert.equal((await rate(raters[1] ?? '', { stars: 4 })).status, 201);
      await expectRating(4.5, 2);
      await rate(raters[2] ?? '', { stars: 4 });
      await expectRating(4.3, 3); // 13 / 3 = 4.33
      await rate(raters[3] ?? '', { stars: 4 });
      await expectRating(4.3, 4); // 17 / 4 = 4.25 rounds half up
      await rate(raters[4] ?? '', { stars: 1 });
      await expectRating(3.6, 5); // 18 / 5

      // Re-rating replaces the tenant's rating: stars and comment, `created` kept.
      clock.advance(3_600_000);
      const replaced = await rate(keyA, { stars: 2 });
      assert.equal(replaced.status, 200);
      assert.deepEqual(replaced.body, {
        plugin_id: plugin.id,
        stars: 2,
        comment: null,
        created,
        updated: new Date(clock.now()).toISOString(),
      });
      await expectRating(3, 5); // 15 / 5
      assert.equal((await rate(keyA, { stars: 2 })).status, 200);
      await expectRating(3, 5);
      // B's rating is B's own: replacing it moves only B's share.
      await rate(keyB, { stars: 5, comment: 'Changed my mind.' });
      await expectRating(3.2, 5); // 16 / 5
      const { rating_sum, rating_count } = await counters(plugin.id);
      assert.deepEqual([rating_sum, rating_count], [16, 5]);
    });

    it('rejects stars outside 1..5 and malformed ratings without changing anything', async () => {
      const plugin = await getPlugin(keyA, 'discord-sales-feed');
      const bodies: unknown[] = [
        { stars: 0 },
        { stars: 6 },
        { stars: -1 },
        { stars: 4.5 },
        { stars: '5' },
        { stars: null },
        {},
        { stars: 5, comment: '' },
        { stars: 5, comment: ' \n\t ' },
        { stars: 5, comment: 'x'.repeat(2001) },
        { stars: 5, tenant_id: 'ten_x' },
      ];
      for (const body of bodies) {
        const res = await api(keyA)('POST', `/v1/plugins/${plugin.id}/ratings`, { body });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.code, 'validation_failed');
      }
      const zero = await api(keyA)('POST', `/v1/plugins/${plugin.id}/ratings`, { body: { stars: 0 } });
      assert.equal((zero.body.errors as { field: string }[])[0]?.field, 'stars');
      const blank = await api(keyA)('POST', `/v1/plugins/${plugin.id}/ratings`, {
        body: { stars: 5, comment: '   ' },
      });
      assert.deepEqual(blank.body.errors, [{ field: 'comment', message: 'must not be blank' }]);
      const after = await getPlugin(keyA, plugin.id);
      assert.equal(after.rating_count, plugin.rating_count);
      assert.equal(after.rating, plugin.rating);
    });

    it('keeps rating_sum and rating_count exact under concurrent ratings and re-ratings', async () => {
      const plugin = await getPlugin(keyA, 'demand-forecasting');
      const base = await counters(plugin.id);
      const keys = (await Promise.all(Array.from({ length: 20 }, () => createTenant(ctx)))).map(
        (t) => t.apiKey.key,
      );
      // Each tenant sends two different ratings at once; either may land last.
      const results = await Promise.all(
        keys.flatMap((key, i) =>
          [1 + (i % 5), 5 - (i % 5)].map((stars) =>
            api(key)('POST', `/v1/plugins/${plugin.id}/ratings`, { body: { stars } }),
          ),
        ),
      );
      const statuses = results.map((r) => r.status).sort();
      assert.equal(statuses.filter((s) => s === 201).length, 20, String(statuses));
      assert.equal(statuses.filter((s) => s === 200).length, 20, String(statuses));
      const rows = await ctx.deps.store.db
        .selectFrom('plugin_ratings')
        .select('stars')
        .where('plugin_id', '=', plugin.id)
        .execute();
      assert.equal(rows.length, 20);
      const now = await counters(plugin.id);
      assert.equal(now.rating_count, base.rating_count + 20);
      assert.equal(now.rating_sum, base.rating_sum + rows.reduce((sum, row) => sum + row.stars, 0));
    });
  });

  describe(`plugin installs across server processes (${dialect})`, { skip: SKIP_IN_UNIT_RUN }, () => {
    let ctx: TestContext;
    let servers: ServerProcess[] = [];

    before(async () => {
      ctx = await createTestContext(dialect);
      servers = await Promise.all([spawnServer(ctx.store.env), spawnServer(ctx.store.env)]);
    });
    after(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await ctx.close();
    });

    it('counts installs sent to two processes at once exactly', async () => {
      const [one, two] = servers;
      assert.ok(one && two);
      const keys = (await Promise.all(Array.from({ length: 20 }, () => createTenant(ctx)))).map(
        (t) => t.apiKey.key,
      );
      const plugin = await getVia(one.url, keys[0] ?? '', 'back-in-stock-alerts');
      const send = (url: string, key: string) =>
        fetch(`${url}/v1/plugins/back-in-stock-alerts/install`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}` },
        }).then((res) => res.status);
      const statuses = await Promise.all(keys.flatMap((key) => [send(one.url, key), send(two.url, key)]));
      assert.equal(statuses.filter((s) => s === 201).length, 20, String(statuses));
      assert.equal(statuses.filter((s) => s === 200).length, 20, String(statuses));
      const after = await getVia(two.url, keys[1] ?? '', 'back-in-stock-alerts');
      assert.equal(after.installs, plugin.installs + 20);
      assert.equal(after.installed, true);
    });
  });
}

async function getVia(url: string, key: string, ref: string): Promise<PluginObject> {
  const res = await fetch(`${url}/v1/plugins/${ref}`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(res.status, 200);
  return (await res.json()) as PluginObject;
}
