import type { Generated } from 'kysely';
import type {
  AnalyticsCurrenciesTable,
  AnalyticsCustomerDaysTable,
  AnalyticsDailyTable,
  AnalyticsMembersTable,
  AnalyticsOrdersTable,
  AnalyticsReachTable,
  AnalyticsRunningTable,
} from './schema.analytics.js';
import type {
  AiGenerationsTable,
  AppRuntimeMarksTable,
  AppRuntimeTokensTable,
  ConsoleSessionsTable,
  ConsoleThrottleTable,
  PluginInstallationsTable,
  PluginRatingsTable,
  PluginRevisionsTable,
  PluginsTable,
  UsageAppsDailyTable,
  UsageDailyTable,
} from './schema.apps.js';
import type {
  CustomersTable,
  CustomerTagsTable,
  DiscountCustomerUsesTable,
  DiscountsTable,
  OrderItemsTable,
  OrdersTable,
  PaymentsTable,
  ProductCountsTable,
  ProductsTable,
  ProductVariantsTable,
  RefundsTable,
  ShippingRatesTable,
  TaxRatesTable,
} from './schema.commerce.js';
import type { ImportChunksTable, ImportErrorsTable, ImportsTable } from './schema.imports.js';
import type {
  LedgerAccountsTable,
  LedgerEntriesTable,
  LedgerPostingsTable,
  WalletSettingsTable,
  WalletTransfersTable,
} from './schema.ledger.js';

/**
 * Table types. Instants are integer milliseconds since the epoch (int8 on PostgreSQL), money is
 * integer minor units, flags are 0/1 integers and structured values are JSON text, so the same
 * SQL runs on SQLite and PostgreSQL. The tenants, keys, events and webhooks are here; the other
 * areas' tables are in the schema.<area>.ts files beside it, and every table type is exported from
 * here too. A module may declare its own tables instead (`<m>.tables.ts`), which its manifest adds
 * to `Database` by declaration merging, as it may add columns to a table here:
 *
 *     declare module '../../db/schema.js' {
 *       interface Database {
 *         carts: CartsTable;
 *       }
 *     }
 */

export type * from './schema.analytics.js';
export type * from './schema.apps.js';
export type * from './schema.commerce.js';
export type * from './schema.imports.js';
export type * from './schema.ledger.js';

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
  /** `secret` or `publishable` (migration 0037). */
  type: 'secret' | 'publishable';
  /** JSON array of the browser origins a publishable key answers; `[]` for a secret key. */
  allowed_origins: string;
  /** A publishable key in full (it is public); null for a secret key. */
  public_key: string | null;
}

/** Each allowed origin of each publishable key: what a CORS preflight looks up by its `Origin`. */
export interface ApiKeyOriginsTable {
  origin: string;
  key_id: string;
  tenant_id: string;
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
  /**
   * Its pricing version, moved by every write of its discounts and their uses, customers' emails,
   * shipping and tax rates and settings (migration 0044); a pricing write leaves `version` alone.
   */
  pricing_version: number;
}

export interface Database {
  tenants: TenantsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  api_key_origins: ApiKeyOriginsTable;
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
  orders: OrdersTable;
  order_items: OrderItemsTable;
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
