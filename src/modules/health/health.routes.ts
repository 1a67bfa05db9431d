import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { AppError } from '../../http/errors.js';
import { errorResponses } from '../../http/schemas.js';

export function healthRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/healthz',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['Health'],
          summary: 'Liveness: the process answers',
          response: { 200: Type.Object({ status: Type.Literal('ok') }) },
        },
      },
      async () => ({ status: 'ok' as const }),
    );

    app.get(
      '/readyz',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['Health'],
          summary: 'Readiness: the database answers',
          response: { 200: Type.Object({ status: Type.Literal('ready') }), ...errorResponses(503) },
        },
      },
      async () => {
        try {
          await deps.store.ping();
        } catch {
          throw new AppError('service_unavailable', 'The database is unreachable.');
        }
        return { status: 'ready' as const };
      },
    );
  };
}
