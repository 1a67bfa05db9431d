import { Ajv, type ErrorObject, type FormatDefinition, type Options } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { isCurrency } from '../lib/money.js';
import type { FieldError } from './errors.js';
import { LINE_PATTERN, TEXT_PATTERN } from './schemas.js';

// ajv-formats ships CommonJS whose default export is the plugin.
const addFormats = addFormatsModule as unknown as FormatsPlugin;

const common: Options = { allErrors: true, strict: false, useDefaults: true, removeAdditional: false };

/** RFC 3339 `date-time`, as ajv-formats checks it (its `compare` serves `formatMinimum`). */
const rfc3339 = addFormats.get('date-time') as FormatDefinition<string>;

/** An RFC 3339 date-time that is also an instant `Date.parse` can represent. */
function representable(format: FormatDefinition<string>): (value: string) => boolean {
  const validate = format.validate;
  if (typeof validate !== 'function') throw new Error('ajv-formats: date-time has no validate function');
  return (value) => validate(value) === true && Number.isFinite(Date.parse(value));
}

/**
 * The standard formats with their bounds (`formatMinimum`), and ours: `iso4217`, a currency code
 * the runtime knows, in upper case. `date-time` also demands an instant the runtime can represent:
 * RFC 3339 allows a leap second (`23:59:60`) that `Date.parse` turns into NaN.
 */
function withFormats(ajv: Ajv): Ajv {
  addFormats(ajv, { keywords: true });
  ajv.addFormat('iso4217', { type: 'string', validate: isCurrency });
  ajv.addFormat('date-time', {
    ...rfc3339,
    validate: representable(rfc3339),
  });
  return ajv;
}

/** Bodies: never coerced, unknown fields rejected by the schemas (`additionalProperties: false`). */
const bodyAjv = withFormats(new Ajv({ ...common, coerceTypes: false }));
/** Query strings and path params arrive as text: they are coerced. */
const paramAjv = withFormats(new Ajv({ ...common, coerceTypes: 'array' }));

/** The shared text patterns in words, in place of Ajv's `must match pattern "…"`. */
const PATTERN_MESSAGES: Record<string, string> = {
  // The schemas' way of saying "some text, not only spaces".
  '\\S': 'must not be blank',
  [LINE_PATTERN]: 'must be one line of text, not blank, without control characters',
  [TEXT_PATTERN]: 'must not contain control characters (newlines and tabs are fine)',
};

/** What a value of each format must look like, in place of Ajv's `must match format "…"`. */
const FORMAT_MESSAGES: Record<string, string> = {
  iso4217: 'must be an ISO 4217 currency code in upper case',
  date: 'must be a date (YYYY-MM-DD)',
  'date-time': 'must be an RFC 3339 timestamp (2026-11-21T10:15:00.000Z)',
  email: 'must be an email address',
  uri: 'must be an absolute URL',
};

const NUL_IN_VALUE = 'must not contain the NUL character (\\u0000)';
const NUL_IN_NAME = 'must not have a field name containing the NUL character (\\u0000)';

/**
 * Every string in `value` (and every field name) holding U+0000, as Ajv errors. PostgreSQL's text
 * cannot store it and SQLite's can, so it is refused everywhere, whatever the field's schema says.
 */
function nulErrors(value: unknown, instancePath: string, out: ErrorObject[]): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) out.push(nulError(instancePath, NUL_IN_VALUE));
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) nulErrors(value[i], `${instancePath}/${i}`, out);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) out.push(nulError(instancePath, NUL_IN_NAME));
      else nulErrors(item, `${instancePath}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`, out);
    }
  }
}

function nulError(instancePath: string, message: string): ErrorObject {
  return { instancePath, schemaPath: '', keyword: 'nul', params: {}, message };
}

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : paramAjv;
  const validate = ajv.compile(schema as object);
  const checked = ((data: unknown) => {
    const valid = validate(data) === true;
    const found: ErrorObject[] = [];
    nulErrors(data, '', found);
    checked.errors = validate.errors;
    if (found.length === 0) return valid;
    // A field its schema already refuses (a pattern without control characters, say) is named once.
    const failed = new Set((validate.errors ?? []).map((e) => e.instancePath));
    checked.errors = [...(validate.errors ?? []), ...found.filter((e) => !failed.has(e.instancePath))];
    return false;
  }) as Validate;
  return checked;
};

function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (extra !== undefined) parts.push(extra);
  let out = '';
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out === '' ? part : `.${part}`;
  return out;
}

function isNullBranch(error: Partial<ErrorObject>): boolean {
  return error.keyword === 'type' && (error.params as { type?: unknown } | undefined)?.type === 'null';
}

/** Ajv's errors as the contract's `{field, message}` list, one entry per failing field and rule. */
export function toFieldErrors(
  errors: readonly Partial<ErrorObject>[],
  part: string | undefined,
): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  // A nullable field (`anyOf: [schema, null]`) that fails its schema also fails `null`: that
  // branch's "must be null" says nothing the field's own errors do not.
  const failedOtherwise = new Set(
    errors.filter((e) => e.keyword !== 'anyOf' && !isNullBranch(e)).map((e) => e.instancePath ?? ''),
  );
  for (const error of errors) {
    const params = (error.params ?? {}) as Record<string, unknown>;
    let field: string;
    let message: string;
    if (error.keyword === 'required') {
      field = fieldPath(error.instancePath ?? '', String(params.missingProperty));
      message = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      field = fieldPath(error.instancePath ?? '', String(params.additionalProperty));
      message = 'is not an accepted field';
    } else {
      field = fieldPath(error.instancePath ?? '');
      message = error.message ?? 'is invalid';
      if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
        message = `must be one of ${params.allowedValues.join(', ')}`;
      }
      if (error.keyword === 'format') message = FORMAT_MESSAGES[String(params.format)] ?? message;
      if (error.keyword === 'formatMinimum') message = `must be ${String(params.limit)} or later`;
      if (error.keyword === 'pattern') message = PATTERN_MESSAGES[String(params.pattern)] ?? message;
    }
    if (field === '') field = part === 'body' ? 'body' : (part ?? 'request');
    const id = `${field}\u0000${message}`;
    // anyOf/union failures repeat themselves per branch; one line per distinct problem is enough.
    if (error.keyword === 'anyOf' || seen.has(id)) continue;
    if (isNullBranch(error) && failedOtherwise.has(error.instancePath ?? '')) continue;
    seen.add(id);
    out.push({ field, message });
  }
  return out;
}
