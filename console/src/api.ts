/**
 * The console backend client. Every call carries the session cookie (same origin); every
 * state-changing call also carries the session's CSRF token. A 401 anywhere but the login form
 * means the session ended: the app goes back to the login page.
 */

const BASE = '/console/api';

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
  ) {
    super(detail);
    this.name = 'ApiError';
  }
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

export async function request<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(BASE + path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(
      0,
      'network_error',
      'The server could not be reached. Check your connection and retry.',
    );
  }
  if (response.status === 204) return undefined as T;
  const data: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const problem = (data ?? {}) as { code?: string; detail?: string; errors?: FieldError[] };
    const error = new ApiError(
      response.status,
      problem.code ?? 'error',
      problem.detail ?? `The request failed (${response.status}).`,
      problem.errors ?? [],
    );
    if (response.status === 401 && !['/login', '/session', '/signup'].includes(path)) onUnauthorized();
    throw error;
  }
  return data as T;
}

export const api = {
  get: <T>(path: string) => request<T>('GET', path),
  post: <T>(path: string, body: unknown = {}) => request<T>('POST', path, body),
  patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, body),
  delete: <T = void>(path: string) => request<T>('DELETE', path),
};

/** A message for a failed call, with the failing fields when the server listed them. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.errors.length > 0) return error.errors.map((e) => `${e.field} ${e.message}`).join('; ');
    return error.detail;
  }
  return error instanceof Error ? error.message : String(error);
}
