/**
 * The inventory module's tables (their types; migration 0047, in migrations/): a store's
 * locations and the adjustments of their stock. The levels themselves are the products module's
 * (`stock_levels`, src/modules/products/products.levels.ts).
 */

/** A place the store keeps stock. Every store has one `is_default` location, made with the store. */
export interface LocationsTable {
  /** `loc_...` */
  id: string;
  tenant_id: string;
  name: string;
  /** JSON address (the customers' address shape), or null. */
  address: string | null;
  /** 1 or 0: its available units count in variants' `stock` and orders take from it. */
  fulfills_online_orders: number;
  /** 1 on the store's default location, 0 on every other. */
  is_default: number;
  /** The store's order: orders take units from locations by it (the default one is 1). */
  position: number;
  created: number;
  updated: number;
}

/** A change of a location's stock through `POST /inventory/adjustments`, recorded. */
export interface InventoryAdjustmentsTable {
  /** `adj_...` */
  id: string;
  tenant_id: string;
  variant_id: string;
  product_id: string;
  location_id: string;
  /** Units on hand after less before. */
  delta: number;
  /** Units on hand at the location after the adjustment. */
  on_hand: number;
  reason: string | null;
  created: number;
}
