import { defineModule } from '../../kernel/module.js';
import { healthRoutes } from './health.routes.js';

/** Liveness and readiness, outside `/v1`: load balancers probe them without a key or a version. */

export default defineModule({
  name: 'health',
  position: 0,
  tags: [{ name: 'Health', description: 'Liveness and readiness, for load balancers and orchestrators' }],
  operationIds: {
    'GET /healthz': 'checkLiveness',
    'GET /readyz': 'checkReadiness',
  },
  routes: [{ prefix: '', plugin: healthRoutes }],
});
