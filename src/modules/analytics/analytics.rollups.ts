import type { AnalyticsOrdersTable, EventsTable, OrderStatus } from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import type { Logger } from '../../lib/logger.js';
import type { OrderObject } from '../orders/index.js';
import { dayOf } from './analytics.periods.js';
import { type RefundedLine, type RefundEvent, refundShares } from './analytics.refunds.js';
import { type DailyCounts, type Dimension, statusColumn } from './analytics.tables.js';
import * as repo from './analytics.writes.js';

/**
 * Rolls a batch of order and refund events up (taken from the queue in analytics.queue.ts, oldest
 * first, in one transaction): what each event moves is gathered in memory, then every row written
 * once. Figures are placed by the business instants inside the event's object (the order's
 * `created` and `paid_at`, the refund's `created`), never by when the event was written or taken in.
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
 *
 * Gathering is exact: every write adds (daily counts, customer days, running totals from a day on)
 * or keeps an extreme (a member's first and last day, its newest name), so a batch's sum written
 * once equals its events written one by one; the reach points, which depend on the customer's
 * other order days, are worked out in event order against the stored days and the batch's own.
 */

const TRANSITION_TO: Readonly<Record<string, OrderStatus>> = {
  'order.paid': 'paid',
  'order.shipped': 'shipped',
  'order.delivered': 'delivered',
  'order.cancelled': 'cancelled',
  'order.refunded': 'refunded',
};

function instant(value: string | null, what: string, order: { id: string }): number {
  const at = value === null ? Number.NaN : Date.parse(value);
  if (Number.isNaN(at)) throw new Error(`order ${order.id}: event without a valid ${what}`);
  return at;
}

const key = (...parts: (string | number)[]) => parts.join('\u0000');

/** What a batch writes, gathered by row. */
class Gathered {
  readonly currencies = new Map<string, repo.CurrencyCount>();
  /** The rolled-up orders the batch read or made, by id; `write` says what to store. */
  readonly orders = new Map<string, { row: AnalyticsOrdersTable; write: 'insert' | 'status' | null }>();
  readonly daily = new Map<string, repo.DailyDelta>();
  readonly members = new Map<string, repo.MemberTouch>();
  readonly running = new Map<string, repo.RunningMove>();
  readonly customerDays = new Map<string, repo.CustomerDayRow>();
  readonly reach: repo.ReachMove[] = [];
  /** Per customer (tenant, currency, id): its stored order days around each day asked, and the batch's. */
  readonly orderDays = new Map<string, { stored: Map<number, repo.OrderDays>; added: Set<number> }>();

  currency(tenantId: string, currency: string, orders: number): void {
    const row = this.currencies.get(key(tenantId, currency)) ?? { tenant_id: tenantId, currency, orders: 0 };
    row.orders += orders;
    this.currencies.set(key(tenantId, currency), row);
  }

  addDaily(tenantId: string, currency: string, day: number, counts: Partial<DailyCounts>): void {
    const id = key(tenantId, currency, day);
    const row = this.daily.get(id) ?? { tenantId, currency, day, counts: {} };
    for (const [column, value] of Object.entries(counts) as [keyof DailyCounts, number][]) {
      row.counts[column] = (row.counts[column] ?? 0) + value;
    }
    this.daily.set(id, row);
  }

  touch(member: repo.MemberKey, day: number, name?: { name: string; at: number }): void {
    const id = key(member.tenantId, member.currency, member.dimension, member.member);
    const row = this.members.get(id) ?? { ...member, firstDay: day, lastDay: day, name: undefined };
    row.firstDay = Math.min(row.firstDay, day);
    row.lastDay = Math.max(row.lastDay, day);
    if (name !== undefined && (row.name === undefined || newer(name, row.name))) row.name = name;
    this.members.set(id, row);
  }

  addRunning(member: repo.MemberKey & { dimension: Dimension }, day: number, delta: repo.RunningDelta): void {
    const id = key(member.tenantId, member.currency, member.dimension, member.member, day);
    const row = this.running.get(id) ?? { key: member, day, delta: { units: 0, revenue: 0, lines: 0 } };
    row.delta.units += delta.units;
    row.delta.revenue += delta.revenue;
    row.delta.lines += delta.lines;
    this.running.set(id, row);
  }

  addCustomerDay(
    tenantId: string,
    currency: string,
    customerId: string,
    day: number,
    delta: { orders: number; revenue: number; orderAt?: number },
  ): void {
    const id = key(tenantId, currency, customerId, day);
    const row = this.customerDays.get(id) ?? {
      tenant_id: tenantId,
      currency,
      customer_id: customerId,
      day,
      orders: 0,
      revenue: 0,
      first_order_at: null,
      last_order_at: null,
    };
    row.orders += delta.orders;
    row.revenue += delta.revenue;
    if (delta.orderAt !== undefined) {
      row.first_order_at = Math.min(row.first_order_at ?? delta.orderAt, delta.orderAt);
      row.last_order_at = Math.max(row.last_order_at ?? delta.orderAt, delta.orderAt);
    }
    this.customerDays.set(id, row);
  }
}

/** The latest sighting of a name wins; on a tie, the greater name (arrival order never matters). */
function newer(a: { name: string; at: number }, b: { name: string; at: number }): boolean {
  return a.at > b.at || (a.at === b.at && a.name > b.name);
}

/** What the batch reads before it gathers: the orders its events move, with their lines and money. */
interface Known {
  lines: Map<string, repo.RollupLine[]>;
  money: Map<string, repo.OrderMoney>;
}

async function readKnown(trx: Db, events: readonly EventsTable[], gathered: Gathered): Promise<Known> {
  const moved = new Set<string>();
  const captured = new Set<string>();
  for (const event of events) {
    if (event.type === 'order.created') continue;
    const orderId =
      event.type === 'refund.created' ? (JSON.parse(event.data) as RefundEvent).order_id : event.object_id;
    moved.add(orderId);
    if (event.type === 'order.paid' || event.type === 'refund.created') captured.add(orderId);
  }
  for (const row of await repo.findOrders(trx, [...moved]))
    gathered.orders.set(row.order_id, { row, write: null });
  const [lines, money] = await Promise.all([
    repo.orderLines(trx, [...captured]),
    repo.orderMoney(trx, [...captured]),
  ]);
  return { lines, money };
}

/**
 * The customer's order days around `day` (the stored ones, read once per day asked, and those the
 * batch added), and the day added.
 */
async function addOrderDay(
  trx: Db,
  gathered: Gathered,
  customer: { tenantId: string; currency: string; id: string },
  day: number,
): Promise<void> {
  const id = key(customer.tenantId, customer.currency, customer.id);
  const days = gathered.orderDays.get(id) ?? { stored: new Map(), added: new Set<number>() };
  gathered.orderDays.set(id, days);
  let stored = days.stored.get(day);
  if (stored === undefined) {
    stored = await repo.customerOrderDays(trx, customer.tenantId, customer.currency, customer.id, day);
    days.stored.set(day, stored);
  }
  if (stored.already || days.added.has(day)) return;
  let previous = stored.previous;
  let next = stored.next;
  for (const other of days.added) {
    if (other < day && (previous === undefined || other > previous)) previous = other;
    if (other > day && (next === undefined || other < next)) next = other;
  }
  days.added.add(day);
  const { tenantId, currency } = customer;
  gathered.reach.push({ tenantId, currency, day, since: repo.clampSince(previous, day), delta: 1 });
  if (next !== undefined) {
    // An order placed before the customer's next order day becomes that day's previous one.
    gathered.reach.push({ tenantId, currency, day: next, since: repo.clampSince(previous, next), delta: -1 });
    gathered.reach.push({ tenantId, currency, day: next, since: repo.clampSince(day, next), delta: 1 });
  }
}

async function created(trx: Db, gathered: Gathered, tenantId: string, order: OrderObject): Promise<void> {
  const at = instant(order.created, 'created', order);
  const day = dayOf(at);
  const { currency } = order;
  // Customers are counted by who they are, not by the email an order gave (a customer may change it).
  const customer = order.customer.id;
  const status = order.status as OrderStatus;
  gathered.currency(tenantId, currency, 1);
  gathered.orders.set(order.id, {
    row: { order_id: order.id, tenant_id: tenantId, currency, day, status, customer_id: customer },
    write: 'insert',
  });
  gathered.addDaily(tenantId, currency, day, { orders: 1, [statusColumn(status)]: 1 });
  await addOrderDay(trx, gathered, { tenantId, currency, id: customer }, day);
  gathered.addCustomerDay(tenantId, currency, customer, day, { orders: 1, revenue: 0, orderAt: at });
  const name = order.customer.name;
  gathered.touch(
    { tenantId, currency, dimension: 'customer', member: customer },
    day,
    name === null ? undefined : { name, at },
  );
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
function moveLines(
  gathered: Gathered,
  at: { tenantId: string; currency: string; day: number },
  moves: readonly LineMove[],
): void {
  const { tenantId, currency, day } = at;
  for (const move of moves) {
    const delta = { units: move.units, revenue: move.revenue, lines: 1 };
    const product = { tenantId, currency, dimension: 'product', member: move.line.product_id } as const;
    gathered.touch(product, day, move.name);
    gathered.addRunning(product, day, delta);
    const category = { tenantId, currency, dimension: 'category', member: move.line.category ?? '' } as const;
    gathered.touch(category, day);
    gathered.addRunning(category, day, delta);
  }
}

/**
 * A capture at `at`: the order's total, units, discounts, shipping and tax to the day, and what the
 * buyer paid for each line to its product and category (read from the lines: the event carries
 * neither `paid` nor the category snapshot), and the total to the customer's day.
 */
function captured(
  gathered: Gathered,
  known: Known,
  order: OrderObject,
  rolled: AnalyticsOrdersTable,
  at: number,
): void {
  const day = dayOf(at);
  const { currency } = order;
  const tenantId = rolled.tenant_id;
  const lines = known.lines.get(order.id) ?? [];
  const money = known.money.get(order.id);
  gathered.addDaily(tenantId, currency, day, {
    captured_amount: order.total,
    units_sold: lines.reduce((sum, line) => sum + line.quantity, 0),
    discount_total: money?.discount_total ?? 0,
    shipping_total: money?.shipping_total ?? 0,
    tax_total: money?.tax_total ?? 0,
  });
  moveLines(
    gathered,
    { tenantId, currency, day },
    lines.map((line) => ({ line, units: line.quantity, revenue: line.paid, name: { name: line.name, at } })),
  );
  gathered.addCustomerDay(tenantId, currency, rolled.customer_id, day, { orders: 0, revenue: order.total });
  gathered.touch({ tenantId, currency, dimension: 'customer', member: rolled.customer_id }, day);
}

/**
 * A refund (`refund.created`): its amount leaves revenue on the day it was made, its lines' units
 * and shares leave their products and categories (analytics.refunds.ts), and the customer's day.
 * A refund of an order whose payment was never captured (a charge returned at once) is not
 * counted, as its capture was not.
 */
function refunded(
  gathered: Gathered,
  known: Known,
  tenantId: string,
  refund: RefundEvent,
  logger: Logger,
): void {
  gathered.currency(tenantId, refund.currency, 0);
  const rolled = gathered.orders.get(refund.order_id)?.row;
  if (!rolled) {
    // Only orders written without the event effects (see `rebuild`) get here.
    logger.warn(
      { order_id: refund.order_id, refund_id: refund.id, tenant_id: tenantId },
      'analytics: refund of an order not rolled up',
    );
    return;
  }
  const money = known.money.get(refund.order_id);
  if (money === undefined || money.paid_at === null) return;
  const lines = known.lines.get(refund.order_id) ?? [];
  const at = Date.parse(refund.created);
  if (Number.isNaN(at)) throw new Error(`refund ${refund.id}: event without a valid created`);
  const day = dayOf(at);
  const { currency, customer_id: customer } = rolled;
  const shares = refundShares(lines, money.shipping_paid, refund);
  gathered.addDaily(tenantId, currency, day, {
    refunded_amount: refund.amount,
    units_sold: -shares.reduce((sum, share) => sum + share.units, 0),
  });
  moveLines(
    gathered,
    { tenantId, currency, day },
    shares.map((share) => ({ line: share.line, units: -share.units, revenue: -share.revenue })),
  );
  gathered.addCustomerDay(tenantId, currency, customer, day, { orders: 0, revenue: -refund.amount });
  gathered.touch({ tenantId, currency, dimension: 'customer', member: customer }, day);
}

function transition(
  gathered: Gathered,
  known: Known,
  tenantId: string,
  order: OrderObject,
  to: OrderStatus,
  logger: Logger,
): void {
  gathered.currency(tenantId, order.currency, 0);
  const entry = gathered.orders.get(order.id);
  if (!entry) {
    // Only orders written without the event effects (see `rebuild`) get here.
    logger.warn(
      { order_id: order.id, tenant_id: tenantId },
      'analytics: order event for an order not rolled up',
    );
    return;
  }
  const rolled = entry.row;
  const from = rolled.status;
  if (from === to) return;
  rolled.status = to;
  entry.write ??= 'status';
  const counts: Partial<DailyCounts> = { [statusColumn(from)]: -1, [statusColumn(to)]: 1 };
  if (to === 'paid') {
    counts.paid_orders = 1;
    counts.paid_value = order.total;
  }
  gathered.addDaily(tenantId, rolled.currency, rolled.day, counts);
  if (to === 'paid') captured(gathered, known, order, rolled, instant(order.paid_at, 'paid_at', order));
}

/** Rolls `events` up (in their order) in `trx`, writing each row they move once. */
export async function rollUp(trx: Db, events: readonly EventsTable[], logger: Logger): Promise<void> {
  const gathered = new Gathered();
  const known = await readKnown(trx, events, gathered);
  for (const event of events) {
    if (event.type === 'refund.created') {
      refunded(gathered, known, event.tenant_id, JSON.parse(event.data) as RefundEvent, logger);
      continue;
    }
    if (event.object_type !== 'order') continue;
    const order = JSON.parse(event.data) as OrderObject;
    if (event.type === 'order.created') {
      await created(trx, gathered, event.tenant_id, order);
      continue;
    }
    const to = TRANSITION_TO[event.type];
    if (to !== undefined) transition(gathered, known, event.tenant_id, order, to, logger);
  }
  await write(trx, gathered);
}

/** The gathered rows, the store's figures row first (as every writer of the rollups locks it first). */
async function write(trx: Db, gathered: Gathered): Promise<void> {
  await repo.addCurrencies(trx, [...gathered.currencies.values()]);
  const orders = [...gathered.orders.values()];
  await repo.insertOrders(
    trx,
    orders.filter((entry) => entry.write === 'insert').map((entry) => entry.row),
  );
  for (const entry of orders.filter((order) => order.write === 'status')) {
    await repo.setOrderStatus(trx, entry.row.order_id, entry.row.status);
  }
  await repo.addDailyRows(trx, [...gathered.daily.values()]);
  for (const move of gathered.reach) await repo.moveReach(trx, move);
  await repo.addCustomerDays(trx, [...gathered.customerDays.values()]);
  await repo.touchMembers(trx, [...gathered.members.values()]);
  for (const move of gathered.running.values()) await repo.addRunning(trx, move.key, move.day, move.delta);
}
