/**
 * The console's client of the public API: `openapi-fetch` typed by the TypeScript client's
 * generated `paths`, so every path, parameter, body and answer the console uses is the OpenAPI
 * document's. The session stands in for a key: every call carries the session cookie (same
 * origin) and the session's CSRF token, without which the API does not take the cookie. Every
 * call also carries the version the console reads (`X-Service-Version`, unless the call names
 * another), so a store pinned to an older version still gets the shapes of the generated types,
 * and each POST an `Idempotency-Key` (see `idempotencyKeyFor`). An answer that is not a success
 * is thrown as an `ApiError` (from its problem+json body); a 401 means the session ended and the
 * app goes back to the login page. Besides JSON, `uploadFile` sends a file as the body (an import)
 * and `downloadFile` reads the answer as a file (an export): the same credentials, headers and
 * errors.
 */

import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '../../../clients/typescript/src/generated/schema.js';
import { consoleMode } from '../mode.js';
import { CONSOLE_API_VERSION } from '../version.js';
import { ApiError, networkError, problemError } from './errors.js';

let csrfToken = '';
let onUnauthorized: () => void = () => undefined;

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** The session's CSRF token, for the account routes (account.ts). */
export function currentCsrfToken(): string {
  return csrfToken;
}

export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

/** The session ended on the server's side (a 401): the app goes to the login page. */
export function sessionEnded(): void {
  onUnauthorized();
}

/**
 * Where the client says what the user did: a `change` event after each write (a POST, PATCH or
 * DELETE) that succeeded. Pages that poll refresh at their full rate again (refresh.ts).
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

export function idempotencyKeyFor(submission: string): string {
  let key = unsettled.get(submission);
  if (key === undefined) {
    key = crypto.randomUUID();
    unsettled.set(submission, key);
  }
  return key;
}

function settle(key: string, status: number): void {
  if (status === 0 || status === 409 || status >= 500) return;
  for (const [submission, held] of unsettled) if (held === key) unsettled.delete(submission);
}

/** What a submission is: the call and its body, in its version (another version, another submission). */
export function submissionOf(method: string, url: string, version: string, body: string): string {
  return `${method} ${url} ${version}\n${body}`;
}

const session: Middleware = {
  async onRequest({ request }) {
    request.headers.set('x-csrf-token', csrfToken);
    // The test-mode switch: the session acts on the store's test mode (mode.ts).
    if (consoleMode() === 'test') request.headers.set('x-console-mode', 'test');
    if (!request.headers.has('accept')) request.headers.set('accept', 'application/json');
    if (!request.headers.has('x-service-version')) {
      request.headers.set('x-service-version', CONSOLE_API_VERSION);
    }
    if (request.method === 'POST' && !request.headers.has('idempotency-key')) {
      // The version is part of what was asked (the server's fingerprint of a key leaves it out).
      const version = request.headers.get('x-service-version') ?? '';
      const body = await request.clone().text();
      request.headers.set(
        'idempotency-key',
        idempotencyKeyFor(submissionOf(request.method, request.url, version, body)),
      );
    }
    return request;
  },
  async onResponse({ request, response }) {
    const key = request.headers.get('idempotency-key');
    if (key !== null) settle(key, response.status);
    if (response.ok) {
      if (request.method !== 'GET') apiEvents.dispatchEvent(new Event('change'));
      return undefined;
    }
    const error = await problemError(response);
    if (response.status === 401) sessionEnded();
    throw error;
  },
  onError({ error }) {
    return error instanceof ApiError ? error : networkError();
  },
};

/** A client of the public API at `baseUrl` (the page's own origin when empty), with the session. */
export function createApiClient(baseUrl = '') {
  const client = createClient<paths>({
    baseUrl,
    credentials: 'same-origin',
    // Looked up at each call, not once: whatever `fetch` the page has then does the asking.
    fetch: (request) => globalThis.fetch(request),
  });
  client.use(session);
  return client;
}

/** The public API, with the session. */
export const api = createApiClient();

/**
 * The data of a call's answer. The middleware threw for every answer that is not a success, so
 * what is left is the success (its data undefined only for a 204).
 */
export async function dataOf<T>(call: Promise<{ data?: T; response: Response }>): Promise<T> {
  const { data } = await call;
  return data as T;
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

/** What a download's answer gives: the file, read whole, and the name to save it under. */
export async function downloadedFile(
  call: Promise<{ data?: Blob; response: Response }>,
  fallback: string,
): Promise<DownloadedFile> {
  let answer: { data?: Blob; response: Response };
  try {
    answer = await call;
  } catch (failure) {
    // Answered, then cut off while the body was read: not the failure of a call that had no answer.
    if (failure instanceof ApiError) throw failure;
    throw networkError('The download was cut off. Check your connection and retry.');
  }
  const { data, response } = answer;
  return {
    blob: data ?? new Blob([]),
    filename: filenameOf(response.headers.get('content-disposition'), fallback),
  };
}

/**
 * What a file body stands for in its submission (the same file picked again is the same
 * submission): its name, size and modification time, never its bytes.
 */
export function fileIdentity(file: Blob): string {
  return file instanceof File ? `file ${file.name} ${file.size} ${file.lastModified}` : `blob ${file.size}`;
}
