import { type TSchema, Type } from 'typebox';
import type { EventDeclaration, Vocabulary } from '../kernel/vocabulary.js';

/**
 * The OpenAPI 3.1 `webhooks` section: every event type the API sends, as the POST an endpoint
 * receives (Standard Webhooks headers, the event with its object in the endpoint's version),
 * for generators and readers alike. Shapes are those of the latest version; each event's object and
 * data are those its module declares (its manifest's `events`).
 */

/** The example of a schema (its first), for the events' examples. */
function exampleOf(schema: TSchema): unknown {
  const { examples } = schema as { examples?: unknown };
  if (!Array.isArray(examples) || examples.length === 0)
    throw new Error('a webhook object without an example');
  return examples[0];
}

const SIGNATURE_HEADERS = [
  ['webhook-id', 'The event id, the same on every attempt: deduplicate on it.'],
  ['webhook-timestamp', 'Unix seconds when this attempt was signed.'],
  [
    'webhook-signature',
    '`v1,<base64 HMAC-SHA256>` of `id.timestamp.body` with the endpoint secret; two during a rotation.',
  ],
] as const;

function operation(type: string, declaration: EventDeclaration): Record<string, unknown> {
  const data: Record<string, TSchema> = { object: declaration.object, ...declaration.data?.[type] };
  const app = declaration.audience === 'installation';
  const objectExample = exampleOf(declaration.object) as Record<string, unknown>;
  // The object's own example, or what the module makes of it for this type (a sold-out variant).
  const example = declaration.exampleData?.(type, objectExample) ?? { object: objectExample };
  const object = example.object as Record<string, unknown>;
  const event = Type.Object(
    {
      id: Type.String({ examples: ['evt_7cQp2ZxW1bX9sT2uV7wY3cE5'] }),
      type: Type.Literal(type),
      created: Type.String({ format: 'date-time' }),
      api_version: Type.String({ description: "The version the object is rendered in: the endpoint's." }),
      data: Type.Object(data),
      ...(app
        ? {
            installation_id: Type.String(),
            tenant_id: Type.String({ description: 'The store the event is about.' }),
          }
        : {}),
    },
    {
      examples: [
        {
          id: 'evt_kim5OuMK5f1DRU5lnLbbePT4',
          type,
          created: '2026-11-27T08:00:04.618Z',
          api_version: '2026-12-15',
          data: example,
          ...(app ? { installation_id: object.installation_id, tenant_id: object.tenant_id } : {}),
        },
      ],
    },
  );
  return {
    post: {
      operationId: `on${type
        .split(/[._]/)
        .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
        .join('')}`,
      summary: type,
      tags: [app ? 'Plugins' : 'Webhooks'],
      // The receiver asks for no credentials: it verifies the signature headers below.
      security: [],
      parameters: SIGNATURE_HEADERS.map(([name, description]) => ({
        in: 'header',
        name,
        required: true,
        description,
        schema: { type: 'string' },
      })),
      requestBody: { required: true, content: { 'application/json': { schema: event } } },
      responses: {
        '2XX': { description: 'Received: any 2xx ends the attempts.' },
        default: { description: 'Not received: the attempt is retried on the schedule, then given up.' },
      },
    },
  };
}

/** Every event type, as the POST its endpoints receive. */
export function webhooksSection(vocabulary: Vocabulary): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    [...vocabulary.eventTypes, ...vocabulary.appEventTypes].map((type) => {
      const declaration = vocabulary.events.get(type);
      if (declaration === undefined) throw new Error(`event type ${type} has no declaration`);
      return [type, operation(type, declaration)];
    }),
  );
}
