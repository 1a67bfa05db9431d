import { type AppError, type ErrorCode, type FieldError, problemTitle } from '../lib/errors.js';

/** An `AppError` as an RFC 9457 problem details body. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  request_id: string;
  errors?: FieldError[];
  [member: string]: unknown;
}

/** Relative reference into the docs page, which lists every code (RFC 9457 allows relative URIs). */
export const PROBLEM_TYPE_BASE = '/docs#error-';

export function problemFor(error: AppError, requestId: string): Problem {
  return {
    type: PROBLEM_TYPE_BASE + error.code,
    title: problemTitle(error.code),
    status: error.status,
    detail: error.detail,
    code: error.code,
    request_id: requestId,
    ...(error.errors ? { errors: error.errors } : {}),
    ...error.extra,
  };
}
