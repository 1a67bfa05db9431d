import type { Db, Store } from '../../db/store.js';
import { type Clock, iso } from '../../lib/clock.js';
import { AppError, notFound, validationError } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { newId } from '../../lib/ids.js';
import { newestFirstEnvelope, type PageQuery, pageWindow } from '../../lib/paging.js';
import type { Principal } from '../../lib/principal.js';
import type { AuditRecorder } from '../audit/index.js';
import { holdDeliveries } from './webhooks.deliveries.repository.js';
import { toObject, type WebhookObject } from './webhooks.presenter.js';
import * as repo from './webhooks.repository.js';
import type { CreateWebhookBody, UpdateWebhookBody } from './webhooks.schemas.js';
import { newSecret, stillSigning } from './webhooks.transport.js';

/**
 * A tenant's webhook endpoints: creating (up to `MAX_ENDPOINTS_PER_TENANT`), reading, changing
 * (disabling holds their queued deliveries, enabling releases them), deleting, and rotating their
 * signing secret. Part of the webhook service (webhooks.service.ts).
 */

export const MAX_ENDPOINTS_PER_TENANT = 20;
/** How long a secret replaced by a rotation keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;
/** How many replaced secrets may be signing at once (each adds a signature to every delivery). */
export const MAX_RETIRED_SECRETS = 10;

/** One of the caller's endpoints (locked until the transaction ends with `lock`), or 404. */
export async function endpointOf(
  db: Db,
  principal: Principal,
  id: string,
  lock = false,
): Promise<repo.EndpointRow> {
  const row = await repo.findEndpoint(db, principal.tenant.id, id, lock);
  if (!row) throw notFound('webhook');
  return row;
}

function checkEvents(events: readonly string[]): string[] {
  if (events.includes('*') && events.length > 1) {
    throw validationError('events', 'must be ["*"] alone or a list of event types');
  }
  return [...events];
}

export interface EndpointDeps {
  store: Store;
  clock: Clock;
  /** The URL check of webhook endpoints: the URL to keep, or 422. */
  safeUrl: (raw: string) => Promise<string>;
  /** Tells in-process workers that deliveries may be due, once `trx` (if given) has committed. */
  signalDue: (trx?: Db) => void;
  /** Each change's audit entry, in its transaction. */
  audit: AuditRecorder;
}

export function createEndpointUseCases(deps: EndpointDeps) {
  const { store, clock, safeUrl, signalDue, audit } = deps;
  const resource = (id: string) => ({ type: 'webhook', id });
  return {
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
        await repo.lockTenant(trx, principal.tenant.id, true);
        if ((await repo.countEndpoints(trx, principal.tenant.id)) >= MAX_ENDPOINTS_PER_TENANT) {
          throw new AppError(
            'limit_exceeded',
            `A tenant can have at most ${MAX_ENDPOINTS_PER_TENANT} webhook endpoints; delete one first.`,
          );
        }
        await repo.insertEndpoint(trx, row);
        await idempotent.mark(trx, row.id);
        await audit.record(trx, {
          tenantId: principal.tenant.id,
          action: 'webhook.created',
          resource: resource(row.id),
          before: null,
          after: toObject(row),
        });
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
        const before = toObject(row);
        if (input.enabled === false) changes.status = 'Disabled';
        if (input.enabled === true && row.status === 'Disabled') {
          changes.status = 'Active';
          changes.failing_since = null;
        }
        await repo.updateEndpoint(trx, principal.tenant.id, id, changes, now);
        if (changes.status === 'Disabled' && row.status !== 'Disabled') await holdDeliveries(trx, id, true);
        if (changes.status === 'Active') {
          await holdDeliveries(trx, id, false);
          signalDue(trx);
        }
        const after = toObject(await endpointOf(trx, principal, id));
        await audit.record(trx, {
          tenantId: principal.tenant.id,
          action: 'webhook.updated',
          resource: resource(id),
          before,
          after,
        });
        return after;
      });
    },

    async remove(principal: Principal, id: string): Promise<void> {
      await store.transaction(async (trx) => {
        const row = await repo.findEndpoint(trx, principal.tenant.id, id, false);
        if (!row || (await repo.deleteEndpoint(trx, principal.tenant.id, id)) === 0)
          throw notFound('webhook');
        await audit.record(trx, {
          tenantId: principal.tenant.id,
          action: 'webhook.deleted',
          resource: resource(id),
          before: toObject(row),
          after: null,
        });
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
        const row = await endpointOf(trx, principal, id, true);
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
        // The secrets themselves never reach the log: that it was rotated, and when, does.
        await audit.record(trx, {
          tenantId: principal.tenant.id,
          action: 'webhook.secret_rotated',
          resource: resource(id),
          before: { secret_rotated_at: null },
          after: { secret_rotated_at: iso(now) },
        });
        return toObject(await endpointOf(trx, principal, id), secret);
      });
    },
  };
}
