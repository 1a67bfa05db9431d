import { defineModule } from '../../kernel/module.js';
import { exportRoutes } from './exports.routes.js';
import { createExportService, type ExportService } from './exports.service.js';

/**
 * Every product, customer or order out as a CSV or JSON Lines file, streamed. Its operations are
 * under the imports module's tag, `Imports and exports`, and need each resource's read permission.
 */

declare module '../../kernel/module.js' {
  interface Services {
    /** Streams products, customers and orders as CSV or JSON Lines. */
    exporter: ExportService;
  }
}

export default defineModule({
  name: 'exports',
  position: 155,
  operationIds: {
    'GET /v1/exports/customers': 'exportCustomers',
    'GET /v1/exports/orders': 'exportOrders',
    'GET /v1/exports/products': 'exportProducts',
  },
  services: (deps) => ({ exporter: createExportService(deps) }),
  routes: [{ plugin: exportRoutes }],
});
