import { defineModule } from '../../kernel/module.js';
import { createTenantService, type TenantService } from './tenants.service.js';

/**
 * Stores (tenants): each made with its owner and a first key holding every permission; its plan,
 * limits and pinned version. No routes: the console and the CLI make stores.
 */

declare module '../../kernel/module.js' {
  interface Services {
    tenants: TenantService;
  }
}

export default defineModule({
  name: 'tenants',
  position: 25,
  needs: ['apiKeys', 'audit'],
  services: (deps) => ({ tenants: createTenantService(deps) }),
});
