import { sql } from 'kysely';
import type { EventsTable, WebhookDeliveriesTable } from '../../db/schema.js';
import { countList } from '../../db/list-counts.js';
import type { Db } from '../../db/store.js';
import { newId } from '../../lib/ids.js';
import type { PageWindow } from '../../lib/paging.js';

/**
 * Delivery attempts, one row each: the rows the fan-out, a retry and a test queue, the delivery log
 * the API reads (a tenant's, by endpoint or event; a plugin's, across its installations), and
 * retention, which deletes old events with their log. Claiming queued rows and writing attempts'
 * outcomes are webhooks.queue.repository.ts's.
 */

export type DeliveryRow = WebhookDeliveriesTable;

// ---- attempts

/** The row of an attempt to deliver `event` to an endpoint, pending from `now`. */
export function pendingDelivery(
  endpointId: string,
  event: Pick<EventsTable, 'id' | 'tenant_id' | 'type'>,
  now: number,
  attempt = 1,
  manual = false,
): DeliveryRow {
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

// ---- the delivery log

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
