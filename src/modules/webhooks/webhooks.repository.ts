import { sql } from 'kysely';
import type { WebhookDeliveriesTable, WebhookEndpointsTable, WebhookStatus } from '../../db/schema.js';
import { newestFirst } from '../../db/pagination.js';
import type { Db } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';

/**
 * Webhook endpoints and delivery attempts. The only dialect difference is in `claimDue`: on
 * PostgreSQL candidates are read `FOR UPDATE SKIP LOCKED`, so concurrent workers each take rows
 * the others have not; SQLite's write transaction (BEGIN IMMEDIATE) already admits one claimer.
 */

export type EndpointRow = WebhookEndpointsTable;
export type DeliveryRow = WebhookDeliveriesTable;

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
    .where('id', '=', id);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
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
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** Newest first, ties broken by id; a cursor seeks past (created, id). */
export async function listEndpoints(db: Db, tenantId: string, window: PageWindow) {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('tenant_id', '=', tenantId)
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
    .execute();
}

export async function deleteEndpoint(db: Db, tenantId: string, id: string): Promise<number> {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The tenant's endpoints that take deliveries (not Disabled), for the fan-out. */
export async function enabledEndpoints(db: Db, tenantId: string) {
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'events'])
    .where('tenant_id', '=', tenantId)
    .where('status', '<>', 'Disabled')
    .execute();
}

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

// ---- deliveries

/**
 * Holds the endpoint's pending deliveries out of the queue (`held`, migration 0018) while it is
 * Disabled, or releases them when it is enabled again. Rows a concurrent fan-out adds unheld still
 * wait: the queue also checks the endpoint's status.
 */
export async function holdDeliveries(db: Db, endpointId: string, held: boolean): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ held: held ? 1 : 0 })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .where('held', '=', held ? 0 : 1)
    .execute();
}

export async function insertDeliveries(db: Db, rows: DeliveryRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('webhook_deliveries').values(rows).execute();
}

export async function findDelivery(
  db: Db,
  tenantId: string,
  endpointId: string,
  id: string,
): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('endpoint_id', '=', endpointId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The attempts of one event to one endpoint, oldest first. */
export async function attemptsOf(db: Db, endpointId: string, eventId: string): Promise<DeliveryRow[]> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .where('event_id', '=', eventId)
    .orderBy('attempt')
    .execute();
}

export async function makeDueNow(db: Db, id: string, now: number): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ due_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('due_at', '>', now)
    .execute();
}

function deliveriesOf(db: Db, tenantId: string, endpointId: string, status: string | undefined) {
  let query = db
    .selectFrom('webhook_deliveries')
    .where('tenant_id', '=', tenantId)
    .where('endpoint_id', '=', endpointId);
  if (status !== undefined) query = query.where('status', '=', status as DeliveryRow['status']);
  return query;
}

/** Newest first, ties broken by id. */
export async function listDeliveries(
  db: Db,
  tenantId: string,
  endpointId: string,
  status: string | undefined,
  window: PageWindow,
) {
  const rows = await deliveriesOf(db, tenantId, endpointId, status)
    .selectAll()
    .$call(newestFirst(window))
    .execute();
  const { n } = await deliveriesOf(db, tenantId, endpointId, status)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}

/**
 * Pending deliveries of enabled endpoints that no live lease holds, outside `skipEndpoints`. The
 * literal `status = 'pending' AND held = 0` is the predicate of the queue's partial index.
 */
function waitingQuery(db: Db, now: number, skipEndpoints: readonly string[]) {
  let query = db
    .selectFrom('webhook_deliveries')
    .where(sql<boolean>`status = 'pending' AND held = 0`)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .where('endpoint_id', 'in', (eb) =>
      eb.selectFrom('webhook_endpoints').select('id').where('status', '<>', 'Disabled'),
    );
  if (skipEndpoints.length > 0) query = query.where('endpoint_id', 'not in', [...skipEndpoints]);
  return query;
}

/**
 * A cheap read before taking a write transaction: when the first waiting delivery comes due
 * (`now` or earlier: one is due now), or undefined when none waits.
 */
export async function nextDue(
  db: Db,
  now: number,
  skipEndpoints: readonly string[],
): Promise<number | undefined> {
  const row = await waitingQuery(db, now, skipEndpoints)
    .select('due_at')
    .orderBy('due_at')
    .limit(1)
    .executeTakeFirst();
  return row?.due_at;
}

/**
 * Reads up to `limit` due, unleased candidates in due order (locking them, skipping rows other
 * workers hold, on PostgreSQL). Call inside a transaction, lease the chosen ones with
 * `leaseDeliveries` in the same transaction.
 */
export async function dueCandidates(
  db: Db,
  input: { now: number; limit: number; skipEndpoints: readonly string[]; rowLocks: boolean },
) {
  let query = waitingQuery(db, input.now, input.skipEndpoints)
    .where('due_at', '<=', input.now)
    .select(['id', 'endpoint_id'])
    .orderBy('due_at')
    .orderBy('id')
    .limit(input.limit);
  if (input.rowLocks) query = query.forUpdate().skipLocked();
  return query.execute();
}

export async function leaseDeliveries(
  db: Db,
  ids: readonly string[],
  owner: string,
  leaseUntil: number,
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: owner, lease_until: leaseUntil })
    .where('id', 'in', [...ids])
    .execute();
}

/** A leased delivery with what sending it needs: its endpoint and its event. */
export async function loadJobs(db: Db, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .innerJoin('events as ev', 'ev.id', 'd.event_id')
    .select([
      'd.id',
      'd.attempt',
      'd.manual',
      'd.endpoint_id',
      'd.lease_owner',
      'e.url',
      'e.secret',
      'e.retired_secrets',
      'e.api_version',
      'ev.id as event_id',
      'ev.tenant_id as event_tenant_id',
      'ev.type as event_type',
      'ev.object_type as event_object_type',
      'ev.object_id as event_object_id',
      'ev.data as event_data',
      'ev.extra as event_extra',
      'ev.created as event_created',
    ])
    .where('d.id', 'in', [...ids])
    .execute();
}

export type Job = Awaited<ReturnType<typeof loadJobs>>[number];

/**
 * Writes an attempt's outcome, only while `owner` still holds the lease on the pending row (a
 * worker whose lease ran out and was taken over records nothing). Returns whether it did.
 */
export async function completeAttempt(
  db: Db,
  id: string,
  owner: string,
  outcome: Pick<
    DeliveryRow,
    | 'status'
    | 'time'
    | 'url'
    | 'response'
    | 'response_status'
    | 'response_body'
    | 'duration'
    | 'next_retry_at'
  >,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ ...outcome, lease_until: null })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

// ---- retention

/** Where a purge has got to: the last event it looked at, in (created, id) order. */
export interface EventCursor {
  created: number;
  id: string;
}

/**
 * Up to `limit` events created before `cutoff`, after `cursor`, oldest first, that have no
 * delivery still pending (an event waiting to be delivered is kept, however old).
 */
export async function expiredEvents(
  db: Db,
  input: { cutoff: number; after: EventCursor | null; limit: number },
): Promise<EventCursor[]> {
  let query = db
    .selectFrom('events')
    .select(['id', 'created'])
    .where('created', '<', input.cutoff)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries as d')
            .select('d.id')
            .whereRef('d.event_id', '=', 'events.id')
            .where('d.status', '=', 'pending'),
        ),
      ),
    );
  const after = input.after;
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('created', '>', after.created),
        eb.and([eb('created', '=', after.created), eb('id', '>', after.id)]),
      ]),
    );
  }
  return query.orderBy('created').orderBy('id').limit(input.limit).execute();
}

/**
 * Deletes these events and their delivery log. An event that got a pending delivery since it was
 * chosen (a manual retry) keeps it and is kept; on PostgreSQL one whose pending delivery is not yet
 * committed fails the delivery's foreign key, and with it this transaction. Returns the events
 * deleted.
 */
export async function deleteEventsAndLog(db: Db, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const pendingOf = db
    .selectFrom('webhook_deliveries')
    .select('event_id')
    .where('event_id', 'in', [...ids])
    .where('status', '=', 'pending');
  await db
    .deleteFrom('webhook_deliveries')
    .where('event_id', 'in', [...ids])
    .where('event_id', 'not in', pendingOf)
    .execute();
  const result = await db
    .deleteFrom('events')
    .where('id', 'in', [...ids])
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'events.id')),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
