/**
 * The tenants module's face: what other modules and the house may use of it. Anything not
 * here is the module's own (the lint's no-restricted-imports refuses an import of it).
 */
export { findUser, findUserByEmail } from './tenants.repository.js';
export { type CreatedTenant, PLANS, type TenantService } from './tenants.service.js';
export { insertStore, pairedStoreOf, SETTING_DEFAULTS } from './tenants.stores.js';
export { livemodeOf, rememberLivemode } from './tenants.modes.js';
