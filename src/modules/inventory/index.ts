/**
 * The inventory module's face: what other modules and the house may use of it. Anything not
 * here is the module's own (the lint's no-restricted-imports refuses an import of it).
 */
export { findLevelLocation, openDefaultLocation, setOnHand, storeLocations } from './inventory.service.js';
export type { InventoryService } from './inventory.service.js';
