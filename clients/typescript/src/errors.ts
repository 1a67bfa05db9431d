import type { Problem, ProblemCode } from './types.js';

/** A field that failed validation, as a `400 validation_failed` problem lists it. */
export type FieldError = NonNullable<Problem['errors']>[number];

function isProblem(body: unknown): body is Problem {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { code?: unknown }).code === 'string' &&
    typeof (body as { status?: unknown }).status === 'number'
  );
}

/**
 * The API answered with an error: a problem document (RFC 9457), typed from the OpenAPI document.
 * `code` is the stable machine code to branch on; `requestId` names the request in support requests
 * and in the server's logs. An answer that is not a problem document (a proxy's error page) has
 * the code `unexpected_response` and the text in `detail`.
 */
export class CommerceApiError extends Error {
  override readonly name = 'CommerceApiError';
  /** The HTTP status. */
  readonly status: number;
  readonly code: ProblemCode | 'unexpected_response';
  readonly title: string;
  readonly detail: string;
  /** The failing fields of a validation error. */
  readonly errors: FieldError[] | undefined;
  /** `X-Request-Id` of the answer (or the problem's `request_id`). */
  readonly requestId: string | undefined;
  /** The problem document as sent, with members of its own (`required_permission`, `reason`). */
  readonly problem: Problem | undefined;
  readonly headers: Headers;

  constructor(response: Response, body: unknown) {
    const problem = isProblem(body) ? body : undefined;
    const detail = problem?.detail ?? (typeof body === 'string' ? body.slice(0, 500) : '');
    const requestId = response.headers.get('x-request-id') ?? problem?.request_id ?? undefined;
    super(
      `${response.status} ${problem?.code ?? 'unexpected_response'}: ${detail || response.statusText}` +
        (requestId ? ` (request ${requestId})` : ''),
    );
    this.status = response.status;
    this.code = problem?.code ?? 'unexpected_response';
    this.title = problem?.title ?? response.statusText;
    this.detail = detail;
    this.errors = problem?.errors;
    this.requestId = requestId;
    this.problem = problem;
    this.headers = response.headers;
  }
}

/** No answer came: the connection failed or timed out on every attempt. */
export class CommerceConnectionError extends Error {
  override readonly name = 'CommerceConnectionError';
  /** Attempts made, retries included. */
  readonly attempts: number;

  constructor(message: string, attempts: number, cause: unknown) {
    super(message, { cause });
    this.attempts = attempts;
  }
}

/**
 * The data of an openapi-fetch result (`client.api`), or its error thrown as a CommerceApiError:
 * `const product = unwrap(await client.api.GET('/v1/products/{id}', ...))`.
 */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (!result.response.ok) throw new CommerceApiError(result.response, result.error);
  return result.data as T;
}
