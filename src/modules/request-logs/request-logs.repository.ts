import { countList } from '../../db/list-counts.js';
import type { Db, Store } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';
import { newestFirst } from '../../db/pagination.js';
import type { Selectable } from 'kysely';
import type { RequestLogsTable } from './request-logs.tables.js';

/**
 * Plain queries of the request log. The kept counts' list is `request_logs`, keyed by status class.
 * Its rows are written by its own thread (request-logs.thread.ts), with the driver's statements.
 */

const LIST = 'request_logs';

/** Deltas of the kept counts, one per tenant and status class of `rows`. */
function countDeltas(rows: readonly { tenant_id: string; status_class: string }[], sign: 1 | -1) {
  const sums = new Map<string, { tenant_id: string; list: string; key: string; delta: number }>();
  for (const row of rows) {
    const id = `${row.tenant_id}\u0000${row.status_class}`;
    const sum = sums.get(id);
    if (sum) sum.delta += sign;
    else sums.set(id, { tenant_id: row.tenant_id, list: LIST, key: row.status_class, delta: sign });
  }
  return [...sums.values()];
}

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
      .returning(['tenant_id', 'status_class'])
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
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.method !== undefined) query = query.where('method', '=', filter.method);
  if (filter.route !== undefined) query = query.where('route', '=', filter.route);
  if (filter.keyId !== undefined) query = query.where('key_id', '=', filter.keyId);
  if (filter.from !== undefined) query = query.where('created', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('created', '<=', filter.to);
  return query;
}

export async function listLogs(db: Db, tenantId: string, filter: RequestLogFilter, window: PageWindow) {
  const rows = await filtered(db, tenantId, filter).selectAll().$call(newestFirst(window)).execute();
  // The kept counts answer for the whole log and a status class; other filters count their rows.
  const onlyClass =
    filter.status === undefined &&
    filter.method === undefined &&
    filter.route === undefined &&
    filter.keyId === undefined &&
    filter.from === undefined &&
    filter.to === undefined;
  if (onlyClass) {
    const keys = filter.statusClass === undefined ? { except: [] } : { only: filter.statusClass };
    return { rows, total: await countList(db, tenantId, LIST, keys) };
  }
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
