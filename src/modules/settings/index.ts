/**
 * The settings module's face: what other modules and the house may use of it. Anything not
 * here is the module's own (the lint's no-restricted-imports refuses an import of it).
 */
export { CART_ID_PLACEHOLDER, type SettingsObject, SettingsSchema } from './settings.schemas.js';
export type { SettingsService } from './settings.service.js';
