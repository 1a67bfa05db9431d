import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import type { CodesOf } from '../../lib/errors.js';
import { INVENTORY_PROBLEMS } from './inventory.problems.js';
import { inventoryRoutes } from './inventory.routes.js';
import {
  AdjustmentListSchema,
  AdjustmentSchema,
  LocationListSchema,
  LocationSchema,
  StockLevelListSchema,
  StockLevelSchema,
} from './inventory.schemas.js';
import { createInventoryService, type InventoryService } from './inventory.service.js';
import type { InventoryAdjustmentsTable, LocationsTable } from './inventory.tables.js';
import * as locations from './migrations/0047_locations.js';

/**
 * Inventory: a store's locations (the default one made with the store), a variant's stock at
 * each, and adjustments of it, each recorded. The levels are kept by the products module
 * (products.levels.ts), in the transactions of the orders, fulfilments and returns that move them.
 */

const PERMISSIONS = ['read:inventory', 'write:inventory'] as const;
/** A location's id (`loc_...`) and an adjustment's (`adj_...`). */
const ID_PREFIXES = ['loc', 'adj'] as const;

declare module '../../kernel/vocabulary.js' {
  interface PermissionNames extends Names<typeof PERMISSIONS> {}
}
declare module '../../lib/errors.js' {
  interface ProblemCodeNames extends CodesOf<typeof INVENTORY_PROBLEMS> {}
}
declare module '../../lib/ids.js' {
  interface IdPrefixNames extends Names<typeof ID_PREFIXES> {}
}
declare module '../../db/schema.js' {
  interface Database {
    locations: LocationsTable;
    inventory_adjustments: InventoryAdjustmentsTable;
  }
}
declare module '../../kernel/module.js' {
  interface Services {
    /** Locations, stock levels per location and adjustments. */
    inventory: InventoryService;
  }
}

export default defineModule({
  name: 'inventory',
  position: 45,
  tags: [
    {
      name: 'Inventory',
      description:
        'Locations, each variant’s stock at each of them (`on_hand`, `committed`, `available`), and recorded adjustments',
    },
  ],
  permissions: PERMISSIONS,
  problems: INVENTORY_PROBLEMS,
  idPrefixes: ID_PREFIXES,
  migrations: { '0047_locations': locations },
  operationIds: {
    'POST /v1/locations': 'createLocation',
    'GET /v1/locations': 'listLocations',
    'GET /v1/locations/:id': 'getLocation',
    'PATCH /v1/locations/:id': 'updateLocation',
    'DELETE /v1/locations/:id': 'deleteLocation',
    'GET /v1/products/:id/variants/:variant_id/inventory': 'getVariantInventory',
    'POST /v1/inventory/adjustments': 'createInventoryAdjustment',
    'GET /v1/inventory/adjustments': 'listInventoryAdjustments',
  },
  components: () => ({
    Location: LocationSchema,
    LocationList: LocationListSchema,
    StockLevel: StockLevelSchema,
    StockLevelList: StockLevelListSchema,
    InventoryAdjustment: AdjustmentSchema,
    InventoryAdjustmentList: AdjustmentListSchema,
  }),
  needs: ['events', 'audit'],
  services: (deps) => ({ inventory: createInventoryService(deps) }),
  routes: [{ plugin: inventoryRoutes }],
});
