import { defineModule } from '../../kernel/module.js';
import * as requestLogs from './migrations/0051_request_logs.js';
import * as requestLogFilters from './migrations/0058_request_log_filters.js';
import * as filterCounts from './migrations/0065_request_log_filter_counts.js';
import * as statusIndex from './migrations/0067_request_log_status_index.js';
import { requestLogRoutes } from './request-logs.routes.js';
import { RequestLogListSchema, RequestLogSchema } from './request-logs.schemas.js';
import { createRequestLogs, type RequestLogs } from './request-logs.service.js';
import type { RequestLogsTable } from './request-logs.tables.js';
import { createRequestLogWriter, type RequestLogWriter } from './request-logs.writer.js';

/**
 * The request log: every `/v1` request of a store (method, route, status, duration, key, app,
 * address, version, idempotency key, error code, and both bodies up to 8 KiB with secrets
 * redacted), captured by two hooks and written in batches off the answer's path
 * (request-logs.writer.ts), kept `REQUEST_LOG_DAYS` by a job, read at `GET /request-logs`.
 */

const PRUNE_EVERY_MS = 10 * 60_000;

declare module '../../db/schema.js' {
  interface Database {
    request_logs: RequestLogsTable;
  }
}
declare module '../../kernel/module.js' {
  interface Services {
    /** Reads the request log and enforces its retention. */
    requestLogs: RequestLogs;
    /** Captures each request and writes the log in batches. */
    requestLogWriter: RequestLogWriter;
  }
  interface Overrides {
    /**
     * false: requests are not logged; `unwritten`: captured and handed to the log's thread, which
     * makes their rows and drops them; `unbodied`: written with both bodies made and left out (the
     * benchmark of the log's cost, and of its parts).
     */
    requestLog?: boolean | 'unwritten' | 'unbodied';
  }
}

export default defineModule({
  name: 'request-logs',
  position: 93,
  operationIds: {
    'GET /v1/request-logs': 'listRequestLogs',
    'GET /v1/request-logs/:request_id': 'getRequestLog',
  },
  components: () => ({ RequestLog: RequestLogSchema, RequestLogList: RequestLogListSchema }),
  migrations: {
    '0051_request_logs': requestLogs,
    '0058_request_log_filters': requestLogFilters,
    '0065_request_log_filter_counts': filterCounts,
    '0067_request_log_status_index': statusIndex,
  },
  services: (deps) => ({
    requestLogs: createRequestLogs({ ...deps, days: deps.config.requestLogDays }),
    requestLogWriter: createRequestLogWriter({
      ...deps,
      enabled: deps.overrides.requestLog !== false,
      unwritten: deps.overrides.requestLog === 'unwritten',
      unbodied: deps.overrides.requestLog === 'unbodied',
    }),
  }),
  hooks: ({ requestLogWriter }, app) => requestLogWriter.install(app),
  routes: [{ plugin: requestLogRoutes }],
  start: ({ requestLogs, requestLogWriter }, every) => {
    requestLogWriter.start();
    every(PRUNE_EVERY_MS, () => requestLogs.prune(), 'request log retention failed', { atStart: true });
  },
  stop: ({ requestLogWriter }) => requestLogWriter.stop(),
});
