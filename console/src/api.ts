/**
 * The console's HTTP client. `account` calls the console's account routes (sign-up, login,
 * logout, the session); `api` calls the public API under `/v1`, as any client does, with the
 * session standing in for a key. Every call carries the session cookie (same origin) and the
 * session's CSRF token: without the token the API does not take the cookie. `/v1` calls also
 * carry the version the console was built for, so a store pinned to an older version still gets
 * the shapes this code reads, and each POST an `Idempotency-Key` (see `idempotencyKeyFor`). A 401
 * anywhere but the login form means the session ended: the app goes back to the login page.
 * Besides JSON, `api.upload` sends a file as the body (an import) and `api.download` reads the
 * answer as a file (an export): the same credentials, headers and errors.
 */

import { humanize } from './format.js';
import { CONSOLE_API_VERSION } from './version.js';

const ACCOUNT_BASE = '/console/api';
const API_BASE = '/v1';

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

let csrfToken = '';
let onUnauthorized: () => void = () => undefined;

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * Where the client says what the user did: a `change` event after each write to `/v1` (a POST,
 * PATCH or DELETE) that succeeded. Pages that poll refresh at their full rate again (hooks.ts).
 */
export const apiEvents = new EventTarget();

/**
 * The `Idempotency-Key` of a POST: one per submission, the same for its retries. A POST of the
 * same body to the same path in the same version after an answer that settled nothing (no answer,
 * a 5xx, a 409 while the first attempt still runs) is that submission's retry and reuses its key,
 * so the API applies it at most once; any other answer settles the submission, and the next one
 * gets a new key.
 */
const unsettled = new Map<string, string>();

function idempotencyKeyFor(submission: string): string {
  let key = unsettled.get(submission);
  if (key === undefined) {
    key = crypto.randomUUID();
    unsettled.set(submission, key);
  }
  return key;
}

function settles(status: number): boolean {
  return status !== 0 && status !== 409 && status < 500;
}

interface RequestOptions {
  /** `X-Service-Version` of a `/v1` call, when it must not be the console's own (`CONSOLE_API_VERSION`). */
  version?: string | undefined;
  /** The `Content-Type` of a file body (a Blob is sent as it is, not as JSON). */
  contentType?: string | undefined;
  /** 'file': the answer is a file to save (read as a Blob), not JSON. */
  as?: 'json' | 'file';
}

/** A file the API answered (an export), with the name its `Content-Disposition` gives. */
export interface DownloadedFile {
  blob: Blob;
  filename: string;
}

/** The file name of a `Content-Disposition: attachment; filename="..."`, else `fallback`. */
function filenameOf(disposition: string | null, fallback: string): string {
  const name = disposition === null ? undefined : /filename="?([^";]+)"?/i.exec(disposition)?.[1];
  return name?.trim() || fallback;
}

/**
 * What a file body stands for in its submission (the same file picked again is the same
 * submission): its name, size and modification time, never its bytes.
 */
function fileIdentity(file: Blob): string {
  return file instanceof File ? `file ${file.name} ${file.size} ${file.lastModified}` : `blob ${file.size}`;
}

async function request<T>(
  base: string,
  method: Method,
  path: string,
  body?: unknown,
  options: RequestOptions = {},
): Promise<T> {
  const headers: Record<string, string> = {
    accept: options.as === 'file' ? '*/*' : 'application/json',
    'x-csrf-token': csrfToken,
  };
  const file = body instanceof Blob ? body : undefined;
  const payload = body === undefined || file !== undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) headers['content-type'] = 'application/json';
  if (file !== undefined) headers['content-type'] = options.contentType ?? file.type;
  const version = base === API_BASE ? (options.version ?? CONSOLE_API_VERSION) : undefined;
  // The version is part of what was asked (the server's fingerprint of a key leaves it out): the
  // same body in another version is another submission, with a key of its own.
  const submission = `${method} ${base}${path} ${version ?? ''}\n${file ? fileIdentity(file) : (payload ?? '')}`;
  if (version !== undefined) {
    headers['x-service-version'] = version;
    if (method === 'POST') headers['idempotency-key'] = idempotencyKeyFor(submission);
  }
  let response: Response;
  try {
    response = await fetch(base + path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(file !== undefined ? { body: file } : payload === undefined ? {} : { body: payload }),
    });
  } catch {
    throw new ApiError(
      0,
      'network_error',
      'The server could not be reached. Check your connection and retry.',
    );
  }
  if (settles(response.status)) unsettled.delete(submission);
  if (base === API_BASE && method !== 'GET' && response.ok) apiEvents.dispatchEvent(new Event('change'));
  if (response.status === 204) return undefined as T;
  if (options.as === 'file' && response.ok) {
    const fallback = path.split('?')[0]?.split('/').pop() ?? 'download';
    let blob: Blob;
    try {
      blob = await response.blob();
    } catch {
      throw new ApiError(0, 'network_error', 'The download was cut off. Check your connection and retry.');
    }
    const downloaded: DownloadedFile = {
      blob,
      filename: filenameOf(response.headers.get('content-disposition'), fallback),
    };
    return downloaded as T;
  }
  const data: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const problem = (data ?? {}) as {
      code?: string;
      detail?: string;
      errors?: FieldError[];
      request_id?: string;
    };
    const wait = response.status === 429 ? retryAfterSeconds(response.headers.get('retry-after')) : undefined;
    const error = new ApiError(
      response.status,
      problem.code ?? 'error',
      problem.detail ?? fallbackDetail(response),
      problem.errors ?? [],
      problem.request_id ?? response.headers.get('x-request-id') ?? undefined,
      wait === undefined ? undefined : wait * 1000,
    );
    const asking = base === ACCOUNT_BASE && ['/login', '/session', '/signup'].includes(path);
    if (response.status === 401 && !asking) onUnauthorized();
    throw error;
  }
  return data as T;
}

/** The public API under `/v1`, with the session. */
export const api = {
  get: <T>(path: string, options?: RequestOptions) => request<T>(API_BASE, 'GET', path, undefined, options),
  post: <T>(path: string, body: unknown = {}, options?: RequestOptions) =>
    request<T>(API_BASE, 'POST', path, body, options),
  patch: <T>(path: string, body: unknown) => request<T>(API_BASE, 'PATCH', path, body),
  delete: <T = void>(path: string) => request<T>(API_BASE, 'DELETE', path),
  /** POSTs `file` as the body, as it is (an import's CSV or JSON Lines), with `contentType`. */
  upload: <T>(path: string, file: Blob, contentType: string) =>
    request<T>(API_BASE, 'POST', path, file, { contentType }),
  /** GETs a file (an export) through the session, for the page to save. */
  download: (path: string) => request<DownloadedFile>(API_BASE, 'GET', path, undefined, { as: 'file' }),
};

/** The console's account routes: sign-up, login, logout and the session. */
export const accountApi = {
  get: <T>(path: string) => request<T>(ACCOUNT_BASE, 'GET', path),
  post: <T>(path: string, body: unknown = {}) => request<T>(ACCOUNT_BASE, 'POST', path, body),
};

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
  if (error === undefined) return { fields: {}, form: undefined };
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
