import type { OrderStatus } from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import { AppError } from '../../lib/errors.js';
import type { EventService } from '../events/index.js';
import { loadOrder } from './orders.presenter.js';
import * as repo from './orders.repository.js';
import type { OrderObject } from './orders.schemas.js';

/**
 * The order state machine: which action moves an order from which status, and the one function
 * that applies a move. The order service's use cases and payment settlement
 * (an order is paid when its payment succeeds) both move orders through it, inside their own
 * transaction.
 */

export type OrderAction = 'pay' | 'ship' | 'deliver' | 'cancel' | 'refund';

/** The order lifecycle. Every other move is 409 `invalid_state_transition`. */
export const TRANSITIONS: Readonly<Record<OrderAction, { from: readonly OrderStatus[]; to: OrderStatus }>> = {
  pay: { from: ['pending'], to: 'paid' },
  ship: { from: ['paid'], to: 'shipped' },
  deliver: { from: ['shipped'], to: 'delivered' },
  cancel: { from: ['pending', 'paid'], to: 'cancelled' },
  refund: { from: ['paid', 'shipped', 'delivered'], to: 'refunded' },
};

export function invalidTransition(action: OrderAction, status: OrderStatus): AppError {
  return new AppError('invalid_state_transition', `Cannot ${action} an order that is ${status}.`, {
    extra: { order_status: status },
  });
}

/**
 * Applies `action` to an order read (and locked) in this transaction, with the changes that go
 * with it (the order counts follow by trigger, migration 0045). An order another writer moved
 * first is 409.
 */
export async function commitTransition(
  trx: Db,
  before: repo.OrderRow,
  action: OrderAction,
  now: number,
  changes: Partial<repo.OrderRow>,
): Promise<repo.OrderRow> {
  const to = TRANSITIONS[action].to;
  const set = { ...changes, status: to, updated: now };
  if (!(await repo.transitionOrder(trx, before.tenant_id, before.id, before.status, set))) {
    throw invalidTransition(action, before.status);
  }
  return { ...before, ...set };
}

/** Emits an order event carrying the order as committed; returns that object. */
export async function emitOrder(
  trx: Db,
  events: EventService,
  type: 'order.paid' | 'order.shipped' | 'order.delivered' | 'order.cancelled' | 'order.refunded',
  order: repo.OrderRow,
): Promise<OrderObject> {
  const object = await loadOrder(trx, order);
  await events.emit(trx, { tenantId: order.tenant_id, type, objectType: 'order', object });
  return object;
}
