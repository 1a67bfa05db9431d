import createClient, { type Client } from 'openapi-fetch';
import { createCaller } from './caller.js';
import { ApiNamespaces } from './generated/namespaces.js';
import type { paths } from './generated/schema.js';
import { type ClientOptions, resolveOptions } from './options.js';
import { retryingFetch } from './retrying-fetch.js';
import { createTransport, type Transport } from './transport.js';
import { verifyWebhook } from './webhooks.js';

export const USER_AGENT = 'commerce-platform-client-typescript/0.1.0';

/**
 * The Commerce Platform API client. Every operation is a method of its resource's namespace
 * (`client.products.list()`, `client.orders.create(...)`, generated from the OpenAPI document), and
 * `client.api` is the typed openapi-fetch client over the same connection
 * (`client.api.GET('/v1/products/{id}', { params: { path: { id } } })`). Both send the key, the
 * pinned `X-Service-Version` and, on a POST, an `Idempotency-Key`, and retry what is safe to retry.
 */
export class CommerceClient extends ApiNamespaces {
  /** The typed openapi-fetch client: `{ data, error, response }` per call, errors not thrown. */
  readonly api: Client<paths>;
  /** The dated API version this client sends as `X-Service-Version`. */
  readonly version: string;
  readonly baseUrl: string;
  declare readonly webhooks: ApiNamespaces['webhooks'] & { verify: typeof verifyWebhook };
  readonly #transport: Transport;

  constructor(options: ClientOptions = {}) {
    const resolved = resolveOptions(options);
    const transport = createTransport(resolved.tls);
    const api = createClient<paths>({
      baseUrl: resolved.baseUrl,
      headers: {
        Authorization: `Bearer ${resolved.apiKey}`,
        'X-Service-Version': resolved.version,
        'User-Agent': USER_AGENT,
      },
      fetch: retryingFetch(transport.send, {
        maxRetries: resolved.maxRetries,
        timeoutMs: resolved.timeoutMs,
      }),
    });
    super(createCaller(api));
    this.api = api;
    this.version = resolved.version;
    this.baseUrl = resolved.baseUrl;
    this.#transport = transport;
    // Verification of deliveries sits beside the webhook endpoints' operations.
    Object.assign(this.webhooks, { verify: verifyWebhook });
  }

  /** Closes the client's connections (a process exits without it too once they are idle). */
  close(): Promise<void> {
    return this.#transport.close();
  }
}
