import type { Db } from '../../db/store.js';

/**
 * Erasure in the analytics rollups. They know customers by id (migration 0021), never by email:
 * the only personal datum they hold is the customer's name on its `customer` members (one per
 * currency), which goes. Every figure stays as it was, and so does every report total. On
 * PostgreSQL the tenant's currency rows are locked first, as every rollup write locks them, so no
 * order change renames the member meanwhile.
 */
export async function eraseAnalytics(
  trx: Db,
  erasure: { tenantId: string; customerId: string },
): Promise<void> {
  const { tenantId, customerId } = erasure;
  await trx
    .selectFrom('analytics_currencies')
    .select('currency')
    .where('tenant_id', '=', tenantId)
    .orderBy('currency')
    .forUpdate()
    .execute();
  await trx
    .updateTable('analytics_members')
    .set({ name: null, name_at: null })
    .where('tenant_id', '=', tenantId)
    .where('dimension', '=', 'customer')
    .where('member', '=', customerId)
    .execute();
}
