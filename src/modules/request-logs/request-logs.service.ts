import type { Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import { notFound, validationError } from '../../lib/errors.js';
import { type Envelope, newestFirstEnvelope, type PageQuery, pageWindow } from '../../lib/paging.js';
import * as repo from './request-logs.repository.js';
import type { Selectable } from 'kysely';
import type { RequestLogsTable } from './request-logs.tables.js';

/** Reading the request log, and its retention. */

export interface RequestLogEntry {
  id: string;
  time: string;
  method: string;
  path: string;
  route: string;
  status: number;
  duration_ms: number;
  key: { id: string; name: string; type: string } | null;
  app: string | null;
  ip: string | null;
  user_agent: string | null;
  api_version: string | null;
  idempotency_key: string | null;
  error_code: string | null;
  request_body: string | null;
  response_body: string | null;
}

export type RequestLogQuery = PageQuery & {
  status?: string | undefined;
  method?: string | undefined;
  route?: string | undefined;
  key_id?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
};

export interface RequestLogs {
  list(tenantId: string, query: RequestLogQuery): Promise<Envelope<RequestLogEntry>>;
  get(tenantId: string, requestId: string): Promise<RequestLogEntry>;
  /** Deletes what is older than the kept days; answers how many requests it deleted. */
  prune(): Promise<number>;
}

const DAY_MS = 86_400_000;
const PRUNE_BATCH = 5_000;

export function presentLog(row: Selectable<RequestLogsTable>): RequestLogEntry {
  return {
    id: row.id,
    time: iso(Number(row.created)),
    method: row.method,
    path: row.path,
    route: row.route,
    status: Number(row.status),
    duration_ms: Number(row.duration_ms),
    key:
      row.key_id === null
        ? null
        : { id: row.key_id, name: row.key_name ?? '', type: row.key_type ?? 'secret' },
    app: row.app,
    ip: row.ip,
    user_agent: row.user_agent,
    api_version: row.api_version,
    idempotency_key: row.idempotency_key,
    error_code: row.error_code,
    request_body: row.request_body,
    response_body: row.response_body,
  };
}

function timeOf(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw validationError(field, 'must be an ISO 8601 date-time');
  return time;
}

export function createRequestLogs(deps: { store: Store; clock: Clock; days: number }): RequestLogs {
  const { store, clock } = deps;
  return {
    async list(tenantId, query) {
      const from = timeOf(query.from, 'from');
      const to = timeOf(query.to, 'to');
      if (from !== undefined && to !== undefined && from > to)
        throw validationError('from', 'must not be after to');
      const status = query.status;
      const filter: repo.RequestLogFilter = {
        method: query.method?.toUpperCase(),
        route: query.route,
        keyId: query.key_id,
        from,
        to,
      };
      if (status !== undefined) {
        if (/^[1-5]xx$/.test(status)) filter.statusClass = status;
        else if (/^[1-5]\d\d$/.test(status)) filter.status = Number(status);
        else throw validationError('status', 'must be 2xx, 4xx, 5xx (any class) or a status such as 404');
      }
      const window = pageWindow(query, 'created');
      const { rows, total } = await repo.listLogs(store.db, tenantId, filter, window);
      return newestFirstEnvelope(rows, total, window, presentLog);
    },

    async get(tenantId, requestId) {
      const row = await repo.findLog(store.db, tenantId, requestId);
      if (!row) throw notFound('request in the log (kept REQUEST_LOG_DAYS)');
      return presentLog(row);
    },

    async prune() {
      const cutoff = clock.now() - deps.days * DAY_MS;
      let deleted = 0;
      for (;;) {
        const n = await repo.deleteOlderThan(store, cutoff, PRUNE_BATCH);
        deleted += n;
        if (n < PRUNE_BATCH) return deleted;
      }
    },
  };
}
