import { Agent, fetch as undiciFetch } from 'undici';
import type { Send } from './retrying-fetch.js';

/** TLS settings for the API's certificate, e.g. the self-signed one a development server creates. */
export interface TlsOptions {
  /** Certificate authorities to trust (PEM) instead of the system's: the server's own certificate. */
  ca?: string | Buffer;
  /** false accepts any certificate. Development only: prefer `ca`. */
  rejectUnauthorized?: boolean;
}

export interface Transport {
  send: Send;
  /** Closes the client's connections. */
  close(): Promise<void>;
}

/**
 * HTTP through undici with the client's own connection pool (an undici Agent), which carries the
 * TLS settings: `connect: { ca, rejectUnauthorized }`.
 */
export function createTransport(tls: TlsOptions = {}): Transport {
  const agent = new Agent({
    connect: {
      ...(tls.ca !== undefined ? { ca: tls.ca } : {}),
      ...(tls.rejectUnauthorized !== undefined ? { rejectUnauthorized: tls.rejectUnauthorized } : {}),
    },
  });
  return {
    send: async (url, init) =>
      // undici's Response is the WHATWG Response that Node's own fetch returns (undici is Node's
      // fetch); its type comes from the undici package rather than from Node's globals.
      (await undiciFetch(url, { ...init, redirect: 'manual', dispatcher: agent })) as unknown as Response,
    close: () => agent.close(),
  };
}
