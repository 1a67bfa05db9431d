/**
 * Domain errors and the one table that gives each stable code its HTTP status and title. Services
 * throw `AppError`; the error handler renders RFC 9457 problem details from it (src/http/problem.ts).
 */

export const ERROR_STATUS = {
  invalid_json: 400,
  validation_failed: 400,
  invalid_version: 400,
  invalid_idempotency_key: 400,
  authentication_required: 401,
  invalid_api_key: 401,
  api_key_expired: 401,
  invalid_credentials: 401,
  invalid_customer_token: 401,
  insufficient_permissions: 403,
  publishable_key_not_allowed: 403,
  origin_not_allowed: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  idempotency_key_in_use: 409,
  invalid_state_transition: 409,
  duplicate_sku: 409,
  handle_taken: 409,
  duplicate_email: 409,
  customer_has_orders: 409,
  duplicate_code: 409,
  duplicate_tax_rate: 409,
  shipping_rate_overlap: 409,
  cart_not_open: 409,
  cart_changed: 409,
  holds_disabled: 409,
  too_many_holds: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  insufficient_stock: 422,
  insufficient_funds: 422,
  currency_mismatch: 422,
  invalid_destination: 422,
  payment_failed: 422,
  invalid_webhook_url: 422,
  limit_exceeded: 422,
  amount_exceeds_refundable: 422,
  discount_invalid: 422,
  shipping_unavailable: 422,
  cart_not_ready: 422,
  invalid_import: 422,
  invalid_reset_token: 422,
  rate_limited: 429,
  quota_exceeded: 429,
  request_header_fields_too_large: 431,
  internal_error: 500,
  ai_provider_error: 502,
  service_unavailable: 503,
  ai_provider_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_TITLES: Record<ErrorCode, string> = {
  invalid_json: 'Malformed JSON',
  validation_failed: 'Validation failed',
  invalid_version: 'Invalid API version',
  invalid_idempotency_key: 'Invalid idempotency key',
  authentication_required: 'Authentication required',
  invalid_api_key: 'Invalid API key',
  api_key_expired: 'API key expired',
  invalid_credentials: 'Invalid credentials',
  invalid_customer_token: 'Invalid customer token',
  insufficient_permissions: 'Insufficient permissions',
  publishable_key_not_allowed: 'Publishable key not allowed',
  origin_not_allowed: 'Origin not allowed',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  request_timeout: 'Request timeout',
  idempotency_key_in_use: 'Idempotency key in use',
  invalid_state_transition: 'Invalid state transition',
  duplicate_sku: 'Duplicate SKU',
  handle_taken: 'Handle taken',
  duplicate_email: 'Duplicate email',
  customer_has_orders: 'Customer has orders',
  duplicate_code: 'Duplicate discount code',
  duplicate_tax_rate: 'Duplicate tax rate',
  shipping_rate_overlap: 'Overlapping shipping rate',
  cart_not_open: 'Cart not open',
  cart_changed: 'Cart changed',
  holds_disabled: 'Stock holds disabled',
  too_many_holds: 'Too many holds',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  idempotency_key_reused: 'Idempotency key reused',
  insufficient_stock: 'Insufficient stock',
  insufficient_funds: 'Insufficient funds',
  currency_mismatch: 'Currency mismatch',
  invalid_destination: 'Invalid destination',
  payment_failed: 'Payment failed',
  invalid_webhook_url: 'Invalid webhook URL',
  limit_exceeded: 'Limit exceeded',
  amount_exceeds_refundable: 'Amount exceeds refundable',
  discount_invalid: 'Discount invalid',
  shipping_unavailable: 'Shipping unavailable',
  cart_not_ready: 'Cart not ready',
  invalid_import: 'Invalid import file',
  invalid_reset_token: 'Invalid reset token',
  rate_limited: 'Rate limit exceeded',
  quota_exceeded: 'Monthly quota exceeded',
  request_header_fields_too_large: 'Request header fields too large',
  internal_error: 'Internal server error',
  ai_provider_error: 'AI provider error',
  service_unavailable: 'Service unavailable',
  ai_provider_timeout: 'AI provider timeout',
};

export interface FieldError {
  field: string;
  message: string;
}

/** Extra problem members (e.g. `required_permission`) and response headers. */
export interface AppErrorOptions {
  errors?: FieldError[];
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export class AppError extends Error {
  readonly status: number;
  readonly errors: FieldError[] | undefined;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    options: AppErrorOptions = {},
  ) {
    super(detail);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
    this.errors = options.errors;
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

export function notFound(what: string): AppError {
  return new AppError('not_found', `No such ${what}.`);
}

/** The most failing fields a validation problem lists in `errors`. */
export const MAX_FIELD_ERRORS = 50;
/** How many of them its `detail` names. */
const DETAIL_FIELDS = 3;

/**
 * A 400 that lists the failing fields, at most `MAX_FIELD_ERRORS`. When the list stops short of
 * every failing field (it was longer, or `truncated`: validation stopped early), the problem says
 * so with `errors_truncated: true`.
 */
export function validationFailed(errors: FieldError[], options: { truncated?: boolean } = {}): AppError {
  const truncated = options.truncated === true || errors.length > MAX_FIELD_ERRORS;
  const listed = errors.slice(0, MAX_FIELD_ERRORS);
  const named = listed
    .slice(0, DETAIL_FIELDS)
    .map((e) => `${e.field} ${e.message}`)
    .join('; ');
  const rest = listed.length - DETAIL_FIELDS;
  const more = truncated ? '; and more' : rest > 0 ? `; and ${rest} more (see errors)` : '';
  return new AppError('validation_failed', `The request is invalid: ${named}${more}.`, {
    errors: listed,
    ...(truncated ? { extra: { errors_truncated: true } } : {}),
  });
}

export function validationError(field: string, message: string): AppError {
  return new AppError('validation_failed', `${field} ${message}`, { errors: [{ field, message }] });
}
