import type { Config } from './config.js';
import { FOLD_BATCH, foldListCounts } from './db/list-counts.js';
import { migrateToLatest } from './db/migrate.js';
import { openStore, type Store } from './db/store.js';
import { createIdempotency } from './http/idempotency.js';
import { createReadCache } from './http/read-cache.js';
import type { Every, Overrides, Platform, Services } from './kernel/module.js';
import { type AnyManifest, composeServices, declareModules, inOrder, loadModules } from './kernel/modules.js';
import { createVocabulary } from './kernel/vocabulary.js';
import { systemClock } from './lib/clock.js';
import { createLogger } from './lib/logger.js';
import { setScryptCost } from './lib/passwords.js';
import { defaultVersionRegistry, type VersionRegistry } from './modules/versions/index.js';

/**
 * The composition root: plain factories, no container. `createDeps` finds the modules
 * (src/modules/<m>/<m>.module.ts, see src/kernel/), opens the store, applies migrations, builds the
 * platform every module shares and then each module's services once; the HTTP app (src/app.ts),
 * the worker and the CLI all start from it. Nothing here names a module: each declares itself.
 */

declare module './kernel/module.js' {
  interface Overrides {
    /** The dated versions served (tests swap in their own). */
    versions?: VersionRegistry;
    /** The modules to compose instead of those found in src/modules (a test adds one of its own). */
    modules?: readonly AnyManifest[];
  }
}

export type DepsOverrides = Overrides;

export type Deps = Platform &
  Services & {
    /** The modules, in their order: the HTTP app registers their routes, the OpenAPI document reads them. */
    modules: readonly AnyManifest[];
    /** Idempotency keys of POST requests (src/http/idempotency.ts). */
    idempotency: ReturnType<typeof createIdempotency>;
    /** Catalog answers kept per tenant and request, served while the catalog's version holds. */
    readCache: ReturnType<typeof createReadCache>;
    /** Whether requests are rate limited, counted against the quota and metered (on unless overridden). */
    limitsAndMetering: boolean;
    /** Starts background timers: each module's, the idempotency purge and the list count fold. */
    start(): void;
    /** Stops every module's work, newest first, then closes the store. */
    close(): Promise<void>;
  };

export async function createDeps(config: Config, overrides: DepsOverrides = {}): Promise<Deps> {
  setScryptCost(config.passwordScryptLog2N);
  const modules = inOrder(overrides.modules ?? (await loadModules()));
  if (overrides.modules) declareModules(modules);
  const clock = overrides.clock ?? systemClock;
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const vocabulary = createVocabulary(modules);
  const versions = overrides.versions ?? defaultVersionRegistry(modules);
  const store: Store = openStore({
    databaseUrl: config.databaseUrl,
    databaseSchema: config.databaseSchema,
    dataDir: config.dataDir,
    databaseLockTimeoutMs: config.databaseLockTimeoutMs,
    databaseStatementTimeoutMs: config.databaseStatementTimeoutMs,
    databaseTenantConnections: config.databaseTenantConnections,
    databasePreparedStatements: config.databasePreparedStatements,
    ...(overrides.poolSize ? { poolSize: overrides.poolSize } : {}),
  });
  try {
    await migrateToLatest(store, modules);
  } catch (error) {
    await store.close();
    throw error;
  }
  const platform: Platform = { config, clock, logger, store, vocabulary, versions, overrides };
  const services = composeServices(modules, platform) as unknown as Platform & Services;
  // What every event also writes in its transaction (customer figures, webhook deliveries,
  // analytics rollups), in the modules' order; registered before anything can emit.
  for (const module of modules) {
    for (const effect of module.effects?.(services) ?? []) services.events.onEmit(effect);
  }
  const idempotency = createIdempotency({ store, clock });
  let maintenance: NodeJS.Timeout[] = [];
  let started = false;

  const deps: Deps = {
    ...services,
    modules,
    idempotency,
    readCache: createReadCache({ store }),
    limitsAndMetering: overrides.limitsAndMetering ?? true,
    start(): void {
      if (started) return;
      started = true;
      const every: Every = (ms, job, failure, options = {}) => {
        const run = () => {
          job().catch((error: unknown) => logger.warn({ err: error }, failure));
        };
        if (options.atStart) run();
        const timer = setInterval(run, ms);
        timer.unref();
        maintenance.push(timer);
      };
      for (const module of modules) module.start?.(services, every);
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
    },
    async close(): Promise<void> {
      for (const timer of maintenance) clearInterval(timer);
      maintenance = [];
      for (const module of [...modules].reverse()) await module.stop?.(services);
      await store.close();
    },
  };
  return deps;
}
