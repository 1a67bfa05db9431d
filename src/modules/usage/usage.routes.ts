import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../kernel/module.js';
import { principalOf } from '../../http/auth.js';
import { UsageQuery, UsageSchema } from './usage.schemas.js';

export function usageRoutes(deps: Pick<Services, 'usage'>): FastifyPluginAsyncTypebox {
  const { usage } = deps;
  return async (app) => {
    app.get(
      '/usage',
      {
        config: { auth: 'read:usage', resource: 'usage' },
        schema: {
          tags: ['Usage'],
          summary: 'Calls, errors, response times, monthly quota and hourly limit of the calling tenant',
          description:
            'Counts every authenticated request of the tenant (all keys), by endpoint and UTC day; the storefront’s calls (`/store/*`), which count against neither the quota nor the hourly limit, apart in `storefront`. Calls show up within 2 seconds.',
          querystring: UsageQuery,
          response: { 200: UsageSchema },
        },
      },
      async (request) => {
        // The tenant's decision (this is no storefront route): the body agrees with the headers.
        const limits = request.limits !== null && 'monthly' in request.limits ? request.limits : null;
        return usage.summary(principalOf(request).tenant, request.query.period ?? 'month', limits);
      },
    );
  };
}
