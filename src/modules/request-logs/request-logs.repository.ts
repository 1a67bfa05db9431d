import { type CountKeys, countList } from '../../db/list-counts.js';
import type { Db, Store } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';
import { newestFirst } from '../../db/pagination.js';
import type { Selectable } from 'kysely';
import type { RequestLogsTable } from './request-logs.tables.js';
import { countDeltas, FILTER_LISTS, LIST } from './request-logs.counts.js';

/**
 * Plain queries of the request log. Its kept counts are request-logs.counts.ts's lists. Its rows
 * are written by its own thread (request-logs.thread.ts), with the driver's statements.
 */

/** Deletes up to `limit` of the requests older than `cutoff`, with their counts: how many it deleted. */
export async function deleteOlderThan(store: Store, cutoff: number, limit: number): Promise<number> {
  return store.transaction(async (trx) => {
    const gone = await trx
      .deleteFrom('request_logs')
      .where(
        'seq',
        'in',
        trx
          .selectFrom('request_logs')
          .select('seq')
          .where('created', '<', cutoff)
          .orderBy('created')
          .limit(limit),
      )
      .returning(['tenant_id', 'status_class', 'status', 'method', 'route', 'key_id'])
      .execute();
    if (gone.length > 0) await trx.insertInto('list_count_deltas').values(countDeltas(gone, -1)).execute();
    return gone.length;
  });
}

export interface RequestLogFilter {
  /** `2xx`, `4xx`, `5xx` or an exact status. */
  statusClass?: string | undefined;
  status?: number | undefined;
  method?: string | undefined;
  route?: string | undefined;
  keyId?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
}

function filtered(db: Db, tenantId: string, filter: RequestLogFilter) {
  let query = db.selectFrom('request_logs').where('tenant_id', '=', tenantId);
  if (filter.statusClass !== undefined) query = query.where('status_class', '=', filter.statusClass);
  if (filter.status !== undefined) {
    // Within its class, so the class's index serves it.
    query = query
      .where('status_class', '=', `${Math.floor(filter.status / 100)}xx`)
      .where('status', '=', filter.status);
  }
  if (filter.method !== undefined) query = query.where('method', '=', filter.method);
  if (filter.route !== undefined) query = query.where('route', '=', filter.route);
  if (filter.keyId !== undefined) query = query.where('key_id', '=', filter.keyId);
  if (filter.from !== undefined) query = query.where('created', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('created', '<=', filter.to);
  return query;
}

/**
 * The kept count that answers `filter`'s total: the whole log's, a status class's, or that of one
 * filter alone (an exact status, a method, a route, a key); none for filters together or a time
 * range, whose rows are counted.
 */
function keptCount(filter: RequestLogFilter): { list: string; keys: CountKeys } | undefined {
  const { statusClass, status, method, route, keyId, from, to } = filter;
  if (from !== undefined || to !== undefined) return undefined;
  const given = [statusClass, status, method, route, keyId].filter((value) => value !== undefined);
  if (given.length === 0) return { list: LIST, keys: { except: [] } };
  if (given.length > 1) return undefined;
  if (statusClass !== undefined) return { list: LIST, keys: { only: statusClass } };
  if (status !== undefined) return { list: FILTER_LISTS.status, keys: { only: String(status) } };
  if (method !== undefined) return { list: FILTER_LISTS.method, keys: { only: method } };
  if (route !== undefined) return { list: FILTER_LISTS.route, keys: { only: route } };
  return { list: FILTER_LISTS.keyId, keys: { only: keyId as string } };
}

export async function listLogs(db: Db, tenantId: string, filter: RequestLogFilter, window: PageWindow) {
  const rows = await filtered(db, tenantId, filter).selectAll().$call(newestFirst(window)).execute();
  const kept = keptCount(filter);
  if (kept !== undefined) return { rows, total: await countList(db, tenantId, kept.list, kept.keys) };
  const { n } = await filtered(db, tenantId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}

export async function findLog(
  db: Db,
  tenantId: string,
  id: string,
): Promise<Selectable<RequestLogsTable> | undefined> {
  return db
    .selectFrom('request_logs')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .orderBy('created', 'desc')
    .limit(1)
    .executeTakeFirst();
}
