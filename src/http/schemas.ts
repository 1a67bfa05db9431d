import { type TSchema, Type } from 'typebox';
import { ERROR_STATUS, type ErrorCode } from './errors.js';

/** Shared TypeBox pieces: the problem body, timestamps, ids and the error responses of a route. */

export const Timestamp = Type.String({ format: 'date-time', examples: ['2026-11-21T10:15:00.000Z'] });
/** One line of text: no control characters, and not blank. */
export const LINE_PATTERN =
  '^[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f][^\\u0000-\\u001f\\u007f]*$';
/** Text of several lines: no control characters but the tab and line ends (LF, CR). */
export const TEXT_PATTERN = '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$';

/**
 * A currency: an ISO 4217 code the runtime knows, in upper case. The `iso4217` format is ours
 * (src/http/validation.ts), so an unknown code is listed with the request's other failing fields.
 */
export const Currency = Type.String({
  format: 'iso4217',
  description: 'ISO 4217, upper case.',
  examples: ['USD'],
});
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** The body of an action that takes none: absent or `{}`; any field is a 400. */
export const EmptyBody = Type.Object({}, { additionalProperties: false });

export const FieldErrorSchema = Type.Object({ field: Type.String(), message: Type.String() });

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ enum: Object.keys(ERROR_STATUS) }),
    request_id: Type.String(),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
    required_permission: Type.Optional(Type.String()),
    supported_versions: Type.Optional(Type.Array(Type.String())),
  },
  {
    additionalProperties: true,
    description: 'RFC 9457 problem details (`application/problem+json`). `code` is the stable machine code.',
  },
);

const STATUS_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing, malformed, unknown, revoked or expired API key',
  403: 'The key lacks the required permission',
  404: 'Not found (also for another tenant’s resources)',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Body over 1 MiB',
  415: 'Body is not JSON',
  422: 'Request understood but refused',
  429: 'Rate limit or monthly quota exceeded',
  500: 'Internal error',
  502: 'Upstream provider error',
  503: 'Shutting down or store unreachable',
  504: 'Upstream provider timeout',
};

function problemResponse(status: number) {
  const codes = (Object.entries(ERROR_STATUS) as [ErrorCode, number][])
    .filter(([, s]) => s === status)
    .map(([code]) => `\`${code}\``);
  // The content form, so the document names the media type problems are served as.
  return {
    description: `${STATUS_DESCRIPTIONS[status] ?? 'Error'}: ${codes.join(', ')}`,
    content: { 'application/problem+json': { schema: ProblemSchema } },
  };
}

/** A problem response as a route's `response` schema declares it. */
export type ProblemResponse = ReturnType<typeof problemResponse>;

/** Problem responses for the given statuses, to spread into a route's `response` schema. */
export function errorResponses(...statuses: number[]): Record<number, ProblemResponse> {
  const out: Record<number, ProblemResponse> = {};
  for (const status of statuses) out[status] = problemResponse(status);
  return out;
}

/** Statuses any authenticated `/v1` route can answer; added to every such route automatically. */
export const AUTHENTICATED_ERRORS = [400, 401, 403, 429, 500, 503];
/** Statuses any authenticated POST can answer through its `Idempotency-Key`; added automatically. */
export const IDEMPOTENCY_ERRORS = [409, 422];
/** Statuses any route can answer. */
export const COMMON_ERRORS = [500, 503];
/** Statuses of any route that takes a JSON body. */
export const BODY_ERRORS = [400, 413, 415];
