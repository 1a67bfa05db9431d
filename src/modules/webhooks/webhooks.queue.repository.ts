import { sql } from 'kysely';
import type { Db, DialectName } from '../../db/store.js';
import type { DeliveryRow } from './webhooks.deliveries.repository.js';

/**
 * The delivery queue, as workers use it: the cheap look for endpoints with deliveries waiting, the
 * claim that leases due ones, giving leases back, and writing attempts' outcomes. The only dialect
 * difference is in the claim: on PostgreSQL candidates are read `FOR UPDATE SKIP LOCKED`, so
 * concurrent workers each take rows the others have not; SQLite's write transaction (BEGIN
 * IMMEDIATE) already admits one claimer.
 */

// ---- the look at the queue

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

// ---- claims

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

// ---- outcomes

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
