import fs from 'node:fs';
import { CommerceApiError, CommerceClient } from '@commerce-platform/client';

/**
 * The client the examples use: the key from COMMERCE_API_KEY (or, beside a development server
 * started with `npm start`, the demo key in data/demo-credentials.json), the server from
 * COMMERCE_API_URL (default https://127.0.0.1:8443), and its self-signed development certificate
 * trusted from COMMERCE_CA_FILE or data/tls/cert.pem, which the server creates on first start.
 */
export function connect(): CommerceClient {
  const demo = 'data/demo-credentials.json';
  const apiKey =
    process.env.COMMERCE_API_KEY ??
    (fs.existsSync(demo)
      ? (JSON.parse(fs.readFileSync(demo, 'utf8')) as { api_key: string }).api_key
      : undefined);
  const caFile =
    process.env.COMMERCE_CA_FILE ?? (fs.existsSync('data/tls/cert.pem') ? 'data/tls/cert.pem' : undefined);
  return new CommerceClient({
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(caFile === undefined ? {} : { tls: { ca: fs.readFileSync(caFile) } }),
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
