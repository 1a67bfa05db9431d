import { apiOrigin } from './base-url.js';
import { API_VERSION } from './generated/operations.js';
import type { TlsOptions } from './transport.js';

export interface ClientOptions {
  /** An API key (`sk_live_...`); default: the `COMMERCE_API_KEY` environment variable. */
  apiKey?: string;
  /** The server's origin (`https://api.example.com`); default: `COMMERCE_API_URL`, else https://127.0.0.1:8443. */
  baseUrl?: string;
  /** The dated API version sent as `X-Service-Version`; default: the one the client was generated for. */
  version?: string;
  /** Retries after a network error, timeout, 409 idempotency_key_in_use, 429 or 5xx; default 2. */
  maxRetries?: number;
  /** Each attempt's time limit in milliseconds, the answer's body included; default 60000. */
  timeoutMs?: number;
  /** TLS settings, e.g. `{ ca: fs.readFileSync('data/tls/cert.pem') }` for a development server. */
  tls?: TlsOptions;
}

export interface ResolvedOptions {
  apiKey: string;
  baseUrl: string;
  version: string;
  maxRetries: number;
  timeoutMs: number;
  tls: TlsOptions;
}

export const DEFAULT_BASE_URL = 'https://127.0.0.1:8443';

/** The options with their defaults and environment variables filled in; throws without an API key. */
export function resolveOptions(
  options: ClientOptions,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedOptions {
  const apiKey = options.apiKey ?? env.COMMERCE_API_KEY;
  if (apiKey === undefined || apiKey === '') {
    throw new Error('No API key: pass { apiKey } or set COMMERCE_API_KEY');
  }
  const baseUrl = apiOrigin(options.baseUrl ?? env.COMMERCE_API_URL ?? DEFAULT_BASE_URL);
  const maxRetries = options.maxRetries ?? 2;
  const timeoutMs = options.timeoutMs ?? 60_000;
  if (!Number.isInteger(maxRetries) || maxRetries < 0)
    throw new RangeError('maxRetries must be an integer >= 0');
  if (!(timeoutMs > 0)) throw new RangeError('timeoutMs must be positive');
  return {
    apiKey,
    baseUrl,
    version: options.version ?? API_VERSION,
    maxRetries,
    timeoutMs,
    tls: options.tls ?? {},
  };
}
