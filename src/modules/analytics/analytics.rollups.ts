import type { EventsTable, OrderStatus } from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import type { Logger } from '../../lib/logger.js';
import type { EmitListener } from '../events/index.js';
import type { OrderObject } from '../orders/index.js';
import { dayOf } from './analytics.periods.js';
import { type RefundedLine, type RefundEvent, refundShares } from './analytics.refunds.js';
import { type DailyCounts, statusColumn } from './analytics.tables.js';
import * as repo from './analytics.writes.js';

/**
 * Keeps the analytics rollups in the transaction of every order change and refund: the events are
 * emitted inside that transaction (transactional outbox) and this listener runs there too, so a
 * change and its rollups commit together or not at all. Figures are placed by the business
 * instants inside the event's object (the order's `created` and `paid_at`, the refund's
 * `created`), never by when the event was written.
 *
 * - Orders: counted on the UTC day they were created, with their current status (moved from the
 *   old status to the new one on every transition) and, once captured, as paid orders.
 * - Money in: a capture (`order.paid`) adds the order's total, units, discounts, shipping and tax
 *   on the day of `paid_at`, what the buyer paid for each line to its product's and category's
 *   running totals, and the total to the customer's day.
 * - Money out: each refund (`refund.created`, for a partial refund, a whole one, and a cancel
 *   after payment alike) takes its own amount off on its own day, with the units it lists; its
 *   products and categories lose what analytics.refunds.ts attributes to them. `order.refunded`
 *   and `order.cancelled` only move the status counts.
 * - Customers: a customer's first order of a day adds a point (day, previous order day) to the
 *   reach table, which answers "distinct customers in a range" with one seek per day.
 *
 * A payment captured after its order was cancelled (a race the orders module settles by returning
 * the money at once, without an order event) never paid for an order and is not counted, nor is
 * any refund of it.
 */

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
  await repo.addDaily(trx, tenantId, currency, day, { orders: 1, [statusColumn(status)]: 1 });

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

/**
 * A capture at `at`: the order's total, units, discounts, shipping and tax to the day, and what the
 * buyer paid for each line to its product and category (read from the lines: the event carries
 * neither `paid` nor the category snapshot), and the total to the customer's day.
 */
async function captured(
  trx: Db,
  tenantId: string,
  order: OrderObject,
  customer: string,
  at: number,
): Promise<void> {
  const day = dayOf(at);
  const { currency } = order;
  const lines = await repo.orderLines(trx, order.id);
  const money = await repo.orderMoney(trx, order.id);
  await repo.addDaily(trx, tenantId, currency, day, {
    captured_amount: order.total,
    units_sold: lines.reduce((sum, line) => sum + line.quantity, 0),
    discount_total: money?.discount_total ?? 0,
    shipping_total: money?.shipping_total ?? 0,
    tax_total: money?.tax_total ?? 0,
  });
  await moveLines(
    trx,
    { tenantId, currency, day },
    lines.map((line) => ({ line, units: line.quantity, revenue: line.paid, name: { name: line.name, at } })),
  );
  await repo.addCustomerDay(trx, tenantId, currency, customer, day, { orders: 0, revenue: order.total });
  await repo.touchMember(trx, { tenantId, currency, dimension: 'customer', member: customer }, day);
}

interface LineMove {
  line: repo.RollupLine | RefundedLine;
  /** Signed: positive for a capture, negative for a refund. */
  units: number;
  revenue: number;
  /** The product's name as seen on the line (captures only). */
  name?: { name: string; at: number };
}

/** Lines' units and money to their products' and categories' running totals, from `day` on. */
async function moveLines(
  trx: Db,
  at: { tenantId: string; currency: string; day: number },
  moves: readonly LineMove[],
): Promise<void> {
  const { tenantId, currency, day } = at;
  const products = new Map<string, repo.RunningDelta & { name?: { name: string; at: number } }>();
  const byCategory = new Map<string, repo.RunningDelta>();
  for (const move of moves) {
    const product = products.get(move.line.product_id) ?? { units: 0, revenue: 0, lines: 0 };
    product.units += move.units;
    product.revenue += move.revenue;
    product.lines += 1;
    if (move.name !== undefined) product.name = move.name;
    products.set(move.line.product_id, product);
    const key = move.line.category ?? '';
    const category = byCategory.get(key) ?? { units: 0, revenue: 0, lines: 0 };
    category.units += move.units;
    category.revenue += move.revenue;
    category.lines += 1;
    byCategory.set(key, category);
  }
  for (const [member, { name, ...delta }] of [...products].sort(([a], [b]) => byText(a, b))) {
    const key = { tenantId, currency, dimension: 'product', member } as const;
    await repo.touchMember(trx, key, day, name);
    await repo.addRunning(trx, key, day, delta);
  }
  for (const [member, delta] of [...byCategory].sort(([a], [b]) => byText(a, b))) {
    const key = { tenantId, currency, dimension: 'category', member } as const;
    await repo.touchMember(trx, key, day);
    await repo.addRunning(trx, key, day, delta);
  }
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A refund (`refund.created`): its amount leaves revenue on the day it was made, its lines' units
 * and shares leave their products and categories (analytics.refunds.ts), and the customer's day.
 * A refund of an order whose payment was never captured (a charge returned at once) is not
 * counted, as its capture was not.
 */
async function refunded(trx: Db, tenantId: string, refund: RefundEvent, logger: Logger): Promise<void> {
  await repo.lockCurrency(trx, tenantId, refund.currency, 0);
  const known = await repo.findOrder(trx, refund.order_id);
  if (!known) {
    // Only orders written without the event effects (see `rebuild`) get here.
    logger.warn(
      { order_id: refund.order_id, refund_id: refund.id, tenant_id: tenantId },
      'analytics: refund of an order not rolled up',
    );
    return;
  }
  const money = await repo.orderMoney(trx, refund.order_id);
  if (money === undefined || money.paid_at === null) return;
  const lines = await repo.orderLines(trx, refund.order_id);
  const at = Date.parse(refund.created);
  if (Number.isNaN(at)) throw new Error(`refund ${refund.id}: event without a valid created`);
  const day = dayOf(at);
  const { currency, customer_id: customer } = known;
  const shares = refundShares(lines, money.shipping_paid, refund);
  await repo.addDaily(trx, tenantId, currency, day, {
    refunded_amount: refund.amount,
    units_sold: -shares.reduce((sum, share) => sum + share.units, 0),
  });
  await moveLines(
    trx,
    { tenantId, currency, day },
    shares.map((share) => ({ line: share.line, units: -share.units, revenue: -share.revenue })),
  );
  await repo.addCustomerDay(trx, tenantId, currency, customer, day, { orders: 0, revenue: -refund.amount });
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
  const counts: Partial<DailyCounts> = { [statusColumn(from)]: -1, [statusColumn(to)]: 1 };
  if (to === 'paid') {
    counts.paid_orders = 1;
    counts.paid_value = order.total;
  }
  await repo.addDaily(trx, tenantId, known.currency, known.day, counts);
  if (to === 'paid') {
    await captured(trx, tenantId, order, known.customer_id, instant(order.paid_at, 'paid_at', order));
  }
}

/** The rollup effect, declared in analytics.module.ts (its manifest's `effects`). */
export function rollupListener(logger: Logger): EmitListener {
  const apply = async (trx: Db, event: EventsTable) => {
    if (event.type === 'refund.created') {
      await refunded(trx, event.tenant_id, JSON.parse(event.data) as RefundEvent, logger);
      return;
    }
    if (event.object_type !== 'order') return;
    if (event.type === 'order.created') {
      await created(trx, event.tenant_id, JSON.parse(event.data) as OrderObject);
      return;
    }
    const to = TRANSITION_TO[event.type];
    if (to !== undefined)
      await transition(trx, event.tenant_id, JSON.parse(event.data) as OrderObject, to, logger);
  };
  return async (trx, events) => {
    for (const event of events) await apply(trx, event);
  };
}
