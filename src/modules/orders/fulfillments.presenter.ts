import { iso } from '../../lib/clock.js';
import type { FulfillmentRow, ReturnRow } from './fulfillments.repository.js';
import type { FulfillmentObject, ReturnObject } from './fulfillments.schemas.js';

/** A fulfilment as the API shows it. */
export function presentFulfillment(row: FulfillmentRow): FulfillmentObject {
  return {
    id: row.id,
    order_id: row.order_id,
    location_id: row.location_id,
    items: JSON.parse(row.items) as FulfillmentObject['items'],
    tracking: { carrier: row.carrier, number: row.tracking_number, url: row.tracking_url },
    status: 'shipped',
    created: iso(row.created),
  };
}

/** A return as the API shows it. */
export function presentReturn(row: ReturnRow): ReturnObject {
  return {
    id: row.id,
    order_id: row.order_id,
    status: row.status,
    items: JSON.parse(row.items) as ReturnObject['items'],
    location_id: row.location_id,
    restocked: row.restocked === 1,
    refund_id: row.refund_id,
    created: iso(row.created),
  };
}
