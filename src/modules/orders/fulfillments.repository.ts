import type { Selectable } from 'kysely';
import type { Db } from '../../db/store.js';
import type { FulfillmentsTable, ReturnsTable, ReturnStatus } from './fulfillments.tables.js';

export type FulfillmentRow = Selectable<FulfillmentsTable>;
export type ReturnRow = Selectable<ReturnsTable>;

export async function insertFulfillment(db: Db, row: FulfillmentRow): Promise<void> {
  await db.insertInto('fulfillments').values(row).execute();
}

export async function findFulfillment(
  db: Db,
  tenantId: string,
  id: string,
): Promise<FulfillmentRow | undefined> {
  return db
    .selectFrom('fulfillments')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The orders' fulfilments, oldest first. */
export async function listFulfillments(db: Db, orderIds: readonly string[]): Promise<FulfillmentRow[]> {
  if (orderIds.length === 0) return [];
  return db
    .selectFrom('fulfillments')
    .selectAll()
    .where('order_id', 'in', [...orderIds])
    .orderBy('created')
    .orderBy('id')
    .execute();
}

export async function insertReturn(db: Db, row: ReturnRow): Promise<void> {
  await db.insertInto('returns').values(row).execute();
}

export async function findReturn(db: Db, tenantId: string, id: string): Promise<ReturnRow | undefined> {
  return db
    .selectFrom('returns')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The orders' returns, oldest first. */
export async function listReturns(db: Db, orderIds: readonly string[]): Promise<ReturnRow[]> {
  if (orderIds.length === 0) return [];
  return db
    .selectFrom('returns')
    .selectAll()
    .where('order_id', 'in', [...orderIds])
    .orderBy('created')
    .orderBy('id')
    .execute();
}

/** Moves a requested return on, once: false when it is no longer `requested`. */
export async function settleReturn(
  db: Db,
  id: string,
  changes: Partial<
    Pick<ReturnRow, 'status' | 'location_id' | 'restocked' | 'refund_id' | 'received_at' | 'cancelled_at'>
  > & {
    status: ReturnStatus;
  },
): Promise<boolean> {
  const result = await db
    .updateTable('returns')
    .set(changes)
    .where('id', '=', id)
    .where('status', '=', 'requested')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Ships `quantity` units of a line, if that many are left to fulfil (false otherwise). */
export async function fulfilUnits(
  db: Db,
  orderId: string,
  position: number,
  quantity: number,
): Promise<boolean> {
  const result = await db
    .updateTable('order_items')
    .set((eb) => ({ fulfilled_quantity: eb('fulfilled_quantity', '+', quantity) }))
    .where('order_id', '=', orderId)
    .where('position', '=', position)
    .where((eb) =>
      eb(
        eb(eb(eb.ref('fulfilled_quantity'), '+', eb.ref('released_quantity')), '+', quantity),
        '<=',
        eb.ref('quantity'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Adds `quantity` (negative: takes back) units of a line to its returns, within what was fulfilled. */
export async function returnUnits(
  db: Db,
  orderId: string,
  position: number,
  quantity: number,
): Promise<boolean> {
  const result = await db
    .updateTable('order_items')
    .set((eb) => ({ returned_quantity: eb('returned_quantity', '+', quantity) }))
    .where('order_id', '=', orderId)
    .where('position', '=', position)
    .where((eb) => eb(eb(eb.ref('returned_quantity'), '+', quantity), '<=', eb.ref('fulfilled_quantity')))
    .where((eb) => eb(eb(eb.ref('returned_quantity'), '+', quantity), '>=', 0))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Counts `quantity` units of a line as refunded before they shipped. */
export async function releaseUnits(
  db: Db,
  orderId: string,
  position: number,
  quantity: number,
): Promise<void> {
  await db
    .updateTable('order_items')
    .set((eb) => ({ released_quantity: eb('released_quantity', '+', quantity) }))
    .where('order_id', '=', orderId)
    .where('position', '=', position)
    .execute();
}
