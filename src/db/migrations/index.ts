import type { Migration } from 'kysely';
import * as foundation from './0001_foundation.js';
import * as events from './0002_events.js';
import * as catalogOrders from './0003_catalog_orders.js';
import * as usage from './0004_usage.js';
import * as webhooks from './0005_webhooks.js';
import * as plugins from './0006_plugins.js';
import * as wallet from './0007_wallet.js';
import * as ai from './0008_ai.js';
import * as consoleAccounts from './0009_console.js';
import * as analytics from './0010_analytics.js';
import * as idempotencyRecovery from './0011_idempotency_recovery.js';
import * as eventRetention from './0012_event_retention.js';
import * as retiredSecrets from './0013_retired_secrets.js';
import * as refundsDue from './0014_refunds_due.js';
import * as transferIdempotency from './0015_transfer_idempotency.js';
import * as transferReceiver from './0016_transfer_receiver.js';
import * as searchFold from './0017_search_fold.js';
import * as heldDeliveries from './0018_held_deliveries.js';
import * as variants from './0019_variants.js';
import * as customers from './0020_customers.js';
import * as analyticsCustomers from './0021_analytics_customers.js';
import * as orderPricing from './0022_order_pricing.js';
import * as pricingRules from './0023_pricing_rules.js';
import * as refundsOwed from './0024_refunds_owed.js';
import * as analyticsPricing from './0025_analytics_pricing.js';
import * as imports from './0026_imports.js';
import * as webhookFairness from './0027_webhook_fairness.js';
import * as pluginApps from './0028_plugin_apps.js';
import * as appRuntime from './0029_app_runtime.js';
import * as deliveryLogOrder from './0030_delivery_log_order.js';
import * as listCounts from './0031_list_counts.js';
import * as catalogVersions from './0033_catalog_versions.js';
import * as pluginRevisions from './0034_plugin_revisions.js';
import * as normalisedStates from './0035_normalised_states.js';
import * as redactRefundReasons from './0036_redact_refund_reasons.js';
import * as publishableKeys from './0037_publishable_keys.js';
import * as productHandles from './0038_product_handles.js';
import * as pricingVersions from './0044_pricing_versions.js';
import * as selling from './0045_selling.js';
import * as catalogDetails from './0046_catalog_details.js';
import * as listFilters from './0060_list_filters.js';

/**
 * The house's migrations, in order: the shared tables' and the older modules'. A module may keep
 * its own instead, declared by its manifest (`migrations`); src/db/migrate.ts runs them all in name
 * order, and refuses a number taken twice.
 */
export const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_events': events,
  '0003_catalog_orders': catalogOrders,
  '0004_usage': usage,
  '0005_webhooks': webhooks,
  '0006_plugins': plugins,
  '0007_wallet': wallet,
  '0008_ai': ai,
  '0009_console': consoleAccounts,
  '0010_analytics': analytics,
  '0011_idempotency_recovery': idempotencyRecovery,
  '0012_event_retention': eventRetention,
  '0013_retired_secrets': retiredSecrets,
  '0014_refunds_due': refundsDue,
  '0015_transfer_idempotency': transferIdempotency,
  '0016_transfer_receiver': transferReceiver,
  '0017_search_fold': searchFold,
  '0018_held_deliveries': heldDeliveries,
  '0019_variants': variants,
  '0020_customers': customers,
  '0021_analytics_customers': analyticsCustomers,
  '0022_order_pricing': orderPricing,
  '0023_pricing_rules': pricingRules,
  '0024_refunds_owed': refundsOwed,
  '0025_analytics_pricing': analyticsPricing,
  '0026_imports': imports,
  '0027_webhook_fairness': webhookFairness,
  '0028_plugin_apps': pluginApps,
  '0029_app_runtime': appRuntime,
  '0030_delivery_log_order': deliveryLogOrder,
  '0031_list_counts': listCounts,
  '0033_catalog_versions': catalogVersions,
  '0034_plugin_revisions': pluginRevisions,
  '0035_normalised_states': normalisedStates,
  '0036_redact_refund_reasons': redactRefundReasons,
  '0037_publishable_keys': publishableKeys,
  '0038_product_handles': productHandles,
  '0044_pricing_versions': pricingVersions,
  '0045_selling': selling,
  '0046_catalog_details': catalogDetails,
  '0060_list_filters': listFilters,
};
