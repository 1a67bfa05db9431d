import { type ExpressionBuilder, sql } from 'kysely';
import type { Database, OrderItemsTable, OrderStatus, OrdersTable, PaymentsTable } from '../../db/schema.js';
import { countList } from '../../db/list-counts.js';
import { newestFirst } from '../../db/pagination.js';
import type { DialectName, Db } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';
import type { FulfillmentStatus, PaymentStatus } from './orders.schemas.js';

export type OrderRow = OrdersTable;
export type OrderItemRow = OrderItemsTable;

/**
 * Inserts an order, its lines and (an order paid as it is placed) its payment attempt. PostgreSQL:
 * one statement (the order and the payment as data-modifying WITH queries; their foreign keys are
 * checked at the end of the statement), one round trip instead of three.
 */
export async function insertOrder(
  db: Db,
  dialect: DialectName,
  row: OrderRow,
  items: OrderItemRow[],
  payment?: PaymentsTable,
): Promise<void> {
  if (dialect === 'postgres') {
    const withOrder = db.with('placed_order', (q) => q.insertInto('orders').values(row));
    if (payment) {
      await withOrder
        .with('placed_payment', (q) => q.insertInto('payments').values(payment))
        .insertInto('order_items')
        .values(items)
        .execute();
    } else {
      await withOrder.insertInto('order_items').values(items).execute();
    }
    return;
  }
  await db.insertInto('orders').values(row).execute();
  await db.insertInto('order_items').values(items).execute();
  if (payment) await db.insertInto('payments').values(payment).execute();
}

/** `lock` takes a row lock on PostgreSQL (SQLite's write transaction already excludes writers). */
export async function findOrder(
  db: Db,
  tenantId: string,
  id: string,
  lock = false,
): Promise<OrderRow | undefined> {
  let query = db.selectFrom('orders').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Line items of the given orders, in their original order. */
export async function findItems(db: Db, orderIds: readonly string[]): Promise<OrderItemRow[]> {
  if (orderIds.length === 0) return [];
  return db
    .selectFrom('order_items')
    .selectAll()
    .where('order_id', 'in', [...orderIds])
    .orderBy('order_id')
    .orderBy('position')
    .execute();
}

/**
 * Moves an order from exactly `from` to a new status with the given changes; false when another
 * writer changed its status first.
 */
export async function transitionOrder(
  db: Db,
  tenantId: string,
  id: string,
  from: OrderStatus,
  changes: Partial<Omit<OrderRow, 'id' | 'tenant_id' | 'created'>>,
): Promise<boolean> {
  const result = await db
    .updateTable('orders')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Pending orders whose store's `unpaid_order_expiry_minutes` (0: never) has run out on them and
 * whose payment is not in progress: an attempt still pending waits for its outcome (the stale
 * payment sweep settles it). Per store, `orders_tenant_status_idx` finds them.
 */
function expiredOrders(db: Db, now: number) {
  return db
    .selectFrom('orders as o')
    .innerJoin('tenants as t', 't.id', 'o.tenant_id')
    .where('t.unpaid_order_expiry_minutes', '>', 0)
    .where('o.status', '=', 'pending')
    .where(
      'o.created',
      '<=',
      // As bigint: 43,200 minutes in milliseconds overflow a PostgreSQL integer.
      sql<number>`${now} - CAST(t.unpaid_order_expiry_minutes AS BIGINT) * 60000`,
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('payments as p')
            .select('p.id')
            .whereRef('p.order_id', '=', 'o.id')
            .where('p.status', '=', 'pending'),
        ),
      ),
    );
}

/** The expired unpaid orders (see `expiredOrders`), oldest first. */
export async function findExpiredOrders(
  db: Db,
  now: number,
  limit: number,
): Promise<{ tenant_id: string; id: string }[]> {
  return expiredOrders(db, now)
    .select(['o.tenant_id', 'o.id'])
    .orderBy('o.created')
    .orderBy('o.id')
    .limit(limit)
    .execute();
}

/** Whether one order is (still) an expired unpaid order, read in the transaction that would expire it. */
export async function isExpired(db: Db, tenantId: string, id: string, now: number): Promise<boolean> {
  const row = await expiredOrders(db, now)
    .select('o.id')
    .where('o.tenant_id', '=', tenantId)
    .where('o.id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

export async function updateOrder(
  db: Db,
  tenantId: string,
  id: string,
  changes: Partial<Pick<OrderRow, 'payment_id' | 'updated' | 'fulfillment_count'>>,
): Promise<void> {
  await db
    .updateTable('orders')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

export interface OrderFilter {
  status?: OrderStatus | undefined;
  customerId?: string | undefined;
  customerEmail?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
  fulfillment?: FulfillmentStatus | undefined;
  payment?: PaymentStatus | undefined;
}

type OrderWhere = ExpressionBuilder<Database, 'orders'>;

/**
 * The list's `payment_status`: from `paid_at` (null: never paid), `refunded_amount` and `total`.
 * The conditions name their constants as literals, as the partial indexes of migration 0060 do
 * (`paid_at IS NULL`, `refunded_amount > 0`), so that SQLite's planner sees the index applies.
 */
function paymentIs(eb: OrderWhere, status: PaymentStatus) {
  if (status === 'unpaid') return eb('paid_at', 'is', null);
  const paid = eb('paid_at', 'is not', null);
  if (status === 'paid') return eb.and([paid, eb('refunded_amount', '=', sql.lit(0))]);
  const some = eb('refunded_amount', '>', sql.lit(0));
  const all = eb('refunded_amount', '>=', eb.ref('total'));
  return eb.and([paid, some, status === 'refunded' ? all : eb.not(all)]);
}

function filtered(db: Db, tenantId: string, filter: OrderFilter) {
  let query = db.selectFrom('orders').where('tenant_id', '=', tenantId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.customerId !== undefined) query = query.where('customer_id', '=', filter.customerId);
  if (filter.customerEmail !== undefined) query = query.where('customer_email', '=', filter.customerEmail);
  if (filter.from !== undefined) query = query.where('created', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('created', '<=', filter.to);
  const { fulfillment, payment } = filter;
  if (payment !== undefined) query = query.where((eb) => paymentIs(eb, payment));
  // Kept from the order's lines by migration 0060's trigger, as `fulfillmentStatusOf` reads them.
  if (fulfillment !== undefined) query = query.where('fulfillment_status', '=', fulfillment);
  return query;
}

/** Newest first, ties broken by id; a cursor seeks past (created, id). */
export async function listOrders(db: Db, tenantId: string, filter: OrderFilter, window: PageWindow) {
  return filtered(db, tenantId, filter).selectAll().$call(newestFirst(window)).execute();
}

/**
 * Exact total: the kept count of list `orders` (migration 0045: its triggers count orders by
 * status) for no filter or a status, a COUNT for the other filters.
 */
export async function countOrders(db: Db, tenantId: string, filter: OrderFilter): Promise<number> {
  if (
    filter.customerId === undefined &&
    filter.customerEmail === undefined &&
    filter.from === undefined &&
    filter.to === undefined &&
    filter.fulfillment === undefined &&
    filter.payment === undefined
  ) {
    return countList(
      db,
      tenantId,
      'orders',
      filter.status === undefined ? { except: [] } : { only: filter.status },
    );
  }
  const { n } = await filtered(db, tenantId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}
