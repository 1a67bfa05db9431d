import type { Config } from '../../config.js';
import type { Db, Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, notFound } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { envelope, type PageQuery, pageWindow } from '../../lib/paging.js';
import type { Principal } from '../../lib/principal.js';
import type { EventService } from '../events/index.js';
import * as repo from './webhooks.deliveries.repository.js';
import { endpointOf } from './webhooks.endpoints.js';
import { attemptKey, type DeliveryObject, toDelivery, toObject } from './webhooks.presenter.js';
import { endpointUrls, type EndpointRow } from './webhooks.repository.js';

/**
 * A tenant's delivery log and what it can ask of it: test an endpoint, read its attempts (by
 * endpoint or by event), retry a delivery now; and retention, which deletes old events with their
 * log. Part of the webhook service (webhooks.service.ts); sending is the worker's job.
 */

const DAY_MS = 24 * 3_600_000;

/** A delivery to one of the caller's endpoints, as it is now. */
async function deliveryOf(
  db: Db,
  principal: Principal,
  id: string,
  deliveryId: string,
): Promise<DeliveryObject> {
  const endpoint = await endpointOf(db, principal, id);
  const row = await repo.findDelivery(db, principal.tenant.id, endpoint.id, deliveryId);
  if (!row) throw notFound('delivery');
  return toDelivery(row, endpoint.url);
}

function refuseWhileDisabled(row: EndpointRow, what: string): void {
  if (row.status === 'Disabled') {
    throw new AppError(
      'invalid_state_transition',
      `The webhook is disabled; re-enable it with PATCH {"enabled": true} before ${what}.`,
    );
  }
}

export interface DeliveryDeps {
  store: Store;
  clock: Clock;
  config: Config;
  events: EventService;
  /** Tells in-process workers that deliveries may be due, once `trx` (if given) has committed. */
  signalDue: (trx?: Db) => void;
}

export function createDeliveryUseCases(deps: DeliveryDeps) {
  const { store, clock, config, events, signalDue } = deps;
  return {
    /**
     * Emits a `webhook.test` event and queues its delivery to this endpoint only. A retry whose
     * first attempt committed answers that delivery (no second event).
     */
    async test(
      principal: Principal,
      id: string,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<DeliveryObject> {
      if (idempotent.committed !== null) return deliveryOf(store.db, principal, id, idempotent.committed);
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
        const pending = repo.pendingDelivery(row.id, event, event.created);
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
      const urls = await endpointUrls(
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
      if (idempotent.committed !== null) return deliveryOf(store.db, principal, id, idempotent.committed);
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
        const row = repo.pendingDelivery(endpoint.id, event, now, last + 1, true);
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
