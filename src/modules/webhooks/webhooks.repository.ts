import { sql } from 'kysely';
import type { WebhookDeliveriesTable, WebhookEndpointsTable, WebhookStatus } from '../../db/schema.js';
import { newestFirst } from '../../db/pagination.js';
import { countList } from '../../db/list-counts.js';
import type { Db, DialectName } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';

/**
 * Webhook endpoints and delivery attempts. The only dialect difference is in `dueCandidates`: on
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

function pluginDeliveries(db: Db, pluginId: string) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .where('e.plugin_id', '=', pluginId);
}

/** A plugin's delivery log across every installation, newest first, ties broken by id. */
export async function listPluginDeliveries(db: Db, pluginId: string, window: PageWindow) {
  let query = pluginDeliveries(db, pluginId)
    .selectAll('d')
    .select(['e.url as endpoint_url', 'e.installation_id']);
  if (window.cursor) {
    const [created, id] = window.cursor.after;
    query = query.where((eb) =>
      eb(eb.refTuple('d.created', 'd.id'), '<', eb.tuple(Number(created), String(id))),
    );
  } else if (window.offset > 0) {
    query = query.offset(window.offset);
  }
  const rows = await query
    .orderBy('d.created', 'desc')
    .orderBy('d.id', 'desc')
    .limit(window.limit + 1)
    .execute();
  const { n } = await pluginDeliveries(db, pluginId)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}

/**
 * Blanks the installation token of a delivered `app.installed` event (`access_token: null`), so it
 * lives in the store only until the plugin has it.
 */
export async function forgetAppToken(db: Db, eventId: string): Promise<void> {
  const event = await db.selectFrom('events').select('data').where('id', '=', eventId).executeTakeFirst();
  if (!event) return;
  const data = JSON.parse(event.data) as Record<string, unknown>;
  if (data.access_token === null || data.access_token === undefined) return;
  await db
    .updateTable('events')
    .set({ data: JSON.stringify({ ...data, access_token: null }) })
    .where('id', '=', eventId)
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

/** Rows a statement inserts at most: 500 deliveries are 10,000 parameters, under either store's limit. */
const INSERT_BATCH = 500;

export async function insertDeliveries(db: Db, rows: DeliveryRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    await db
      .insertInto('webhook_deliveries')
      .values(rows.slice(i, i + INSERT_BATCH))
      .execute();
  }
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

/**
 * When an attempt was made, or for one not yet made, when it is due: the delivery log's order.
 * (A row's `created` says when it was queued, which for a retry is when the attempt before it ran.)
 */
export const ATTEMPTED_AT = sql<number>`COALESCE(time, due_at)`;
/** The cursor sort name of the delivery log's order. */
export const LOG_SORT = 'attempted';

export interface DeliveryFilter {
  endpointId?: string | undefined;
  eventId?: string | undefined;
  status?: DeliveryRow['status'] | undefined;
}

function deliveriesOf(db: Db, tenantId: string, filter: DeliveryFilter) {
  let query = db.selectFrom('webhook_deliveries').where('tenant_id', '=', tenantId);
  if (filter.endpointId !== undefined) query = query.where('endpoint_id', '=', filter.endpointId);
  if (filter.eventId !== undefined) query = query.where('event_id', '=', filter.eventId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  return query;
}

/** A delivery with the instant it sorts by in the log. */
export type LoggedDelivery = DeliveryRow & { attempted_at: number };

/**
 * The delivery log, by attempt time newest first: attempts made by when they were made, queued
 * ones by when they are due (so they come first, the one due last on top); ties broken by id. A
 * cursor seeks past (attempt time, id).
 */
export async function listDeliveries(db: Db, tenantId: string, filter: DeliveryFilter, window: PageWindow) {
  let page = deliveriesOf(db, tenantId, filter).selectAll().select(ATTEMPTED_AT.as('attempted_at'));
  if (window.cursor) {
    const [at, id] = window.cursor.after;
    page = page.where(sql<boolean>`(COALESCE(time, due_at), id) < (${Number(at)}, ${id})`);
  } else if (window.offset > 0) {
    page = page.offset(window.offset);
  }
  const rows = await page
    .orderBy(ATTEMPTED_AT, 'desc')
    .orderBy('id', 'desc')
    .limit(window.limit + 1)
    .execute();
  // An endpoint's log answers its total from the kept counts; other filters count their rows.
  const total =
    filter.endpointId !== undefined && filter.eventId === undefined
      ? await countList(
          db,
          tenantId,
          `deliveries:${filter.endpointId}`,
          filter.status === undefined ? { except: [] } : { only: filter.status },
        )
      : Number(
          (
            await deliveriesOf(db, tenantId, filter)
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
  return {
    rows: rows.map((row) => ({ ...row, attempted_at: Number(row.attempted_at) })) as LoggedDelivery[],
    total,
  };
}

/**
 * The queue's literal predicate, `status = 'pending' AND held = 0`: the predicate of its partial
 * index `(endpoint_id, due_at, id)` (migration 0027), which the databases use only when a query
 * repeats it word for word. Each read of the queue below also sorts in that index's order, so no
 * plan can serve it from another index of the endpoint's deliveries (which would walk its whole
 * delivery log) or a table scan.
 */
const QUEUED = sql<boolean>`d.status = 'pending' AND d.held = 0`;

/** An endpoint with deliveries in the queue, as a worker's look finds it. */
export interface WaitingEndpoint {
  endpoint_id: string;
  tenant_id: string;
  /** When its oldest delivery no live lease holds comes due (now or earlier: it has one due). */
  first_due: number;
  /** Its deliveries due at `now` that no live lease holds, counted up to `readyCap`. */
  ready: number;
}

/**
 * The endpoints (not Disabled, outside `skipEndpoints` and `skipTenants`) with deliveries no live
 * lease holds, each with its oldest one's due time and how many are due. Its cost does not grow
 * with the backlog: it hops from endpoint to endpoint along the queue's index (a loose index scan:
 * one probe per endpoint with deliveries queued, however many it has, and one look-up of that
 * endpoint), and reads an endpoint's first deliveries only (those leased, then up to `readyCap`),
 * never those of a skipped one.
 */
export async function waitingEndpoints(
  db: Db,
  input: { now: number; readyCap: number; skipEndpoints: readonly string[]; skipTenants: readonly string[] },
): Promise<WaitingEndpoint[]> {
  const unleased = sql<boolean>`(d.lease_until IS NULL OR d.lease_until <= ${input.now})`;
  const skipEndpoints =
    input.skipEndpoints.length > 0 ? sql`AND w.endpoint_id NOT IN (${sql.join(input.skipEndpoints)})` : sql``;
  const skipTenants =
    input.skipTenants.length > 0 ? sql`AND w.tenant_id NOT IN (${sql.join(input.skipTenants)})` : sql``;
  const { rows } = await sql<{
    endpoint_id: string;
    tenant_id: string;
    first_due: number | null;
    ready: number;
  }>`
    WITH RECURSIVE queued (endpoint_id) AS (
      SELECT CAST('' AS text)
      UNION ALL
      SELECT (SELECT d.endpoint_id FROM webhook_deliveries d WHERE ${QUEUED} AND d.endpoint_id > q.endpoint_id
              ORDER BY d.endpoint_id, d.due_at, d.id LIMIT 1)
      FROM queued q WHERE q.endpoint_id IS NOT NULL
    ),
    waiting AS (
      SELECT q.endpoint_id,
        (SELECT e.tenant_id FROM webhook_endpoints e WHERE e.id = q.endpoint_id AND e.status <> 'Disabled')
          AS tenant_id
      FROM queued q
    )
    SELECT w.endpoint_id, w.tenant_id,
      (SELECT d.due_at FROM webhook_deliveries d WHERE d.endpoint_id = w.endpoint_id AND ${QUEUED} AND ${unleased}
       ORDER BY d.due_at, d.id LIMIT 1) AS first_due,
      (SELECT count(*) FROM (SELECT 1 AS one FROM webhook_deliveries d
         WHERE d.endpoint_id = w.endpoint_id AND ${QUEUED} AND ${unleased} AND d.due_at <= ${input.now}
         ORDER BY d.due_at, d.id LIMIT ${input.readyCap}) AS r) AS ready
    FROM waiting w
    WHERE w.tenant_id IS NOT NULL ${skipEndpoints} ${skipTenants}`.execute(db);
  // An endpoint whose queued deliveries are all leased (in flight) has none waiting.
  return rows.flatMap(({ first_due, ...row }) =>
    first_due === null ? [] : [{ ...row, first_due: Number(first_due), ready: Number(row.ready) }],
  );
}

/**
 * A cheap read: when the first waiting delivery (outside `skipEndpoints`) comes due (`now` or
 * earlier: one is due now), or undefined when none waits.
 */
export async function nextDue(
  db: Db,
  now: number,
  skipEndpoints: readonly string[],
): Promise<number | undefined> {
  return earliestDue(await waitingEndpoints(db, { now, readyCap: 1, skipEndpoints, skipTenants: [] }));
}

/** When the first of these endpoints' waiting deliveries comes due; undefined for none. */
export function earliestDue(waiting: readonly WaitingEndpoint[]): number | undefined {
  let first: number | undefined;
  for (const { first_due } of waiting) if (first === undefined || first_due < first) first = first_due;
  return first;
}

/**
 * Reads, from each of these endpoints, up to its `limit` of due deliveries no live lease holds,
 * oldest first (locking them, skipping rows other workers hold, on PostgreSQL). One probe of the
 * queue's index per endpoint. Call inside a transaction, lease the chosen ones with
 * `leaseDeliveries` in the same transaction.
 */
export async function dueCandidates(
  db: Db,
  input: { now: number; endpoints: readonly { id: string; limit: number }[]; rowLocks: boolean },
) {
  return (await candidatesQuery(db, input)?.execute()) ?? [];
}

function candidatesQuery(
  db: Db,
  input: { now: number; endpoints: readonly { id: string; limit: number }[]; rowLocks: boolean },
) {
  const parts = input.endpoints
    .filter(({ limit }) => limit > 0)
    .map(({ id, limit }, index) => {
      let part = db
        .selectFrom('webhook_deliveries as d')
        .select(['d.id', 'd.endpoint_id', 'd.tenant_id'])
        .where('d.endpoint_id', '=', id)
        .where(QUEUED)
        .where('d.due_at', '<=', input.now)
        .where((eb) => eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<=', input.now)]))
        // Rows a fan-out added unheld while the endpoint was being disabled still wait.
        .where('d.endpoint_id', 'in', (eb) =>
          eb
            .selectFrom('webhook_endpoints')
            .select('id')
            .where('id', '=', id)
            .where('status', '<>', 'Disabled'),
        )
        .orderBy('d.due_at')
        .orderBy('d.id')
        .limit(limit);
      if (input.rowLocks) part = part.forUpdate().skipLocked();
      return db.selectFrom(part.as(`c${index}`)).selectAll();
    });
  const [first, ...rest] = parts;
  return first && rest.reduce((all, part) => all.unionAll(part), first);
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

/**
 * Gives back leases `owner` took and will not use (deliveries claimed ahead and not started in
 * time, or left when the worker stops): each only while it is still that lease (the same owner and
 * `lease_until`; a lease the owner has taken again since stays). The deliveries are due again at
 * once, for any worker.
 */
export async function releaseLeases(
  db: Db,
  leases: readonly { id: string; leaseUntil: number }[],
  owner: string,
): Promise<void> {
  if (leases.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: null, lease_until: null })
    .where(
      'id',
      'in',
      leases.map((lease) => lease.id),
    )
    .where('status', '=', 'pending')
    .where('lease_owner', '=', owner)
    .where((eb) =>
      eb.or(
        leases.map((lease) => eb.and([eb('id', '=', lease.id), eb('lease_until', '=', lease.leaseUntil)])),
      ),
    )
    .execute();
}

/**
 * What sending a leased delivery needs: the delivery (`d`), its endpoint (`e`) and its event (`ev`).
 * `loadJobs` and `claimJobs` read it alike.
 */
const JOB_COLUMNS = [
  'd.id',
  'd.attempt',
  'd.manual',
  'd.endpoint_id',
  'd.tenant_id',
  'd.lease_owner',
  'e.url',
  'e.secret',
  'e.retired_secrets',
  'e.api_version',
  'e.installation_id',
  'ev.id as event_id',
  'ev.tenant_id as event_tenant_id',
  'ev.type as event_type',
  'ev.object_type as event_object_type',
  'ev.object_id as event_object_id',
  'ev.data as event_data',
  'ev.extra as event_extra',
  'ev.created as event_created',
] as const;

/** Leased deliveries with what sending them needs. */
export async function loadJobs(db: Db, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .innerJoin('events as ev', 'ev.id', 'd.event_id')
    .select(JOB_COLUMNS)
    .where('d.id', 'in', [...ids])
    .execute();
}

export type Job = Awaited<ReturnType<typeof loadJobs>>[number];

/**
 * PostgreSQL: `dueCandidates` (locking SKIP LOCKED), `leaseDeliveries` and `loadJobs` in one
 * statement: a claim is one round trip to the server, and atomic with no transaction around it.
 * Each endpoint's deliveries come oldest first, as `dueCandidates` reads them.
 */
export async function claimJobs(
  db: Db,
  input: {
    now: number;
    endpoints: readonly { id: string; limit: number }[];
    owner: string;
    leaseUntil: number;
  },
): Promise<Job[]> {
  const candidates = candidatesQuery(db, { ...input, rowLocks: true });
  if (!candidates) return [];
  return db
    .with('c', () => candidates)
    .with('d', (qb) =>
      qb
        .updateTable('webhook_deliveries')
        .set({ lease_owner: input.owner, lease_until: input.leaseUntil })
        .from('c')
        .whereRef('webhook_deliveries.id', '=', 'c.id')
        .returning([
          'webhook_deliveries.id',
          'webhook_deliveries.attempt',
          'webhook_deliveries.manual',
          'webhook_deliveries.endpoint_id',
          'webhook_deliveries.tenant_id',
          'webhook_deliveries.lease_owner',
          'webhook_deliveries.event_id',
          'webhook_deliveries.due_at',
        ]),
    )
    .selectFrom('d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .innerJoin('events as ev', 'ev.id', 'd.event_id')
    .select(JOB_COLUMNS)
    .orderBy('d.endpoint_id')
    .orderBy('d.due_at')
    .orderBy('d.id')
    .execute();
}

/** An attempt's outcome, for `completeAttempts`. */
export type AttemptOutcome = Pick<
  DeliveryRow,
  | 'id'
  | 'status'
  | 'time'
  | 'url'
  | 'response'
  | 'response_status'
  | 'response_body'
  | 'duration'
  | 'next_retry_at'
>;

/**
 * Writes attempts' outcomes in one statement, each only while `owner` still holds the lease on its
 * pending row (a worker whose lease ran out and was taken over records nothing). Returns the ids it
 * wrote. PostgreSQL takes the outcomes as one array a column (`unnest`): nine parameters, however
 * many outcomes, where a VALUES list takes nine an outcome for the server to parse and plan (and
 * the client to build and send). SQLite, which has no arrays, takes the VALUES list.
 */
export async function completeAttempts(
  db: Db,
  dialect: DialectName,
  owner: string,
  outcomes: readonly AttemptOutcome[],
): Promise<Set<string>> {
  if (outcomes.length === 0) return new Set();
  const column = <K extends keyof AttemptOutcome>(key: K) => outcomes.map((o) => o[key]);
  // Typed casts: PostgreSQL gives the columns their types from them.
  const source =
    dialect === 'postgres'
      ? sql`SELECT * FROM unnest(CAST(${column('id')} AS text[]), CAST(${column('status')} AS text[]),
          CAST(${column('time')} AS bigint[]), CAST(${column('url')} AS text[]),
          CAST(${column('response')} AS text[]), CAST(${column('response_status')} AS integer[]),
          CAST(${column('response_body')} AS text[]), CAST(${column('duration')} AS integer[]),
          CAST(${column('next_retry_at')} AS bigint[]))`
      : sql`VALUES ${sql.join(
          outcomes.map(
            (o) => sql`(${o.id}, ${o.status}, ${o.time}, ${o.url}, ${o.response}, ${o.response_status},
              ${o.response_body}, ${o.duration}, ${o.next_retry_at})`,
          ),
        )}`;
  const { rows } = await sql<{ id: string }>`
    WITH v (id, status, time, url, response, response_status, response_body, duration, next_retry_at)
      AS (${source})
    UPDATE webhook_deliveries
    SET status = v.status, time = v.time, url = v.url, response = v.response,
      response_status = v.response_status, response_body = v.response_body, duration = v.duration,
      next_retry_at = v.next_retry_at, lease_until = NULL
    FROM v
    WHERE webhook_deliveries.id = v.id AND webhook_deliveries.status = 'pending'
      AND webhook_deliveries.lease_owner = ${owner}
    RETURNING webhook_deliveries.id`.execute(db);
  return new Set(rows.map((row) => row.id));
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
