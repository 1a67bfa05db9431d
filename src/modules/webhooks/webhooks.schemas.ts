import { type Static, Type } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { LINE_OR_EMPTY_PATTERN, Nullable, Timestamp } from '../../http/schemas.js';
import type { Vocabulary } from '../../kernel/vocabulary.js';
import {
  DELIVERY_EXAMPLE,
  QUEUED_DELIVERY_EXAMPLE,
  WEBHOOK_EXAMPLE,
  WEBHOOK_WITH_SECRET_EXAMPLE,
} from './webhooks.examples.js';

export const MAX_URL_LENGTH = 2048;

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description: 'https, without credentials, resolving to public addresses only.',
  examples: ['https://example.com/hooks/commerce'],
});

/** One line; an empty one is accepted, as it always was (clients send the form field as it is). */
const Description = Type.String({
  maxLength: 500,
  pattern: LINE_OR_EMPTY_PATTERN,
  description: 'One line of text, without control or formatting characters; may be empty.',
});

export const WebhookSchema = Type.Object(
  {
    id: Type.String({ examples: ['wh_4fGz0aQm1bX9sT2uV7wY3cE5'] }),
    url: Type.String(),
    events: Type.Array(Type.String()),
    description: Nullable(Type.String()),
    status: Type.Union([Type.Literal('Active'), Type.Literal('Degraded'), Type.Literal('Disabled')], {
      description:
        '`Degraded` after a failed delivery, `Active` again after a success; `Disabled` after 5 days of failures, a 410 answer or `enabled: false`.',
    }),
    secret: Type.Optional(
      Type.String({
        description: 'Signing secret (`whsec_` + base64); only in the responses that create or rotate it.',
        examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      }),
    ),
    api_version: Type.String({
      description: 'Payloads are rendered in this version.',
      examples: ['2026-12-15'],
    }),
    last_triggered: Nullable(Timestamp),
    created: Timestamp,
    updated: Timestamp,
  },
  { examples: [WEBHOOK_EXAMPLE] },
);

/** The answer that creates an endpoint or rotates its secret: its example shows the secret. */
export const WebhookWithSecretSchema = { ...WebhookSchema, examples: [WEBHOOK_WITH_SECRET_EXAMPLE] };

/**
 * The bodies that name the event types an endpoint subscribes to: the modules declare them, so the
 * list is known once the modules are found, not when this file is imported.
 */
export function webhookSchemas(vocabulary: Vocabulary) {
  const EventName = Type.String({
    enum: [...vocabulary.eventTypes, '*'],
    description: 'An event type, or `*` (alone) for every type.',
  });

  const Events = Type.Array(EventName, {
    minItems: 1,
    maxItems: vocabulary.eventTypes.length,
    uniqueItems: true,
  });

  const CreateWebhookBody = Type.Object(
    { url: Url, events: Events, description: Type.Optional(Description) },
    {
      additionalProperties: false,
      examples: [
        {
          url: 'https://fulfilment.example.com/hooks/commerce',
          events: ['order.created', 'order.paid', 'refund.created'],
          description: 'Fulfilment service',
        },
      ],
    },
  );

  const UpdateWebhookBody = Type.Object(
    {
      url: Type.Optional(Url),
      events: Type.Optional(Events),
      description: Type.Optional(Nullable(Description)),
      enabled: Type.Optional(
        Type.Boolean({ description: '`false` disables the endpoint; `true` re-enables it as `Active`.' }),
      ),
    },
    {
      additionalProperties: false,
      minProperties: 1,
      examples: [
        { events: ['order.created', 'order.paid', 'order.cancelled', 'refund.created'] },
        { enabled: true },
      ],
    },
  );

  return { CreateWebhookBody, UpdateWebhookBody };
}

type WebhookSchemas = ReturnType<typeof webhookSchemas>;
export type CreateWebhookBody = Static<WebhookSchemas['CreateWebhookBody']>;
export type UpdateWebhookBody = Static<WebhookSchemas['UpdateWebhookBody']>;

export const WebhookParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const DeliveryParams = Type.Object({
  id: Type.String({ maxLength: 64 }),
  delivery_id: Type.String({ maxLength: 64 }),
});

export const WebhookListQuery = Type.Object(PageQuery, { additionalProperties: false });

export const DeliveryStatus = Type.Union(
  [Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('pending')],
  { description: '`pending` rows are scheduled and not yet attempted.' },
);

export const DeliveryListQuery = Type.Object(
  { ...PageQuery, status: Type.Optional(DeliveryStatus) },
  { additionalProperties: false },
);

export const DeliverySchema = Type.Object(
  {
    id: Type.String({ examples: ['del_9hGf2kQm1bX9sT2uV7wY3cE5'] }),
    time: Type.Union([Timestamp, Type.Null()], {
      description: 'When the attempt was made; null while pending.',
    }),
    event: Type.String({ examples: ['order.created'] }),
    event_id: Type.String(),
    endpoint: Type.String({ description: 'The path of the URL.', examples: ['/hooks/commerce'] }),
    url: Type.String(),
    response: Nullable(
      Type.String({
        description: 'Status and reason text, or the network error.',
        examples: ['200 OK', '503 Service Unavailable'],
      }),
    ),
    response_status: Nullable(Type.Integer()),
    response_body: Nullable(Type.String({ description: 'The first 1 KiB of the response body.' })),
    duration: Nullable(Type.Integer({ description: 'Milliseconds.' })),
    attempt: Type.Integer({ minimum: 1 }),
    status: DeliveryStatus,
    next_retry_at: Type.Union([Timestamp, Type.Null()], {
      description: 'When the next attempt is scheduled (for a pending row: this one).',
    }),
  },
  { examples: [DELIVERY_EXAMPLE] },
);

/** A delivery just queued (a test event, a retry): its example is not attempted yet. */
export const QueuedDeliverySchema = { ...DeliverySchema, examples: [QUEUED_DELIVERY_EXAMPLE] };

export const EventDeliveryParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const EventDeliveryListQuery = Type.Object(PageQuery, { additionalProperties: false });

/** A delivery as the event's log lists it: with the endpoint it went to, to retry it there. */
export const EventDeliverySchema = Type.Object(
  {
    ...DeliverySchema.properties,
    webhook_id: Type.String({
      description:
        'The endpoint it was sent to: retry with `POST /v1/webhooks/{webhook_id}/deliveries/{id}/retry`.',
      examples: ['wh_4fGz0aQm1bX9sT2uV7wY3cE5'],
    }),
  },
  { examples: [{ ...DELIVERY_EXAMPLE, webhook_id: WEBHOOK_EXAMPLE.id }] },
);
