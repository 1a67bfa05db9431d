import type { Deps } from '../../src/deps.js';
import { iso } from '../../src/lib/clock.js';
import { randomBase62 } from '../../src/lib/ids.js';

export interface RefundInput {
  tenantId: string;
  orderId: string;
  amount: number;
  items?: { variant_id: string; quantity: number; amount: number }[];
  shipping?: number;
  /** When the money went back (the refund's `created`). */
  at: number;
}

/**
 * A refund written the way the refunds module commits one, in one transaction: its row, the
 * order's `refunded_amount`, its lines' `refunded_quantity`, and `refund.created` through the
 * event service (so every registered effect runs). It checks nothing and plans nothing: the
 * effects' own tests choose exactly what a refund covers, whatever the refunds API would allow.
 */
export async function emitRefund(deps: Deps, input: RefundInput) {
  const items = input.items ?? [];
  const shipping = input.shipping ?? 0;
  return deps.store.transaction(async (trx) => {
    const order = await trx
      .selectFrom('orders')
      .select(['currency', 'payment_id'])
      .where('tenant_id', '=', input.tenantId)
      .where('id', '=', input.orderId)
      .executeTakeFirst();
    const object = {
      id: `re_${randomBase62(24)}`,
      order_id: input.orderId,
      amount: input.amount,
      currency: order?.currency ?? 'USD',
      items,
      shipping,
      restocked: false,
      reason: null,
      status: 'succeeded' as const,
      created: iso(input.at),
    };
    await trx
      .insertInto('refunds')
      .values({
        id: object.id,
        tenant_id: input.tenantId,
        order_id: input.orderId,
        payment_id: order?.payment_id ?? 'pay_none',
        amount: input.amount,
        currency: object.currency,
        items: JSON.stringify(items),
        shipping,
        restocked: 0,
        reason: null,
        status: 'succeeded',
        due_at: null,
        provider_reference: null,
        created: input.at,
      })
      .execute();
    await trx
      .updateTable('orders')
      .set((eb) => ({ refunded_amount: eb('refunded_amount', '+', input.amount) }))
      .where('id', '=', input.orderId)
      .execute();
    for (const item of items) {
      await trx
        .updateTable('order_items')
        .set((eb) => ({ refunded_quantity: eb('refunded_quantity', '+', item.quantity) }))
        .where('order_id', '=', input.orderId)
        .where('variant_id', '=', item.variant_id)
        .execute();
    }
    await deps.events.emit(trx, {
      tenantId: input.tenantId,
      type: 'refund.created',
      objectType: 'refund',
      object,
    });
    return object;
  });
}
