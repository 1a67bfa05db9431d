import type { Config } from './config.js';
import { migrateToLatest } from './db/migrate.js';
import { registerEventEffects } from './effects.js';
import { openStore, type Store } from './db/store.js';
import { createIdempotency } from './http/idempotency.js';
import { createRateLimiter } from './modules/limits/limits.limiter.js';
import { type Clock, systemClock } from './lib/clock.js';
import { setScryptCost } from './lib/passwords.js';
import { createLogger, type Logger } from './lib/logger.js';
import { createBuiltinProvider } from './modules/ai/ai.builtin.js';
import { createOpenAiProvider } from './modules/ai/ai.openai.js';
import { createAiService } from './modules/ai/ai.service.js';
import { createAnalyticsService } from './modules/analytics/analytics.service.js';
import { createApiKeyService } from './modules/api-keys/api-keys.service.js';
import { createConsoleService } from './modules/console/console.service.js';
import { createEventService } from './modules/events/events.service.js';
import { createOrderService } from './modules/orders/orders.service.js';
import { createRefundService } from './modules/refunds/refunds.service.js';
import { createWalletService } from './modules/wallet/wallet.service.js';
import { createSandboxProvider, type PaymentProvider } from './modules/payments/payments.provider.js';
import { createPaymentService } from './modules/payments/payments.service.js';
import { createPluginService } from './modules/plugins/plugins.service.js';
import { createProductService } from './modules/products/products.service.js';
import { createVariantService } from './modules/products/variants.service.js';
import { createOrderCustomers } from './modules/customers/customers.orders.js';
import { createCustomerService } from './modules/customers/customers.service.js';
import { createCustomerPrivacy } from './modules/customers/customers.privacy.js';
import { createDiscountService } from './modules/pricing/discounts.service.js';
import { createShippingRateService, createTaxRateService } from './modules/pricing/rates.service.js';
import { createTenantService } from './modules/tenants/tenants.service.js';
import { createUsageMeter } from './modules/usage/usage.meter.js';
import { createUsageService } from './modules/usage/usage.service.js';
import { createUserService } from './modules/users/users.service.js';
import { createWebhookService } from './modules/webhooks/webhooks.service.js';
import { createTransport } from './modules/webhooks/webhooks.transport.js';
import { type Resolver, systemResolver } from './modules/webhooks/webhooks.url.js';
import {
  createWebhookWorker,
  DEFAULT_CONCURRENCY,
  type WorkerOptions,
} from './modules/webhooks/webhooks.worker.js';
import { defaultVersionRegistry } from './modules/versions/changes/index.js';
import type { VersionRegistry } from './modules/versions/versions.registry.js';
import { createImportRunner, type ImportRunnerOptions } from './modules/imports/imports.runner.js';
import { FOLD_BATCH, foldListCounts } from './db/list-counts.js';
import { createReadCache } from './http/read-cache.js';
import { createImportService } from './modules/imports/imports.service.js';
import { createAppRuntime, withFirstPartyApps } from './modules/apps/apps.runtime.js';
import { createExportService } from './modules/exports/exports.service.js';

/**
 * Wiring: plain factories, no container. `createDeps` opens the store, applies migrations and
 * builds every service once; the HTTP app, the worker and the CLI all start from it.
 */

export interface DepsOverrides {
  clock?: Clock;
  logger?: Logger;
  versions?: VersionRegistry;
  poolSize?: number;
  /** The payment provider; the built-in `sandbox` by default. */
  paymentProvider?: PaymentProvider;
  /** Webhook delivery: DNS resolver (tests swap it), CAs trusted instead of the system's, worker sizing. */
  webhooks?: { resolve?: Resolver; ca?: string | Buffer; worker?: WorkerOptions };
  /** false: no rate limits, quota or usage metering on requests (benchmarks measure their cost). */
  limitsAndMetering?: boolean;
  /** Bulk imports: batch size, lease and polling of the runner. */
  imports?: ImportRunnerOptions;
}

export async function createDeps(config: Config, overrides: DepsOverrides = {}) {
  setScryptCost(config.passwordScryptLog2N);
  const clock = overrides.clock ?? systemClock;
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const versions = overrides.versions ?? defaultVersionRegistry();
  const store: Store = openStore({
    databaseUrl: config.databaseUrl,
    databaseSchema: config.databaseSchema,
    dataDir: config.dataDir,
    databaseLockTimeoutMs: config.databaseLockTimeoutMs,
    databaseStatementTimeoutMs: config.databaseStatementTimeoutMs,
    databaseTenantConnections: config.databaseTenantConnections,
    ...(overrides.poolSize ? { poolSize: overrides.poolSize } : {}),
  });
  try {
    await migrateToLatest(store);
  } catch (error) {
    await store.close();
    throw error;
  }
  const apiKeys = createApiKeyService({ store, clock, logger });
  const tenants = createTenantService({ store, clock, versions, apiKeys });
  const idempotency = createIdempotency({ store, clock });
  const users = createUserService({ store });
  const events = createEventService({ store, clock, versions });
  const analytics = createAnalyticsService({ store, clock, logger });
  const paymentProvider = overrides.paymentProvider ?? createSandboxProvider();
  const products = createProductService({ store, clock, events });
  const variants = createVariantService({ store, clock, events });
  const aiProvider =
    config.ai.provider === 'openai' ? createOpenAiProvider(config.ai, logger) : createBuiltinProvider();
  const ai = createAiService({ store, clock, products, variants, provider: aiProvider });
  const wallet = createWalletService({ store, clock, events });
  const payments = createPaymentService({ store, clock, events, provider: paymentProvider, logger, wallet });
  const customers = createCustomerService({ store, clock, events });
  const customerPrivacy = createCustomerPrivacy({ store, clock, events });
  const discounts = createDiscountService({ store, clock, events });
  const shippingRates = createShippingRateService({ store, clock });
  const taxRates = createTaxRateService({ store, clock });
  const refunds = createRefundService({ store, clock, events, payments });
  const orders = createOrderService({
    store,
    clock,
    events,
    logger,
    payments,
    refunds,
    customers: createOrderCustomers({ store, events }),
  });
  const resolve = overrides.webhooks?.resolve ?? systemResolver;
  const webhooks = createWebhookService({ store, clock, config, events, resolve });
  const plugins = createPluginService({
    store,
    clock,
    events,
    webhooks,
    apiVersion: versions.latest.version,
  });
  // What every event also writes in its transaction (analytics rollups, webhook deliveries).
  registerEventEffects({ events, webhooks, logger });
  const webhookWorkerOptions = { perEndpoint: 8, ...overrides.webhooks?.worker };
  const webhookTransport = createTransport({
    allowInsecure: config.webhooks.allowInsecure,
    timeoutMs: config.webhooks.timeoutMs,
    // Endpoints on one host (two paths of one integration, many tenants of one platform) share
    // its connections: as many as the worker's attempts, so an attempt never waits behind another
    // endpoint's slow ones for a connection while its timeout runs. The worker caps each endpoint.
    connectionsPerOrigin: webhookWorkerOptions.concurrency ?? DEFAULT_CONCURRENCY,
    resolve,
    ca: overrides.webhooks?.ca,
  });
  // First-party apps (AI Autowriter, Sold-out hider) take their deliveries in process.
  const apps = createAppRuntime({ store, clock, logger });
  const webhookWorker = createWebhookWorker(
    {
      store,
      clock,
      logger,
      config,
      events,
      transport: withFirstPartyApps(webhookTransport, apps),
      onDue: webhooks.onDue,
    },
    webhookWorkerOptions,
  );
  // Bulk imports run in the background (started like the webhook worker); exports stream.
  const importRunner = createImportRunner({ store, clock, logger, events }, overrides.imports);
  const imports = createImportService({ store, clock, wake: importRunner.wake });
  const exporter = createExportService({ store, logger });
  // Catalog answers kept per tenant and request, served while the catalog's version holds.
  const readCache = createReadCache({ store });
  const usageMeter = createUsageMeter({ store, logger });
  const rateLimiter = createRateLimiter({
    clock,
    logger,
    redisUrl: config.redisUrl,
    keyPrefix: config.redisKeyPrefix,
    seedMonth: usageMeter.countedCalls,
  });
  const usage = createUsageService({ store, clock, logger, meter: usageMeter, limiter: rateLimiter });
  const consoleAccounts = createConsoleService({ store, clock, tenants });
  let maintenance: NodeJS.Timeout[] = [];

  return {
    config,
    clock,
    logger,
    versions,
    store,
    apiKeys,
    tenants,
    users,
    events,
    analytics,
    plugins,
    paymentProvider,
    products,
    variants,
    ai,
    customers,
    /** A customer's data export and erasure (GDPR articles 15 and 17). */
    customerPrivacy,
    /** Pricing rules (src/modules/pricing): discounts, shipping rates, tax rates. */
    discounts,
    shippingRates,
    taxRates,
    orders,
    /** Refunds of orders: a part, or all that is left (`POST /orders/{id}/refunds`). */
    refunds,
    /** Charges, settles and refunds orders' payments; owns the stale payment and owed refund sweeps. */
    payments,
    wallet,
    idempotency,
    webhooks,
    /** Sends webhook deliveries; started by the server (WEBHOOK_WORKER_IN_PROCESS) or src/worker.ts. */
    webhookWorker,
    /** The first-party apps, served by the webhook worker; they call the API `buildApp` attaches. */
    apps,
    imports,
    /** Runs imports; started by the server (WEBHOOK_WORKER_IN_PROCESS) or src/worker.ts. */
    importRunner,
    /** Streams products, customers and orders as CSV or JSON Lines. */
    exporter,
    readCache,
    usage,
    /** Developer console accounts, sessions and throttling. */
    consoleAccounts,
    usageMeter,
    rateLimiter,
    /** Whether requests are rate limited, counted against the quota and metered (on unless overridden). */
    limitsAndMetering: overrides.limitsAndMetering ?? true,
    /**
     * Starts background timers (last_used flush, idempotency purge, stale payment and owed refund
     * sweeps, event retention).
     */
    start(): void {
      apiKeys.start();
      usageMeter.start();
      if (maintenance.length > 0) return;
      const every = (ms: number, job: () => Promise<unknown>, failure: string, atStart = false) => {
        const run = () => {
          job().catch((error: unknown) => logger.warn({ err: error }, failure));
        };
        if (atStart) run();
        const timer = setInterval(run, ms);
        timer.unref();
        maintenance.push(timer);
      };
      every(10 * 60_000, () => idempotency.purgeExpired(), 'idempotency purge failed');
      // Kept list counts (the event and delivery logs): deltas folded in as they come, so a
      // count adds up few rows.
      every(
        1_000,
        async () => {
          while ((await foldListCounts(store)) === FOLD_BATCH);
        },
        'list count fold failed',
      );
      every(60_000, () => payments.settleStalePayments(), 'stale payment sweep failed');
      every(60_000, () => payments.returnOwedRefunds(), 'owed refund sweep failed');
      every(
        10 * 60_000,
        async () => {
          const purged = await webhooks.purgeExpired();
          if (purged > 0) logger.info({ events: purged }, 'expired events and their delivery log deleted');
        },
        'event retention purge failed',
        // At start too: a store that was down, or a lowered EVENT_RETENTION_DAYS, is tidied at once.
        true,
      );
    },
    /** Flushes buffered state and closes the store. */
    async close(): Promise<void> {
      for (const timer of maintenance) clearInterval(timer);
      maintenance = [];
      await webhookWorker.stop();
      await importRunner.stop();
      await webhookTransport.close();
      await apiKeys.stop();
      await usageMeter.stop();
      await rateLimiter.close();
      await store.close();
    },
  };
}

export type Deps = Awaited<ReturnType<typeof createDeps>>;
