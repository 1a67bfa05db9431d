import { type TSchema, Type } from 'typebox';
import { MAX_FIELD_ERRORS } from '../lib/errors.js';

/** Shared TypeBox pieces: the problem body, timestamps, ids and the error responses of a route. */

export const Timestamp = Type.String({ format: 'date-time', examples: ['2026-11-21T10:15:00.000Z'] });
/**
 * What no text may hold: the C0 controls but the tab and the line ends (LF, CR), DEL, the C1
 * controls (U+0085, the "next line", among them), the line and paragraph separators, the
 * bidirectional embeddings, overrides and isolates (which reorder what a reader sees), the byte
 * order mark and the interlinear annotation marks. Lone surrogates are refused for every string by
 * the request walk (src/http/validation.ts), so no pattern needs to name them.
 */
const NEVER_IN_TEXT =
  '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ufeff\\ufff9-\\ufffb';
/** ...and what one line may not hold besides: the tab and the line ends. */
const NEVER_IN_LINE = `\\u0009\\u000a\\u000d${NEVER_IN_TEXT}`;
/** The white space (`\s`) a line may hold. */
const LINE_SPACE = ' \\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000';

// The "not blank" patterns take the leading white space apart from the first visible character, so
// a regular expression engine walks a long refused string once, not once per character.

/** One line of text, not blank: a name, a label, a one-line description, a map key. */
export const LINE_PATTERN = `^[${LINE_SPACE}]*[^\\s${NEVER_IN_LINE}][^${NEVER_IN_LINE}]*$`;
/** One line of text that may be empty or blank (an optional address line, a search). */
export const LINE_OR_EMPTY_PATTERN = `^[^${NEVER_IN_LINE}]*$`;
/** Text of several lines (tabs and line ends allowed), possibly empty. */
export const TEXT_PATTERN = `^[^${NEVER_IN_TEXT}]*$`;
/** Text of several lines, not blank. */
export const NONBLANK_TEXT_PATTERN = `^[\\t\\n\\r${LINE_SPACE}]*[^\\s${NEVER_IN_TEXT}][^${NEVER_IN_TEXT}]*$`;
/** A character one line may not hold; one text may not hold (to name it in an error). */
export const REFUSED_IN_LINE = new RegExp(`[${NEVER_IN_LINE}]`, 'u');
export const REFUSED_IN_TEXT = new RegExp(`[${NEVER_IN_TEXT}]`, 'u');

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
export const EmptyBody = Type.Object({}, { additionalProperties: false, examples: [{}] });

export const FieldErrorSchema = Type.Object({ field: Type.String(), message: Type.String() });

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    // Every code, as the document lists them (src/http/openapi-problems.ts: the modules' codes
    // are known once they are loaded).
    code: Type.String(),
    request_id: Type.String(),
    errors: Type.Optional(
      Type.Array(FieldErrorSchema, {
        maxItems: MAX_FIELD_ERRORS,
        description: `The failing fields, at most ${MAX_FIELD_ERRORS}: of a validation, or the one field a refusal is about (\`discount_codes[0]\` of a \`422 discount_invalid\`).`,
      }),
    ),
    errors_truncated: Type.Optional(
      Type.Boolean({
        description: `\`true\` when \`errors\` does not list every failing field: past ${MAX_FIELD_ERRORS}, or for a large input, where validation stops at the first errors.`,
      }),
    ),
    required_permission: Type.Optional(Type.String()),
    supported_versions: Type.Optional(Type.Array(Type.String())),
  },
  {
    additionalProperties: true,
    description: 'RFC 9457 problem details (`application/problem+json`). `code` is the stable machine code.',
    examples: [
      {
        type: '/docs#error-validation_failed',
        title: 'Validation failed',
        status: 400,
        detail:
          'The request is invalid: items[0].quantity must be >= 1; shipping_address.country must match pattern "^[A-Z]{2}$".',
        code: 'validation_failed',
        request_id: 'req_e5271c6676bad1dce738723622f39149',
        errors: [
          { field: 'items[0].quantity', message: 'must be >= 1' },
          { field: 'shipping_address.country', message: 'must match pattern "^[A-Z]{2}$"' },
        ],
      },
    ],
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
  503: 'Shutting down, a connection over the cap, or the store unreachable, refusing connections or busy (a lock wait or statement past its timeout, too many of the tenant’s requests waiting); retry after `Retry-After` seconds',
  504: 'Upstream provider timeout',
};

/**
 * A problem response: what the status means (the document adds the codes it answers, from
 * src/http/openapi-problems.ts, once the modules' codes are known).
 */
function problemResponse(status: number) {
  // The content form, so the document names the media type problems are served as.
  return {
    description: STATUS_DESCRIPTIONS[status] ?? 'Error',
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
