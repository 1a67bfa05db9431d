import type { RefundsTable } from '../../db/schema.js';
import type { Db } from '../../db/store.js';

/**
 * Refund rows, and the refund columns of the order and its lines (`orders.refunded_amount`,
 * `order_items.refunded_quantity`), which move only in a refund's transaction.
 */

export type RefundRow = RefundsTable;

export async function insertRefund(db: Db, row: RefundRow): Promise<void> {
  await db.insertInto('refunds').values(row).execute();
}

export async function findRefund(db: Db, tenantId: string, id: string): Promise<RefundRow | undefined> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The refunds of the given orders, each order's oldest first (the `refunds_order_idx` order). */
export async function listRefunds(db: Db, orderIds: readonly string[]): Promise<RefundRow[]> {
  if (orderIds.length === 0) return [];
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('order_id', 'in', [...orderIds])
    .orderBy('order_id')
    .orderBy('created')
    .orderBy('id')
    .execute();
}

/** Adds a refund's amount to its order; `restocked` marks the order as having given units back. */
export async function addToOrder(
  db: Db,
  tenantId: string,
  orderId: string,
  change: { amount: number; restocked: boolean; now: number },
): Promise<void> {
  await db
    .updateTable('orders')
    .set((eb) => ({
      refunded_amount: eb('refunded_amount', '+', change.amount),
      updated: change.now,
      ...(change.restocked ? { restocked: 1 } : {}),
    }))
    .where('tenant_id', '=', tenantId)
    .where('id', '=', orderId)
    .execute();
}

/**
 * Counts `quantity` more units of a line as refunded, never past the line's own quantity; false
 * when that would pass it (the caller's check, under the order's lock, makes that a bug).
 */
export async function refundUnits(
  db: Db,
  orderId: string,
  position: number,
  quantity: number,
): Promise<boolean> {
  const result = await db
    .updateTable('order_items')
    .set((eb) => ({ refunded_quantity: eb('refunded_quantity', '+', quantity) }))
    .where('order_id', '=', orderId)
    .where('position', '=', position)
    .where((eb) => eb(eb('refunded_quantity', '+', quantity), '<=', eb.ref('quantity')))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Refunds the provider has not confirmed whose time to be sent (again) has come, oldest first. */
export async function findDueRefunds(db: Db, now: number, limit: number): Promise<RefundRow[]> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('due_at', 'is not', null)
    .where('due_at', '<=', now)
    .orderBy('due_at')
    .limit(limit)
    .execute();
}

/**
 * Moves an owed refund's next try from `due` to `next`; false when another process took it first
 * (or the provider confirmed it meanwhile).
 */
export async function postponeRefund(db: Db, id: string, due: number, next: number): Promise<boolean> {
  const result = await db
    .updateTable('refunds')
    .set({ due_at: next })
    .where('id', '=', id)
    .where('due_at', '=', due)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The provider confirmed the refund: nothing is owed any more. */
export async function refundConfirmed(db: Db, id: string, reference: string): Promise<void> {
  await db
    .updateTable('refunds')
    .set({ due_at: null, provider_reference: reference })
    .where('id', '=', id)
    .execute();
}
