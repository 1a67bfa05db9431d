import type { VersionChange } from '../versions/index.js';

/**
 * The orders module's changes to dated versions (its manifest's `versionChanges`), each turning an
 * order of the version into the one before, and an order stored before it (an event's object) into
 * the version's shape.
 */

type Json = Record<string, unknown>;

/** 2027-01-20: orders gain `cancel_reason`. */
export const CANCEL_REASON_CHANGE: VersionChange = {
  description:
    'Orders gain `cancel_reason`: `requested` (cancelled through the API) or `expired` (cancelled by the system, unpaid past the store’s `unpaid_order_expiry_minutes`), null while not cancelled.',
  toPrevious: {
    order: (order: Json): Json => {
      const { cancel_reason: _reason, ...before } = order;
      return before;
    },
  },
  // Before 2027-01-20 every cancel was requested through the API (migration 0041 says so too).
  storedFromPrevious: {
    order: (order: Json): Json =>
      'cancel_reason' in order
        ? order
        : { ...order, cancel_reason: order.status === 'cancelled' ? 'requested' : null },
  },
};

/** 2027-01-20: orders gain `source` and `cart_id`. */
export const SOURCE_CHANGE: VersionChange = {
  description:
    'Orders gain `source` (`api`, `storefront`, `import` or `console`: where the order was placed) and `cart_id` (the cart a storefront order completed).',
  toPrevious: {
    order: (order: Json): Json => {
      const { source: _source, cart_id: _cart, ...before } = order;
      return before;
    },
  },
  // Every order before 2027-01-20 was made through `POST /orders` (migration 0039 says so too).
  storedFromPrevious: {
    order: (order: Json): Json => ('source' in order ? order : { ...order, source: 'api', cart_id: null }),
  },
};

/** 2027-01-20: orders gain `fulfillment_status`, `fulfillments` and `returns`. */
export const FULFILLMENT_CHANGE: VersionChange = {
  description:
    'Orders gain `fulfillment_status` (`unfulfilled`, `partial` or `fulfilled`), `fulfillments` (parcels shipped from locations, with tracking) and `returns`.',
  toPrevious: {
    order: (order: Json): Json => {
      const {
        fulfillment_status: _status,
        fulfillments: _fulfillments,
        returns: _returns,
        ...before
      } = order;
      return before;
    },
  },
  // Before 2027-01-20 an order was shipped whole, by `/ship`: shipped (or past it, once shipped) is fulfilled.
  storedFromPrevious: {
    order: (order: Json): Json =>
      'fulfillment_status' in order
        ? order
        : {
            ...order,
            fulfillment_status: typeof order.shipped_at === 'string' ? 'fulfilled' : 'unfulfilled',
            fulfillments: [],
            returns: [],
          },
  },
};
