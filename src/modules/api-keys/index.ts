/**
 * The api-keys module's face: what other modules and the house may use of it. Anything not
 * here is the module's own (the lint's no-restricted-imports refuses an import of it).
 */
export { apiKeySchemas, permissionSchema } from './api-keys.schemas.js';
export {
  APP_TOKEN_PREFIX,
  type ApiKeyObject,
  type ApiKeyService,
  hashKey,
  PUBLISHABLE_KEY_PREFIX,
} from './api-keys.service.js';
export { normaliseOrigin, requestOrigin } from './api-keys.origins.js';
