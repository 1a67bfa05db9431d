import fs from 'node:fs';
import { CommerceApiError, CommerceClient } from '@commerce-platform/client';
import { StorefrontClient } from '@commerce-platform/client/storefront';
import { Agent, fetch as undiciFetch } from 'undici';

/**
 * The clients the examples use, beside a development server started with `npm start`: the server
 * from COMMERCE_API_URL (default https://127.0.0.1:8443), its self-signed development certificate
 * trusted from COMMERCE_CA_FILE or data/tls/cert.pem (which the server creates on first start),
 * and the demo store's keys in data/demo-credentials.json unless COMMERCE_API_KEY or
 * COMMERCE_PUBLISHABLE_KEY name others.
 */

const DEMO_CREDENTIALS = 'data/demo-credentials.json';
const DEFAULT_API_URL = 'https://127.0.0.1:8443';

function demoCredentials(): { api_key?: string; publishable_key?: string } {
  return fs.existsSync(DEMO_CREDENTIALS)
    ? (JSON.parse(fs.readFileSync(DEMO_CREDENTIALS, 'utf8')) as {
        api_key?: string;
        publishable_key?: string;
      })
    : {};
}

function caFile(): string | undefined {
  return (
    process.env.COMMERCE_CA_FILE ?? (fs.existsSync('data/tls/cert.pem') ? 'data/tls/cert.pem' : undefined)
  );
}

/** The full client, with a secret key. */
export function connect(): CommerceClient {
  const apiKey = process.env.COMMERCE_API_KEY ?? demoCredentials().api_key;
  const ca = caFile();
  return new CommerceClient({
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(ca === undefined ? {} : { tls: { ca: fs.readFileSync(ca) } }),
  });
}

/**
 * The storefront's client, with the store's publishable key. A page makes it with the browser's
 * fetch, which trusts what the browser trusts; here, in Node, its fetch is given the development
 * certificate (undici is the fetch Node has built in).
 */
export function storefront(): StorefrontClient {
  const publishableKey = process.env.COMMERCE_PUBLISHABLE_KEY ?? demoCredentials().publishable_key;
  if (publishableKey === undefined) {
    throw new Error(
      `No publishable key: set COMMERCE_PUBLISHABLE_KEY or start the demo (${DEMO_CREDENTIALS})`,
    );
  }
  const ca = caFile();
  const agent = ca === undefined ? undefined : new Agent({ connect: { ca: fs.readFileSync(ca) } });
  return new StorefrontClient({
    publishableKey,
    baseUrl: process.env.COMMERCE_API_URL ?? DEFAULT_API_URL,
    ...(agent === undefined
      ? {}
      : {
          fetch: async (url, init) =>
            // undici's Response is the one Node's own fetch returns; its type is the package's.
            (await undiciFetch(url, { ...init, dispatcher: agent })) as unknown as Response,
        }),
  });
}

/** Runs an example: an API error is printed with its code and request id, and exits 1. */
export function run(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    if (error instanceof CommerceApiError) {
      console.error(`${error.status} ${error.code}: ${error.detail} (request ${error.requestId ?? '?'})`);
      for (const field of error.errors ?? []) console.error(`  ${field.field}: ${field.message}`);
    } else {
      console.error(error);
    }
    process.exit(1);
  });
}
