/**
 * The headers of every operation in the OpenAPI document (what route-hooks.ts and the gate put on
 * every request and answer, declared once here rather than on each route): the request headers a
 * client may send and the response headers it gets, by method, status and whether the route takes
 * a key. Only the document changes: the routes do not validate these headers against it.
 */

type Schema = Record<string, unknown>;

const text = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
const integer = (description: string): Schema => ({ type: 'integer', description });

const REQUEST = {
  version: text(
    'The dated version to answer in (`YYYY-MM-DD`); without it, the version the store is pinned to.',
    { pattern: '^\\d{4}-\\d{2}-\\d{2}$', example: '2026-12-15' },
  ),
  idempotency: text(
    'Makes the POST safe to retry: a repeat with the same key answers the stored response (`Idempotent-Replayed: true`). 1-255 printable ASCII characters, kept 24 hours per store.',
    { minLength: 1, maxLength: 255, example: 'order-2026-12-15-0001' },
  ),
  ifNoneMatch: text('An `ETag` of an earlier answer: `304` with no body while it still holds.', {
    example: '"3rJ5bq4vD9cGxqQe0kY2sW1tZ8A"',
  }),
};

const RESPONSE = {
  requestId: text(
    'This request, in logs and in support requests: the `X-Request-Id` the client sent, when valid; otherwise `req_` and 32 hex digits, the first 12 the time in milliseconds, so the ids a server gives sort by time.',
    { example: 'req_019aeda3c8004f9c2a7b1e6d4c3a8b5e' },
  ),
  version: text('The version the answer is in.', { example: '2026-12-15' }),
  policy: text(
    'The rate-limit policies (RFC draft `RateLimit-Policy`): the tenant’s hourly and monthly ones; on a storefront route (`/store/*`), the store’s per-address one (`"storefront";q=120;w=60`), or on a 429 the one that refused.',
    { example: '"hourly";q=10000;w=3600, "monthly";q=100000;w=2592000' },
  ),
  rateLimit: text(
    'What is left of the most constraining policy and when it is whole again, in seconds (RFC draft `RateLimit`); on a 429, the refusing policy and when to retry.',
    { example: '"hourly";r=9999;t=1800' },
  ),
  limit: integer('Calls an hour.'),
  remaining: integer('Calls left this hour.'),
  reset: integer('When the hour resets, in Unix seconds.'),
  etag: text('A strong tag of the exact bytes of the answer, for `If-None-Match`.', {
    example: '"3rJ5bq4vD9cGxqQe0kY2sW1tZ8A"',
  }),
  retryAfter: integer('Seconds to wait before trying again.'),
  replayed: text('`true` on an answer replayed for a repeated `Idempotency-Key`.', { enum: ['true'] }),
};

/** The response headers by name: each is declared once under `components/headers` (`headerComponents`). */
const RESPONSE_HEADERS: Readonly<Record<string, Schema>> = {
  'X-Request-Id': RESPONSE.requestId,
  'X-Service-Version': RESPONSE.version,
  'RateLimit-Policy': RESPONSE.policy,
  RateLimit: RESPONSE.rateLimit,
  'X-RateLimit-Limit': RESPONSE.limit,
  'X-RateLimit-Remaining': RESPONSE.remaining,
  'X-RateLimit-Reset': RESPONSE.reset,
  ETag: RESPONSE.etag,
  'Retry-After': RESPONSE.retryAfter,
  'Idempotent-Replayed': RESPONSE.replayed,
};

/** A header as the document's Header Object has it: its description beside its schema. */
function headerObject(schema: Schema): Schema {
  const { description, ...rest } = schema;
  return { description, schema: rest };
}

/** The `components/headers` section: every response header, once. */
export function headerComponents(): Record<string, Schema> {
  return Object.fromEntries(
    Object.entries(RESPONSE_HEADERS).map(([name, schema]) => [name, headerObject(schema)]),
  );
}

/**
 * The finished document with each response header a reference to its component (a header that
 * differs from its component, were there one, stays as it is): one declaration instead of one per
 * answer, most of the document's size otherwise.
 */
export function withHeaderRefs<T extends Schema>(document: T): T {
  const declared = headerComponents();
  const same = (header: Schema, name: string) =>
    header.description === declared[name]?.description &&
    JSON.stringify(header.schema) === JSON.stringify(declared[name]?.schema);
  const paths = (document.paths ?? {}) as Record<string, Record<string, Schema>>;
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      for (const response of Object.values((operation.responses ?? {}) as Record<string, Schema>)) {
        const headers = (response.headers ?? {}) as Record<string, Schema>;
        for (const [name, header] of Object.entries(headers)) {
          if (same(header, name)) headers[name] = { $ref: `#/components/headers/${name}` };
        }
      }
    }
  }
  return document;
}

/** The request headers by name: each is declared once under `components/parameters` (`parameterComponents`). */
const REQUEST_HEADERS: Readonly<Record<string, Schema>> = {
  'X-Service-Version': REQUEST.version,
  'Idempotency-Key': REQUEST.idempotency,
  'If-None-Match': REQUEST.ifNoneMatch,
};

/** A request header as the document's Parameter Object has it (as @fastify/swagger writes it). */
interface HeaderParameter {
  schema: Schema;
  in: 'header';
  name: string;
  required: false;
  description: string;
}

function parameterObject(name: string, schema: Schema): HeaderParameter {
  const { description, ...rest } = schema;
  return { schema: rest, in: 'header', name, required: false, description: String(description) };
}

/** The `components/parameters` section: every request header an operation may take, once. */
export function parameterComponents(): Record<string, HeaderParameter> {
  return Object.fromEntries(
    Object.entries(REQUEST_HEADERS).map(([name, schema]) => [name, parameterObject(name, schema)]),
  );
}

/**
 * The finished document with each header an operation takes as it is declared a reference to its
 * component, and each response header likewise (`withHeaderRefs`).
 */
export function withParameterRefs<T extends Schema>(document: T): T {
  const declared = parameterComponents();
  const paths = (document.paths ?? {}) as Record<string, Record<string, Schema>>;
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      if (!Array.isArray(operation.parameters)) continue;
      operation.parameters = (operation.parameters as Schema[]).map((parameter) => {
        const name = parameter.in === 'header' ? String(parameter.name) : '';
        const component = declared[name];
        return component !== undefined && JSON.stringify(parameter) === JSON.stringify(component)
          ? { $ref: `#/components/parameters/${name}` }
          : parameter;
      });
    }
  }
  return document;
}

function isAuthenticated(schema: Schema): boolean {
  return Array.isArray(schema.security) && schema.security.length > 0;
}

/**
 * The document's copy of a route's schema, with its request and response headers declared. A
 * storefront route's answers carry the storefront's rate-limit policy, and no `X-RateLimit-*` (the
 * tenant's hourly limit does not apply to them).
 */
export function withHeaders(
  method: string,
  schema: Schema | undefined,
  storefront = false,
): Schema | undefined {
  if (schema === undefined) return schema;
  const authenticated = isAuthenticated(schema);
  const request: Record<string, Schema> = { 'X-Service-Version': REQUEST.version };
  if (method === 'POST' && authenticated) request['Idempotency-Key'] = REQUEST.idempotency;
  if (method === 'GET') request['If-None-Match'] = REQUEST.ifNoneMatch;
  const responses: Record<string, Schema> = {};
  for (const [status, body] of Object.entries((schema.response ?? {}) as Record<string, Schema>)) {
    const code = Number(status);
    const headers: Record<string, Schema> = { 'X-Request-Id': RESPONSE.requestId };
    if (authenticated && code !== 401) {
      Object.assign(headers, {
        'X-Service-Version': RESPONSE.version,
        'RateLimit-Policy': RESPONSE.policy,
        RateLimit: RESPONSE.rateLimit,
      });
      if (!storefront) {
        Object.assign(headers, {
          'X-RateLimit-Limit': RESPONSE.limit,
          'X-RateLimit-Remaining': RESPONSE.remaining,
          'X-RateLimit-Reset': RESPONSE.reset,
        });
      }
    }
    if (method === 'GET' && code === 200) headers.ETag = RESPONSE.etag;
    if (method === 'POST' && authenticated && code >= 200 && code < 300)
      headers['Idempotent-Replayed'] = RESPONSE.replayed;
    if (code === 429 || code === 503) headers['Retry-After'] = RESPONSE.retryAfter;
    responses[status] = { ...body, headers };
  }
  return {
    ...schema,
    headers: {
      type: 'object',
      properties: { ...request, ...((schema.headers as Schema | undefined)?.properties as Schema) },
    },
    response: responses,
  };
}
