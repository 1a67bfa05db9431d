/**
 * The request-logs module's face: what other modules and the house may use of it. Anything not
 * here is the module's own (the lint's no-restricted-imports refuses an import of it).
 */
export type { RequestLogEntry, RequestLogs } from './request-logs.service.js';
export type { RequestLogWriter } from './request-logs.writer.js';
export { LIST as REQUEST_LOG_LIST } from './request-logs.counts.js';
