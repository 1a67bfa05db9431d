/**
 * The order aggregate's tables of fulfilments and returns (their types; migration 0049, in
 * migrations/). Orders, their lines, payments and refunds are older: src/db/schema.commerce.ts.
 */

/** A parcel of an order shipped from a location (`ful_...`). */
export interface FulfillmentsTable {
  id: string;
  tenant_id: string;
  order_id: string;
  location_id: string;
  /** JSON array of {variant_id, quantity}. */
  items: string;
  carrier: string | null;
  tracking_number: string | null;
  tracking_url: string | null;
  created: number;
}

export type ReturnStatus = 'requested' | 'received' | 'cancelled';

/** Units of an order coming back (`ret_...`). */
export interface ReturnsTable {
  id: string;
  tenant_id: string;
  order_id: string;
  status: ReturnStatus;
  /** JSON array of {variant_id, quantity, reason}. */
  items: string;
  /** Where it was received; null until then. */
  location_id: string | null;
  /** 1 when received with its units put back on hand. */
  restocked: number;
  /** The refund made when it was received with `refund: true`. */
  refund_id: string | null;
  created: number;
  received_at: number | null;
  cancelled_at: number | null;
}
