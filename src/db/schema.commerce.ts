import type { Generated } from 'kysely';

/** Table types of the catalog, customers, orders with their payments and refunds, and pricing rules (see schema.ts). */

export type ProductStatus = 'active' | 'draft' | 'archived';

export interface ProductsTable {
  /** Keys the text-search index (SQLite rowid alias / PostgreSQL identity); never exposed. */
  seq: Generated<number>;
  id: string;
  tenant_id: string;
  /**
   * Lowercase `a-z 0-9 -`, unique per tenant (migration 0038); every product has one, given or made
   * from its name (products.handles.ts).
   */
  handle: string;
  name: string;
  description: string | null;
  sku: string | null;
  price: number;
  currency: string;
  category: string | null;
  stock: number;
  status: ProductStatus;
  /** JSON array of https URLs. */
  images: string;
  /**
   * JSON object from an image URL of `images` to its alt text (migration 0061); an image without
   * one has no entry (products.media.ts).
   */
  image_alts: string;
  /** JSON object of string values. */
  attributes: string;
  /** JSON array of strings. */
  tags: string;
  /** JSON array of `{name, values}`: the product's options, none for a one-variant product. */
  options: string;
  /** Kept in the variants' transactions: their count, highest price, and searched SKUs and values. */
  variant_count: number;
  price_max: number;
  /** Variant SKUs and option values, newline-separated, which `q` searches beside the fields. */
  search_extra: string;
  /** What search engines show of it (migration 0046); null when not given. */
  seo_title: string | null;
  seo_description: string | null;
  created: number;
  updated: number;
}

/**
 * A variant: one combination of the product's option values, with its own SKU, price and stock.
 * The product's `price` (lowest), `price_max`, `stock` (sum) and `variant_count` follow them.
 */
export interface ProductVariantsTable {
  id: string;
  tenant_id: string;
  product_id: string;
  sku: string | null;
  /** The lower-cased SKU, unique per tenant (migration 0019 explains the grandfathered ones). */
  sku_key: string | null;
  title: string;
  /** JSON object of option name to value. */
  options: string;
  /** The combination, order-independent, unique per product: JSON of the sorted [name, value] pairs. */
  option_key: string;
  price: number;
  compare_at_price: number | null;
  stock: number;
  weight_grams: number | null;
  barcode: string | null;
  /** The variant's own image, an https URL (migration 0046). */
  image: string | null;
  /** What it costs the merchant, minor units of the product's currency; never shown to shoppers. */
  cost: number | null;
  /** 1 or 0: only lines that require shipping weigh and need a rate. */
  requires_shipping: number;
  /** 1 or 0: an untaxable line gets no tax. */
  taxable: number;
  /** 1-based and contiguous within the product. */
  position: number;
  created: number;
  updated: number;
  /**
   * Units open orders and cart holds took and no fulfilment shipped yet, over every location
   * (migration 0048; src/modules/products/products.levels.ts).
   */
  committed: Generated<number>;
  /** Locations other than the store's default that hold a level of it (`stock_levels` rows). */
  spread: Generated<number>;
}

/** Products per tenant by the equality filters of `GET /products`; `category` is '' for none. */
export interface ProductCountsTable {
  tenant_id: string;
  category: string;
  status: ProductStatus;
  in_stock: number;
  n: number;
}

/**
 * A person a tenant sells to. `email_key` (the lower-cased email) is unique per tenant. The
 * figures move in the transactions of the orders, payments and refunds that change them.
 */
export interface CustomersTable {
  /** Keys the text-search index (SQLite rowid alias / PostgreSQL identity); never exposed. */
  seq: Generated<number>;
  id: string;
  tenant_id: string;
  email: string;
  email_key: string;
  name: string | null;
  phone: string | null;
  /** JSON array of addresses (the order address shape). */
  addresses: string;
  /** JSON array of strings; each also a `customer_tags` row. */
  tags: string;
  note: string | null;
  /** JSON object of string values. */
  metadata: string;
  marketing_consent: number;
  orders_count: number;
  /** JSON object: currency to captured payments minus refunds, minor units. */
  total_spent: string;
  /** `total_spent` in the tenant's currency: what `sort=-total_spent` orders by. */
  total_spent_sort: number;
  last_order_at: number | null;
  redacted: number;
  created: number;
  updated: number;
}

/** A customer's tag, for the `tag` filter (a seek on tenant, tag, created). */
export interface CustomerTagsTable {
  tenant_id: string;
  tag: string;
  customer_id: string;
  created: number;
}

export type OrderStatus = 'pending' | 'paid' | 'shipped' | 'delivered' | 'cancelled' | 'refunded';
/** `api`: `POST /orders` with a key; `storefront`: a completed cart; `console`: the console's session. */
export type OrderSource = 'api' | 'storefront' | 'import' | 'console';
/** `requested`: cancelled through the API; `expired`: cancelled by the system, unpaid for too long. */
export type CancelReason = 'requested' | 'expired';

export interface OrdersTable {
  id: string;
  tenant_id: string;
  status: OrderStatus;
  currency: string;
  subtotal: number;
  total: number;
  customer_email: string;
  customer_name: string | null;
  /** The customer the order is for (migration 0020 made one per email of earlier orders). */
  customer_id: string;
  /** JSON object, or null. */
  shipping_address: string | null;
  /** JSON object of string values. */
  metadata: string;
  /** The latest payment attempt. */
  payment_id: string | null;
  carrier: string | null;
  tracking_number: string | null;
  /** 1 once the order's stock went back to the catalog (cancel, or refund with restock). */
  restocked: number;
  created: number;
  updated: number;
  paid_at: number | null;
  shipped_at: number | null;
  delivered_at: number | null;
  cancelled_at: number | null;
  refunded_at: number | null;
  /** Amount-off discounts on the lines plus a shipping waiver (migration 0022; 0 before). */
  discount_total: number;
  /** The shipping rate's price (before a free-shipping discount). */
  shipping_total: number;
  /** Tax on the lines and shipping, added (exclusive) or contained in the prices (inclusive). */
  tax_total: number;
  /** What the buyer paid for shipping: its price less a waiver, plus its tax when exclusive. */
  shipping_paid: number;
  /** JSON {discounts, shipping, taxes} as applied; null for orders made before migration 0022. */
  pricing: string | null;
  /** The sum of the order's refunds (the `refunds` table). */
  refunded_amount: number;
  /** Where the order was placed (migration 0039; `api` for orders made before). */
  source: OrderSource;
  /** The cart a storefront order completed (migration 0039); null otherwise. */
  cart_id: string | null;
  /** Why a cancelled order was cancelled (migration 0041); null while it is not cancelled. */
  cancel_reason: CancelReason | null;
  /** Its fulfilments (migration 0049): none, and never shipped, and there are none to read. */
  fulfillment_count: number;
  /**
   * `unfulfilled`, `partial` or `fulfilled`, as its lines say: kept by a trigger on the lines
   * (migration 0060) for the list's filter, never written here (the presenter reads the lines).
   */
  fulfillment_status?: 'unfulfilled' | 'partial' | 'fulfilled';
}

/** The line-item snapshot: what was bought, at which price, whatever the product becomes. */
export interface OrderItemsTable {
  order_id: string;
  position: number;
  tenant_id: string;
  product_id: string;
  /** The variant bought and its title then; migration 0019 gave lines before it the Default one. */
  variant_id: string;
  variant_title: string;
  name: string;
  sku: string | null;
  category: string | null;
  quantity: number;
  unit_price: number;
  /** unit_price × quantity. */
  total: number;
  /** The line's share of the order's amount-off discounts (migration 0022; 0 before). */
  discount: number;
  /** The line's tax, after its discount. */
  tax: number;
  /** What the buyer paid for the line: total less discount, plus tax when exclusive. */
  paid: number;
  /** Units of the line refunded so far. */
  refunded_quantity: number;
  /** Units of the line shipped by fulfilments (migration 0049). */
  fulfilled_quantity: number;
  /** Units of the line refunded before they shipped: commitment given back or written off (0049). */
  released_quantity: number;
  /** Units of the line in returns not cancelled (migration 0049). */
  returned_quantity: number;
}

/** A return of money of an order (migration 0022): a part of it, or all that was left. */
export interface RefundsTable {
  id: string;
  tenant_id: string;
  order_id: string;
  payment_id: string;
  amount: number;
  currency: string;
  /** JSON array of {variant_id, quantity, amount}: the lines this refund covers. */
  items: string;
  /** The shipping this refund covers. */
  shipping: number;
  restocked: number;
  reason: string | null;
  status: 'succeeded';
  /** Set until the payment provider confirms the refund: when a sweep may send it (again). */
  due_at: number | null;
  provider_reference: string | null;
  created: number;
}

export type PaymentStatus = 'pending' | 'succeeded' | 'failed' | 'refunded';

export interface PaymentsTable {
  id: string;
  tenant_id: string;
  order_id: string;
  provider: string;
  method: string;
  amount: number;
  currency: string;
  status: PaymentStatus;
  failure_code: string | null;
  failure_message: string | null;
  provider_reference: string | null;
  /**
   * Set, in the transaction that gives back a whole charge that landed after its order was
   * cancelled, until the provider confirms it: when a sweep may send it (again). Refunds of orders
   * owe it on their row (`refunds.due_at`; migration 0024 moved the ones owed here). Null otherwise.
   */
  refund_due_at: number | null;
  created: number;
  updated: number;
}

/** A discount (migration 0023): a code the buyer types, or an automatic one. */
export interface DiscountsTable {
  id: string;
  tenant_id: string;
  /** As the merchant gave it; null for an automatic discount. */
  code: string | null;
  /** `code` upper-cased: what buyers' codes are matched on, unique per tenant. */
  code_key: string | null;
  automatic: number;
  type: 'percentage' | 'fixed_amount' | 'free_shipping';
  /** Basis points for a percentage, minor units of `currency` for a fixed amount, 0 for free shipping. */
  value: number;
  currency: string | null;
  /** JSON `{product_ids?, categories?}`: the lines an amount off targets; null: every line. */
  applies_to: string | null;
  minimum_subtotal: number | null;
  starts_at: number | null;
  ends_at: number | null;
  usage_limit: number | null;
  usage_limit_per_customer: number | null;
  /** Orders holding the discount, moved in their transactions. */
  times_used: number;
  combinable: number;
  enabled: number;
  created: number;
  updated: number;
}

/** Orders of one customer holding one discount (the per-customer limit). */
export interface DiscountCustomerUsesTable {
  discount_id: string;
  customer_id: string;
  tenant_id: string;
  uses: number;
}

/** A shipping rate (migration 0023). */
export interface ShippingRatesTable {
  id: string;
  tenant_id: string;
  name: string;
  /** JSON array of ISO 3166-1 alpha-2 codes, or `["*"]` for every country. */
  countries: string;
  price: number;
  currency: string;
  /** The discounted subtotal from which shipping is free; null: never. */
  free_over: number | null;
  /** The weight band, inclusive; a null bound is open. */
  min_weight_grams: number | null;
  max_weight_grams: number | null;
  created: number;
  updated: number;
}

/** A tax rate (migration 0023) for a country, or one state of it. */
export interface TaxRatesTable {
  id: string;
  tenant_id: string;
  name: string;
  country: string;
  state: string | null;
  /** `state` upper-cased, `''` for the whole country: (tenant, country, state_key) is unique. */
  state_key: string;
  rate_bps: number;
  inclusive: number;
  shipping_taxable: number;
  created: number;
  updated: number;
}
