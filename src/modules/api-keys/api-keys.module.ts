import { EnvelopeSchema } from '../../http/pagination.js';
import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import { apiKeyRoutes } from './api-keys.routes.js';
import { apiKeySchemas } from './api-keys.schemas.js';
import { type ApiKeyService, createApiKeyService } from './api-keys.service.js';

/** Scoped API keys: creating, rolling and revoking them, and authenticating every request's key. */

const PERMISSIONS = ['read:keys', 'write:keys'] as const;

/** The members 2027-01-20 added to API keys, with publishable keys. */
const PUBLISHABLE_KEY_FIELDS = new Set(['type', 'allowed_origins']);

declare module '../../kernel/vocabulary.js' {
  interface PermissionNames extends Names<typeof PERMISSIONS> {}
}
declare module '../../kernel/module.js' {
  interface Services {
    apiKeys: ApiKeyService;
  }
}

export default defineModule({
  name: 'api-keys',
  position: 20,
  tags: [{ name: 'API keys', description: 'Scoped keys: create, roll with a grace period, revoke' }],
  permissions: PERMISSIONS,
  operationIds: {
    'GET /v1/api-keys': 'listApiKeys',
    'POST /v1/api-keys': 'createApiKey',
    'GET /v1/api-keys/:id': 'getApiKey',
    'DELETE /v1/api-keys/:id': 'revokeApiKey',
    'POST /v1/api-keys/:id/roll': 'rollApiKey',
  },
  components: (vocabulary) => {
    const { ApiKeySchema } = apiKeySchemas(vocabulary);
    return { ApiKey: ApiKeySchema, ApiKeyList: EnvelopeSchema(ApiKeySchema) };
  },
  needs: ['audit'],
  services: (deps) => ({ apiKeys: createApiKeyService(deps) }),
  versionChanges: {
    '2027-01-20': [
      {
        description: 'API keys gain `type` (`secret` or `publishable`) and `allowed_origins`.',
        toPrevious: {
          api_key: (key) =>
            Object.fromEntries(Object.entries(key).filter(([k]) => !PUBLISHABLE_KEY_FIELDS.has(k))),
        },
      },
    ],
  },
  routes: [{ plugin: apiKeyRoutes }],
  // The `last_used` flush, and listening for other processes' revocations and tenant changes.
  start: ({ apiKeys }) => apiKeys.start(),
  stop: ({ apiKeys }) => apiKeys.stop(),
});
