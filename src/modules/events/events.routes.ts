import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { principalOf } from '../../http/auth.js';
import { EnvelopeSchema, PageQuery } from '../../http/pagination.js';
import { errorResponses, Timestamp } from '../../http/schemas.js';
import { EVENT_TYPES } from './events.types.js';

export const EventSchema = Type.Object({
  id: Type.String({ examples: ['evt_9hGf2kQm1bX9sT2uV7wY3cE5'] }),
  type: Type.String({ enum: [...EVENT_TYPES] }),
  created: Timestamp,
  api_version: Type.String(),
  data: Type.Object(
    {
      object: Type.Object({}, { additionalProperties: true }),
      variant: Type.Optional(
        Type.Object(
          {},
          { additionalProperties: true, description: 'On `product.outofstock`: the variant that sold out.' },
        ),
      ),
    },
    { additionalProperties: true },
  ),
});

const EventListQuery = Type.Object(
  {
    ...PageQuery,
    type: Type.Optional(Type.String({ enum: [...EVENT_TYPES] })),
    created_from: Type.Optional(Type.String({ format: 'date-time' })),
    created_to: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

const RETENTION =
  'Events are kept `EVENT_RETENTION_DAYS` (default 30 days), except one whose webhook delivery is still pending, which stays until it is delivered.';

export function eventRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  const { events } = deps;
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
          response: { 200: EnvelopeSchema(EventSchema) },
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
          params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
          response: { 200: EventSchema, ...errorResponses(404) },
        },
      },
      async (request) => events.get(principalOf(request).tenant.id, request.params.id, request.apiVersion),
    );
  };
}
