import { EnvelopeSchema } from '../../http/pagination.js';
import { defineModule } from '../../kernel/module.js';
import type { Names } from '../../kernel/vocabulary.js';
import { withFirstPartyApps } from '../apps/index.js';
import { webhookRoutes } from './webhooks.routes.js';
import { DeliverySchema, EventDeliverySchema, WebhookSchema } from './webhooks.schemas.js';
import { createWebhookService, type WebhookService } from './webhooks.service.js';
import { createTransport, type Transport } from './webhooks.transport.js';
import { type Resolver, systemResolver } from './webhooks.url.js';
import {
  createWebhookWorker,
  DEFAULT_CONCURRENCY,
  type WebhookWorker,
  type WorkerOptions,
} from './webhooks.worker.js';

/**
 * Webhook endpoints, the fan-out of every store event to them, the worker that delivers (to the
 * first-party apps in process too), and the event log's retention.
 */

const PERMISSIONS = ['read:webhooks', 'write:webhooks'] as const;
const EVENTS = ['webhook.test'] as const;

declare module '../../kernel/vocabulary.js' {
  interface PermissionNames extends Names<typeof PERMISSIONS> {}
  interface EventTypeNames extends Names<typeof EVENTS> {}
}
declare module '../../kernel/module.js' {
  interface Services {
    webhooks: WebhookService;
    /** The HTTP client of deliveries; its connections are pooled per origin. */
    webhookTransport: Transport;
    /** Sends webhook deliveries; started by the server (WEBHOOK_WORKER_IN_PROCESS) or src/worker.ts. */
    webhookWorker: WebhookWorker;
  }
  interface Overrides {
    /** Webhook delivery: DNS resolver (tests swap it), CAs trusted instead of the system's, worker sizing. */
    webhooks?: { resolve?: Resolver; ca?: string | Buffer; worker?: WorkerOptions };
  }
}

export default defineModule({
  name: 'webhooks',
  position: 100,
  tags: [{ name: 'Webhooks', description: 'Endpoints, signed deliveries and the delivery log' }],
  permissions: PERMISSIONS,
  // Sent to one endpoint only, by `POST /webhooks/{id}/test`.
  events: [{ types: EVENTS, object: WebhookSchema }],
  operationIds: {
    'GET /v1/events/:id/deliveries': 'listEventDeliveries',
    'GET /v1/webhooks': 'listWebhookEndpoints',
    'POST /v1/webhooks': 'createWebhookEndpoint',
    'GET /v1/webhooks/:id': 'getWebhookEndpoint',
    'PATCH /v1/webhooks/:id': 'updateWebhookEndpoint',
    'DELETE /v1/webhooks/:id': 'deleteWebhookEndpoint',
    'POST /v1/webhooks/:id/rotate-secret': 'rotateWebhookSecret',
    'POST /v1/webhooks/:id/test': 'testWebhookEndpoint',
    'GET /v1/webhooks/:id/deliveries': 'listWebhookDeliveries',
    'POST /v1/webhooks/:id/deliveries/:delivery_id/retry': 'retryWebhookDelivery',
  },
  components: () => ({
    WebhookEndpoint: WebhookSchema,
    WebhookEndpointList: EnvelopeSchema(WebhookSchema),
    Delivery: DeliverySchema,
    DeliveryList: EnvelopeSchema(DeliverySchema),
    EventDelivery: EventDeliverySchema,
    EventDeliveryList: EnvelopeSchema(EventDeliverySchema),
  }),
  needs: ['events', 'apps', 'audit'],
  services: (deps) => {
    const { config, overrides } = deps;
    const resolve = overrides.webhooks?.resolve ?? systemResolver;
    const webhooks = createWebhookService({ ...deps, resolve });
    const workerOptions = { perEndpoint: 8, ...overrides.webhooks?.worker };
    const webhookTransport = createTransport({
      allowInsecure: config.webhooks.allowInsecure,
      timeoutMs: config.webhooks.timeoutMs,
      // Endpoints on one host (two paths of one integration, many tenants of one platform) share
      // its connections: as many as the worker's attempts, so an attempt never waits behind another
      // endpoint's slow ones for a connection while its timeout runs. The worker caps each endpoint.
      connectionsPerOrigin: workerOptions.concurrency ?? DEFAULT_CONCURRENCY,
      resolve,
      ca: overrides.webhooks?.ca,
    });
    const webhookWorker = createWebhookWorker(
      {
        ...deps,
        // First-party apps (AI Autowriter, Sold-out hider) take their deliveries in process.
        transport: withFirstPartyApps(webhookTransport, deps.apps),
        onDue: webhooks.onDue,
      },
      workerOptions,
    );
    return { webhooks, webhookTransport, webhookWorker };
  },
  // Webhook delivery rows: one pending delivery per subscribed, enabled endpoint, which the
  // worker sends once the change has committed (signalled after commit, or found by polling).
  effects: (deps) => [deps.webhooks.fanOut],
  routes: [{ plugin: webhookRoutes }],
  start: ({ webhooks, logger }, every) => {
    every(
      10 * 60_000,
      async () => {
        const purged = await webhooks.purgeExpired();
        if (purged > 0) logger.info({ events: purged }, 'expired events and their delivery log deleted');
      },
      'event retention purge failed',
      // At start too: a store that was down, or a lowered EVENT_RETENTION_DAYS, is tidied at once.
      { atStart: true },
    );
  },
  stop: async ({ webhookWorker, webhookTransport }) => {
    await webhookWorker.stop();
    await webhookTransport.close();
  },
});
