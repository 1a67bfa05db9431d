import type { Config } from '../../config.js';
import type { EventsTable } from '../../db/schema.js';
import type { Db, Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import type { Vocabulary } from '../../kernel/vocabulary.js';
import type { EventService } from '../events/index.js';
import { insertDeliveries, pendingDelivery } from './webhooks.deliveries.repository.js';
import { createDeliveryUseCases } from './webhooks.deliveries.js';
import type { AuditRecorder } from '../audit/index.js';
import { createEndpointUseCases } from './webhooks.endpoints.js';
import { createInstallationUseCases } from './webhooks.installations.js';
import { subscribes } from './webhooks.presenter.js';
import { enabledEndpoints } from './webhooks.repository.js';
import { assertSafeWebhookUrl, type Resolver } from './webhooks.url.js';

/**
 * Webhook endpoints (docs/webhooks.md) and the fan-out that turns every emitted event into one
 * pending delivery per subscribed endpoint, inside the emitting transaction. The service is made
 * of its jobs: the tenant's endpoints (webhooks.endpoints.ts), the delivery log and retention
 * (webhooks.deliveries.ts) and plugin installations' endpoints (webhooks.installations.ts); here
 * are the fan-out and the signal that tells in-process workers deliveries may be due. Sending is
 * the worker's job (webhooks.worker.ts).
 */

export type WebhookService = ReturnType<typeof createWebhookService>;

export function createWebhookService(deps: {
  store: Store;
  clock: Clock;
  config: Config;
  events: EventService;
  vocabulary: Vocabulary;
  resolve: Resolver;
  audit: AuditRecorder;
}) {
  const { store, clock, config, events, vocabulary } = deps;
  const dueListeners: (() => void)[] = [];
  let signalling = false;

  /** Calls the listeners once the current turn of the event loop is over, however often asked. */
  function signal(): void {
    if (signalling) return;
    signalling = true;
    setImmediate(() => {
      signalling = false;
      dueListeners.forEach((listener) => listener());
    });
  }

  /**
   * Tells in-process workers that deliveries may be due (they also poll): once `trx` has
   * committed, so they find the rows; without `trx`, for a change already committed. The events
   * of one turn (a transaction emitting a thousand, or many requests' commits) make one signal:
   * each signal costs a worker a look at the queue.
   */
  function signalDue(trx?: Db): void {
    if (dueListeners.length === 0) return;
    if (trx) store.afterCommit(trx, signal);
    else signal();
  }

  async function safeUrl(raw: string): Promise<string> {
    return assertSafeWebhookUrl(raw, { allowInsecure: config.webhooks.allowInsecure, resolve: deps.resolve });
  }

  return {
    /**
     * The fan-out, an event effect (declared in webhooks.module.ts): one pending delivery per subscribed, enabled
     * endpoint, in the event's transaction. `webhook.test` goes only to the endpoint being tested
     * (see `test`).
     */
    async fanOut(trx: Db, events: readonly EventsTable[]): Promise<void> {
      // `webhook.test` and the app events go to one endpoint only (`test`, `queueTo`).
      const fanned = events.filter(
        (event) => event.type !== 'webhook.test' && !vocabulary.isAppEventType(event.type),
      );
      if (fanned.length === 0) return;
      // The endpoints of every tenant of the batch, read once (a transfer's two, an import's one).
      const endpoints = await enabledEndpoints(trx, [...new Set(fanned.map((e) => e.tenant_id))]);
      const deliveries = fanned.flatMap((event) =>
        endpoints
          .filter((e) => e.tenant_id === event.tenant_id && subscribes(e.events, event.type))
          .map((e) => pendingDelivery(e.id, event, event.created)),
      );
      if (deliveries.length === 0) return;
      await insertDeliveries(trx, deliveries);
      signalDue(trx);
    },

    onDue(listener: () => void): void {
      dueListeners.push(listener);
    },

    /** The URL check of webhook endpoints (https, no credentials, public addresses): 422 otherwise. */
    safeUrl,

    ...createEndpointUseCases({ store, clock, safeUrl, signalDue, audit: deps.audit }),
    ...createDeliveryUseCases({ store, clock, config, events, signalDue }),
    ...createInstallationUseCases({ store, clock, signalDue }),
  };
}
