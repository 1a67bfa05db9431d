import swagger from '@fastify/swagger';
import { registerDocs } from './docs.js';
import { answersList, documentLivemode, withLivemodeComponents } from './livemode.js';
import { createComponents } from './openapi-components.js';
import {
  headerComponents,
  parameterComponents,
  withHeaderRefs,
  withHeaders,
  withParameterRefs,
} from './openapi-headers.js';
import { withProblemCodes, withProblemExamples } from './openapi-problems.js';
import { withCodeSamples } from './openapi-samples.js';
import { withStandardSchemas } from './openapi-standard.js';
import { webhooksSection } from './openapi-webhooks.js';
import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import type { AnyManifest } from '../kernel/modules.js';
import type { Vocabulary } from '../kernel/vocabulary.js';
import { MAX_FIELD_ERRORS, problemCodes, problemStatus } from '../lib/errors.js';
import { AI_LIMIT_PER_MINUTE, planLimitsText } from '../modules/limits/index.js';
import { MAX_DEPTH } from './validation.js';

/**
 * The OpenAPI document's frame: the API's description (what holds for every route) and the
 * document's info, security scheme and tags. The paths come from the routes' own schemas as they
 * are registered (src/http/route-hooks.ts adds their shared error responses); the document is
 * served at `GET /v1/openapi.json` and browsable at `/docs`.
 */

/** The API's description, made once the modules are loaded: it lists every problem code. */
const apiDescription = (): string =>
  `
Multi-tenant commerce platform API. Authenticate with \`Authorization: Bearer sk_live_...\`.

* **Errors** are RFC 9457 \`application/problem+json\` bodies with a stable \`code\`:
${problemCodes()
  .map((code) => `  <a id="error-${code}"></a>\`${problemStatus(code)} ${code}\``)
  .join(',\n')}.
* **Request bodies** are JSON in UTF-8 (other bytes are \`400 invalid_json\`; \`POST /imports\` takes a CSV or JSON Lines file of up to 50 MiB instead), at most 1 MiB, with objects and
  arrays nested at most ${MAX_DEPTH} levels. Text must be well-formed Unicode without NUL; names and other one-line
  fields hold no control characters, line or paragraph separators, bidirectional controls or U+FEFF, and longer text
  only line breaks and tabs among them. A \`400 validation_failed\` lists at most ${MAX_FIELD_ERRORS} failing fields in
  \`errors\`, with \`errors_truncated: true\` when there were more, or when a large body was refused at its first error.
* **Idempotency**: every POST accepts \`Idempotency-Key\` (1-255 printable ASCII); a repeat returns the stored
  response with \`Idempotent-Replayed: true\`; another request with the key is \`422 idempotency_key_reused\`; a
  concurrent one \`409 idempotency_key_in_use\`. Keys are kept 24 hours per tenant. A 5xx is not stored; a retry
  after one resumes what the first attempt committed (an order, a payment, a product, a transfer, a generation, an
  API key, a webhook endpoint) instead of doing it again. A secret is shown once: the replay of a response that created one
  (an API key, a webhook signing secret) shows the key masked and the signing secret not at all, and the secret is
  never kept in the idempotency store.
* **Versions**: send \`X-Service-Version: YYYY-MM-DD\` to choose a dated version, otherwise the tenant's pinned
  version is used. Every response carries the version used in \`X-Service-Version\`.
* **Lists** take \`limit\` (1-100), \`offset\` (at most 10,000) or \`page\`, and \`cursor\` (each page's
  \`next_cursor\`) for any depth; \`total\` is exact.
* **Conditional GETs**: a \`200\` answer to a GET carries a strong \`ETag\`; the same GET with
  \`If-None-Match\` holding it answers \`304\` with no body while nothing it describes has changed.
* **Money** is an integer of minor units with an ISO 4217 \`currency\`. Timestamps are RFC 3339 UTC.
* **Rate limits** are per tenant: an hourly limit and a monthly quota (${planLimitsText()})
  and ${AI_LIMIT_PER_MINUTE} AI requests per minute. Every authenticated response carries
  \`RateLimit-Policy\`, \`RateLimit\` and \`X-RateLimit-Limit/Remaining/Reset\` (the hourly window); over a limit
  the answer is \`429 rate_limited\` or \`429 quota_exceeded\` with \`Retry-After\` (seconds) and uses up no quota.
  Storefront calls (\`/store/*\`) count against neither, but against the storefront's own limits per buyer
  address, cart and product; their answers carry those limits' \`RateLimit-Policy\` and \`RateLimit\` instead.
  A client address with 20 unknown, revoked or expired keys within the last minute gets \`429 rate_limited\` with
  \`Retry-After\` for any key the server has not seen valid, without the key being checked; keys it has seen valid
  keep working from that address.
* **Connections**: a request that does not arrive in time (by default its headers within 10 s, all of it within
  30 s) is answered \`408 request_timeout\`, headers over 16 KiB \`431 request_header_fields_too_large\`, and what
  HTTP/1.1 cannot parse \`400 validation_failed\` naming the part; a connection opened beyond the server's cap
  gets \`503 service_unavailable\` with \`Retry-After\`. These answers close the connection.
* **503 service_unavailable** comes with \`Retry-After\` (seconds): the server is shutting down, or the store is
  unreachable, refusing connections or busy (a lock wait or a statement past its timeout, too many of the tenant's
  requests waiting at once). Retry it; a POST retried with the same \`Idempotency-Key\` is never applied twice.
`.trim();

export interface DocumentParts {
  /** The API's version. */
  release: string;
  /** Their tags (in their order: the reference's groups), components and event types. */
  modules: readonly AnyManifest[];
  vocabulary: Vocabulary;
}

/** Registers the OpenAPI document and its reference (`/docs`). */
export async function registerOpenApi(app: FastifyInstance, parts: DocumentParts): Promise<void> {
  const { release, modules, vocabulary } = parts;
  const declared: Record<string, TSchema> = {};
  for (const module of modules) {
    for (const [name, schema] of Object.entries(module.components?.(vocabulary) ?? {})) {
      if (name in declared) throw new Error(`component ${name} is declared twice (module ${module.name})`);
      declared[name] = schema;
    }
  }
  const { withComponents, componentSchemas, withComponentRefs } = createComponents(declared);
  /** The components keyed routes answer, each with whether it is a list (src/http/livemode.ts). */
  const answered = new Map<string, boolean>();
  /** Whether the component a `$ref` names (or each item of the list it is) declares `livemode` itself. */
  const declares = (ref: string): boolean => {
    type Shape = { properties?: Record<string, Shape>; items?: Shape };
    const component = declared[ref.slice(ref.lastIndexOf('/') + 1)] as Shape | undefined;
    const object = component?.properties?.data?.items ?? component;
    return object?.properties?.livemode !== undefined;
  };
  await app.register(swagger, {
    // The document's copy of each route's schema: its code samples and headers added, then its
    // shared objects referenced (last: the other steps read the route's own schemas).
    // A route that takes a key answers `livemode` on its objects (src/http/livemode.ts).
    transform: ({ schema, url, route }) => {
      const auth = (route.config as { auth?: string } | undefined)?.auth;
      const list = (route.config as { list?: boolean } | undefined)?.list;
      const documented = withComponents(
        withHeaders(
          String(route.method),
          withCodeSamples(String(route.method), url, schema as Record<string, unknown> | undefined),
          url.startsWith('/v1/store/'),
        ),
      );
      return {
        schema: (auth === undefined || auth === 'public'
          ? documented
          : documentLivemode(documented, answersList(list, schema?.response), declares, (ref, isList) =>
              answered.set(ref, isList),
            )) as typeof schema,
        url,
      };
    },
    // Once the document is made: each request and response header once, under
    // components/parameters and components/headers, every problem response with the codes of its
    // status and their example problems, under components/examples, and every schema in plain
    // JSON Schema (no Ajv keyword, every union with its type).
    transformObject: (document) => {
      withLivemodeComponents(
        ('openapiObject' in document ? document.openapiObject : document.swaggerObject) as Parameters<
          typeof withLivemodeComponents
        >[0],
        answered,
      );
      return withStandardSchemas(
        withProblemExamples(
          withProblemCodes(
            withParameterRefs(
              withHeaderRefs('openapiObject' in document ? document.openapiObject : document.swaggerObject),
            ),
          ),
        ),
      );
    },
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Commerce Platform API',
        version: release,
        description: apiDescription(),
        // The code is not open source and grants no license (the package is private, its client
        // UNLICENSED): a license outside SPDX's list, named as SPDX names such a one.
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: '/', description: 'This server' }],
      // What endpoints receive: every event type, as a POST (OpenAPI 3.1 `webhooks`).
      webhooks: withComponentRefs(webhooksSection(vocabulary)),
      components: {
        schemas: componentSchemas(),
        parameters: parameterComponents(),
        headers: headerComponents(),
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description:
              "An API key: `sk_live_` and 40 characters. The developer console calls the API with its login session instead of a key: the session cookie together with the session's CSRF token in `X-CSRF-Token` stands for every permission of the session's user; a request without `Authorization` that carries the cookie alone is not authenticated.",
          },
        },
      },
      tags: modules.flatMap((module) => module.tags ?? []),
    },
  });
  await registerDocs(app);
}
