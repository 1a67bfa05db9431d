import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { READY_TIMEOUT_MS, storeUnavailable } from '../../db/store.js';
import { storeUnavailableProblem } from '../../http/error-handler.js';
import { errorResponses } from '../../http/schemas.js';
import type { Platform } from '../../kernel/module.js';

export function healthRoutes(deps: Pick<Platform, 'store'>): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/healthz',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['Health'],
          summary: 'Liveness: the process answers',
          response: { 200: Type.Object({ status: Type.Literal('ok') }, { examples: [{ status: 'ok' }] }) },
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
          summary: 'Readiness: the database answers and takes new connections',
          description: `Answers within ${READY_TIMEOUT_MS / 1000} s: 200, or 503 \`service_unavailable\` with \`Retry-After\` and a \`detail\` saying why (the database is unreachable, does not answer in time, or refuses new connections).`,
          response: {
            200: Type.Object({ status: Type.Literal('ready') }, { examples: [{ status: 'ready' }] }),
            ...errorResponses(503),
          },
        },
      },
      async () => {
        try {
          await deps.store.ping();
        } catch (error) {
          throw storeUnavailableProblem(storeUnavailable(error) ?? 'unreachable');
        }
        return { status: 'ready' as const };
      },
    );
  };
}
