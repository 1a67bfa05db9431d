// Runs in a browser as in Node (src/storefront.ts sends with the global fetch): Web APIs only.
import { CommerceConnectionError } from './errors.js';
import { backoffMs, isRetryableStatus, waitAfterAnswer } from './retry-policy.js';

export interface SendInit {
  method: string;
  headers: Record<string, string>;
  body: Uint8Array<ArrayBuffer> | undefined;
  signal: AbortSignal;
}

/** One HTTP exchange, with no retry. */
export type Send = (url: string, init: SendInit) => Promise<Response>;

export interface RetryOptions {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Each attempt's limit, from sending to the end of the answer's body. */
  timeoutMs: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
}

function sleepFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}

async function problemCode(response: Response): Promise<string | undefined> {
  if (response.status !== 409) return undefined;
  try {
    const body = (await response.clone().json()) as { code?: unknown };
    return typeof body.code === 'string' ? body.code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The fetch the openapi-fetch client is given: gives every POST an `Idempotency-Key` (unless the
 * caller set one) and tries a request again, with that same key, after a network error, a timeout
 * or a retryable answer (retry-policy.ts), at most `maxRetries` times.
 */
export function retryingFetch(send: Send, options: RetryOptions): (request: Request) => Promise<Response> {
  const sleep = options.sleep ?? sleepFor;
  const random = options.random ?? Math.random;
  return async (request) => {
    const headers = Object.fromEntries(request.headers.entries());
    if (request.method === 'POST' && headers['idempotency-key'] === undefined) {
      // Web Crypto: a page needs a secure context (https, or localhost), as a storefront origin does.
      headers['idempotency-key'] = crypto.randomUUID();
    }
    const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
    for (let retry = 0; ; retry += 1) {
      const signal = AbortSignal.any([request.signal, AbortSignal.timeout(options.timeoutMs)]);
      let response: Response;
      try {
        response = await send(request.url, { method: request.method, headers, body, signal });
      } catch (error) {
        // The caller's own abort ends the call; a failed connection or a timeout is tried again.
        if (request.signal.aborted) throw error;
        if (retry >= options.maxRetries) {
          const what = signal.aborted ? `timed out after ${options.timeoutMs} ms` : 'failed';
          throw new CommerceConnectionError(
            `${request.method} ${request.url} ${what} (${retry + 1} attempt${retry === 0 ? '' : 's'})`,
            retry + 1,
            error,
          );
        }
        await sleep(backoffMs(retry, random), request.signal);
        continue;
      }
      if (retry >= options.maxRetries || !isRetryableStatus(response.status, await problemCode(response))) {
        return response;
      }
      const wait = waitAfterAnswer(retry, response.headers.get('retry-after'), random);
      if (wait === undefined) return response;
      await response.body?.cancel();
      await sleep(wait, request.signal);
    }
  };
}
