/**
 * The console's account routes under `/console/api` (sign-up, login, logout and the session): not
 * part of the public API (nor of its OpenAPI document), so plain `fetch`, with the session's CSRF
 * token and the public client's errors. A 401 from logout means the session had already ended;
 * from the others it is the answer itself (nobody is logged in, or the login was refused).
 */

import type { Account, SignupResult } from '../types.js';
import { currentCsrfToken, sessionEnded } from './client.js';
import { networkError, problemError } from './errors.js';

const BASE = '/console/api';

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-csrf-token': currentCsrfToken() };
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
    throw networkError();
  }
  if (!response.ok) {
    const error = await problemError(response);
    if (response.status === 401 && path === '/logout') sessionEnded();
    throw error;
  }
  if (response.status === 204) return undefined as T;
  return (await response.json().catch(() => null)) as T;
}

export interface SignupInput {
  store_name: string;
  owner_name?: string;
  email: string;
  password: string;
  /** The store's currency (ISO 4217); USD when left out. */
  currency?: string;
}

export const account = {
  /** Who is logged in (a 401: nobody). */
  session: () => call<Account>('GET', '/session'),
  login: (email: string, password: string) => call<Account>('POST', '/login', { email, password }),
  signup: (input: SignupInput) => call<SignupResult>('POST', '/signup', input),
  logout: () => call<void>('POST', '/logout', {}),
};
