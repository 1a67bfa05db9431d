/**
 * The request log's kept counts (src/db/list-counts.ts): the whole log by status class (list
 * `request_logs`), and each filter alone by its value (`request_logs:status`, `:method`, `:route`
 * and `:key`), so the `total` of the whole log, or of one filter, costs the same at any size. The
 * log's thread adds them in the transaction that writes the rows, retention takes them away in the
 * one that deletes the rows, and migration 0065 counted the rows written before. Imported by the
 * thread, so it imports only what imports nothing.
 */

import { type CountDelta, deltaSums } from '../../db/count-deltas.js';

export type { CountDelta };

/** The whole log's list, keyed by status class (`2xx`). */
export const LIST = 'request_logs';

/** Each filter's list, keyed by its value: what a page filtered by it alone counts. */
export const FILTER_LISTS = {
  status: 'request_logs:status',
  method: 'request_logs:method',
  route: 'request_logs:route',
  keyId: 'request_logs:key',
} as const;

/** Whether a kept count's list is the request log's (a test-mode reset keeps the log, and so these). */
export const isRequestLogList = (list: string): boolean => list === LIST || list.startsWith(`${LIST}:`);

/** What of a row the counts are kept by. */
export interface CountedRow {
  tenant_id: string;
  status_class: string;
  status: number;
  method: string;
  route: string;
  key_id: string | null;
}

/** The deltas of `rows` come (`sign` 1) or gone (-1): one per tenant, list and key. */
export function countDeltas(rows: Iterable<CountedRow>, sign: 1 | -1): CountDelta[] {
  const sums = deltaSums();
  for (const row of rows) {
    sums.add(row.tenant_id, LIST, row.status_class, sign);
    sums.add(row.tenant_id, FILTER_LISTS.status, String(row.status), sign);
    sums.add(row.tenant_id, FILTER_LISTS.method, row.method, sign);
    sums.add(row.tenant_id, FILTER_LISTS.route, row.route, sign);
    if (row.key_id !== null) sums.add(row.tenant_id, FILTER_LISTS.keyId, row.key_id, sign);
  }
  return sums.deltas();
}
