import type { Db } from '../../db/store.js';
import { validationError } from '../../lib/errors.js';
import { envelope, type PageQuery, pageWindow } from '../../lib/paging.js';
import { pagePresenter } from './orders.presenter.js';
import * as repo from './orders.repository.js';
import type { OrderListQuery } from './orders.schemas.js';

/**
 * A page of the tenant's orders, newest first: by status, customer (id or email), creation time,
 * fulfilment and payment status, with the filter's total.
 */
export async function listOrders(db: Db, tenantId: string, query: OrderListQuery & PageQuery) {
  const from = query.created_from === undefined ? undefined : Date.parse(query.created_from);
  const to = query.created_to === undefined ? undefined : Date.parse(query.created_to);
  if (from !== undefined && to !== undefined && from > to) {
    throw validationError('created_from', 'must not be after created_to');
  }
  // A forged cursor (no timestamp in it) is refused by pageWindow for every creation-order list.
  const window = pageWindow(query, '-created');
  const filter: repo.OrderFilter = {
    status: query.status,
    customerId: query.customer_id,
    customerEmail: query.customer_email?.toLowerCase(),
    from,
    to,
    fulfillment: query.fulfillment_status,
    payment: query.payment_status,
  };
  const [rows, total] = await Promise.all([
    repo.listOrders(db, tenantId, filter, window),
    repo.countOrders(db, tenantId, filter),
  ]);
  const present = await pagePresenter(db, rows.slice(0, window.limit));
  return envelope(rows, total, window, '-created', (order) => [order.created, order.id], present);
}
