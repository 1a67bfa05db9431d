import type { Principal } from '../lib/principal.js';
import type { RouteAuth } from './permissions.js';
import type { IdempotencyState } from './idempotency.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route requires; every `/v1` route must declare it. */
    auth?: RouteAuth;
    /** The resource the response body is, for version transforms. */
    resource?: string;
  }
  interface FastifyRequest {
    principal: Principal | null;
    apiVersion: string;
    idempotency: IdempotencyState | null;
  }
}
