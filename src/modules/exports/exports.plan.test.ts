import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../../../test/helpers/context.js';
import { variantsQuery } from './exports.repository.js';

/**
 * The export reads a page of products' variants by the (product_id, position) index. With a
 * `tenant_id` predicate SQLite chose the (tenant_id, sku_key) index instead and walked every variant
 * of the tenant for each page: exporting 1,000,000 variants did not finish in 5 minutes (14 s now).
 */
describe('export of products: the variants of a page are read by product (sqlite)', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext('sqlite');
  });
  after(() => ctx.close());

  it('uses the (product_id, position) index, and sorts nothing', async () => {
    const query = variantsQuery(ctx.deps.store.db, ['prod_a', 'prod_b', 'prod_c']).compile();
    const plan = await ctx.deps.store.db.executeQuery<{ detail: string }>({
      ...query,
      sql: `EXPLAIN QUERY PLAN ${query.sql}`,
    });
    const details = plan.rows.map((row) => row.detail).join('\n');
    assert.match(details, /USING INDEX product_variants_product_position_idx/, details);
    assert.doesNotMatch(details, /TEMP B-TREE/, details);
  });
});
