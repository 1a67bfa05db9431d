import { countShard, type EventsTable } from '../../db/schema.js';
import { newestFirst } from '../../db/pagination.js';
import type { Db } from '../../db/store.js';
import type { PageWindow } from '../../http/pagination.js';

export async function insertEvent(db: Db, row: EventsTable): Promise<void> {
  await db.insertInto('events').values(row).execute();
  await adjustEventCounts(db, [{ tenant_id: row.tenant_id, type: row.type, delta: 1 }]);
}

/** Keeps `event_counts` in step with events written or deleted (sorted: a fixed lock order). */
export async function adjustEventCounts(
  db: Db,
  deltas: readonly { tenant_id: string; type: string; delta: number }[],
): Promise<void> {
  const sorted = [...deltas].sort((a, b) =>
    a.tenant_id === b.tenant_id ? a.type.localeCompare(b.type) : a.tenant_id < b.tenant_id ? -1 : 1,
  );
  for (const { tenant_id, type, delta } of sorted) {
    if (delta === 0) continue;
    await db
      .insertInto('event_counts')
      .values({ tenant_id, type, shard: countShard(db), n: delta })
      .onConflict((oc) =>
        oc
          .columns(['tenant_id', 'type', 'shard'])
          .doUpdateSet((eb) => ({ n: eb('event_counts.n', '+', eb.ref('excluded.n')) })),
      )
      .execute();
  }
}

export async function findEvent(db: Db, tenantId: string, id: string): Promise<EventsTable | undefined> {
  return db
    .selectFrom('events')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export interface EventFilter {
  type?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
}

function filtered(db: Db, tenantId: string, filter: EventFilter) {
  let query = db.selectFrom('events').where('tenant_id', '=', tenantId);
  if (filter.type !== undefined) query = query.where('type', '=', filter.type);
  if (filter.from !== undefined) query = query.where('created', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('created', '<=', filter.to);
  return query;
}

/** Newest first, ties broken by id; a cursor seeks past (created, id). */
export async function listEvents(db: Db, tenantId: string, filter: EventFilter, window: PageWindow) {
  const rows = await filtered(db, tenantId, filter).selectAll().$call(newestFirst(window)).execute();
  return { rows, total: await countEvents(db, tenantId, filter) };
}

/** Exact total: from `event_counts` for no filter or a type, a COUNT within a time range. */
async function countEvents(db: Db, tenantId: string, filter: EventFilter): Promise<number> {
  if (filter.from === undefined && filter.to === undefined) {
    let query = db.selectFrom('event_counts').where('tenant_id', '=', tenantId);
    if (filter.type !== undefined) query = query.where('type', '=', filter.type);
    const { n } = await query
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('n'), eb.lit(0)).as('n'))
      .executeTakeFirstOrThrow();
    return Number(n);
  }
  const { n } = await filtered(db, tenantId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}
