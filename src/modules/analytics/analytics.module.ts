import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import { createRollupRunner, queueListener, type RollupRunner } from './analytics.queue.js';
import { analyticsRoutes } from './analytics.routes.js';
import { type AnalyticsService, createAnalyticsService } from './analytics.service.js';

/** Revenue, orders, customers and products over time, read from rollups the events keep. */

const PERMISSIONS = ['read:analytics'] as const;

declare module '../../kernel/vocabulary.js' {
  interface PermissionNames extends Names<typeof PERMISSIONS> {}
}
declare module '../../kernel/module.js' {
  interface Services {
    analytics: AnalyticsService;
    /** Takes queued order and refund events into the rollups in a serving process. */
    analyticsRollups: RollupRunner;
  }
}

export default defineModule({
  name: 'analytics',
  position: 140,
  tags: [
    { name: 'Analytics', description: 'Revenue, orders, customers and products over time, and reports' },
  ],
  permissions: PERMISSIONS,
  operationIds: {
    'GET /v1/analytics': 'getAnalytics',
    'GET /v1/analytics/reports/customers': 'getCustomersReport',
    'GET /v1/analytics/reports/products': 'getProductsReport',
    'GET /v1/analytics/reports/sales': 'getSalesReport',
  },
  services: (deps) => ({
    analytics: createAnalyticsService(deps),
    analyticsRollups: createRollupRunner(deps.store, deps.logger),
  }),
  // Order and refund events move the daily, product, category and customer figures that the
  // analytics endpoints read, so a period costs the same at a thousand orders as at a million:
  // each is queued in its change's transaction and rolled up in batches (analytics.queue.ts).
  effects: ({ store, analyticsRollups }) => [queueListener(store, analyticsRollups.nudge)],
  routes: [{ plugin: analyticsRoutes }],
  start: ({ analyticsRollups }, every) => {
    analyticsRollups.start();
    every(1_000, () => analyticsRollups.sweep(), 'analytics rollups failed');
  },
  stop: ({ analyticsRollups }) => analyticsRollups.stop(),
});
