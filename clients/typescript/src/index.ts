export { CommerceClient, USER_AGENT } from './client.js';
export { CommerceApiError, CommerceConnectionError, type FieldError, unwrap } from './errors.js';
export { API_RELEASE, API_VERSION, type ApiOperationId, OPERATIONS } from './generated/operations.js';
export type { components, operations, paths, webhooks } from './generated/schema.js';
export type { ClientOptions } from './options.js';
export type { OperationSpec } from './operation-spec.js';
export { PagedList } from './pagination.js';
export type { RequestOptions } from './request-options.js';
export {
  StorefrontClient,
  type StorefrontClientOptions,
  type StorefrontFetch,
  type StoreOperations,
} from './storefront.js';
export { backoffMs, MAX_RETRY_AFTER_MS, retryAfterMs } from './retry-policy.js';
export type { TlsOptions } from './transport.js';
export type { Body, ItemOf, ListPage, PageOf, Problem, ProblemCode, Query, Result } from './types.js';
export {
  verifyWebhook,
  type WebhookEvent,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhooks.js';
