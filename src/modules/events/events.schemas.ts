import { Type } from 'typebox';
import { EnvelopeSchema, PageQuery } from '../../http/pagination.js';
import { Timestamp } from '../../http/schemas.js';
import type { Vocabulary } from '../../kernel/vocabulary.js';
import { EVENT_EXAMPLE } from './events.examples.js';

/**
 * The schemas that name the event types: the modules declare them, so the list is known once the
 * modules are found, not when this file is imported. Built once by the routes and the manifest.
 */
export function eventSchemas(vocabulary: Vocabulary) {
  const EventSchema = Type.Object(
    {
      id: Type.String({ examples: ['evt_9hGf2kQm1bX9sT2uV7wY3cE5'] }),
      type: Type.String({ enum: [...vocabulary.eventTypes] }),
      created: Timestamp,
      livemode: Type.Optional(
        Type.Boolean({
          description:
            'false for an event of the store’s test mode; its `data.object` carries the same (from 2027-01-20).',
        }),
      ),
      api_version: Type.String(),
      data: Type.Object(
        {
          object: Type.Object({}, { additionalProperties: true }),
          variant: Type.Optional(
            Type.Object(
              {},
              {
                additionalProperties: true,
                description: 'On `product.outofstock`: the variant that sold out.',
              },
            ),
          ),
        },
        { additionalProperties: true },
      ),
    },
    { examples: [EVENT_EXAMPLE] },
  );

  const EventListQuery = Type.Object(
    {
      ...PageQuery,
      type: Type.Optional(Type.String({ enum: [...vocabulary.eventTypes] })),
      object_id: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 64,
          description:
            'Only the events of this object (its `data.object.id`): an order’s timeline, a product’s history.',
          examples: ['ord_Hk3b2fQ9xL0pZ7vT1mN4cR8s'],
        }),
      ),
      created_from: Type.Optional(Type.String({ format: 'date-time' })),
      created_to: Type.Optional(Type.String({ format: 'date-time' })),
    },
    { additionalProperties: false },
  );

  return { EventSchema, EventListSchema: EnvelopeSchema(EventSchema), EventListQuery };
}

export const EventIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
