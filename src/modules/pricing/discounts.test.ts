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
import type { Page, Problem } from '../../../test/helpers/responses.js';
import { ManualClock } from '../../lib/clock.js';
import type { DiscountObject } from './discounts.schemas.js';
import { reserveUses } from './pricing.service.js';

const HOUR = 3_600_000;

async function rowCounts(ctx: TestContext): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ['discounts', 'events'] as const) {
    const { n } = await ctx.deps.store.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    counts[table] = Number(n);
  }
  return counts;
}

for (const dialect of DIALECTS) {
  describe(`discounts (${dialect})`, () => {
    const clock = new ManualClock();
    let ctx: TestContext;
    let api: Client;
    let other: Client;
    let tenantId: string;

    before(async () => {
      ctx = await createTestContext(dialect, { clock });
      const tenant = await createTenant(ctx);
      tenantId = tenant.tenant.id;
      api = client(ctx.app, tenant.apiKey.key);
      other = client(ctx.app, (await createTenant(ctx)).apiKey.key);
    });
    after(() => ctx.close());

    const create = async (body: Record<string, unknown>, as: Client = api) => {
      const res = await as<DiscountObject>('POST', '/v1/discounts', { body });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };

    it('creates, reads, changes and deletes a discount, with an event for each change', async () => {
      const starts = new Date(clock.now() + HOUR).toISOString();
      const ends = new Date(clock.now() + 48 * HOUR).toISOString();
      const summer = await create({
        code: 'Summer-10',
        type: 'percentage',
        value: 1000,
        applies_to: { categories: ['shoes'] },
        minimum_subtotal: 5000,
        starts_at: starts,
        ends_at: ends,
        usage_limit: 100,
        usage_limit_per_customer: 1,
      });
      assert.match(summer.id, /^dsc_[0-9A-Za-z]{24}$/);
      const now = new Date(clock.now()).toISOString();
      assert.deepEqual(summer, {
        id: summer.id,
        code: 'Summer-10',
        automatic: false,
        type: 'percentage',
        value: 1000,
        currency: null,
        applies_to: { categories: ['shoes'] },
        minimum_subtotal: 5000,
        starts_at: starts,
        ends_at: ends,
        usage_limit: 100,
        usage_limit_per_customer: 1,
        times_used: 0,
        combinable: false,
        enabled: true,
        status: 'scheduled',
        created: now,
        updated: now,
        livemode: true,
      });
      assert.deepEqual((await api('GET', `/v1/discounts/${summer.id}`)).body, summer);
      assert.equal((await other('GET', `/v1/discounts/${summer.id}`)).status, 404);
      assert.equal(
        (await other('PATCH', `/v1/discounts/${summer.id}`, { body: { enabled: false } })).status,
        404,
      );
      assert.equal((await other('DELETE', `/v1/discounts/${summer.id}`)).status, 404);

      clock.advance(2 * HOUR);
      const patched = await api<DiscountObject>('PATCH', `/v1/discounts/${summer.id}`, {
        body: { value: 1500, combinable: true, applies_to: null },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.deepEqual(
        [patched.body.value, patched.body.combinable, patched.body.applies_to, patched.body.status],
        [1500, true, null, 'active'],
      );
      assert.equal(patched.body.updated, new Date(clock.now()).toISOString());
      assert.equal(patched.body.created, summer.created);
      // Nothing changed: no write, no event.
      const before = await rowCounts(ctx);
      const same = await api<DiscountObject>('PATCH', `/v1/discounts/${summer.id}`, {
        body: { value: 1500 },
      });
      assert.equal(same.body.updated, patched.body.updated);
      assert.deepEqual(await rowCounts(ctx), before);

      clock.advance(1000);
      assert.equal((await api('DELETE', `/v1/discounts/${summer.id}`)).status, 204);
      assert.equal((await api('GET', `/v1/discounts/${summer.id}`)).status, 404);
      const events = (
        await api<Page<{ type: string; data: { object: DiscountObject } }>>('GET', '/v1/events?limit=100')
      ).body.data.filter((e) => e.data.object.id === summer.id);
      assert.deepEqual(
        events.map((e) => e.type),
        ['discount.deleted', 'discount.updated', 'discount.created'],
      );
      assert.equal(events[1]?.data.object.value, 1500);
    });

    it('keeps codes unique per tenant, case-insensitively, as given', async () => {
      const welcome = await create({ code: 'welcome', type: 'fixed_amount', value: 500, currency: 'USD' });
      assert.equal(welcome.code, 'welcome');
      const twin = await api<Problem>('POST', '/v1/discounts', {
        body: { code: 'WELCOME', type: 'free_shipping' },
      });
      assert.deepEqual([twin.status, twin.body.code], [409, 'duplicate_code']);
      assert.match(twin.body.detail, /WELCOME/);
      const second = await create({ code: 'HELLO_2', type: 'free_shipping' });
      const clash = await api<Problem>('PATCH', `/v1/discounts/${second.id}`, { body: { code: 'Welcome' } });
      assert.deepEqual([clash.status, clash.body.code], [409, 'duplicate_code']);
      // Its own code in another case is no clash; another tenant may use the code.
      const recased = await api<DiscountObject>('PATCH', `/v1/discounts/${second.id}`, {
        body: { code: 'hello_2' },
      });
      assert.deepEqual([recased.status, recased.body.code], [200, 'hello_2']);
      await create({ code: 'WELCOME', type: 'free_shipping' }, other);
      // Concurrent creates of one code: exactly one.
      const racers = await Promise.all(
        ['race-x', 'RACE-X', 'Race-X', 'race-X'].map((code) =>
          api<Problem>('POST', '/v1/discounts', { body: { code, type: 'free_shipping' } }),
        ),
      );
      assert.deepEqual(racers.map((r) => r.status).sort(), [201, 409, 409, 409]);
      for (const r of racers.filter((r) => r.status === 409)) assert.equal(r.body.code, 'duplicate_code');
    });

    it('refuses bad input naming each field, and writes nothing', async () => {
      const before = await rowCounts(ctx);
      const at = (hours: number) => new Date(clock.now() + hours * HOUR).toISOString();
      const cases: [Record<string, unknown>, string][] = [
        [{ code: 'AB', type: 'free_shipping' }, 'code'],
        [{ code: 'has space', type: 'free_shipping' }, 'code'],
        [{ code: 'x'.repeat(65), type: 'free_shipping' }, 'code'],
        [{ code: 'CAFÉ', type: 'free_shipping' }, 'code'],
        [{ type: 'free_shipping' }, 'code'],
        [{ code: 'BOTH', automatic: true, type: 'free_shipping' }, 'automatic'],
        [{ automatic: false, type: 'free_shipping' }, 'code'],
        [{ code: 'PCT0', type: 'percentage', value: 0 }, 'value'],
        [{ code: 'PCT1', type: 'percentage', value: 10_001 }, 'value'],
        [{ code: 'PCT2', type: 'percentage' }, 'value'],
        [{ code: 'FIX1', type: 'fixed_amount', value: 500 }, 'currency'],
        [{ code: 'FIX2', type: 'fixed_amount', value: 0, currency: 'USD' }, 'value'],
        [{ code: 'FIX3', type: 'fixed_amount', value: 500, currency: 'usd' }, 'currency'],
        [{ code: 'FIX4', type: 'fixed_amount', value: 500, currency: 'XYZ' }, 'currency'],
        [{ code: 'SHIP1', type: 'free_shipping', value: 100 }, 'value'],
        [{ code: 'SHIP2', type: 'free_shipping', applies_to: { categories: ['x'] } }, 'applies_to'],
        [{ code: 'WIN1', type: 'free_shipping', starts_at: at(2), ends_at: at(1) }, 'ends_at'],
        [{ code: 'WIN2', type: 'free_shipping', starts_at: at(1), ends_at: at(1) }, 'ends_at'],
        [{ code: 'WIN3', type: 'free_shipping', starts_at: 'tomorrow' }, 'starts_at'],
        [{ code: 'LIM1', type: 'free_shipping', usage_limit: 0 }, 'usage_limit'],
        [{ code: 'LIM2', type: 'free_shipping', usage_limit_per_customer: 0 }, 'usage_limit_per_customer'],
        [{ code: 'MIN1', type: 'free_shipping', minimum_subtotal: -1 }, 'minimum_subtotal'],
        [{ code: 'TGT1', type: 'percentage', value: 5, applies_to: {} }, 'applies_to'],
        [
          { code: 'TGT2', type: 'percentage', value: 5, applies_to: { colours: ['red'] } },
          'applies_to.colours',
        ],
        [{ code: 'TYP1', type: 'bogo', value: 5 }, 'type'],
        [{ code: 'EXTRA', type: 'free_shipping', colour: 'red' }, 'colour'],
      ];
      for (const [body, field] of cases) {
        const res = await api<Problem>('POST', '/v1/discounts', { body });
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'validation_failed');
        assert.ok(
          res.body.errors?.some((e) => e.field === field),
          `${field}: ${JSON.stringify(res.body.errors)}`,
        );
      }
      // A change is checked merged with the discount it changes.
      const fixed = await create({ code: 'MERGE', type: 'fixed_amount', value: 500, currency: 'EUR' });
      const mid = await rowCounts(ctx);
      for (const [body, field] of [
        [{ currency: null }, 'currency'],
        [{ type: 'percentage', value: 20_000 }, 'value'],
        [{ automatic: true }, 'automatic'],
        [{ code: null }, 'code'],
        [{ ends_at: at(1), starts_at: at(3) }, 'ends_at'],
        [{}, ''],
      ] as const) {
        const res = await api<Problem>('PATCH', `/v1/discounts/${fixed.id}`, { body });
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        if (field !== '')
          assert.ok(
            res.body.errors?.some((e) => e.field === field),
            JSON.stringify(res.body),
          );
      }
      assert.deepEqual(await rowCounts(ctx), mid);
      assert.deepEqual(await rowCounts(ctx), {
        ...before,
        discounts: before.discounts + 1,
        events: before.events + 1,
      });
      // Becoming automatic means giving up the code; free shipping sets the value to 0.
      const auto = await api<DiscountObject>('PATCH', `/v1/discounts/${fixed.id}`, {
        body: { code: null, automatic: true, type: 'free_shipping' },
      });
      assert.equal(auto.status, 200, JSON.stringify(auto.body));
      assert.deepEqual([auto.body.code, auto.body.automatic, auto.body.value], [null, true, 0]);
    });

    it('shows each status, and lists by status, code and kind, newest first', async () => {
      const fresh = await createTenant(ctx);
      const mine = client(ctx.app, fresh.apiKey.key);
      const make = async (body: Record<string, unknown>) => {
        clock.advance(1000);
        const res = await mine<DiscountObject>('POST', '/v1/discounts', {
          body: { type: 'free_shipping', ...body },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body;
      };
      const at = (hours: number) => new Date(clock.now() + hours * HOUR).toISOString();
      const active = await make({ code: 'ACTIVE', usage_limit: 2 });
      const scheduled = await make({ code: 'SOON', starts_at: at(1) });
      const expiring = await make({ code: 'ENDING', ends_at: at(1) });
      const disabled = await make({ code: 'OFF', enabled: false, ends_at: at(0.5) });
      const automatic = await make({ automatic: true });
      // Two uses of ACTIVE exhaust it.
      for (const customer of ['cus_a', 'cus_b']) {
        await ctx.deps.store.transaction((trx) =>
          reserveUses(trx, fresh.tenant.id, [active.id], customer, clock.now()),
        );
      }
      clock.advance(HOUR);
      const status = async (id: string) => (await mine<DiscountObject>('GET', `/v1/discounts/${id}`)).body;
      assert.deepEqual(
        [
          [(await status(active.id)).status, (await status(active.id)).times_used],
          (await status(scheduled.id)).status,
          (await status(expiring.id)).status,
          (await status(disabled.id)).status,
          (await status(automatic.id)).status,
        ],
        [['exhausted', 2], 'active', 'expired', 'disabled', 'active'],
      );
      const list = async (query: string) => {
        const res = await mine<Page<DiscountObject>>('GET', `/v1/discounts${query}`);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return [res.body.total, res.body.data.map((d) => d.id)];
      };
      assert.deepEqual(await list(''), [
        5,
        [automatic.id, disabled.id, expiring.id, scheduled.id, active.id],
      ]);
      assert.deepEqual(await list('?status=active'), [2, [automatic.id, scheduled.id]]);
      assert.deepEqual(await list('?status=exhausted'), [1, [active.id]]);
      assert.deepEqual(await list('?status=expired'), [1, [expiring.id]]);
      assert.deepEqual(await list('?status=disabled'), [1, [disabled.id]]);
      assert.deepEqual(await list('?status=scheduled'), [0, []]);
      assert.deepEqual(await list('?code=ending'), [1, [expiring.id]]);
      assert.deepEqual(await list('?automatic=true'), [1, [automatic.id]]);
      assert.deepEqual(await list('?automatic=false&status=active'), [1, [scheduled.id]]);
      // Cursor paging walks them all once.
      const seen: string[] = [];
      let page = await mine<Page<DiscountObject>>('GET', '/v1/discounts?limit=2');
      for (;;) {
        seen.push(...page.body.data.map((d) => d.id));
        if (page.body.next_cursor === null) break;
        page = await mine<Page<DiscountObject>>(
          'GET',
          `/v1/discounts?limit=2&cursor=${page.body.next_cursor}`,
        );
      }
      assert.deepEqual(seen, [automatic.id, disabled.id, expiring.id, scheduled.id, active.id]);
      assert.equal((await mine<Problem>('GET', '/v1/discounts?status=gone')).status, 400);
    });

    it('needs read:pricing to read and write:pricing to change', async () => {
      const keyWith = async (permissions: string[]) => {
        const res = await api<{ key: string }>('POST', '/v1/api-keys', {
          body: { name: 'narrow', permissions },
        });
        assert.equal(res.status, 201);
        return client(ctx.app, res.body.key);
      };
      const reader = await keyWith(['read:pricing']);
      const target = await create({ code: 'PERMS', type: 'free_shipping' });
      assert.equal((await reader('GET', `/v1/discounts/${target.id}`)).status, 200);
      assert.equal((await reader('GET', '/v1/discounts')).status, 200);
      for (const [method, url, body] of [
        ['POST', '/v1/discounts', { code: 'NOPE', type: 'free_shipping' }],
        ['PATCH', `/v1/discounts/${target.id}`, { enabled: false }],
        ['DELETE', `/v1/discounts/${target.id}`, undefined],
      ] as const) {
        const res = await reader<Problem>(method, url, body === undefined ? {} : { body });
        assert.deepEqual(
          [res.status, res.body.required_permission],
          [403, 'write:pricing'],
          `${method} ${url}`,
        );
      }
      const writerOnly = await keyWith(['write:pricing']);
      const res = await writerOnly<Problem>('GET', '/v1/discounts');
      assert.deepEqual([res.status, res.body.required_permission], [403, 'read:pricing']);
      assert.equal((await api('GET', `/v1/discounts/${target.id}`)).status, 200);
      assert.ok(tenantId.startsWith('ten_'));
    });
  });
}
