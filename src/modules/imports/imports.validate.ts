import type { TSchema } from 'typebox';
import { type AppError, type FieldError, isAppError } from '../../lib/errors.js';
import { toFieldErrors, validatorCompiler } from '../../http/validation.js';

/**
 * An imported value checked as the API checks a request body: the same schema, compiled by the
 * same validator (no coercion, unknown fields refused, the same text rules), with the same
 * messages. An import reuses the route schemas so that a row obeys every rule a request does.
 */

export type Check = (value: unknown) => FieldError[];

export function compileCheck(schema: TSchema): Check {
  const validate = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/imports' }) as ((
    value: unknown,
  ) => boolean) & { errors?: Parameters<typeof toFieldErrors>[0] | null };
  return (value) => (validate(value) ? [] : toFieldErrors(validate.errors ?? [], 'body'));
}

/** The field errors of a rule a service applies by throwing (a 400 naming the field), or rethrows. */
export function fieldErrorsOf(error: unknown): FieldError[] {
  if (isAppError(error) && error.code === 'validation_failed') {
    return error.errors ?? [{ field: '', message: error.detail }];
  }
  throw error;
}

/** Runs a rule that throws `validationError`; its field errors, or none. */
export function ruleErrors(rule: () => void): FieldError[] {
  try {
    rule();
    return [];
  } catch (error) {
    return fieldErrorsOf(error);
  }
}

export function isConflict(error: unknown): error is AppError {
  return isAppError(error) && error.status === 409;
}
