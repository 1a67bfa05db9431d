import { defineModule } from '../../kernel/module.js';
import { settingsRoutes } from './settings.routes.js';
import { SettingsSchema, StorefrontSettingsSchema } from './settings.schemas.js';
import { createSettingsService, type SettingsService } from './settings.service.js';

/**
 * A store's settings (`GET`/`PATCH /settings`): its name and currency, when its unpaid orders
 * expire (the orders module's sweep reads them from the tenant's row) and how its storefront
 * behaves. Changing them needs `write:settings`, which the versions module declares (pinning the
 * version is a setting too); reading them, `read:users`.
 */

declare module '../../kernel/module.js' {
  interface Services {
    /** A store's settings: `get(tenantId)` answers from memory on the storefront's hot paths. */
    settings: SettingsService;
  }
}

export default defineModule({
  name: 'settings',
  position: 12,
  tags: [
    {
      name: 'Settings',
      description: 'The store’s name and currency, unpaid order expiry and storefront settings',
    },
  ],
  operationIds: {
    'GET /v1/settings': 'getSettings',
    'PATCH /v1/settings': 'updateSettings',
  },
  components: () => ({ Settings: SettingsSchema, StorefrontSettings: StorefrontSettingsSchema }),
  needs: ['apiKeys'],
  services: (deps) => ({ settings: createSettingsService(deps) }),
  routes: [{ plugin: settingsRoutes }],
  // Listening for other processes' changes of settings, so no process serves old ones.
  start: ({ settings }) => settings.start(),
});
