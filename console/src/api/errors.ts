/**
 * What a failed call becomes for the pages: an `ApiError` made from the answer's problem+json body
 * (RFC 9457: `code`, `detail`, the fields in `errors`, `request_id`) or, without one, from its
 * status; and how pages word it (describeError, formErrors).
 */

import { humanize } from '../format.js';

export interface FieldError {
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors: FieldError[] = [],
    /** The server's id of the request (its `request_id`, or the `X-Request-Id` header). */
    readonly requestId?: string,
    /** How long the server asked to wait before asking again (a 429's `Retry-After`), in ms. */
    readonly retryAfterMs?: number,
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

/** No answer at all (the server unreachable, the connection cut). */
export function networkError(
  detail = 'The server could not be reached. Check your connection and retry.',
): ApiError {
  return new ApiError(0, 'network_error', detail);
}

/** Whether the call was answered 404: what was asked for is not there (deleted meanwhile). */
export function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}

/** The request id to quote for a failure on the server's side (a 5xx); none for other failures. */
export function requestIdOf(error: unknown): string | undefined {
  return error instanceof ApiError && error.status >= 500 ? error.requestId : undefined;
}

/** The wait a Retry-After header asks for (seconds, or an HTTP date), in whole seconds, at least 1. */
function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  const until = /^\d+$/.test(value) ? Number(value) : Math.ceil((Date.parse(value) - Date.now()) / 1000);
  return Number.isFinite(until) ? Math.max(1, until) : undefined;
}

/** "30 seconds", "2 minutes", from a Retry-After header. */
function retryAfter(header: string | null): string | undefined {
  const seconds = retryAfterSeconds(header);
  if (seconds === undefined) return undefined;
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** What to say when the answer had no problem body of ours (a proxy's page, an empty body). */
function fallbackDetail(response: Response): string {
  if (response.status === 429) {
    const wait = retryAfter(response.headers.get('retry-after'));
    return wait ? `Too many requests. Retry in ${wait}.` : 'Too many requests. Retry in a moment.';
  }
  if (response.status >= 500) return `The server had a problem (${response.status}). Retry later.`;
  return `The request failed (${response.status}).`;
}

/** The error of an answer that is not a success, from its problem body when it has one. */
export async function problemError(response: Response): Promise<ApiError> {
  const data: unknown = await response.json().catch(() => null);
  const problem = (typeof data === 'object' && data !== null ? data : {}) as {
    code?: string;
    detail?: string;
    errors?: FieldError[];
    request_id?: string;
  };
  const wait = response.status === 429 ? retryAfterSeconds(response.headers.get('retry-after')) : undefined;
  return new ApiError(
    response.status,
    problem.code ?? 'error',
    problem.detail ?? fallbackDetail(response),
    problem.errors ?? [],
    problem.request_id ?? response.headers.get('x-request-id') ?? undefined,
    wait === undefined ? undefined : wait * 1000,
  );
}

/** The validator's wording of a rule ("must NOT have fewer than 1 characters") as a person's. */
function readable(message: string): string {
  const limit = /^must NOT have (fewer|more) than (\d+) (characters|items)$/.exec(message);
  if (limit) {
    const [, side, count, unit] = limit;
    if (side === 'fewer' && count === '1') {
      return unit === 'items' ? 'must list at least one' : 'can’t be empty';
    }
    const what = unit === 'items' ? (count === '1' ? 'item' : 'items') : 'characters';
    return `must be ${side === 'fewer' ? 'at least' : 'at most'} ${count} ${what}`;
  }
  if (message.startsWith('must NOT have duplicate items')) return 'must not list an item twice';
  return message;
}

/** "Name can’t be empty.": a field's error as a sentence, the field called by its label. */
function sentence(label: string, message: string): string {
  const text = `${label} ${readable(message)}`;
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** A message for a failed call, with the failing fields when the server listed them. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.errors.length > 0) {
      return error.errors.map((e) => sentence(humanize(e.field), e.message)).join(' ');
    }
    return error.detail;
  }
  return error instanceof Error ? error.message : String(error);
}

/** describeError, then the request id to quote when the server failed: for a toast (no copy button). */
export function describeFailure(error: unknown): string {
  const requestId = requestIdOf(error);
  return requestId === undefined ? describeError(error) : `${describeError(error)} Request ID: ${requestId}`;
}

/** Refusals that name no field in `errors` but are about one: the field, by the error's code. */
const FIELD_OF_CODE: Record<string, string> = { invalid_webhook_url: 'url' };

export interface FormErrors {
  /** The errors of fields the form shows, by field, to put under them. */
  fields: Record<string, string>;
  /** The rest, for the whole form: a message, or the failure itself (to describe, with its request id). */
  form: unknown;
}

/**
 * Why the server refused a form: the errors of the fields the form shows (`labels`, by field),
 * worded with the field's label, and the rest (errors of other fields, or a failure that names no
 * field) for the form as a whole.
 */
export function formErrors(error: unknown, labels: Readonly<Record<string, string>>): FormErrors {
  if (error === undefined || error === null) return { fields: {}, form: undefined };
  if (!(error instanceof ApiError)) return { fields: {}, form: error };
  const byCode = FIELD_OF_CODE[error.code];
  const label = byCode === undefined ? undefined : labels[byCode];
  if (byCode !== undefined && label !== undefined && error.errors.length === 0) {
    // "url must use https." says it of the field by its name in the API: say it with the label.
    const detail = error.detail.startsWith(`${byCode} `)
      ? error.detail.slice(byCode.length + 1)
      : error.detail;
    return { fields: { [byCode]: sentence(label, detail) }, form: undefined };
  }
  if (error.errors.length === 0) return { fields: {}, form: error };
  const fields: Record<string, string> = {};
  const others: string[] = [];
  for (const e of error.errors) {
    const shown = labels[e.field];
    if (shown !== undefined) fields[e.field] ??= sentence(shown, e.message);
    else others.push(sentence(humanize(e.field), e.message));
  }
  return { fields, form: others.length > 0 ? others.join(' ') : undefined };
}
