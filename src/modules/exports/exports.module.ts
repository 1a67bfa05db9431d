import { defineModule } from '../../kernel/module.js';
import { PRODUCT_COLUMNS_SINCE_2027_01_20 } from './exports.columns.js';
import { exportRoutes } from './exports.routes.js';
import { createExportService, type ExportService } from './exports.service.js';

/**
 * Every product, customer or order out as a CSV or JSON Lines file, streamed. Its operations are
 * under the imports module's tag, `Imports and exports`, and need each resource's read permission.
 */

/** A products file's row as versions before 2027-01-20 write it: without the columns it added. */
function productRowBefore(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).filter(
      ([column]) => !(PRODUCT_COLUMNS_SINCE_2027_01_20 as string[]).includes(column),
    ),
  );
}

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
  versionChanges: {
    '2027-01-20': [
      {
        description:
          'Products files gain the columns `seo_title`, `seo_description`, `image`, `cost`, `requires_shipping` and `taxable`.',
        toPrevious: { product_file_row: productRowBefore },
      },
    ],
  },
  services: (deps) => ({ exporter: createExportService(deps) }),
  routes: [{ plugin: exportRoutes }],
});
