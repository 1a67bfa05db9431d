import type { Generated } from 'kysely';

/**
 * Table types. Instants are integer milliseconds since the epoch (int8 on PostgreSQL), money is
 * integer minor units, flags are 0/1 integers and structured values are JSON text, so the same
 * SQL runs on SQLite and PostgreSQL.
 */

export interface TenantsTable {
  id: string;
  name: string;
  plan: 'free' | 'pro' | 'enterprise';
  currency: string;
  api_version: string;
  hourly_limit: number | null;
  monthly_limit: number | null;
  created: number;
  updated: number;
}

export interface UsersTable {
  id: string;
  tenant_id: string;
  email: string;
  name: string;
  role: 'owner' | 'admin' | 'developer';
  password_hash: string | null;
  created: number;
  updated: number;
}

export interface ApiKeysTable {
  id: string;
  tenant_id: string;
  user_id: string;
  name: string;
  key_hash: string;
  last4: string;
  permissions: string;
  created: number;
  updated: number;
  last_used: number | null;
  expires_at: number | null;
  revoked_at: number | null;
}

export interface IdempotencyKeysTable {
  tenant_id: string;
  key: string;
  fingerprint: string;
  state: 'in_flight' | 'completed';
  locked_until: number;
  response_status: number | null;
  response_body: string | null;
  /** The resource the request's use case committed (its recovery point), or null before that. */
  resource_id: string | null;
  created: number;
}

export interface EventsTable {
  id: string;
  tenant_id: string;
  type: string;
  /** The resource in `data.object` (`order`, `product`, ...), for version transforms. */
  object_type: string;
  object_id: string;
  /** JSON of the object in the latest version's shape when written (`VersionRegistry.upgradeStored` brings it to today's). */
  data: string;
  /** JSON of further `data` members beside `object` (`variant` on `product.outofstock`), or null. */
  extra: string | null;
  created: number;
}

export type WebhookStatus = 'Active' | 'Degraded' | 'Disabled';

export interface WebhookEndpointsTable {
  id: string;
  tenant_id: string;
  url: string;
  /** JSON array of event types, or `["*"]`. */
  events: string;
  description: string | null;
  status: WebhookStatus;
  /** `whsec_` + base64; kept in clear because every delivery is signed with it. */
  secret: string;
  /**
   * JSON array of `{secret, expires_at}`: the secrets rotations replaced, each signing beside the
   * current one until its `expires_at` (24 hours after it was replaced).
   */
  retired_secrets: string;
  api_version: string;
  last_triggered: number | null;
  /** Start of the current run of failed attempts; null after a success. */
  failing_since: number | null;
  created: number;
  updated: number;
  /**
   * Set on the endpoint a plugin installation subscribes (migration 0028): such an endpoint belongs
   * to the plugin, not to the tenant's own webhooks, and is not listed or changed through them.
   */
  plugin_id: string | null;
  installation_id: string | null;
}

/** One delivery attempt: `pending` rows are the queue, the others are the delivery log. */
export interface WebhookDeliveriesTable {
  id: string;
  tenant_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  /** 1 for a manual retry: one attempt, never rescheduled. */
  manual: number;
  status: 'pending' | 'succeeded' | 'failed';
  due_at: number;
  /** A worker's claim on a pending row; another worker may take it once this has passed. */
  lease_until: number | null;
  lease_owner: string | null;
  /** 1 while the endpoint is Disabled: a pending delivery kept out of the queue (migration 0018). */
  held: number;
  time: number | null;
  url: string | null;
  response: string | null;
  response_status: number | null;
  response_body: string | null;
  duration: number | null;
  next_retry_at: number | null;
  created: number;
}

export type ProductStatus = 'active' | 'draft' | 'archived';

export interface ProductsTable {
  /** Keys the text-search index (SQLite rowid alias / PostgreSQL identity); never exposed. */
  seq: Generated<number>;
  id: string;
  tenant_id: string;
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
  /** 1-based and contiguous within the product. */
  position: number;
  created: number;
  updated: number;
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

/** Customers per tenant (`tag` '') and per tag: a list's `total`. */
export interface CustomerCountsTable {
  tenant_id: string;
  tag: string;
  n: number;
}

export type OrderStatus = 'pending' | 'paid' | 'shipped' | 'delivered' | 'cancelled' | 'refunded';

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

export interface OrderCountsTable {
  tenant_id: string;
  status: OrderStatus;
  n: number;
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

export type PluginStatus = 'draft' | 'in_review' | 'published' | 'rejected';

export interface PluginsTable {
  id: string;
  /** Unique, lowercase, hyphenated: `sold-out-hider`. */
  slug: string;
  name: string;
  description: string;
  category: string;
  /** The publisher's name as shown in the marketplace (the owner tenant's name when it published). */
  author: string;
  /** JSON array of the permissions the plugin needs. */
  permissions: string;
  /** JSON array of the event types the plugin listens to. */
  events: string;
  /** Active installations (one per tenant that has it installed now). */
  installs: number;
  /** Sum and count of the stars of every tenant's rating. */
  rating_sum: number;
  rating_count: number;
  /** The tenant that publishes it; null for the platform's first-party plugins. */
  owner_tenant_id: string | null;
  status: PluginStatus;
  /** Why the operator rejected it (status `rejected`), else null. */
  rejection_reason: string | null;
  /** Where its events are delivered (`internal://first-party/...` for a first-party plugin). */
  webhook_url: string | null;
  homepage_url: string | null;
  /** `whsec_` + base64: signs every delivery to its installations; kept in clear to sign. */
  secret: string | null;
  /** The first-party runtime that serves it in process (`ai-autowriter`), or null. */
  runtime: string | null;
  created: number;
  updated: number;
}

export interface PluginInstallationsTable {
  /** `ins_...` */
  id: string;
  tenant_id: string;
  plugin_id: string;
  /** The user whose key installed it; the installation token acts on that user's behalf. */
  user_id: string;
  /** JSON arrays: what the tenant granted the plugin when it installed it. */
  permissions: string;
  events: string;
  /** SHA-256 (hex) of the installation token `sk_app_...`; the token itself is never stored. */
  token_hash: string;
  token_last4: string;
  /** The webhook endpoint subscribing the plugin's URL to its events for this tenant. */
  endpoint_id: string;
  installed_at: number;
  /** Null while installed; set when uninstalled (the token stops working at that commit). */
  uninstalled_at: number | null;
  /**
   * JSON arrays: the whole grant an approved revision of the plugin asks for when it is more than
   * this installation holds, until the store accepts it; both null when nothing waits.
   */
  pending_permissions: string | null;
  pending_events: string | null;
}

export type PluginRevisionStatus = 'pending' | 'rejected';

/** A published plugin's one revision: changes awaiting the operator's approval (or rejected). */
export interface PluginRevisionsTable {
  plugin_id: string;
  /** JSON object: the changed manifest fields with their new values. */
  changes: string;
  status: PluginRevisionStatus;
  /** Why the operator rejected it (status `rejected`), else null. */
  rejection_reason: string | null;
  created: number;
  updated: number;
}

export interface PluginRatingsTable {
  tenant_id: string;
  plugin_id: string;
  stars: number;
  comment: string | null;
  created: number;
  updated: number;
}

/** Metered calls per tenant, UTC day (epoch ms of 00:00) and endpoint (`GET /products`). */
export interface UsageDailyTable {
  tenant_id: string;
  day: number;
  endpoint: string;
  calls: number;
  /** Responses with status 4xx or 5xx. */
  errors: number;
  /** Calls refused with 429 by a rate limit or the quota; they do not count against the quota. */
  rejected: number;
  /** Sum of response times, microseconds. */
  duration_us: number;
}

/** Metered calls made with plugin installation tokens, per tenant, UTC day, plugin and endpoint. */
export interface UsageAppsDailyTable {
  tenant_id: string;
  day: number;
  plugin_id: string;
  endpoint: string;
  calls: number;
  errors: number;
  duration_us: number;
}

/** A first-party app's token of one installation, encrypted with a key derived from its secret. */
export interface AppRuntimeTokensTable {
  installation_id: string;
  plugin_id: string;
  tenant_id: string;
  token_ciphertext: string;
  created: number;
}

/** A first-party app's own marks (the Sold-out hider: `hidden:<product id>`). */
export interface AppRuntimeMarksTable {
  plugin_id: string;
  tenant_id: string;
  mark: string;
  created: number;
}

/** A console login: only the SHA-256 of the session id is stored; the id lives in the cookie. */
export interface ConsoleSessionsTable {
  id_hash: string;
  tenant_id: string;
  user_id: string;
  created: number;
  last_seen: number;
  /** Absolute end of the session, whatever its activity. */
  expires_at: number;
}

/** Failed logins / signups per hashed email or client address, in a fixed window. */
export interface ConsoleThrottleTable {
  key: string;
  attempts: number;
  window_start: number;
  blocked_until: number | null;
}

/** One AI description generation (`gen_`): who asked, which provider and model wrote it, its cost. */
export interface AiGenerationsTable {
  id: string;
  tenant_id: string;
  /** The stored product it was written for; null for an inline product. */
  product_id: string | null;
  provider: string;
  model: string;
  tone: string;
  length: string;
  /** The language the text is written in. */
  language: string;
  variant: number;
  description: string;
  word_count: number;
  input_tokens: number;
  output_tokens: number;
  /** 1 when the provider stopped at its token limit and the text was cut at a sentence end. */
  truncated: number;
  /** 1 when the text was written to the product's description. */
  saved: number;
  created: number;
}

export type LedgerAccountType = 'wallet' | 'funding' | 'clearing';

/** A wallet (`wal_`, one per tenant and currency) or a platform account (funding, clearing). */
export interface LedgerAccountsTable {
  id: string;
  type: LedgerAccountType;
  /** The wallet's tenant; null for platform accounts. */
  tenant_id: string | null;
  currency: string;
  /** Wallets: the cached sum of their postings (never below 0). Platform accounts: null. */
  balance: number | null;
  /** Wallets: how many postings they have (the `seq` of the latest). Platform accounts: null. */
  postings: number | null;
  created: number;
  updated: number;
}

export type LedgerEntryType = 'payment' | 'refund' | 'transfer' | 'adjustment';

/** An immutable journal entry; its postings sum to zero. */
export interface LedgerEntriesTable {
  id: string;
  type: LedgerEntryType;
  currency: string;
  created: number;
}

export type WalletTransactionType = 'payment' | 'refund' | 'transfer_out' | 'transfer_in' | 'adjustment';

/** One line of an entry (`txn_`): a signed amount on one account; a wallet transaction in the API. */
export interface LedgerPostingsTable {
  id: string;
  entry_id: string;
  account_id: string;
  /** The account's tenant (null on platform accounts), for listing. */
  tenant_id: string | null;
  type: WalletTransactionType;
  currency: string;
  amount: number;
  /** Wallets: 1, 2, ... in the wallet's order, and the balance after this posting. Platform: null. */
  seq: number | null;
  balance_after: number | null;
  description: string;
  /** The order (payment, refund) or transfer that caused it; null for adjustments. */
  source_id: string | null;
  created: number;
}

export interface WalletTransfersTable {
  id: string;
  /** The sender. */
  tenant_id: string;
  source_wallet_id: string;
  destination_wallet_id: string;
  amount: number;
  currency: string;
  description: string | null;
  /** JSON object of string values. */
  metadata: string;
  entry_id: string;
  created: number;
}

export interface WalletSettingsTable {
  tenant_id: string;
  /** Most a wallet of the tenant may send per UTC day, in its currency's minor units; null: no limit. */
  daily_transfer_limit: number | null;
  updated: number;
}

/** Per tenant and currency: the row every analytics rollup write locks first; counts orders rolled up. */
export interface AnalyticsCurrenciesTable {
  tenant_id: string;
  currency: string;
  orders: number;
}

/** What the analytics rollups know of an order: its created day (00:00 UTC) and current status. */
export interface AnalyticsOrdersTable {
  order_id: string;
  tenant_id: string;
  currency: string;
  day: number;
  status: OrderStatus;
  /** The order's customer: analytics count customers, not the emails orders gave (migration 0021). */
  customer_id: string;
}

/** One UTC day of a tenant's orders in one currency. */
export interface AnalyticsDailyTable {
  tenant_id: string;
  currency: string;
  day: number;
  /** Orders created that day, those of them whose payment was captured, and their total value. */
  orders: number;
  paid_orders: number;
  paid_value: number;
  /** The current status of the orders created that day. */
  status_pending: number;
  status_paid: number;
  status_shipped: number;
  status_delivered: number;
  status_cancelled: number;
  status_refunded: number;
  /** Money captured and refunded that day, and units captured minus units refunded that day. */
  captured_amount: number;
  refunded_amount: number;
  units_sold: number;
  /** The discounts, shipping and tax of the orders captured that day (migration 0024). */
  discount_total: number;
  shipping_total: number;
  tax_total: number;
}

/** Running totals of a product or category through the end of `day`; a row only on days with sales. */
export interface AnalyticsRunningTable {
  tenant_id: string;
  currency: string;
  dimension: 'product' | 'category';
  member: string;
  day: number;
  units: number;
  revenue: number;
  /** Order lines captured or refunded: tells a net zero from no sales at all. */
  lines: number;
}

/** A product, category or customer the rollups know, with its display name and active days. */
export interface AnalyticsMembersTable {
  tenant_id: string;
  currency: string;
  dimension: 'product' | 'category' | 'customer';
  /** A product id, a category, or a customer id. */
  member: string;
  name: string | null;
  /** When `name` was seen (the capture or the order it comes from). */
  name_at: number | null;
  first_day: number;
  last_day: number;
}

/** One customer's UTC day: orders created and net revenue. */
export interface AnalyticsCustomerDaysTable {
  tenant_id: string;
  currency: string;
  customer_id: string;
  day: number;
  orders: number;
  revenue: number;
  first_order_at: number | null;
  last_order_at: number | null;
}

/**
 * Customers' first orders per day by the day of their previous order: `n` counts the customers
 * with an order on `day` whose previous order day (clamped to 366 days back) is at most `since`.
 */
export interface AnalyticsReachTable {
  tenant_id: string;
  currency: string;
  day: number;
  since: number;
  n: number;
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

export type ImportResource = 'products' | 'customers';
/** `shopify` is a CSV whose header is Shopify's product export, recognised at upload. */
export type ImportFormat = 'csv' | 'jsonl' | 'shopify';
export type ImportStatus = 'queued' | 'running' | 'succeeded' | 'failed';
/** `validate` reads the whole file first (errors, counts); `write` then commits it in batches. */
export type ImportPhase = 'validate' | 'write' | 'done';

/**
 * A bulk import (migration 0025). Runners claim it with a lease (`claimed_by`, `lease_until`) and
 * commit each batch together with `position`, the data rows of the file the current phase has
 * finished, so a run that stops resumes after its last committed batch and writes no row twice.
 */
export interface ImportsTable {
  id: string;
  tenant_id: string;
  resource: ImportResource;
  format: ImportFormat;
  mode: 'upsert' | 'create';
  dry_run: number;
  on_error: 'abort' | 'skip';
  status: ImportStatus;
  phase: ImportPhase;
  position: number;
  rows_total: number;
  rows_processed: number;
  created_count: number;
  updated_count: number;
  unchanged_count: number;
  error_count: number;
  /** The uploaded file: its size, and how many `import_chunks` rows hold it (gone once finished). */
  byte_size: number;
  chunk_count: number;
  claimed_by: string | null;
  lease_until: number | null;
  /** Claims so far: a file that stops every runner that takes it fails after a few. */
  attempts: number;
  created: number;
  updated: number;
  started_at: number | null;
  finished_at: number | null;
}

/** One error of an import, numbered in the order found (`seq`, from 0). */
export interface ImportErrorsTable {
  import_id: string;
  seq: number;
  tenant_id: string;
  /** The file line (1-based, the CSV header is line 1). */
  line: number;
  /** The column as the file names it, or null for the whole row. */
  column_name: string | null;
  message: string;
}

/** The uploaded file, in order, in pieces of at most 1 MiB: any process can read it. */
export interface ImportChunksTable {
  import_id: string;
  seq: number;
  data: Buffer;
}

/** Folded counts of long lists (migration 0031): `events` by type, `deliveries:<endpoint>` by status. */
export interface ListCountsTable {
  tenant_id: string;
  list: string;
  key: string;
  n: number;
}

/** +1 and -1 rows added by triggers as the counted rows come and go, until folded into `list_counts`. */
export interface ListCountDeltasTable {
  seq: Generated<number>;
  tenant_id: string;
  list: string;
  key: string;
  delta: number;
}

/** Each tenant's catalog version, moved by every write of its products or variants (migration 0033). */
export interface CatalogVersionsTable {
  tenant_id: string;
  version: number;
}

export interface Database {
  tenants: TenantsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  list_counts: ListCountsTable;
  catalog_versions: CatalogVersionsTable;
  list_count_deltas: ListCountDeltasTable;
  products: ProductsTable;
  product_counts: ProductCountsTable;
  product_variants: ProductVariantsTable;
  customers: CustomersTable;
  customer_tags: CustomerTagsTable;
  customer_counts: CustomerCountsTable;
  orders: OrdersTable;
  order_items: OrderItemsTable;
  order_counts: OrderCountsTable;
  refunds: RefundsTable;
  discounts: DiscountsTable;
  discount_customer_uses: DiscountCustomerUsesTable;
  shipping_rates: ShippingRatesTable;
  tax_rates: TaxRatesTable;
  payments: PaymentsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  plugins: PluginsTable;
  plugin_installations: PluginInstallationsTable;
  plugin_revisions: PluginRevisionsTable;
  plugin_ratings: PluginRatingsTable;
  usage_apps_daily: UsageAppsDailyTable;
  app_runtime_tokens: AppRuntimeTokensTable;
  app_runtime_marks: AppRuntimeMarksTable;
  usage_daily: UsageDailyTable;
  ledger_accounts: LedgerAccountsTable;
  ledger_entries: LedgerEntriesTable;
  ledger_postings: LedgerPostingsTable;
  wallet_transfers: WalletTransfersTable;
  wallet_settings: WalletSettingsTable;
  ai_generations: AiGenerationsTable;
  console_sessions: ConsoleSessionsTable;
  console_throttle: ConsoleThrottleTable;
  analytics_currencies: AnalyticsCurrenciesTable;
  analytics_orders: AnalyticsOrdersTable;
  analytics_daily: AnalyticsDailyTable;
  analytics_running: AnalyticsRunningTable;
  analytics_members: AnalyticsMembersTable;
  analytics_customer_days: AnalyticsCustomerDaysTable;
  analytics_reach: AnalyticsReachTable;
  imports: ImportsTable;
  import_errors: ImportErrorsTable;
  import_chunks: ImportChunksTable;
}
