import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { client, createTestContext, DIALECTS, type TestContext } from '../../../test/helpers/context.js';
import { seedDemoData } from '../../demo.js';
import { ManualClock } from '../../lib/clock.js';
import { DEMO_USAGE_DAYS, demoUsageRows } from './usage.demo.js';
import type { Usage } from './usage.schemas.js';

/**
 * The demo store's usage history: four weeks of metered calls written where the meter writes
 * them, so `GET /v1/usage` reports them (every period's days, the endpoints, the quota).
 */

for (const dialect of DIALECTS) {
  describe(`demo usage history (${dialect})`, { timeout: 120_000 }, () => {
    let ctx: TestContext;
    const clock = new ManualClock();

    before(async () => {
      clock.set('2026-11-21T10:00:00.000Z');
      ctx = await createTestContext(dialect, { clock });
    });
    after(() => ctx.close());

    it('gives the demo store four weeks of calls that /v1/usage reports, day by day', async () => {
      const demo = await seedDemoData(ctx.deps);
      assert.ok(demo, 'the demo store was made');
      const api = client(ctx.app, demo.api_key);
      const expected = demoUsageRows(demo.tenant_id, clock.now());

      const thirty = await api<Usage>('GET', '/v1/usage?period=30d');
      assert.equal(thirty.status, 200);
      assert.equal(thirty.body.days.length, 30);
      // Every one of the 28 days before today has calls, none before them; today only the real ones.
      const history = thirty.body.days.slice(30 - 1 - DEMO_USAGE_DAYS, 29);
      assert.equal(history.length, DEMO_USAGE_DAYS);
      assert.ok(
        history.every((day) => day.calls > 50),
        JSON.stringify(history.map((d) => d.calls)),
      );
      assert.equal(thirty.body.days[0]?.calls, 0);
      assert.equal(thirty.body.days.at(-1)?.calls, 0, 'nothing counted today before this call');
      // Weekdays are busier than weekends, and some calls failed.
      const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay();
      const weekend = history.filter((d) => [0, 6].includes(weekday(d.date)));
      const weekdays = history.filter((d) => ![0, 6].includes(weekday(d.date)));
      const mean = (list: typeof history) => list.reduce((sum, d) => sum + d.calls, 0) / list.length;
      assert.ok(mean(weekdays) > mean(weekend) * 1.5);
      assert.ok(thirty.body.total_errors > 0);
      // Exactly what was written, per day and per endpoint.
      for (const day of history) {
        const rows = expected.filter((row) => new Date(row.day).toISOString().startsWith(day.date));
        assert.equal(
          day.calls,
          rows.reduce((sum, row) => sum + row.calls, 0),
          day.date,
        );
      }
      const total = expected.reduce((sum, row) => sum + row.calls, 0);
      assert.equal(thirty.body.total_calls, total);
      assert.equal(thirty.body.top_endpoints[0]?.endpoint, 'GET /products');

      // The month's share counts against the quota, as metered calls do (1 more: the 30d call).
      const month = await api<Usage>('GET', '/v1/usage?period=month');
      const november = expected
        .filter((row) => row.day >= Date.parse('2026-11-01'))
        .reduce((sum, row) => sum + row.calls, 0);
      assert.equal(month.body.quota.used, november + 2);
      assert.equal(month.body.days.length, 21);
    });
  });
}
