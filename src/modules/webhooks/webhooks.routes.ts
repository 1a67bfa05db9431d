import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/auth.js';
import { idempotentWrite } from '../../lib/idempotent-write.js';
import { EnvelopeSchema } from '../../http/pagination.js';
import { BODY_ERRORS, EmptyBody, errorResponses } from '../../http/schemas.js';
import type { Platform, Services } from '../../kernel/module.js';
import {
  DeliveryListQuery,
  DeliveryParams,
  DeliverySchema,
  EventDeliveryListQuery,
  EventDeliveryParams,
  EventDeliverySchema,
  QueuedDeliverySchema,
  WebhookListQuery,
  WebhookParams,
  WebhookSchema,
  webhookSchemas,
  WebhookWithSecretSchema,
} from './webhooks.schemas.js';
import { withoutSecret } from './webhooks.presenter.js';

const TAGS = ['Webhooks'];
const LOG_ORDER =
  'Ordered by attempt time, newest first: attempts made by when they were made, queued attempts (`pending`) by when they are due, so they come first; ties by id. `next_cursor` pages on in that order.';
const LOG_KEPT =
  'Entries are kept as long as their event: `EVENT_RETENTION_DAYS` (default 30 days), and until every delivery of the event is done.';

export function webhookRoutes(
  deps: Pick<Platform, 'vocabulary'> & Pick<Services, 'webhooks'>,
): FastifyPluginAsyncTypebox {
  const { webhooks } = deps;
  const { CreateWebhookBody, UpdateWebhookBody } = webhookSchemas(deps.vocabulary);
  return async (app) => {
    app.post(
      '/webhooks',
      {
        config: { auth: 'write:webhooks', replayed: withoutSecret },
        schema: {
          tags: TAGS,
          summary: 'Register an endpoint; its signing secret is in this response only',
          description:
            "The URL must be https, without credentials, and resolve to public addresses only (422 `invalid_webhook_url`). At most 20 endpoints per tenant (422 `limit_exceeded`). Payloads are rendered in the version this request uses (`X-Service-Version`, else the tenant's pinned version), fixed for the life of the endpoint: `api_version`. An idempotent replay or a retry after a 5xx answers the same endpoint without its secret (rotate it for a new one).",
          body: CreateWebhookBody,
          response: { 201: WebhookWithSecretSchema, ...errorResponses(...BODY_ERRORS, 409, 422) },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return webhooks.create(
          principalOf(request),
          request.body,
          idempotentWrite(request.idempotency),
          request.apiVersion,
        );
      },
    );

    app.get(
      '/webhooks',
      {
        config: { auth: 'read:webhooks' },
        schema: {
          tags: TAGS,
          summary: 'List endpoints, newest first',
          querystring: WebhookListQuery,
          response: { 200: EnvelopeSchema(WebhookSchema) },
        },
      },
      async (request) => webhooks.list(principalOf(request), request.query),
    );

    app.get(
      '/webhooks/:id',
      {
        config: { auth: 'read:webhooks' },
        schema: {
          tags: TAGS,
          summary: 'Get one endpoint',
          params: WebhookParams,
          response: { 200: WebhookSchema, ...errorResponses(404) },
        },
      },
      async (request) => webhooks.get(principalOf(request), request.params.id),
    );

    app.patch(
      '/webhooks/:id',
      {
        config: { auth: 'write:webhooks' },
        schema: {
          tags: TAGS,
          summary: 'Change the URL, events or description, or disable / re-enable an endpoint',
          params: WebhookParams,
          body: UpdateWebhookBody,
          response: { 200: WebhookSchema, ...errorResponses(...BODY_ERRORS, 404, 422) },
        },
      },
      async (request) => webhooks.update(principalOf(request), request.params.id, request.body),
    );

    app.delete(
      '/webhooks/:id',
      {
        config: { auth: 'write:webhooks' },
        schema: {
          tags: TAGS,
          summary: 'Delete an endpoint and its delivery log',
          params: WebhookParams,
          response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(404) },
        },
      },
      async (request, reply) => {
        await webhooks.remove(principalOf(request), request.params.id);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/webhooks/:id/rotate-secret',
      {
        config: { auth: 'write:webhooks', replayed: withoutSecret },
        schema: {
          tags: TAGS,
          summary: 'Replace the signing secret; the old one keeps signing beside it for 24 hours',
          description:
            'Every secret a rotation replaces signs beside the current one for 24 hours after it was replaced (deliveries carry one signature per secret); at most 10 replaced secrets sign at once, and a rotation beyond that is 422 `limit_exceeded`. The new secret is in this response only: an idempotent replay or a retry after a 5xx answers the endpoint without it.',
          params: WebhookParams,
          body: EmptyBody,
          response: { 200: WebhookWithSecretSchema, ...errorResponses(...BODY_ERRORS, 404, 409, 422) },
        },
      },
      async (request) =>
        webhooks.rotateSecret(principalOf(request), request.params.id, idempotentWrite(request.idempotency)),
    );

    app.post(
      '/webhooks/:id/test',
      {
        config: { auth: 'write:webhooks' },
        schema: {
          tags: TAGS,
          summary: 'Send a `webhook.test` event to this endpoint',
          description: 'Returns the queued delivery. A disabled endpoint is 409 `invalid_state_transition`.',
          params: WebhookParams,
          body: EmptyBody,
          response: { 202: QueuedDeliverySchema, ...errorResponses(...BODY_ERRORS, 404, 409, 422) },
        },
      },
      async (request, reply) => {
        reply.code(202);
        return webhooks.test(principalOf(request), request.params.id, idempotentWrite(request.idempotency));
      },
    );

    app.get(
      '/webhooks/:id/deliveries',
      {
        config: { auth: 'read:webhooks' },
        schema: {
          tags: TAGS,
          summary: 'The delivery log of an endpoint: one entry per attempt, newest first',
          description: `${LOG_ORDER} ${LOG_KEPT}`,
          params: WebhookParams,
          querystring: DeliveryListQuery,
          response: { 200: EnvelopeSchema(DeliverySchema), ...errorResponses(404) },
        },
      },
      async (request) => webhooks.deliveries(principalOf(request), request.params.id, request.query),
    );

    app.get(
      '/events/:id/deliveries',
      {
        config: { auth: 'read:webhooks' },
        schema: {
          tags: ['Events'],
          summary: "An event's deliveries to every endpoint: one entry per attempt, newest first",
          description: `Each entry names the endpoint (\`webhook_id\`) to retry it there. ${LOG_ORDER} ${LOG_KEPT} An event the tenant does not have is 404.`,
          params: EventDeliveryParams,
          querystring: EventDeliveryListQuery,
          response: { 200: EnvelopeSchema(EventDeliverySchema), ...errorResponses(404) },
        },
      },
      async (request) => webhooks.eventDeliveries(principalOf(request), request.params.id, request.query),
    );

    app.post(
      '/webhooks/:id/deliveries/:delivery_id/retry',
      {
        config: { auth: 'write:webhooks' },
        schema: {
          tags: TAGS,
          summary: "Send a delivery's event to this endpoint again, now",
          description:
            'Moves a pending attempt of the same event up, or queues one more (manual, not rescheduled) attempt. A disabled endpoint is 409 `invalid_state_transition`.',
          params: DeliveryParams,
          body: EmptyBody,
          response: { 202: QueuedDeliverySchema, ...errorResponses(...BODY_ERRORS, 404, 409, 422) },
        },
      },
      async (request, reply) => {
        reply.code(202);
        return webhooks.retry(
          principalOf(request),
          request.params.id,
          request.params.delivery_id,
          idempotentWrite(request.idempotency),
        );
      },
    );
  };
}
