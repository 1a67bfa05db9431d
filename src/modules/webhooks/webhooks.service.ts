import type { Config } from '../../config.js';
import type { EventsTable } from '../../db/schema.js';
import type { Db, Store } from '../../db/store.js';
import { AppError, notFound, validationError } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { envelope, newestFirstEnvelope, type PageQuery, pageWindow } from '../../lib/paging.js';
import { type Clock, iso } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Principal } from '../../lib/principal.js';
import type { EventService } from '../events/events.service.js';
import { isAppEventType } from '../events/events.types.js';
import * as repo from './webhooks.repository.js';
import type { CreateWebhookBody, UpdateWebhookBody } from './webhooks.schemas.js';
import { newSecret, stillSigning } from './webhooks.transport.js';
import { assertSafeWebhookUrl, type Resolver } from './webhooks.url.js';

/**
 * Webhook endpoints (docs/webhooks.md) and the fan-out that turns every emitted event into one
 * pending delivery per subscribed endpoint, inside the emitting transaction. Sending is the
 * worker's job (webhooks.worker.ts).
 */

export const MAX_ENDPOINTS_PER_TENANT = 20;
/** How long a secret replaced by a rotation keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;
/** How many replaced secrets may be signing at once (each adds a signature to every delivery). */
export const MAX_RETIRED_SECRETS = 10;

export interface WebhookObject {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: repo.EndpointRow['status'];
  secret?: string;
  api_version: string;
  last_triggered: string | null;
  created: string;
  updated: string;
}

export interface DeliveryObject {
  id: string;
  time: string | null;
  event: string;
  event_id: string;
  endpoint: string;
  url: string;
  response: string | null;
  response_status: number | null;
  response_body: string | null;
  duration: number | null;
  attempt: number;
  status: repo.DeliveryRow['status'];
  next_retry_at: string | null;
}

function parseEvents(json: string): string[] {
  const parsed: unknown = JSON.parse(json);
  return Array.isArray(parsed) ? parsed.filter((e): e is string => typeof e === 'string') : [];
}

export function subscribes(eventsJson: string, type: string): boolean {
  const events = parseEvents(eventsJson);
  return events.includes('*') || events.includes(type);
}

/** An endpoint as an idempotent replay shows it: without the signing secret, which is shown once. */
export function withoutSecret(body: Record<string, unknown>): Record<string, unknown> {
  const { secret: _secret, ...rest } = body;
  return rest;
}

function toObject(row: repo.EndpointRow, secret?: string): WebhookObject {
  return {
    id: row.id,
    url: row.url,
    events: parseEvents(row.events),
    description: row.description,
    status: row.status,
    ...(secret === undefined ? {} : { secret }),
    api_version: row.api_version,
    last_triggered: iso(row.last_triggered),
    created: iso(row.created),
    updated: iso(row.updated),
  };
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** A delivery's place in the log, for the next page's cursor. */
function attemptKey(row: repo.LoggedDelivery): [number, string] {
  return [row.attempted_at, row.id];
}

export function toDelivery(row: repo.DeliveryRow, endpointUrl: string): DeliveryObject {
  const url = row.url ?? endpointUrl;
  return {
    id: row.id,
    time: iso(row.time),
    event: row.event_type,
    event_id: row.event_id,
    endpoint: pathOf(url),
    url,
    response: row.response,
    response_status: row.response_status,
    response_body: row.response_body,
    duration: row.duration,
    attempt: row.attempt,
    status: row.status,
    next_retry_at: iso(row.status === 'pending' ? row.due_at : row.next_retry_at),
  };
}

function checkEvents(events: readonly string[]): string[] {
  if (events.includes('*') && events.length > 1) {
    throw validationError('events', 'must be ["*"] alone or a list of event types');
  }
  return [...events];
}

export function pendingDelivery(
  endpointId: string,
  event: Pick<EventsTable, 'id' | 'tenant_id' | 'type'>,
  now: number,
  attempt = 1,
  manual = false,
): repo.DeliveryRow {
  return {
    id: newId('del'),
    tenant_id: event.tenant_id,
    endpoint_id: endpointId,
    event_id: event.id,
    event_type: event.type,
    attempt,
    manual: manual ? 1 : 0,
    status: 'pending',
    due_at: now,
    lease_until: null,
    lease_owner: null,
    held: 0,
    time: null,
    url: null,
    response: null,
    response_status: null,
    response_body: null,
    duration: null,
    next_retry_at: null,
    created: now,
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;

export function createWebhookService(deps: {
  store: Store;
  clock: Clock;
  config: Config;
  events: EventService;
  resolve: Resolver;
}) {
  const { store, clock, config, events } = deps;
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

  /** One of the caller's endpoints (locked until the transaction ends with `lock`), or 404. */
  async function endpointOf(
    db: Db,
    principal: Principal,
    id: string,
    lock = false,
  ): Promise<repo.EndpointRow> {
    const row = await repo.findEndpoint(db, principal.tenant.id, id, lock);
    if (!row) throw notFound('webhook');
    return row;
  }

  /** A delivery to one of the caller's endpoints, as it is now. */
  async function deliveryOf(principal: Principal, id: string, deliveryId: string): Promise<DeliveryObject> {
    const endpoint = await endpointOf(store.db, principal, id);
    const row = await repo.findDelivery(store.db, principal.tenant.id, endpoint.id, deliveryId);
    if (!row) throw notFound('delivery');
    return toDelivery(row, endpoint.url);
  }

  function refuseWhileDisabled(row: repo.EndpointRow, what: string): void {
    if (row.status === 'Disabled') {
      throw new AppError(
        'invalid_state_transition',
        `The webhook is disabled; re-enable it with PATCH {"enabled": true} before ${what}.`,
      );
    }
  }

  return {
    /**
     * The fan-out, an event effect (src/effects.ts): one pending delivery per subscribed, enabled
     * endpoint, in the event's transaction. `webhook.test` goes only to the endpoint being tested
     * (see `test`).
     */
    async fanOut(trx: Db, events: readonly EventsTable[]): Promise<void> {
      // `webhook.test` and the app events go to one endpoint only (`test`, `queueTo`).
      const fanned = events.filter((event) => event.type !== 'webhook.test' && !isAppEventType(event.type));
      if (fanned.length === 0) return;
      // The endpoints of every tenant of the batch, read once (a transfer's two, an import's one).
      const endpoints = await repo.enabledEndpoints(trx, [...new Set(fanned.map((e) => e.tenant_id))]);
      const deliveries = fanned.flatMap((event) =>
        endpoints
          .filter((e) => e.tenant_id === event.tenant_id && subscribes(e.events, event.type))
          .map((e) => pendingDelivery(e.id, event, event.created)),
      );
      if (deliveries.length === 0) return;
      await repo.insertDeliveries(trx, deliveries);
      signalDue(trx);
    },

    onDue(listener: () => void): void {
      dueListeners.push(listener);
    },

    /**
     * The endpoint a plugin installation subscribes for its tenant, in the install's transaction:
     * the plugin's URL, its events and its secret. It is the plugin's, not one of the tenant's
     * webhooks (which never list, change or count it). Returns its id.
     */
    async subscribeInstallation(
      trx: Db,
      input: {
        id: string;
        tenantId: string;
        pluginId: string;
        pluginName: string;
        installationId: string;
        url: string;
        events: readonly string[];
        secret: string;
        apiVersion: string;
      },
    ): Promise<string> {
      const now = clock.now();
      const row: repo.EndpointRow = {
        id: input.id,
        tenant_id: input.tenantId,
        url: input.url,
        events: JSON.stringify(input.events),
        description: `${input.pluginName} (installed app)`,
        status: 'Active',
        secret: input.secret,
        retired_secrets: '[]',
        api_version: input.apiVersion,
        last_triggered: null,
        failing_since: null,
        created: now,
        updated: now,
        plugin_id: input.pluginId,
        installation_id: input.installationId,
      };
      await repo.insertEndpoint(trx, row);
      return row.id;
    },

    /** Queues `event` to one endpoint only, in the event's transaction (the app events). */
    async queueTo(trx: Db, endpointId: string, event: EventsTable): Promise<void> {
      await repo.insertDeliveries(trx, [pendingDelivery(endpointId, event, event.created)]);
      signalDue(trx);
    },

    /** An uninstall: the installation's endpoint takes no more events, its pending ones dropped. */
    async endInstallation(trx: Db, endpointId: string): Promise<void> {
      await repo.endInstallationEndpoint(trx, endpointId, clock.now());
    },

    /** An installation's new grant of events: its endpoint takes those from now on. */
    async resubscribeInstallation(trx: Db, endpointId: string, events: readonly string[]): Promise<void> {
      await repo.setInstallationEndpointEvents(trx, endpointId, events, clock.now());
    },

    /** A plugin's new URL: the endpoints of its active installations follow it. */
    async movePlugin(trx: Db, pluginId: string, url: string): Promise<void> {
      await repo.movePluginEndpoints(trx, pluginId, url, clock.now());
    },

    /** The URL check of webhook endpoints (https, no credentials, public addresses): 422 otherwise. */
    safeUrl,

    /** A plugin's delivery log across its installations, for its publisher. */
    async pluginDeliveries(pluginId: string, query: PageQuery) {
      const window = pageWindow(query, 'created');
      const { rows, total } = await repo.listPluginDeliveries(store.db, pluginId, window);
      return newestFirstEnvelope(rows, total, window, (row) => ({
        ...toDelivery(row, row.endpoint_url),
        tenant_id: row.tenant_id,
        installation_id: row.installation_id,
      }));
    },

    /**
     * A new endpoint, its payloads rendered in `apiVersion` (the version the creating request used;
     * the tenant's pinned one by default). A retry whose first attempt committed
     * (`idempotent.committed`) answers that endpoint without its secret: the secret is shown once,
     * and is not kept for a replay.
     */
    async create(
      principal: Principal,
      input: CreateWebhookBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
      apiVersion: string = principal.tenant.api_version,
    ): Promise<WebhookObject> {
      if (idempotent.committed !== null)
        return toObject(await endpointOf(store.db, principal, idempotent.committed));
      const events = checkEvents(input.events);
      const url = await safeUrl(input.url);
      const now = clock.now();
      const secret = newSecret();
      const row: repo.EndpointRow = {
        id: newId('wh'),
        tenant_id: principal.tenant.id,
        url,
        events: JSON.stringify(events),
        description: input.description ?? null,
        status: 'Active',
        secret,
        retired_secrets: '[]',
        api_version: apiVersion,
        last_triggered: null,
        failing_since: null,
        created: now,
        updated: now,
        plugin_id: null,
        installation_id: null,
      };
      await store.transaction(async (trx) => {
        await repo.lockTenant(trx, principal.tenant.id, store.supportsRowLocks);
        if ((await repo.countEndpoints(trx, principal.tenant.id)) >= MAX_ENDPOINTS_PER_TENANT) {
          throw new AppError(
            'limit_exceeded',
            `A tenant can have at most ${MAX_ENDPOINTS_PER_TENANT} webhook endpoints; delete one first.`,
          );
        }
        await repo.insertEndpoint(trx, row);
        await idempotent.mark(trx, row.id);
      });
      return toObject(row, secret);
    },

    async list(principal: Principal, query: PageQuery) {
      const window = pageWindow(query, 'created');
      const { rows, total } = await repo.listEndpoints(store.db, principal.tenant.id, window);
      return newestFirstEnvelope(rows, total, window, (row) => toObject(row));
    },

    async get(principal: Principal, id: string): Promise<WebhookObject> {
      return toObject(await endpointOf(store.db, principal, id));
    },

    async update(principal: Principal, id: string, input: UpdateWebhookBody): Promise<WebhookObject> {
      // Another tenant's endpoint or an unknown id is a 404 before its new URL is looked up (a DNS
      // lookup outside the transaction, which reads the endpoint again).
      if (input.url !== undefined) await endpointOf(store.db, principal, id);
      const changes: repo.EndpointChanges = {};
      if (input.url !== undefined) changes.url = await safeUrl(input.url);
      if (input.events !== undefined) changes.events = JSON.stringify(checkEvents(input.events));
      if (input.description !== undefined) changes.description = input.description;
      const now = clock.now();
      return store.transaction(async (trx) => {
        const row = await endpointOf(trx, principal, id);
        if (input.enabled === false) changes.status = 'Disabled';
        if (input.enabled === true && row.status === 'Disabled') {
          changes.status = 'Active';
          changes.failing_since = null;
        }
        await repo.updateEndpoint(trx, principal.tenant.id, id, changes, now);
        if (changes.status === 'Disabled' && row.status !== 'Disabled')
          await repo.holdDeliveries(trx, id, true);
        if (changes.status === 'Active') {
          await repo.holdDeliveries(trx, id, false);
          signalDue(trx);
        }
        return toObject(await endpointOf(trx, principal, id));
      });
    },

    async remove(principal: Principal, id: string): Promise<void> {
      await store.transaction(async (trx) => {
        if ((await repo.deleteEndpoint(trx, principal.tenant.id, id)) === 0) throw notFound('webhook');
      });
    },

    /**
     * A new secret; the replaced one keeps signing beside it for 24 hours, as does every secret an
     * earlier rotation replaced within those 24 hours (at most `MAX_RETIRED_SECRETS`: 422
     * `limit_exceeded` beyond). A retry whose first attempt committed answers the endpoint without
     * the secret (rotate again for a new one).
     */
    async rotateSecret(
      principal: Principal,
      id: string,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<WebhookObject> {
      if (idempotent.committed !== null)
        return toObject(await endpointOf(store.db, principal, idempotent.committed));
      const now = clock.now();
      const secret = newSecret();
      return store.transaction(async (trx) => {
        const row = await endpointOf(trx, principal, id, store.supportsRowLocks);
        const retired = stillSigning(row.retired_secrets, now);
        if (retired.length >= MAX_RETIRED_SECRETS) {
          throw new AppError(
            'limit_exceeded',
            `${MAX_RETIRED_SECRETS} replaced secrets of this endpoint are still signing; the oldest stops at ${iso(retired[0]?.expires_at ?? now)}, rotate again after that.`,
          );
        }
        retired.push({ secret: row.secret, expires_at: now + ROTATION_OVERLAP_MS });
        await repo.updateEndpoint(
          trx,
          principal.tenant.id,
          id,
          { secret, retired_secrets: JSON.stringify(retired) },
          now,
        );
        await idempotent.mark(trx, row.id);
        return toObject(await endpointOf(trx, principal, id), secret);
      });
    },

    /**
     * Emits a `webhook.test` event and queues its delivery to this endpoint only. A retry whose
     * first attempt committed answers that delivery (no second event).
     */
    async test(
      principal: Principal,
      id: string,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<DeliveryObject> {
      if (idempotent.committed !== null) return deliveryOf(principal, id, idempotent.committed);
      const delivery = await store.transaction(async (trx) => {
        const row = await endpointOf(trx, principal, id);
        refuseWhileDisabled(row, 'testing it');
        const { secret: _secret, ...object } = toObject(row);
        const event = await events.emit(trx, {
          tenantId: principal.tenant.id,
          type: 'webhook.test',
          objectType: 'webhook',
          object,
        });
        const pending = pendingDelivery(row.id, event, event.created);
        await repo.insertDeliveries(trx, [pending]);
        await idempotent.mark(trx, pending.id);
        return toDelivery(pending, row.url);
      });
      signalDue();
      return delivery;
    },

    async deliveries(
      principal: Principal,
      id: string,
      query: PageQuery & { status?: repo.DeliveryRow['status'] | undefined },
    ) {
      const endpoint = await endpointOf(store.db, principal, id);
      const window = pageWindow(query, repo.LOG_SORT);
      const { rows, total } = await repo.listDeliveries(
        store.db,
        principal.tenant.id,
        { endpointId: endpoint.id, status: query.status },
        window,
      );
      return envelope(rows, total, window, repo.LOG_SORT, attemptKey, (row) => toDelivery(row, endpoint.url));
    },

    /**
     * Every attempt to deliver one event, to each of the caller's endpoints, in the delivery log's
     * order, each with its endpoint's id (to retry it). 404 for an event the tenant does not have.
     */
    async eventDeliveries(principal: Principal, eventId: string, query: PageQuery) {
      const tenantId = principal.tenant.id;
      await events.get(tenantId, eventId, principal.tenant.api_version);
      const window = pageWindow(query, repo.LOG_SORT);
      const { rows, total } = await repo.listDeliveries(store.db, tenantId, { eventId }, window);
      const urls = await repo.endpointUrls(
        store.db,
        tenantId,
        rows.map((row) => row.endpoint_id),
      );
      return envelope(rows, total, window, repo.LOG_SORT, attemptKey, (row) => ({
        ...toDelivery(row, urls.get(row.endpoint_id) ?? ''),
        webhook_id: row.endpoint_id,
      }));
    },

    /**
     * Sends a delivery's event again, now: a pending attempt of the same event is moved up, or a new
     * single (manual) attempt is queued. Returns the pending attempt.
     */
    async retry(
      principal: Principal,
      id: string,
      deliveryId: string,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<DeliveryObject> {
      if (idempotent.committed !== null) return deliveryOf(principal, id, idempotent.committed);
      const now = clock.now();
      const delivery = await store.transaction(async (trx) => {
        const endpoint = await endpointOf(trx, principal, id);
        const original = await repo.findDelivery(trx, principal.tenant.id, endpoint.id, deliveryId);
        if (!original) throw notFound('delivery');
        refuseWhileDisabled(endpoint, 'retrying a delivery');
        const attempts = await repo.attemptsOf(trx, endpoint.id, original.event_id);
        const pending = attempts.find((a) => a.status === 'pending');
        if (pending) {
          await repo.makeDueNow(trx, pending.id, now);
          await idempotent.mark(trx, pending.id);
          return toDelivery({ ...pending, due_at: Math.min(pending.due_at, now) }, endpoint.url);
        }
        const last = attempts[attempts.length - 1]?.attempt ?? original.attempt;
        const event = { id: original.event_id, tenant_id: original.tenant_id, type: original.event_type };
        const row = pendingDelivery(endpoint.id, event, now, last + 1, true);
        await repo.insertDeliveries(trx, [row]);
        await idempotent.mark(trx, row.id);
        return toDelivery(row, endpoint.url);
      });
      signalDue();
      return delivery;
    },

    /**
     * Retention: deletes the events older than `EVENT_RETENTION_DAYS` and their delivery log, in
     * batches of `batch` events, one transaction each. An event with a delivery still pending is
     * kept, with its log, until that delivery is done. Returns how many events went.
     */
    async purgeExpired(batch = 500): Promise<number> {
      const cutoff = clock.now() - config.eventRetentionDays * DAY_MS;
      let after: repo.EventCursor | null = null;
      let purged = 0;
      for (;;) {
        const expired = await repo.expiredEvents(store.db, { cutoff, after, limit: batch });
        if (expired.length === 0) return purged;
        const ids = expired.map((event) => event.id);
        purged += await store.transaction((trx) => repo.deleteEventsAndLog(trx, ids));
        if (expired.length < batch) return purged;
        after = expired[expired.length - 1] ?? null;
      }
    },
  };
}

const DAY_MS = 24 * 3_600_000;
