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
  created: number;
}

export interface EventsTable {
  id: string;
  tenant_id: string;
  type: string;
  /** The resource in `data.object` (`order`, `product`, ...), for version transforms. */
  object_type: string;
  object_id: string;
  /** JSON of the object, in the latest API version's shape. */
  data: string;
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
  /** The secret before the last rotation; it keeps signing until `previous_secret_expires_at`. */
  previous_secret: string | null;
  previous_secret_expires_at: number | null;
  api_version: string;
  last_triggered: number | null;
  /** Start of the current run of failed attempts; null after a success. */
  failing_since: number | null;
  created: number;
  updated: number;
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
}

/** The line-item snapshot: what was bought, at which price, whatever the product becomes. */
export interface OrderItemsTable {
  order_id: string;
  position: number;
  tenant_id: string;
  product_id: string;
  name: string;
  sku: string | null;
  category: string | null;
  quantity: number;
  unit_price: number;
  total: number;
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
  created: number;
  updated: number;
}

export interface PluginsTable {
  id: string;
  /** Unique, lowercase, hyphenated: `slack-order-notifications`. */
  slug: string;
  name: string;
  description: string;
  category: string;
  author: string;
  /** JSON array of the permissions the plugin needs. */
  permissions: string;
  /** JSON array of the event types the plugin listens to. */
  events: string;
  /** Active installations: the catalog's starting figure plus one per installation row. */
  installs: number;
  /** Sum and count of the stars of every rating (seeded starting figures plus tenants' ratings). */
  rating_sum: number;
  rating_count: number;
}

export interface PluginInstallationsTable {
  tenant_id: string;
  plugin_id: string;
  /** JSON arrays: what the tenant granted the plugin when it installed it. */
  granted_permissions: string;
  granted_events: string;
  installed_at: number;
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

export interface Database {
  tenants: TenantsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  products: ProductsTable;
  product_counts: ProductCountsTable;
  orders: OrdersTable;
  order_items: OrderItemsTable;
  order_counts: OrderCountsTable;
  payments: PaymentsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  plugins: PluginsTable;
  plugin_installations: PluginInstallationsTable;
  plugin_ratings: PluginRatingsTable;
  usage_daily: UsageDailyTable;
}
