import { createHmac, randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { blockedReason, guardedLookup, hostOf, type Resolver } from './webhooks.url.js';

/**
 * Standard Webhooks signing and the HTTP client that delivers. Every connection resolves its host
 * through the guarded lookup (see webhooks.url.ts); redirects are never followed; one attempt is
 * bounded by `timeoutMs` from connect to the last byte kept.
 */

export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;
/** Response bodies are kept up to this many bytes. */
export const RESPONSE_BODY_LIMIT = 1024;
/** Past this many bytes of response body the connection is dropped instead of read to the end. */
const RESPONSE_READ_LIMIT = 64 * 1024;
const USER_AGENT = 'CommercePlatform-Webhooks/1.0 (+https://www.standardwebhooks.com)';

export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the secret's base64 part. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** A secret a rotation replaced, and until when it keeps signing. */
export interface RetiredSecret {
  secret: string;
  expires_at: number;
}

/** The retired secrets (an endpoint's `retired_secrets`) still signing at `at`, oldest first. */
export function stillSigning(retiredJson: string, at: number): RetiredSecret[] {
  return (JSON.parse(retiredJson) as RetiredSecret[]).filter((retired) => retired.expires_at > at);
}

/** Every signature of a delivery: the current secret's first, then each still-signing retired one's. */
export function signatures(
  endpoint: { secret: string; retired_secrets: string },
  id: string,
  timestamp: number,
  body: string,
  at: number,
): string[] {
  return [endpoint.secret, ...stillSigning(endpoint.retired_secrets, at).map((r) => r.secret)].map((secret) =>
    signature(secret, id, timestamp, body),
  );
}

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  /** "200 OK", "503 Service Unavailable", or the network error. */
  response: string;
  body: string | null;
  /** Milliseconds, an integer. */
  duration: number;
}

export interface TransportOptions {
  allowInsecure: boolean;
  timeoutMs: number;
  /** Connections kept per receiver origin. */
  connectionsPerOrigin: number;
  resolve: Resolver;
  /** CA certificates to trust instead of the system's (tests with a self-signed receiver). */
  ca?: string | Buffer | undefined;
}

export type Transport = ReturnType<typeof createTransport>;

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, 200);
  const cause = (error as { cause?: unknown }).cause;
  const base = error.message || error.name;
  const text =
    cause instanceof Error && cause.message && !base.includes(cause.message)
      ? `${base}: ${cause.message}`
      : base;
  return text.slice(0, 200);
}

function isTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return (
    (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  );
}

export function createTransport(options: TransportOptions) {
  const agent = new Agent({
    connections: options.connectionsPerOrigin,
    pipelining: 1,
    keepAliveTimeout: 4_000,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connect: {
      timeout: options.timeoutMs,
      lookup: guardedLookup(options.resolve, options.allowInsecure),
      ...(options.ca ? { ca: options.ca } : {}),
    },
  });

  return {
    /** One POST; never throws: every outcome is an AttemptResult. */
    async send(target: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const url = new URL(target);
      const host = hostOf(url);
      // An IP literal never goes through lookup: check it here, on every attempt.
      if (!options.allowInsecure) {
        const refused =
          url.protocol !== 'https:'
            ? 'url is not https'
            : url.username || url.password
              ? 'url contains credentials'
              : net.isIP(host) !== 0
                ? blockedReason(host)
                : undefined;
        if (refused)
          return { ok: false, status: null, response: `Blocked: ${refused}`, body: null, duration: 0 };
      }
      const signal = AbortSignal.timeout(options.timeoutMs);
      try {
        const res = await request(url, {
          dispatcher: agent,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers },
          body,
          signal,
        });
        const kept: Buffer[] = [];
        let keptBytes = 0;
        let read = 0;
        try {
          for await (const chunk of res.body as AsyncIterable<Buffer>) {
            if (keptBytes < RESPONSE_BODY_LIMIT) {
              const part = chunk.subarray(0, RESPONSE_BODY_LIMIT - keptBytes);
              kept.push(part);
              keptBytes += part.length;
            }
            read += chunk.length;
            if (read > RESPONSE_READ_LIMIT) break;
          }
        } catch {
          // The status is what counts; a body cut short (timeout, reset) keeps what arrived.
        }
        const status = res.statusCode;
        return {
          ok: status >= 200 && status < 300,
          status,
          response: `${status} ${STATUS_CODES[status] ?? ''}`.trim(),
          body: keptBytes > 0 ? Buffer.concat(kept).toString('utf8') : null,
          duration: elapsed(),
        };
      } catch (error) {
        const duration = elapsed();
        const blocked = (error as { code?: unknown }).code === 'ERR_WEBHOOK_BLOCKED_ADDRESS';
        const response = blocked
          ? `Blocked: ${errorText(error)}`
          : isTimeout(error) || signal.aborted
            ? `Timeout after ${options.timeoutMs} ms`
            : errorText(error);
        return { ok: false, status: null, response, body: null, duration };
      }
    },

    async close(): Promise<void> {
      await agent.close();
    },
  };
}
