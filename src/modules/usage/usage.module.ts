import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import { createRateLimiter, type RateLimiter } from '../limits/index.js';
import { createUsageMeter, type UsageMeter } from './usage.meter.js';
import { usageRoutes } from './usage.routes.js';
import { createUsageService, type UsageService } from './usage.service.js';

/** Every authenticated call metered, the monthly quota and the hourly and AI rate limits. */

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
  services: (deps) => {
    const { store, clock, logger, config } = deps;
    const usageMeter = createUsageMeter({ store, logger });
    const rateLimiter = createRateLimiter({
      clock,
      logger,
      redisUrl: config.redisUrl,
      keyPrefix: config.redisKeyPrefix,
      // A month's quota starts from the calls the store has counted.
      seedMonth: usageMeter.countedCalls,
    });
    const usage = createUsageService({ store, clock, logger, meter: usageMeter, limiter: rateLimiter });
    return { usageMeter, rateLimiter, usage };
  },
  routes: [{ plugin: usageRoutes }],
  start: ({ usageMeter }) => usageMeter.start(),
  stop: async ({ usageMeter, rateLimiter }) => {
    await usageMeter.stop();
    await rateLimiter.close();
  },
});
