import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import { createRateLimiter, type RateLimiter, type StorefrontLookups } from '../limits/index.js';
import { createUsageMeter, type UsageMeter } from './usage.meter.js';
import { usageRoutes } from './usage.routes.js';
import { createUsageService, type UsageService } from './usage.service.js';

/**
 * Every authenticated call metered, the monthly quota and the hourly and AI rate limits; and the
 * storefront's own limits, which read the store's `storefront.requests_per_minute` (settings) and,
 * for a completion, the products of its cart (carts).
 */

const PERMISSIONS = ['read:usage'] as const;

declare module '../../kernel/vocabulary.js' {
  interface PermissionNames extends Names<typeof PERMISSIONS> {}
}
declare module '../../kernel/module.js' {
  interface Services {
    /** Counts requests in memory and flushes them to the store. */
    usageMeter: UsageMeter;
    /** The tenants' rate limits and quota, in Redis when configured (src/modules/limits). */
    rateLimiter: RateLimiter;
    usage: UsageService;
  }
}

export default defineModule({
  name: 'usage',
  position: 130,
  tags: [{ name: 'Usage', description: 'Calls, errors, monthly quota and rate limits' }],
  permissions: PERMISSIONS,
  operationIds: { 'GET /v1/usage': 'getUsage' },
  versionChanges: {
    '2027-01-20': [
      {
        description:
          '`GET /usage` gains `storefront`: the storefront’s calls, which count against neither the quota nor the hourly limit, reported apart.',
        toPrevious: {
          usage: (usage) => Object.fromEntries(Object.entries(usage).filter(([key]) => key !== 'storefront')),
        },
      },
      {
        description:
          '`GET /usage` gains `by_mode`: the store’s live and test calls side by side, from either mode’s key.',
        toPrevious: {
          usage: (usage) => Object.fromEntries(Object.entries(usage).filter(([key]) => key !== 'by_mode')),
        },
      },
    ],
  },
  needs: ['settings', 'carts', 'tenants'],
  services: (deps) => {
    const { store, clock, logger, config, settings, carts, tenants } = deps;
    const usageMeter = createUsageMeter({ store, logger });
    const storefront: StorefrontLookups = {
      requestsPerMinute: (tenantId) =>
        settings.cached(tenantId)?.storefront.requests_per_minute ??
        settings.get(tenantId).then((read) => read.storefront.requests_per_minute),
      // An unknown cart has no products; the route answers its 404.
      cartProducts: (tenantId, cartId) => carts.productIds(tenantId, cartId),
    };
    const rateLimiter = createRateLimiter({
      clock,
      logger,
      redisUrl: config.redisUrl,
      keyPrefix: config.redisKeyPrefix,
      // A month's quota starts from the calls the store has counted.
      seedMonth: usageMeter.countedCalls,
      storefront,
    });
    const usage = createUsageService({
      store,
      clock,
      logger,
      meter: usageMeter,
      limiter: rateLimiter,
      pairOf: (tenantId) => tenants.pairOf(tenantId),
    });
    return { usageMeter, rateLimiter, usage };
  },
  routes: [{ plugin: usageRoutes }],
  start: ({ usageMeter }) => usageMeter.start(),
  stop: async ({ usageMeter, rateLimiter }) => {
    await usageMeter.stop();
    await rateLimiter.close();
  },
});
