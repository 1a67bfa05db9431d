import type { OrdersTable, PaymentsTable } from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import { iso } from '../../lib/clock.js';

export type PaymentRow = PaymentsTable;

/** A payment as an event's `data.object` (`payment.received`, `payment.failed`). */
export interface PaymentObject {
  id: string;
  order_id: string;
  amount: number;
  currency: string;
  status: PaymentsTable['status'];
  method: string;
  provider: string;
  failure_code: string | null;
  failure_message: string | null;
  created: string;
  updated: string;
}

export function presentPayment(row: PaymentRow): PaymentObject {
  return {
    id: row.id,
    order_id: row.order_id,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    method: row.method,
    provider: row.provider,
    failure_code: row.failure_code,
    failure_message: row.failure_message,
    created: iso(row.created),
    updated: iso(row.updated),
  };
}

export async function insertPayment(db: Db, row: PaymentRow): Promise<void> {
  await db.insertInto('payments').values(row).execute();
}

export async function findPayment(db: Db, id: string): Promise<PaymentRow | undefined> {
  return db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findPayments(db: Db, ids: readonly string[]): Promise<PaymentRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('payments')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute();
}

/** The attempt still in flight for an order, if any (at most one: a unique partial index). */
export async function findPendingPayment(db: Db, orderId: string): Promise<PaymentRow | undefined> {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('order_id', '=', orderId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
}

/** Attempts still pending that started before `before`, oldest first (a partial index on `created`). */
export async function findStalePayments(db: Db, before: number, limit: number): Promise<PaymentRow[]> {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('status', '=', 'pending')
    .where('created', '<=', before)
    .orderBy('created')
    .limit(limit)
    .execute();
}

/** Moves a payment on from `from`; false when another writer moved it first. */
export async function updatePayment(
  db: Db,
  id: string,
  from: PaymentsTable['status'],
  changes: Partial<
    Pick<
      PaymentRow,
      'status' | 'failure_code' | 'failure_message' | 'provider_reference' | 'refund_due_at' | 'updated'
    >
  >,
): Promise<boolean> {
  const result = await db
    .updateTable('payments')
    .set(changes)
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * PostgreSQL: a payment's move from `pending` (to `succeeded`, with `changes`) and its order's from
 * `pending` (with `order`) in one statement, the order's only if the payment's happened; true when
 * both moved. The caller holds the order's row lock and read it pending.
 */
export async function settleWithOrder(
  db: Db,
  payment: { id: string; changes: Parameters<typeof updatePayment>[3] },
  order: { tenantId: string; id: string; changes: Partial<OrdersTable> },
): Promise<boolean> {
  const result = await db
    .with('moved', (q) =>
      q
        .updateTable('payments')
        .set(payment.changes)
        .where('id', '=', payment.id)
        .where('status', '=', 'pending')
        .returning('id'),
    )
    .updateTable('orders')
    .set(order.changes)
    .where('tenant_id', '=', order.tenantId)
    .where('id', '=', order.id)
    .where('status', '=', 'pending')
    .where((eb) => eb.exists(eb.selectFrom('moved').select('moved.id')))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Refunds the provider has not confirmed whose time to be sent (again) has come, oldest first. */
export async function findDueRefunds(db: Db, now: number, limit: number): Promise<PaymentRow[]> {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('refund_due_at', 'is not', null)
    .where('refund_due_at', '<=', now)
    .orderBy('refund_due_at')
    .limit(limit)
    .execute();
}

/**
 * Moves an owed refund's next try from `due` to `next`; false when another process took it first
 * (or the provider confirmed it meanwhile).
 */
export async function postponeRefund(db: Db, id: string, due: number, next: number): Promise<boolean> {
  const result = await db
    .updateTable('payments')
    .set({ refund_due_at: next })
    .where('id', '=', id)
    .where('refund_due_at', '=', due)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The provider confirmed the refund: nothing is owed any more. */
export async function refundConfirmed(db: Db, id: string, at: number): Promise<void> {
  await db.updateTable('payments').set({ refund_due_at: null, updated: at }).where('id', '=', id).execute();
}
