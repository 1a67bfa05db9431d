import type { components } from '../../../clients/typescript/src/generated/schema.js';
import type { Page } from '../types.js';
import { api, dataOf } from './client.js';
import { type Resource, useApiQuery } from './query.js';

/**
 * The audit and request logs, as the Logs page and each object's history read them (both need
 * `read:audit`, which a console session holds).
 */

export type AuditEntry = components['schemas']['AuditEntry'];
export type RequestLog = components['schemas']['RequestLog'];

type Refresh = { refreshMs?: number | undefined };

export const REQUEST_LOGS_PAGE = 25;
export const AUDIT_PAGE = 50;

/** The request log's filters, as the page's address holds them. */
export interface RequestLogFilters {
  status?: string;
  route?: string;
  key_id?: string;
}

export const logKeys = {
  requestList: (filters: RequestLogFilters) => ['request-logs', 'list', filters],
  request: (id: string) => ['request-logs', 'detail', id],
  audit: (filter: { resource_id?: string; request_id?: string }) => ['audit-log', 'list', filter],
} as const;

/** A page of the request log, newest first: the latest, or the one after `cursor`. */
export function requestLogsPage(filters: RequestLogFilters, cursor?: string): Promise<Page<RequestLog>> {
  return dataOf(
    api.GET('/v1/request-logs', {
      params: { query: { limit: REQUEST_LOGS_PAGE, ...filters, ...(cursor ? { cursor } : {}) } },
    }),
  );
}

export function useRequestLogs(
  filters: RequestLogFilters,
  options: Refresh = {},
): Resource<Page<RequestLog>> {
  return useApiQuery(
    { queryKey: logKeys.requestList(filters), queryFn: () => requestLogsPage(filters) },
    options,
  );
}

/** One request by its id (none while `id` is null). */
export function useRequestLog(id: string | null): Resource<RequestLog> {
  return useApiQuery(
    id === null
      ? null
      : {
          queryKey: logKeys.request(id),
          queryFn: () =>
            dataOf(api.GET('/v1/request-logs/{request_id}', { params: { path: { request_id: id } } })),
        },
  );
}

/** The newest audit entries of one object, or of one request. */
export function useAuditEntries(
  filter: { resource_id?: string; request_id?: string } | null,
  options: Refresh = {},
): Resource<Page<AuditEntry>> {
  return useApiQuery(
    filter === null
      ? null
      : {
          queryKey: logKeys.audit(filter),
          queryFn: () =>
            dataOf(api.GET('/v1/audit-log', { params: { query: { limit: AUDIT_PAGE, ...filter } } })),
        },
    options,
  );
}
