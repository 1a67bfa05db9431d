/**
 * Domain errors and their stable codes, each with its HTTP status and title. Services throw
 * `AppError`; the error handler renders RFC 9457 problem details from it (src/http/problem.ts).
 *
 * The codes the house shares (the request gate, validation, idempotency, stock, payments, ...)
 * are in the two tables below. A code only one module answers is that module's: its manifest
 * declares it (`problems`: status, title and the example the API reference shows) and names it in
 * `ProblemCodeNames` by declaration merging, as it names its event types, so `AppError` takes it
 * wherever the module is part of the program:
 *
 *     export const CART_PROBLEMS = {
 *       cart_changed: { status: 409, title: 'Cart changed', example: { detail: '...' } },
 *     } satisfies ProblemDeclarations;
 *     declare module '../../lib/errors.js' {
 *       interface ProblemCodeNames extends CodesOf<typeof CART_PROBLEMS> {}
 *     }
 *
 * The kernel hands every manifest's codes to `declareProblems` as it loads the modules; a code
 * declared twice fails the start.
 */

/** The shared codes' statuses, by status. */
export const ERROR_STATUS = {
  invalid_json: 400,
  validation_failed: 400,
  invalid_version: 400,
  invalid_idempotency_key: 400,
  authentication_required: 401,
  invalid_api_key: 401,
  api_key_expired: 401,
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
  rate_limited: 429,
  quota_exceeded: 429,
  request_header_fields_too_large: 431,
  internal_error: 500,
  ai_provider_error: 502,
  service_unavailable: 503,
  ai_provider_timeout: 504,
} as const;

/** A code the house shares (a module's own codes are declared in its manifest). */
export type SharedErrorCode = keyof typeof ERROR_STATUS;

/**
 * The modules' own codes, by name: each manifest adds its own by declaration merging
 * (`interface ProblemCodeNames extends CodesOf<typeof PROBLEMS> {}`).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the modules' manifests
export interface ProblemCodeNames {}

/** Every code a problem may have: the shared ones and every module's. */
export type ErrorCode = SharedErrorCode | Extract<keyof ProblemCodeNames, string>;

export const ERROR_TITLES: Record<SharedErrorCode, string> = {
  invalid_json: 'Malformed JSON',
  validation_failed: 'Validation failed',
  invalid_version: 'Invalid API version',
  invalid_idempotency_key: 'Invalid idempotency key',
  authentication_required: 'Authentication required',
  invalid_api_key: 'Invalid API key',
  api_key_expired: 'API key expired',
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

/** What a problem's example shows: its detail and the members the server gives that code. */
export interface ProblemExample {
  detail: string;
  options?: AppErrorOptions;
}

/** A module's code, as its manifest declares it. */
export interface ProblemDeclaration {
  status: number;
  title: string;
  /** The example problem of the code in the API reference (the server renders it as any other). */
  example: ProblemExample;
}

export type ProblemDeclarations = Readonly<Record<string, ProblemDeclaration>>;

/** The codes of a module's declarations, as the keys of `ProblemCodeNames`. */
export type CodesOf<T extends ProblemDeclarations> = { [K in keyof T]: true };

/** The modules' codes, with the module that declared each. */
const declared = new Map<string, ProblemDeclaration & { module: string }>();

/**
 * Adds a module's codes (the kernel does, from each manifest it loads). Declaring a module's codes
 * again replaces them; a code the house or another module has fails, naming both.
 */
export function declareProblems(module: string, problems: ProblemDeclarations): void {
  for (const code of Object.keys(problems)) {
    const owner = code in ERROR_STATUS ? 'the shared codes (src/lib/errors.ts)' : declared.get(code)?.module;
    if (owner !== undefined && owner !== module) {
      throw new Error(`problem code ${code} is declared twice: by module ${module} and by ${owner}`);
    }
  }
  for (const [code, declaration] of declared) if (declaration.module === module) declared.delete(code);
  for (const [code, declaration] of Object.entries(problems)) declared.set(code, { ...declaration, module });
}

function isShared(code: string): code is SharedErrorCode {
  return code in ERROR_STATUS;
}

function declaredProblem(code: string): ProblemDeclaration {
  const declaration = declared.get(code);
  if (declaration === undefined) throw new Error(`problem code ${code} is declared by no module loaded`);
  return declaration;
}

/** The code's HTTP status. */
export function problemStatus(code: ErrorCode): number {
  return isShared(code) ? ERROR_STATUS[code] : declaredProblem(code).status;
}

/** The code's title: the problem's `title`, the same for every problem of the code. */
export function problemTitle(code: ErrorCode): string {
  return isShared(code) ? ERROR_TITLES[code] : declaredProblem(code).title;
}

/** The example a module declared for its code; undefined for a shared code (the API reference has those). */
export function problemExampleOf(code: ErrorCode): ProblemExample | undefined {
  return isShared(code) ? undefined : declaredProblem(code).example;
}

/**
 * Every code, by status; within a status, the shared codes in their table's order, then each
 * module's in the order it declares them, the modules by name (the order of the API reference's
 * lists of codes, which a module's `position` among the others does not move).
 */
export function problemCodes(): ErrorCode[] {
  const modules = [...declared.entries()].sort(([, a], [, b]) =>
    a.module < b.module ? -1 : a.module > b.module ? 1 : 0,
  );
  const codes = [...Object.keys(ERROR_STATUS), ...modules.map(([code]) => code)] as ErrorCode[];
  return codes
    .map((code, index) => ({ code, index, status: problemStatus(code) }))
    .sort((a, b) => a.status - b.status || a.index - b.index)
    .map(({ code }) => code);
}

export class AppError extends Error {
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
    this.errors = options.errors;
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }

  /** The code's HTTP status (a module's code is known once the modules are loaded). */
  get status(): number {
    return problemStatus(this.code);
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
