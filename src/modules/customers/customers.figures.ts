import type { EventsTable } from '../../db/schema.js';
import type { Db } from '../../db/store.js';
import { AppError } from '../../lib/errors.js';
import type { EmitListener } from '../events/index.js';
import type { OrderObject } from '../orders/index.js';
import * as repo from './customers.repository.js';

/**
 * A customer's figures, kept by its orders' and refunds' events inside the transaction of each
 * change (registered in customers.module.ts), so they are exact at every commit and never recomputed
 * on read:
 *
 * - `order.created`: `orders_count` + 1, `last_order_at` the latest order's `created`;
 * - `order.paid`: the order's total joins `total_spent` in its currency;
 * - `refund.created`: the refund's amount leaves it again (a partial refund, a whole one, or the
 *   cancel of a paid order: each return of money is one refund). `order.refunded` and
 *   `order.cancelled` move no money here.
 *
 * A payment captured after its order was cancelled (returned at once, with no order event) never
 * paid for an order and is not counted, nor is any refund of it, as analytics does not count them.
 */
export function figuresListener(): EmitListener {
  const apply = async (trx: Db, event: EventsTable) => {
    if (event.type === 'refund.created') {
      await refunded(trx, event.tenant_id, JSON.parse(event.data) as RefundMoney);
      return;
    }
    if (event.object_type !== 'order') return;
    const order = JSON.parse(event.data) as OrderObject;
    const customerId = order.customer.id;
    if (customerId === undefined) return;
    if (event.type === 'order.created') {
      await ordered(trx, event.tenant_id, customerId, Date.parse(order.created));
    } else if (event.type === 'order.paid') {
      await spent(trx, event.tenant_id, customerId, order.currency, order.total);
    }
  };
  return async (trx, events) => {
    for (const event of events) await apply(trx, event);
  };
}

/** What a `refund.created` event's object says of the money. */
interface RefundMoney {
  order_id: string;
  amount: number;
}

/** A refund's amount out of the order's customer's `total_spent`, if the order's payment was captured. */
async function refunded(trx: Db, tenantId: string, refund: RefundMoney): Promise<void> {
  const order = await trx
    .selectFrom('orders')
    .select(['customer_id', 'currency', 'paid_at'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', refund.order_id)
    .executeTakeFirst();
  if (!order || order.paid_at === null) return;
  await spent(trx, tenantId, order.customer_id, order.currency, -refund.amount);
}

/**
 * One more order. The update waits for a redaction of the customer in flight (its row lock) and
 * then finds the customer redacted: the order, which carries the data just erased, is refused and
 * rolls back (the order took the customer before the redaction committed).
 */
async function ordered(trx: Db, tenantId: string, customerId: string, at: number): Promise<void> {
  const result = await trx
    .updateTable('customers')
    .set((eb) => ({
      orders_count: eb('orders_count', '+', 1),
      last_order_at: eb
        .case()
        .when(eb.or([eb('last_order_at', 'is', null), eb('last_order_at', '<', at)]))
        .then(at)
        .else(eb.ref('last_order_at'))
        .end(),
    }))
    .where('tenant_id', '=', tenantId)
    .where('id', '=', customerId)
    .where('redacted', '=', 0)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) {
    throw new AppError(
      'invalid_state_transition',
      'The customer was redacted while this order was placed; nothing was ordered.',
    );
  }
}

/**
 * `amount` (negative for a refund) into the customer's `total_spent` in `currency`, under its row
 * lock; `total_spent_sort` follows the store's own currency (read with the customer, in one query).
 */
async function spent(
  trx: Db,
  tenantId: string,
  customerId: string,
  currency: string,
  amount: number,
): Promise<void> {
  const customer = await trx
    .selectFrom('customers')
    .select((eb) => [
      'total_spent',
      'total_spent_sort',
      eb.selectFrom('tenants').select('currency').where('id', '=', tenantId).as('tenant_currency'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', customerId)
    .forUpdate()
    .executeTakeFirst();
  if (!customer) return;
  const totals = JSON.parse(customer.total_spent) as Record<string, number>;
  totals[currency] = (totals[currency] ?? 0) + amount;
  const sorted = Object.fromEntries(Object.entries(totals).sort(([a], [b]) => (a < b ? -1 : 1)));
  await repo.updateCustomer(trx, tenantId, customerId, {
    total_spent: JSON.stringify(sorted),
    ...(customer.tenant_currency === currency
      ? { total_spent_sort: Number(customer.total_spent_sort) + amount }
      : {}),
  });
}
