/**
 * The storefront module's face: what other modules and the house may use of it. Anything not
 * here is the module's own (the lint's no-restricted-imports refuses an import of it).
 */
export { presentStoreProduct } from './storefront.service.js';
export { StoreProductSchema, type StoreProductObject } from './storefront.schemas.js';
