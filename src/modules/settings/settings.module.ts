import { defineModule } from '../../kernel/module.js';
import { settingsRoutes } from './settings.routes.js';
import { SettingsSchema, StorefrontSettingsSchema } from './settings.schemas.js';
import { createSettingsService, type SettingsService } from './settings.service.js';
import * as storeSettings from './migrations/0041_store_settings.js';

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
/** The settings are columns of the store's row (migration 0041). */
declare module '../../db/schema.js' {
  interface TenantsTable {
    /** A pending order older than this is cancelled; 0: never. */
    unpaid_order_expiry_minutes: number;
    /** How long a storefront cart's stock hold lasts; null: holds are off. */
    storefront_hold_minutes: number | null;
    /** An open cart unchanged this long is abandoned (`cart.abandoned`). */
    storefront_abandoned_after_minutes: number;
    /** An https URL with `{cart_id}`, the `recovery_url` of `cart.abandoned`; or null. */
    storefront_recovery_url_template: string | null;
    /** Storefront requests a minute per buyer IP. */
    storefront_requests_per_minute: number;
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
  migrations: { '0041_store_settings': storeSettings },
  needs: ['apiKeys', 'audit'],
  services: (deps) => ({ settings: createSettingsService(deps) }),
  routes: [{ plugin: settingsRoutes }],
  // Listening for other processes' changes of settings, so no process serves old ones.
  start: ({ settings }) => settings.start(),
});
