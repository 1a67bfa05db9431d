import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import { rollupListener } from './analytics.rollups.js';
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
  services: (deps) => ({ analytics: createAnalyticsService(deps) }),
  // Order and refund events move the daily, product, category and customer figures that the
  // analytics endpoints read, so a period costs the same at a thousand orders as at a million.
  effects: ({ logger }) => [rollupListener(logger)],
  routes: [{ plugin: analyticsRoutes }],
});
