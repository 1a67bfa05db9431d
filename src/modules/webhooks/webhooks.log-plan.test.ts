import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery } from 'kysely';
import { createTestContext, type TestContext } from '../../../test/helpers/context.js';
import { sentQueries } from '../../../test/helpers/queries.js';
import { encodeCursor } from '../../lib/paging.js';
import { listDeliveries, LOG_SORT } from './webhooks.deliveries.repository.js';

/**
 * An endpoint's delivery log is read in attempt-time order, `COALESCE(time, due_at)`, by the index
 * on that expression (migration 0030): a page walks its rows in order, never sorting the
 * endpoint's whole log (a million deliveries would be sorted for every page).
 */
describe('the delivery log reads its pages by the attempt-time index (sqlite)', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext('sqlite');
  });
  after(() => ctx.close());

  for (const [what, filter, cursor] of [
    ['the first page', {}, undefined],
    ['a page of one status', { status: 'failed' as const }, undefined],
    [
      'a page by cursor',
      {},
      encodeCursor({ sort: LOG_SORT, after: [1_700_000_000_000, 'del_x'], offset: 20 }),
    ],
  ] as const) {
    it(`${what}: by the index, with no sort`, async () => {
      const db = ctx.deps.store.db;
      const window = cursor
        ? {
            limit: 20,
            offset: 20,
            cursor: { sort: LOG_SORT, after: [1_700_000_000_000, 'del_x'] as [number, string], offset: 20 },
          }
        : { limit: 20, offset: 0, cursor: undefined };
      const queries = await sentQueries(db, (db) =>
        listDeliveries(db, 'ten_x', { endpointId: 'wh_x', ...filter }, window),
      );
      const page = queries[0];
      assert.ok(page);
      const plan = await db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`EXPLAIN QUERY PLAN ${page.sql}`, [...page.parameters]),
      );
      const details = plan.rows.map((row) => row.detail).join('\n');
      assert.match(details, /USING INDEX webhook_deliveries_log_idx/, details);
      assert.doesNotMatch(details, /TEMP B-TREE/, details);
    });
  }
});
