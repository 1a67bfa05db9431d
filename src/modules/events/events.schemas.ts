import { Type } from 'typebox';
import { EnvelopeSchema, PageQuery } from '../../http/pagination.js';
import { Timestamp } from '../../http/schemas.js';
import { EVENT_EXAMPLE } from './events.examples.js';
import { EVENT_TYPES } from './events.types.js';

export const EventSchema = Type.Object(
  {
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

export const EventListSchema = EnvelopeSchema(EventSchema);

export const EventListQuery = Type.Object(
  {
    ...PageQuery,
    type: Type.Optional(Type.String({ enum: [...EVENT_TYPES] })),
    created_from: Type.Optional(Type.String({ format: 'date-time' })),
    created_to: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const EventIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
