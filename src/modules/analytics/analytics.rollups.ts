import type { EventsTable, OrderStatus } from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import type { Logger } from '../../lib/logger.js';
import type { EmitListener } from '../events/events.service.js';
import type { OrderObject } from '../orders/orders.schemas.js';
import { dayOf } from './analytics.periods.js';
import * as repo from './analytics.repository.js';

/**
 * Keeps the analytics rollups in the transaction of every order change: the order events are
 * emitted inside that transaction (transactional outbox) and this listener runs there too, so a
 * change and its rollups commit together or not at all. Figures are placed by the business
 * instants inside the event's order (`created`, `paid_at`, `refunded_at`, `cancelled_at`), never
 * by when the event was written.
 *
 * - Orders: counted on the UTC day they were created, with their current status (moved from the
 *   old status to the new one on every transition) and, once captured, as paid orders.
 * - Money: a capture (`order.paid`) adds the order's total and units on the day of `paid_at`; the
 *   refund of a captured order (`order.refunded`, or `order.cancelled` after payment) takes them
 *   off again on the day it happened. The same deltas go to every product and category of the
 *   order's lines (running totals) and to the customer's day.
 * - Customers: a customer's first order of a day adds a point (day, previous order day) to the
 *   reach table, which answers "distinct customers in a range" with one seek per day.
 *
 * A payment captured after its order was cancelled (a race the orders module settles by returning
 * the money at once, without an order event) never paid for an order and is not counted.
 */

const CAPTURED: readonly OrderStatus[] = ['paid', 'shipped', 'delivered'];

const TRANSITION_TO: Readonly<Record<string, OrderStatus>> = {
  'order.paid': 'paid',
  'order.shipped': 'shipped',
  'order.delivered': 'delivered',
  'order.cancelled': 'cancelled',
  'order.refunded': 'refunded',
};

function instant(value: string | null, what: string, order: OrderObject): number {
  const at = value === null ? Number.NaN : Date.parse(value);
  if (Number.isNaN(at)) throw new Error(`order ${order.id}: event without a valid ${what}`);
  return at;
}

async function created(trx: Db, tenantId: string, order: OrderObject): Promise<void> {
  const at = instant(order.created, 'created', order);
  const day = dayOf(at);
  const { currency } = order;
  // Customers are counted by who they are, not by the email an order gave (a customer may change it).
  const customer = order.customer.id;
  const status = order.status as OrderStatus;
  await repo.lockCurrency(trx, tenantId, currency, 1);
  await repo.insertOrder(trx, {
    order_id: order.id,
    tenant_id: tenantId,
    currency,
    day,
    status,
    customer_id: customer,
  });
  await repo.addDaily(trx, tenantId, currency, day, { orders: 1, [repo.statusColumn(status)]: 1 });

  const days = await repo.customerOrderDays(trx, tenantId, currency, customer, day);
  if (!days.already) {
    await repo.moveReach(trx, tenantId, currency, day, repo.clampSince(days.previous, day), 1);
    if (days.next !== undefined) {
      // An order placed before the customer's next order day becomes that day's previous one.
      await repo.moveReach(trx, tenantId, currency, days.next, repo.clampSince(days.previous, days.next), -1);
      await repo.moveReach(trx, tenantId, currency, days.next, repo.clampSince(day, days.next), 1);
    }
  }
  await repo.addCustomerDay(trx, tenantId, currency, customer, day, { orders: 1, revenue: 0, orderAt: at });
  const name = order.customer.name;
  await repo.touchMember(
    trx,
    { tenantId, currency, dimension: 'customer', member: customer },
    day,
    name === null ? undefined : { name, at },
  );
}

/** Money in (`sign` 1, a capture) or out (`sign` -1, a refund) at `at`, for the order's lines. */
async function sale(
  trx: Db,
  tenantId: string,
  order: OrderObject,
  customer: string,
  at: number,
  sign: 1 | -1,
): Promise<void> {
  const day = dayOf(at);
  const { currency } = order;
  const units = order.items.reduce((sum, item) => sum + item.quantity, 0);
  await repo.addDaily(
    trx,
    tenantId,
    currency,
    day,
    sign === 1
      ? { captured_amount: order.total, units_sold: units }
      : { refunded_amount: order.total, units_sold: -units },
  );

  // The category is the line's snapshot at order time; order events do not carry it.
  const categories = await repo.lineCategories(trx, order.id);
  const products = new Map<string, repo.RunningDelta & { name: string }>();
  const byCategory = new Map<string, repo.RunningDelta>();
  order.items.forEach((item, position) => {
    const product = products.get(item.product_id) ?? { units: 0, revenue: 0, lines: 0, name: item.name };
    product.units += sign * item.quantity;
    product.revenue += sign * item.total;
    product.lines += 1;
    products.set(item.product_id, product);
    const key = categories.get(position) ?? '';
    const category = byCategory.get(key) ?? { units: 0, revenue: 0, lines: 0 };
    category.units += sign * item.quantity;
    category.revenue += sign * item.total;
    category.lines += 1;
    byCategory.set(key, category);
  });
  for (const [member, delta] of [...products].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const key = { tenantId, currency, dimension: 'product', member } as const;
    await repo.touchMember(trx, key, day, sign === 1 ? { name: delta.name, at } : undefined);
    await repo.addRunning(trx, key, day, delta);
  }
  for (const [member, delta] of [...byCategory].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const key = { tenantId, currency, dimension: 'category', member } as const;
    await repo.touchMember(trx, key, day);
    await repo.addRunning(trx, key, day, delta);
  }
  await repo.addCustomerDay(trx, tenantId, currency, customer, day, {
    orders: 0,
    revenue: sign * order.total,
  });
  await repo.touchMember(trx, { tenantId, currency, dimension: 'customer', member: customer }, day);
}

async function transition(
  trx: Db,
  tenantId: string,
  order: OrderObject,
  to: OrderStatus,
  logger: Logger,
): Promise<void> {
  await repo.lockCurrency(trx, tenantId, order.currency, 0);
  const known = await repo.findOrder(trx, order.id);
  if (!known) {
    // Only orders written without the event effects (see `rebuild`) get here.
    logger.warn(
      { order_id: order.id, tenant_id: tenantId },
      'analytics: order event for an order not rolled up',
    );
    return;
  }
  const from = known.status;
  if (from === to) return;
  await repo.setOrderStatus(trx, order.id, to);
  const counts: Partial<repo.DailyCounts> = { [repo.statusColumn(from)]: -1, [repo.statusColumn(to)]: 1 };
  if (to === 'paid') {
    counts.paid_orders = 1;
    counts.paid_value = order.total;
  }
  await repo.addDaily(trx, tenantId, known.currency, known.day, counts);
  if (to === 'paid') {
    await sale(trx, tenantId, order, known.customer_id, instant(order.paid_at, 'paid_at', order), 1);
  } else if ((to === 'refunded' || to === 'cancelled') && CAPTURED.includes(from)) {
    const at = to === 'refunded' ? order.refunded_at : order.cancelled_at;
    await sale(trx, tenantId, order, known.customer_id, instant(at, `${to}_at`, order), -1);
  }
}

/** The rollup effect, registered with `events.onEmit` in src/effects.ts. */
export function rollupListener(logger: Logger): EmitListener {
  return async (trx, event: EventsTable) => {
    if (event.object_type !== 'order') return;
    if (event.type === 'order.created') {
      await created(trx, event.tenant_id, JSON.parse(event.data) as OrderObject);
      return;
    }
    const to = TRANSITION_TO[event.type];
    if (to !== undefined)
      await transition(trx, event.tenant_id, JSON.parse(event.data) as OrderObject, to, logger);
  };
}
