import type { WebhookEndpointsTable, WebhookStatus } from '../../db/schema.js';
import { newestFirst } from '../../db/pagination.js';
import type { Db } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';
import { holdDeliveries } from './webhooks.deliveries.repository.js';

/**
 * Webhook endpoints: a store's own (the tenant's webhooks), those plugin installations subscribe
 * (which the tenant's webhooks never list, change or count), and the status their attempts'
 * outcomes give them. The delivery rows are webhooks.deliveries.repository.ts's, the queue the
 * worker claims from webhooks.queue.repository.ts's.
 */

export type EndpointRow = WebhookEndpointsTable;

// ---- endpoints

export async function insertEndpoint(db: Db, row: EndpointRow): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

/**
 * The endpoint; with `lock` (PostgreSQL: SQLite's write transaction already excludes other
 * writers) it stays locked until the transaction ends, so a read-modify-write such as a secret
 * rotation loses no concurrent one.
 */
export async function findEndpoint(
  db: Db,
  tenantId: string,
  id: string,
  lock = false,
): Promise<EndpointRow | undefined> {
  let query = db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('installation_id', 'is', null);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The URLs of some of a tenant's endpoints, by id. */
export async function endpointUrls(
  db: Db,
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'url'])
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((row) => [row.id, row.url]));
}

/** Serialises a tenant's endpoint creations on PostgreSQL, so the per-tenant limit holds. */
export async function lockTenant(db: Db, tenantId: string, rowLocks: boolean): Promise<void> {
  if (!rowLocks) return;
  await db.selectFrom('tenants').select('id').where('id', '=', tenantId).forUpdate().execute();
}

export async function countEndpoints(db: Db, tenantId: string): Promise<number> {
  const { n } = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('installation_id', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** Newest first, ties broken by id; a cursor seeks past (created, id). */
export async function listEndpoints(db: Db, tenantId: string, window: PageWindow) {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('installation_id', 'is', null)
    .$call(newestFirst(window))
    .execute();
  return { rows, total: await countEndpoints(db, tenantId) };
}

export type EndpointChanges = Partial<
  Pick<
    EndpointRow,
    'url' | 'events' | 'description' | 'status' | 'failing_since' | 'secret' | 'retired_secrets'
  >
>;

export async function updateEndpoint(
  db: Db,
  tenantId: string,
  id: string,
  changes: EndpointChanges,
  now: number,
): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ ...changes, updated: now })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('installation_id', 'is', null)
    .execute();
}

export async function deleteEndpoint(db: Db, tenantId: string, id: string): Promise<number> {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('installation_id', 'is', null)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** For the fan-out: the endpoints of these tenants that take deliveries (all but the Disabled), in creation order. */
export async function enabledEndpoints(db: Db, tenantIds: readonly string[]) {
  if (tenantIds.length === 0) return [];
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'tenant_id', 'events'])
    .where('tenant_id', 'in', [...tenantIds])
    .where('status', '<>', 'Disabled')
    .orderBy('created')
    .orderBy('id')
    .execute();
}

// ---- plugin installations' endpoints (a store's own webhooks above never see them)

/** Stops an installation's endpoint: subscribed to nothing, its pending deliveries dropped. */
export async function endInstallationEndpoint(db: Db, endpointId: string, now: number): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ events: '[]', updated: now })
    .where('id', '=', endpointId)
    .where('installation_id', 'is not', null)
    .execute();
  await db
    .deleteFrom('webhook_deliveries')
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
}

/** The events an installation's endpoint takes from now on (its grant changed). */
export async function setInstallationEndpointEvents(
  db: Db,
  endpointId: string,
  events: readonly string[],
  now: number,
): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ events: JSON.stringify(events), updated: now })
    .where('id', '=', endpointId)
    .where('installation_id', 'is not', null)
    .execute();
}

/** Points the endpoints of a plugin's active installations at its new URL. */
export async function movePluginEndpoints(db: Db, pluginId: string, url: string, now: number): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ url, updated: now })
    .where('installation_id', 'in', (eb) =>
      eb
        .selectFrom('plugin_installations')
        .select('id')
        .where('plugin_id', '=', pluginId)
        .where('uninstalled_at', 'is', null),
    )
    .execute();
}

// ---- status after attempts

/** What a batch of attempts to one endpoint amounts to. */
export interface EndpointOutcome {
  /** The last attempt: when it was made and whether it succeeded. */
  at: number;
  ok: boolean;
  /** Some attempt was answered 410 Gone. */
  gone: boolean;
  /** When the run of failures at the end of the batch began; null when the last attempt succeeded. */
  failingFrom: number | null;
  /** The batch holds a success, so failures before the batch no longer count. */
  succeeded: boolean;
}

/**
 * After attempts: `last_triggered`, and the status. A success makes the endpoint Active; a
 * failure Degraded, or Disabled on a 410 or when it has failed without a success for
 * `disableAfterMs`. A Disabled endpoint stays Disabled until re-enabled. One statement, so
 * concurrent outcomes never lose each other's update.
 */
export async function recordEndpointOutcome(
  db: Db,
  id: string,
  outcome: EndpointOutcome,
  disableAfterMs: number,
): Promise<void> {
  const { ok, gone, at, failingFrom, succeeded } = outcome;
  const limit = at - disableAfterMs;
  const updated = await db
    .updateTable('webhook_endpoints')
    .set((eb) => {
      const since =
        ok || failingFrom === null
          ? null
          : succeeded
            ? eb.val(failingFrom)
            : eb.fn.coalesce('failing_since', eb.val(failingFrom));
      const expired =
        since === null || succeeded
          ? eb(eb.val(failingFrom !== null && failingFrom <= limit ? 1 : 0), '=', 1)
          : eb(since, '<=', limit);
      return {
        last_triggered: at,
        failing_since: since,
        status: eb
          .case()
          .when('status', '=', 'Disabled')
          .then(eb.val<WebhookStatus>('Disabled'))
          .when(eb.val(gone ? 1 : 0), '=', 1)
          .then(eb.val<WebhookStatus>('Disabled'))
          .when(eb.val(ok ? 1 : 0), '=', 1)
          .then(eb.val<WebhookStatus>('Active'))
          .when(expired)
          .then(eb.val<WebhookStatus>('Disabled'))
          .else(eb.val<WebhookStatus>('Degraded'))
          .end(),
      };
    })
    .where('id', '=', id)
    .returning('status')
    .executeTakeFirst();
  // Disabled now (or before): its retries just scheduled in this transaction wait with the rest.
  if (updated?.status === 'Disabled') await holdDeliveries(db, id, true);
}
