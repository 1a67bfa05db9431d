import type { Expression, ExpressionBuilder, Selectable, SqlBool } from 'kysely';
import { newestFirst } from '../../db/pagination.js';
import type { Database, DiscountsTable } from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';
import { type DiscountStatus, discountCodeKey } from './pricing.rules.js';

/** A discount as stored. */
export type DiscountRow = Selectable<DiscountsTable>;

export async function insertDiscount(db: Db, row: DiscountRow): Promise<void> {
  await db.insertInto('discounts').values(row).execute();
}

/** `lock` takes a row lock on PostgreSQL (SQLite's write transaction already excludes writers). */
export async function findDiscount(
  db: Db,
  tenantId: string,
  id: string,
  lock = false,
): Promise<DiscountRow | undefined> {
  let query = db.selectFrom('discounts').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function findByCodeKey(
  db: Db,
  tenantId: string,
  codeKey: string,
): Promise<DiscountRow | undefined> {
  return db
    .selectFrom('discounts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('code_key', '=', codeKey)
    .executeTakeFirst();
}

/** The discounts whose code is one of `codeKeys` (upper-cased). */
export async function findByCodeKeys(
  db: Db,
  tenantId: string,
  codeKeys: readonly string[],
): Promise<DiscountRow[]> {
  if (codeKeys.length === 0) return [];
  return db
    .selectFrom('discounts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('code_key', 'in', [...new Set(codeKeys)])
    .execute();
}

/** The tenant's enabled automatic discounts, oldest first (`discounts_tenant_automatic_idx`). */
export async function findEnabledAutomatic(db: Db, tenantId: string): Promise<DiscountRow[]> {
  return db
    .selectFrom('discounts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('automatic', '=', 1)
    .where('enabled', '=', 1)
    .orderBy('created')
    .orderBy('id')
    .execute();
}

export async function updateDiscount(
  db: Db,
  tenantId: string,
  id: string,
  changes: Partial<Omit<DiscountRow, 'id' | 'tenant_id' | 'created' | 'times_used'>>,
): Promise<void> {
  await db
    .updateTable('discounts')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

export async function deleteDiscount(db: Db, tenantId: string, id: string): Promise<void> {
  await db
    .deleteFrom('discount_customer_uses')
    .where('tenant_id', '=', tenantId)
    .where('discount_id', '=', id)
    .execute();
  await db.deleteFrom('discounts').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
}

export interface DiscountFilter {
  /** Matched case-insensitively, whole. */
  code?: string | undefined;
  automatic?: boolean | undefined;
  status?: DiscountStatus | undefined;
  /** The instant `status` is judged at. */
  now: number;
}

/**
 * The SQL form of a status, as `discountStatus` (discounts.service.ts) decides it: disabled, then
 * expired, then scheduled, then exhausted, else active.
 */
function statusIs(status: DiscountStatus, now: number) {
  return (eb: ExpressionBuilder<Database, 'discounts'>) => {
    const ladder: [DiscountStatus, Expression<SqlBool>][] = [
      ['disabled', eb('enabled', '=', 0)],
      ['expired', eb.and([eb('ends_at', 'is not', null), eb('ends_at', '<=', now)])],
      ['scheduled', eb.and([eb('starts_at', 'is not', null), eb('starts_at', '>', now)])],
      [
        'exhausted',
        eb.and([eb('usage_limit', 'is not', null), eb('times_used', '>=', eb.ref('usage_limit'))]),
      ],
    ];
    const at = ladder.findIndex(([name]) => name === status);
    // A status holds when its own condition does and none of those ranked before it; active: none.
    const earlier = (at === -1 ? ladder : ladder.slice(0, at)).map(([, condition]) => eb.not(condition));
    return eb.and(
      at === -1 ? earlier : [...earlier, (ladder[at] as [DiscountStatus, Expression<SqlBool>])[1]],
    );
  };
}

function filtered(db: Db, tenantId: string, filter: DiscountFilter) {
  let query = db.selectFrom('discounts').where('tenant_id', '=', tenantId);
  if (filter.code !== undefined) query = query.where('code_key', '=', discountCodeKey(filter.code));
  if (filter.automatic !== undefined) query = query.where('automatic', '=', filter.automatic ? 1 : 0);
  if (filter.status !== undefined) query = query.where(statusIs(filter.status, filter.now));
  return query;
}

/** One page, newest first, `limit + 1` rows. */
export async function listDiscounts(
  db: Db,
  tenantId: string,
  filter: DiscountFilter,
  window: PageWindow,
): Promise<DiscountRow[]> {
  return filtered(db, tenantId, filter).selectAll().$call(newestFirst(window)).execute();
}

export async function countDiscounts(db: Db, tenantId: string, filter: DiscountFilter): Promise<number> {
  const { n } = await filtered(db, tenantId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}

/**
 * Counts one more order holding the discount, if it is still usable at `now`: enabled, within its
 * time window and under its limit. The conditions are re-checked by the UPDATE on the row as it
 * is when the update runs (on PostgreSQL a concurrent update of the row is waited for and the
 * conditions are judged on its result), so two orders can never both take the last use.
 * True when this call took a use.
 */
/**
 * Takes one use of the discount while it is enabled, current and under its limit; returns its
 * per-customer limit as it is then (`{ limit: null }` without one), or undefined when it took none.
 */
export async function takeUse(
  db: Db,
  tenantId: string,
  id: string,
  now: number,
): Promise<{ limit: number | null } | undefined> {
  const row = await db
    .updateTable('discounts')
    .set((eb) => ({ times_used: eb('times_used', '+', 1) }))
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('enabled', '=', 1)
    .where((eb) => eb.or([eb('starts_at', 'is', null), eb('starts_at', '<=', now)]))
    .where((eb) => eb.or([eb('ends_at', 'is', null), eb('ends_at', '>', now)]))
    .where((eb) => eb.or([eb('usage_limit', 'is', null), eb('times_used', '<', eb.ref('usage_limit'))]))
    .returning('usage_limit_per_customer')
    .executeTakeFirst();
  return row && { limit: row.usage_limit_per_customer };
}

/**
 * Counts one more order of `customerId` holding the discount, while under `limit` (null: no
 * limit, the uses are still counted so a limit set later applies to them). The upsert's condition
 * is judged on the row as it is when the upsert runs: a concurrent first use by the same customer
 * waits for the other and then updates its row. True when this call took a use.
 */
export async function takeCustomerUse(
  db: Db,
  tenantId: string,
  discountId: string,
  customerId: string,
  limit: number | null,
): Promise<boolean> {
  const result = await db
    .insertInto('discount_customer_uses')
    .values({ discount_id: discountId, customer_id: customerId, tenant_id: tenantId, uses: 1 })
    .onConflict((oc) => {
      const update = oc
        .columns(['discount_id', 'customer_id'])
        .doUpdateSet((eb) => ({ uses: eb('discount_customer_uses.uses', '+', 1) }));
      return limit === null ? update : update.where('discount_customer_uses.uses', '<', limit);
    })
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Gives one use back, never below 0. */
export async function giveUseBack(db: Db, tenantId: string, id: string): Promise<void> {
  await db
    .updateTable('discounts')
    .set((eb) => ({ times_used: eb('times_used', '-', 1) }))
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('times_used', '>', 0)
    .execute();
}

/** Gives one of a customer's uses back, never below 0. */
export async function giveCustomerUseBack(
  db: Db,
  tenantId: string,
  discountId: string,
  customerId: string,
): Promise<void> {
  await db
    .updateTable('discount_customer_uses')
    .set((eb) => ({ uses: eb('uses', '-', 1) }))
    .where('tenant_id', '=', tenantId)
    .where('discount_id', '=', discountId)
    .where('customer_id', '=', customerId)
    .where('uses', '>', 0)
    .execute();
}

/** A customer's uses of each of `discountIds` (absent: none). */
export async function customerUses(
  db: Db,
  tenantId: string,
  customerId: string,
  discountIds: readonly string[],
): Promise<Map<string, number>> {
  if (discountIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('discount_customer_uses')
    .select(['discount_id', 'uses'])
    .where('tenant_id', '=', tenantId)
    .where('customer_id', '=', customerId)
    .where('discount_id', 'in', [...new Set(discountIds)])
    .execute();
  return new Map(rows.map((row) => [row.discount_id, Number(row.uses)]));
}
