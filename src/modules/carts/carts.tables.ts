/**
 * The carts module's tables (their types; migrations 0039 and 0043, in migrations/): a shopper's
 * cart and its lines. The manifest adds them to the store's `Database` (src/db/schema.ts).
 */

export type CartStatus = 'open' | 'completed' | 'expired';

/**
 * A shopper's cart (migration 0039). Its prices are never stored: it is priced at every read and
 * change (src/modules/carts/carts.pricing.ts). An open cart unchanged for 30 days reads as expired.
 */
export interface CartsTable {
  /** `cart_` and 24 base62 characters (143 random bits): with the publishable key, all a shopper needs. */
  id: string;
  tenant_id: string;
  status: CartStatus;
  currency: string;
  email: string | null;
  /** The shopper signed in when it was made (none yet). */
  customer_id: string | null;
  /** JSON array of the codes as typed, kept whether they apply or not. */
  discount_codes: string;
  /** JSON address in its stored form (src/lib/addresses.ts), or null. */
  shipping_address: string | null;
  shipping_rate_id: string | null;
  /** The order its completion made. */
  order_id: string | null;
  /**
   * JSON of the completion in flight (src/modules/carts/carts.checkout.ts): the payment about to be
   * charged and the order held for it (stock and discount uses taken); null otherwise.
   */
  checkout: string | null;
  /** When that completion took its lease; a sweep finishes one whose lease is over. */
  checkout_started: number | null;
  created: number;
  /** Its last change by the shopper: what `expires_at` and `abandoned` are counted from. */
  updated: number;
  completed_at: number | null;
  /**
   * JSON of the units a stock hold took out of stock (`[{product_id, variant_id, quantity}]`,
   * migration 0043; src/modules/carts/carts.holds.ts), given back once; null without a hold.
   */
  hold_lines: string | null;
  /** When the hold runs out (a sweep gives its units back then). */
  hold_expires: number | null;
  /** The buyer address holding it (an IPv6 address by its /64): at most 3 holds each per store. */
  hold_ip: string | null;
  /** When `cart.abandoned` was emitted for it; a change clears it. */
  abandoned_at: number | null;
  /** Moved by every write of the row or its lines, by triggers (migration 0044). */
  revision: number;
}

/** A line of a cart: one variant. Name, title and SKU are kept as last seen, for a variant deleted since. */
export interface CartLinesTable {
  id: string;
  cart_id: string;
  tenant_id: string;
  variant_id: string;
  product_id: string;
  name: string;
  variant_title: string;
  sku: string | null;
  quantity: number;
  /** The order lines were added in. */
  position: number;
  created: number;
}
