import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.js';
import { errorResponses } from '../../http/schemas.js';
import type { Platform, Services } from '../../kernel/module.js';
import { EventIdParams, eventSchemas } from './events.schemas.js';

const RETENTION =
  'Events are kept `EVENT_RETENTION_DAYS` (default 30 days), except one whose webhook delivery is still pending, which stays until it is delivered.';

export function eventRoutes(
  deps: Pick<Platform, 'vocabulary'> & Pick<Services, 'events'>,
): FastifyPluginAsyncTypebox {
  const { events } = deps;
  const { EventSchema, EventListSchema, EventListQuery } = eventSchemas(deps.vocabulary);
  return async (app) => {
    app.get(
      '/events',
      {
        config: { auth: 'read:webhooks' },
        schema: {
          tags: ['Events'],
          summary: 'List events, newest first',
          description: RETENTION,
          querystring: EventListQuery,
          response: { 200: EventListSchema },
        },
      },
      async (request) => events.list(principalOf(request).tenant.id, request.query, request.apiVersion),
    );

    app.get(
      '/events/:id',
      {
        config: { auth: 'read:webhooks' },
        schema: {
          tags: ['Events'],
          summary: 'Get one event',
          description: `${RETENTION} An event past it is deleted when the server starts and every 10 minutes, and is 404 from then on.`,
          params: EventIdParams,
          response: { 200: EventSchema, ...errorResponses(404) },
        },
      },
      async (request) => events.get(principalOf(request).tenant.id, request.params.id, request.apiVersion),
    );
  };
}
