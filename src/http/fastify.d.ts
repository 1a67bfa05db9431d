import type { Principal } from '../lib/principal.js';
import type { RouteAuth } from './auth.js';
import type { RouteAnswerCache } from './read-cache.js';
import type { IdempotencyState } from '../lib/idempotent-write.js';
import type { LimitDecision, RouteRateLimit, StorefrontDecision } from '../modules/limits/index.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the route requires; every `/v1` route must declare it. */
    auth?: RouteAuth;
    /** The resource the response body is, for version transforms. */
    resource?: string;
    /** The body is a list envelope of `resource`: each item of `data` is rendered. */
    list?: boolean;
    /**
     * `'catalog'`: answers are kept in the read cache (src/http/read-cache.ts) with the tenant's
     * catalog version, and served from it while that version holds. A `RouteAnswerCache`: the
     * route's answers are kept in that one (a module's own, with its own rule of what holds).
     */
    cache?: 'catalog' | RouteAnswerCache;
    /**
     * `'ai'`: the tenant's tighter per-minute AI limit applies on top of the hourly and monthly ones.
     * On a storefront route, `'cart'`: the route changes the cart `:id` (the per-cart limit applies
     * on top of the per-address one); `'checkout'`: it completes it (the completion limits too).
     */
    rateLimit?: RouteRateLimit;
    /**
     * `'ahead'`: when the tenant's share of database connections is all in use, the route's
     * requests wait ahead of the tenant's other new requests (src/db/tenant-share.ts), as requests
     * already under way do: a cart's completion, the sale itself, goes before browsing and carts.
     */
    queue?: 'ahead';
    /**
     * What an idempotent replay of this route's success answers, when its response shows a secret
     * once (a new API key, a webhook signing secret): the response is stored this way, so the
     * secret is neither kept in the idempotency store nor shown a second time.
     */
    replayed?: (body: Record<string, unknown>) => Record<string, unknown>;
  }
  interface FastifyRequest {
    principal: Principal | null;
    apiVersion: string;
    idempotency: IdempotencyState | null;
    /**
     * The rate-limit and quota decision for this request (set for authenticated requests); on a
     * storefront route, the storefront limits' decision.
     */
    limits: LimitDecision | StorefrontDecision | null;
    /** The shopper's address on a storefront route (set by its gate; read it with `buyerIpOf`). */
    buyerIp: string;
  }
}
