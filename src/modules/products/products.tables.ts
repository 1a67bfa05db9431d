/**
 * The products module's own tables (their types; migration 0048, in migrations/). The products,
 * variants and counts tables are older and shared: src/db/schema.commerce.ts.
 */

/**
 * A variant's stock at a location other than the store's default one (src/modules/products/
 * products.levels.ts). The location's `position` and `fulfills` (its `fulfills_online_orders`) are
 * copied in and kept when the location changes.
 */
export interface StockLevelsTable {
  tenant_id: string;
  variant_id: string;
  product_id: string;
  location_id: string;
  position: number;
  /** 1 or 0: whether the location fulfils online orders (its available units count in `stock`). */
  fulfills: number;
  on_hand: number;
  committed: number;
  updated: number;
}
