import type { Generated } from 'kysely';

/**
 * The request log's table (its type; migration 0051). The manifest adds it to the store's
 * `Database` (src/db/schema.ts).
 */

/** One API request of a tenant, kept `REQUEST_LOG_DAYS` (30 by default). */
export interface RequestLogsTable {
  /** The row's own number (retention deletes by it). */
  seq: Generated<number>;
  tenant_id: string;
  /** The request's `X-Request-Id`. */
  id: string;
  created: number;
  method: string;
  path: string;
  /** The route's pattern (`/v1/products/:id`); the path when no route matched. */
  route: string;
  status: number;
  /** `2xx`, `4xx`, `5xx`, ...: the kept counts' key. */
  status_class: string;
  duration_ms: number;
  key_id: string | null;
  key_name: string | null;
  key_type: string | null;
  /** The app's name, for an installation token. */
  app: string | null;
  ip: string | null;
  user_agent: string | null;
  api_version: string | null;
  idempotency_key: string | null;
  error_code: string | null;
  /** Up to 8 KiB, secrets redacted; null for none. */
  request_body: string | null;
  response_body: string | null;
}
