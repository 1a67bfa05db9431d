import { Type } from 'typebox';
import { EnvelopeSchema, PageQuery } from '../../http/pagination.js';
import { Nullable, Timestamp } from '../../http/schemas.js';

export const REQUEST_LOG_EXAMPLE = {
  id: 'req_2b7Lq9Xv4Nc8Zt1Mk6Pw3Rs',
  time: '2026-11-21T10:15:00.000Z',
  method: 'PATCH',
  path: '/v1/products/prod_7Hq2Lx9Vb4Nc8Zt1Mk6Pw3Rs',
  route: '/v1/products/:id',
  status: 200,
  duration_ms: 4.212,
  key: { id: 'key_9hGf2kQm1bX9sT2uV7wY3cE5', name: 'Back office', type: 'secret' },
  app: null,
  ip: '203.0.113.7',
  user_agent: 'commerce-client/2.6',
  api_version: '2027-01-20',
  idempotency_key: null,
  error_code: null,
  request_body: '{"price":2499}',
  response_body: '{"id":"prod_7Hq2Lx9Vb4Nc8Zt1Mk6Pw3Rs","price":2499}',
};

const Body = Nullable(
  Type.String({
    description:
      'The body as JSON text, up to 8 KiB (a longer one is cut, ending in `…[cut]`), with every secret, token, password and card number replaced by `[redacted]`.',
  }),
);

export const RequestLogSchema = Type.Object(
  {
    id: Type.String({ description: 'The request’s `X-Request-Id`.' }),
    time: Timestamp,
    method: Type.String(),
    path: Type.String({ description: 'As requested, with the query (secret-looking parameters redacted).' }),
    route: Type.String({ description: 'The route’s pattern, e.g. `/v1/products/:id`.' }),
    status: Type.Integer(),
    duration_ms: Type.Number(),
    key: Nullable(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        type: Type.String({
          description: '`secret`, `publishable`, `app` (an installation token) or `console`.',
        }),
      }),
    ),
    app: Nullable(Type.String({ description: 'The app’s name, for an installation token.' })),
    ip: Nullable(Type.String()),
    user_agent: Nullable(Type.String()),
    api_version: Nullable(Type.String()),
    idempotency_key: Nullable(Type.String()),
    error_code: Nullable(Type.String({ description: 'The problem’s `code` of a 4xx or 5xx answer.' })),
    request_body: Body,
    response_body: Body,
  },
  { examples: [REQUEST_LOG_EXAMPLE] },
);

export const RequestLogListSchema = EnvelopeSchema(RequestLogSchema);

export const RequestLogQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(
      Type.String({
        pattern: '^[1-5](xx|\\d\\d)$',
        description: 'A class (`2xx`, `4xx`, `5xx`) or a status (`404`).',
      }),
    ),
    method: Type.Optional(
      Type.String({ enum: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] }),
    ),
    route: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'A route pattern, e.g. `/v1/products/:id`.' }),
    ),
    key_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    from: Type.Optional(Type.String({ format: 'date-time' })),
    to: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const RequestIdParams = Type.Object({ request_id: Type.String({ minLength: 1, maxLength: 128 }) });
