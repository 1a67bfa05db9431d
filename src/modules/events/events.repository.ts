import type { EventsTable } from '../../db/schema.js';
import { newestFirst } from '../../db/pagination.js';
import { countList } from '../../db/list-counts.js';
import type { Db } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';

export async function insertEvent(db: Db, row: EventsTable): Promise<void> {
  await db.insertInto('events').values(row).execute();
}

/** Rows a statement inserts at most (8 columns: well within SQLite's bound variables). */
const INSERT_BATCH = 500;

export async function insertEvents(db: Db, rows: readonly EventsTable[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    await db
      .insertInto('events')
      .values(rows.slice(i, i + INSERT_BATCH))
      .execute();
  }
}

/** A store event by id: never one of `appEventTypes`, which only their plugin sees. */
export async function findEvent(
  db: Db,
  tenantId: string,
  id: string,
  appEventTypes: readonly string[],
): Promise<EventsTable | undefined> {
  return db
    .selectFrom('events')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('type', 'not in', appEventTypes)
    .executeTakeFirst();
}

export interface EventFilter {
  /** The app events (the vocabulary's), left out. */
  appEventTypes: readonly string[];
  type?: string | undefined;
  /** One object's events (an order's, a product's): on the (tenant, object, created) index. */
  objectId?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
}

function filtered(db: Db, tenantId: string, filter: EventFilter) {
  // App events are private to the plugin they are sent to (`app.installed` carries its token).
  let query = db
    .selectFrom('events')
    .where('tenant_id', '=', tenantId)
    .where('type', 'not in', filter.appEventTypes);
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  if (filter.objectId !== undefined) query = query.where('object_id', '=', filter.objectId);
  if (filter.from !== undefined) query = query.where('created', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('created', '<=', filter.to);
  return query;
}

/** Newest first, ties broken by id; a cursor seeks past (created, id). */
export async function listEvents(db: Db, tenantId: string, filter: EventFilter, window: PageWindow) {
  const rows = await filtered(db, tenantId, filter).selectAll().$call(newestFirst(window)).execute();
  // The kept counts answer for the whole log or a type; a time range or an object is counted on
  // its index.
  if (filter.from === undefined && filter.to === undefined && filter.objectId === undefined) {
    const keys = filter.type === undefined ? { except: filter.appEventTypes } : { only: filter.type };
    return { rows, total: await countList(db, tenantId, 'events', keys) };
  }
  const { n } = await filtered(db, tenantId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}
