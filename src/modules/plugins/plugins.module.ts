import { EnvelopeSchema } from '../../http/pagination.js';
import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import { pluginRoutes } from './plugins.routes.js';
import {
  AppInstallationSchema,
  PluginDeliverySchema,
  PluginInstallationSchema,
  pluginSchemas,
  RatingSchema,
} from './plugins.schemas.js';
import { createPluginService, type PluginService } from './plugins.service.js';

/**
 * The marketplace: plugins published, reviewed, installed with scoped tokens, rated, and told about
 * their installations.
 */

const PERMISSIONS = ['read:plugins', 'write:plugins', 'publish:plugins'] as const;
/**
 * Events about a plugin installation, sent only to that installation's own subscription (the
 * plugin's URL), never fanned out to the store's webhooks nor listed by `GET /events`:
 * `app.installed` carries the installation token; `app.permissions_updated` the installation's
 * new grant (a revision of the plugin approved, or accepted by the store).
 */
const APP_EVENTS = ['app.installed', 'app.uninstalled', 'app.permissions_updated'] as const;

declare module '../../kernel/vocabulary.js' {
  interface PermissionNames extends Names<typeof PERMISSIONS> {}
  interface AppEventTypeNames extends Names<typeof APP_EVENTS> {}
}
declare module '../../kernel/module.js' {
  interface Services {
    plugins: PluginService;
  }
}

export default defineModule({
  name: 'plugins',
  position: 110,
  tags: [
    {
      name: 'Plugins',
      description: 'The marketplace, installing apps with scoped tokens, and publishing your own',
    },
  ],
  permissions: PERMISSIONS,
  events: [
    {
      types: APP_EVENTS,
      object: AppInstallationSchema,
      audience: 'installation',
      // An uninstall carries neither the token nor the grant; a new grant carries no token.
      exampleData: (type, installation) => {
        const { access_token: _token, ...granted } = installation;
        const { permissions: _permissions, events: _events, ...uninstalled } = granted;
        if (type === 'app.uninstalled') return { object: uninstalled };
        if (type === 'app.permissions_updated') return { object: granted };
        return { object: installation };
      },
    },
  ],
  operationIds: {
    'GET /v1/plugins': 'listPlugins',
    'POST /v1/plugins': 'createPlugin',
    'GET /v1/plugins/:id': 'getPlugin',
    'PATCH /v1/plugins/:id': 'updatePlugin',
    'POST /v1/plugins/:id/submit': 'submitPlugin',
    'GET /v1/plugins/:id/installations': 'listPluginInstallations',
    'GET /v1/plugins/:id/deliveries': 'listPluginDeliveries',
    'POST /v1/plugins/:id/install': 'installPlugin',
    'POST /v1/plugins/:id/install/accept': 'acceptPluginInstallation',
    'DELETE /v1/plugins/:id/install': 'uninstallPlugin',
    'POST /v1/plugins/:id/ratings': 'ratePlugin',
  },
  components: (vocabulary) => {
    const { PluginSchema } = pluginSchemas(vocabulary);
    return {
      Plugin: PluginSchema,
      PluginList: EnvelopeSchema(PluginSchema),
      PluginRating: RatingSchema,
      PluginInstallation: PluginInstallationSchema,
      PluginInstallationList: EnvelopeSchema(PluginInstallationSchema),
      PluginDelivery: PluginDeliverySchema,
      PluginDeliveryList: EnvelopeSchema(PluginDeliverySchema),
      AppInstallation: AppInstallationSchema,
    };
  },
  needs: ['events', 'webhooks', 'audit'],
  services: (deps) => ({
    // Installation payloads are rendered in the latest version.
    plugins: createPluginService({ ...deps, apiVersion: deps.versions.latest.version }),
  }),
  routes: [{ plugin: pluginRoutes }],
});
