import { defineModule } from '../../kernel/module.js';
import { consolePages } from './console.pages.js';
import { consoleApiRoutes } from './console.routes.js';
import { type ConsoleService, createConsoleService } from './console.service.js';

/**
 * The developer console: accounts, sessions and throttling behind its own routes (`/console/api`,
 * outside the document), and the pages of the built console app. Everything else it shows it asks
 * `/v1` for, with its session.
 */

declare module '../../kernel/module.js' {
  interface Services {
    /** Developer console accounts, sessions and throttling. */
    consoleAccounts: ConsoleService;
  }
}

export default defineModule({
  name: 'console',
  position: 160,
  needs: ['tenants'],
  services: (deps) => ({ consoleAccounts: createConsoleService(deps) }),
  routes: [
    { prefix: '/console/api', plugin: consoleApiRoutes },
    // The pages answer an unknown page, outside `/v1`, after the gate of public routes has
    // stamped the response's version.
    { prefix: '', plugin: (_deps, http) => consolePages({ gate: http.gateFor({ auth: 'public' }) }) },
  ],
});
