import type { Db, Store } from '../../db/store.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { EventService } from '../events/index.js';
import type { Address } from './customers.address.js';
import * as repo from './customers.repository.js';
import { insertCustomer, newCustomerRow } from './customers.service.js';

/** What an order says of its customer: an existing one by id, or one by email. */
export interface CustomerRef {
  customer_id?: string | undefined;
  customer?: { email: string; name?: string | undefined } | undefined;
  /** A customer created by the order keeps its shipping address. */
  shipping_address?: Address | undefined;
}

export interface OrderCustomers {
  /**
   * The customer an order is for, in the order's transaction: by `customer_id` (404 unknown, 409
   * redacted), or by email, found case-insensitively or created with the order's name and shipping
   * address, so that
   * concurrent orders with one new email make exactly one customer (the second waits for the
   * first's insert and then finds it).
   */
  forOrder(trx: Db, tenantId: string, ref: CustomerRef, now: number): Promise<repo.CustomerRow>;
}

export function createOrderCustomers(deps: { store: Store; events: EventService }): OrderCustomers {
  const { events } = deps;
  return {
    async forOrder(trx, tenantId, ref, now) {
      if (ref.customer_id !== undefined) {
        const customer = await repo.findCustomer(trx, tenantId, ref.customer_id);
        if (!customer) throw notFound('customer');
        if (customer.redacted === 1) {
          throw new AppError(
            'invalid_state_transition',
            'This customer was redacted and takes no new orders.',
          );
        }
        return customer;
      }
      const { email, name } = ref.customer as { email: string; name?: string | undefined };
      const existing = await repo.findByEmail(trx, tenantId, email);
      if (existing) return existing;
      const addresses = ref.shipping_address === undefined ? [] : [ref.shipping_address];
      const row = newCustomerRow(
        tenantId,
        { email: email.toLowerCase(), name: name ?? null, addresses },
        now,
      );
      const created = await insertCustomer(trx, events, row, true);
      if (created) return created;
      const winner = await repo.findByEmail(trx, tenantId, email);
      if (!winner) throw new Error(`customer ${email} neither inserted nor found`);
      return winner;
    },
  };
}
