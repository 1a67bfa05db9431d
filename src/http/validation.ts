import { Ajv, type ErrorObject, type FormatDefinition, type Options } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { compiledOncePerSchema, onFirstUse } from './compiled-schemas.js';
import { isCurrency } from '../lib/money.js';
import { type AppError, type FieldError, MAX_FIELD_ERRORS, validationFailed } from '../lib/errors.js';
import {
  LINE_OR_EMPTY_PATTERN,
  LINE_PATTERN,
  NONBLANK_TEXT_PATTERN,
  REFUSED_IN_LINE,
  REFUSED_IN_TEXT,
  TEXT_PATTERN,
} from './schemas.js';

// ajv-formats ships CommonJS whose default export is the plugin.
const addFormats = addFormatsModule as unknown as FormatsPlugin;

/**
 * `allErrors` is off for the validator every request meets first: it stops at the first failing
 * rule, whatever the size of the input. The one that lists every failing field runs only on a
 * refused input small enough that its list, and the time to make it, are bounded (`FULL_CHECK`).
 */
const common: Options = {
  allErrors: false,
  strict: false,
  useDefaults: true,
  removeAdditional: false,
  // Errors carry the value, so a text pattern's failure can name the character it refused.
  verbose: true,
};
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
const bodyOptions: Options = { ...common, coerceTypes: false };
/** Query strings and path params arrive as text: they are coerced. */
const paramOptions: Options = { ...common, coerceTypes: 'array' };
const bodyAjv = withFormats(new Ajv(bodyOptions));
const paramAjv = withFormats(new Ajv(paramOptions));
const bodyAjvAll = withFormats(new Ajv({ ...bodyOptions, allErrors: true }));
const paramAjvAll = withFormats(new Ajv({ ...paramOptions, allErrors: true }));

/** The shared text patterns: what each refuses, and whether it takes blank text. */
const TEXT_RULES: Record<string, { line: boolean; blank: boolean }> = {
  [LINE_PATTERN]: { line: true, blank: false },
  [LINE_OR_EMPTY_PATTERN]: { line: true, blank: true },
  [TEXT_PATTERN]: { line: false, blank: true },
  [NONBLANK_TEXT_PATTERN]: { line: false, blank: false },
};

function codePoint(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * A shared text pattern's failure in words, in place of Ajv's `must match pattern "…"`: the first
 * character refused (as a code point, never echoed), or that the text is blank.
 */
function patternMessage(pattern: string, value: unknown): string | undefined {
  const rule = TEXT_RULES[pattern];
  if (rule === undefined) return undefined;
  const holds = rule.line
    ? 'be one line of text without control or formatting characters'
    : 'hold no control or formatting characters other than line breaks and tabs';
  if (typeof value !== 'string') return rule.blank ? `must ${holds}` : `must not be blank, and ${holds}`;
  const refused = (rule.line ? REFUSED_IN_LINE : REFUSED_IN_TEXT).exec(value);
  if (refused !== null) return `must ${holds}; it holds ${codePoint(refused[0])}`;
  return rule.blank ? `must ${holds}` : 'must not be blank';
}

/** What a value of each format must look like, in place of Ajv's `must match format "…"`. */
const FORMAT_MESSAGES: Record<string, string> = {
  iso4217: 'must be an ISO 4217 currency code in upper case',
  date: 'must be a date (YYYY-MM-DD)',
  'date-time': 'must be an RFC 3339 timestamp (2026-11-21T10:15:00.000Z)',
  email: 'must be an email address',
  uri: 'must be an absolute URL',
};

/**
 * How deeply objects and arrays may nest in a request: far more than any schema takes (three
 * levels), and shallow enough for any code that walks a value recursively.
 */
export const MAX_DEPTH = 32;
/**
 * A refused input gets every failing field listed only when it is no larger than this: values,
 * characters of text (strings and field names), and characters in its longest string. A larger
 * one gets the first errors found. Every valid request of the API is below each bound (a product
 * with every field full holds about 100 values and 80,000 characters; an order of 100 lines, about
 * 400 values), and within them the cost of checking every rule of every value stays small (some
 * formats take time that grows faster than the length of a string).
 */
const FULL_CHECK = { values: 1_000, text: 128 * 1024, longestString: 10_000 };
/** Ajv errors kept at most, before they are grouped by field (a field can fail several rules). */
const MAX_RAW_ERRORS = 4 * MAX_FIELD_ERRORS;

const NUL_IN_VALUE = 'must not contain the NUL character (\\u0000)';
const NUL_IN_NAME = 'must not have a field name containing the NUL character (\\u0000)';
const SURROGATE_IN_VALUE =
  'must be well-formed Unicode: a lone surrogate (U+D800 to U+DFFF) is not a character';
const SURROGATE_IN_NAME =
  'must not have a field name holding a lone surrogate (U+D800 to U+DFFF): it is not a character';
export const TOO_DEEP = `must not nest objects and arrays more than ${MAX_DEPTH} levels deep`;

/** Under the `u` flag a surrogate range matches only a surrogate that is not half of a pair. */
const LONE_SURROGATE = /[\ud800-\udfff]/u;

/** The keyword of the entry that says the list stops short of every failing field. */
const TRUNCATED = 'truncated';

/** Why a string cannot be stored as it was sent, if it cannot. */
function textFault(text: string, inName: boolean): string | undefined {
  if (text.includes('\u0000')) return inName ? NUL_IN_NAME : NUL_IN_VALUE;
  if (LONE_SURROGATE.test(text)) return inName ? SURROGATE_IN_NAME : SURROGATE_IN_VALUE;
  return undefined;
}

function walkError(instancePath: string, keyword: string, message: string): ErrorObject {
  return { instancePath, schemaPath: '', keyword, params: {}, message };
}

/** What `inspect` found in a request part. */
export interface Inspection {
  /** The values in it, objects and arrays included. */
  values: number;
  /** The characters of all its strings and field names. */
  text: number;
  /** The length of its longest string or field name. */
  longestString: number;
  /** Objects and arrays nest past `MAX_DEPTH`: the walk stopped there. */
  tooDeep: boolean;
  /** Strings and field names that no store can hold as sent (at most `MAX_FIELD_ERRORS` + 1). */
  errors: ErrorObject[];
}

interface Frame {
  container: unknown[] | Record<string, unknown>;
  /** The object's own field names; undefined for an array. */
  keys: string[] | undefined;
  /** The index of the child visited last. */
  at: number;
}

function pointerSegment(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The JSON pointer of the child that frame `depth - 1` is visiting. */
function pointerAt(stack: Frame[], depth: number): string {
  let out = '';
  for (let i = 0; i < depth; i++) {
    const frame = stack[i] as Frame;
    out += `/${frame.keys ? pointerSegment(frame.keys[frame.at] as string) : String(frame.at)}`;
  }
  return out;
}

/**
 * One walk of a parsed request part, without recursion (an explicit stack, so no input can
 * exhaust the call stack): its size, its depth (it stops past `MAX_DEPTH`), and every string and
 * field name holding U+0000, which PostgreSQL's text cannot store, or a lone surrogate, which no
 * store can keep as it came (both would store U+FFFD in its place). Allocates a frame per object
 * or array, and nothing per string unless the string is at fault.
 */
export function inspect(value: unknown): Inspection {
  const result: Inspection = { values: 1, text: 0, longestString: 0, tooDeep: false, errors: [] };
  const measure = (text: string) => {
    result.text += text.length;
    if (text.length > result.longestString) result.longestString = text.length;
  };
  const note = (stack: Frame[], depth: number, fault: string) => {
    if (result.errors.length <= MAX_FIELD_ERRORS) {
      result.errors.push(walkError(pointerAt(stack, depth), 'text', fault));
    }
  };
  const stack: Frame[] = [];
  const enter = (child: unknown[] | Record<string, unknown>): boolean => {
    if (stack.length >= MAX_DEPTH) {
      result.tooDeep = true;
      result.errors = [walkError('', 'depth', TOO_DEEP)];
      return false;
    }
    stack.push({ container: child, keys: Array.isArray(child) ? undefined : Object.keys(child), at: -1 });
    return true;
  };
  if (typeof value === 'string') {
    measure(value);
    const fault = textFault(value, false);
    if (fault !== undefined) note(stack, 0, fault);
    return result;
  }
  if (typeof value !== 'object' || value === null) return result;
  enter(value as unknown[] | Record<string, unknown>);
  while (stack.length > 0) {
    const depth = stack.length;
    const frame = stack[depth - 1] as Frame;
    frame.at += 1;
    const { keys, container } = frame;
    if (frame.at >= (keys ? keys.length : (container as unknown[]).length)) {
      stack.pop();
      continue;
    }
    let child: unknown;
    if (keys) {
      const name = keys[frame.at] as string;
      measure(name);
      const fault = textFault(name, true);
      if (fault !== undefined) {
        // Named at the object that holds it: the name itself cannot be shown as it came.
        note(stack, depth - 1, fault);
        continue;
      }
      child = (container as Record<string, unknown>)[name];
    } else {
      child = (container as unknown[])[frame.at];
    }
    result.values += 1;
    if (typeof child === 'string') {
      measure(child);
      const fault = textFault(child, false);
      if (fault !== undefined) note(stack, depth, fault);
    } else if (typeof child === 'object' && child !== null) {
      if (!enter(child as unknown[] | Record<string, unknown>)) return result;
    }
  }
  return result;
}

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** The value a schema error is about: the unknown field itself for `additionalProperties`. */
function failedPointer(error: ErrorObject): string {
  const unknown = error.keyword === 'additionalProperties' ? error.params.additionalProperty : undefined;
  return typeof unknown === 'string'
    ? `${error.instancePath}/${pointerSegment(unknown)}`
    : error.instancePath;
}

/**
 * An Ajv error without the references `verbose` adds (the schema, and the value, which can be the
 * whole body): only a pattern's failing string is kept, to name the character it refused.
 */
function slim({ instancePath, schemaPath, keyword, params, message, data }: ErrorObject): ErrorObject {
  return keyword === 'pattern' && typeof data === 'string'
    ? { instancePath, schemaPath, keyword, params, message, data }
    : { instancePath, schemaPath, keyword, params, message };
}

function truncatedMark(): ErrorObject {
  return walkError('', TRUNCATED, 'more errors were found than are listed');
}

/**
 * Fastify's validator for a route part. Every input is walked once (`inspect`): one nested past
 * `MAX_DEPTH` is refused before its schema sees it. The schema's validator stops at its first
 * error; only a refused input small enough to list briefly is validated again for every failing
 * field. So a refused request costs about one parse and one walk of its input, whatever it holds,
 * and its error list is bounded.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  httpPart === 'body' ? bodyValidators(schema) : partValidators(schema);

/** Validators compiled once per process for each schema (src/http/compiled-schemas.ts). */
const bodyValidators = compiledOncePerSchema((schema) => compileValidator(schema, true));
const partValidators = compiledOncePerSchema((schema) => compileValidator(schema, false));

function compileValidator(schema: unknown, body: boolean): Validate {
  const schemaValidator = onFirstUse(() => (body ? bodyAjv : paramAjv).compile(schema as object));
  let listing: Validate | undefined;
  const checked = ((data: unknown) => {
    const found = inspect(data);
    if (found.tooDeep) {
      checked.errors = found.errors;
      return false;
    }
    const validate = schemaValidator();
    const valid = validate(data) === true;
    if (valid && found.errors.length === 0) {
      checked.errors = null;
      return true;
    }
    let schemaErrors = validate.errors ?? [];
    let complete = valid;
    const small =
      found.values <= FULL_CHECK.values &&
      found.text <= FULL_CHECK.text &&
      found.longestString <= FULL_CHECK.longestString;
    if (!valid && small) {
      listing ??= (body ? bodyAjvAll : paramAjvAll).compile(schema as object);
      listing(data);
      schemaErrors = listing.errors ?? [];
      complete = true;
    }
    // A field its schema already refuses (a pattern without control characters, say) is named once.
    const failed = new Set(schemaErrors.map(failedPointer));
    const errors = [...schemaErrors, ...found.errors.filter((e) => !failed.has(e.instancePath))];
    complete &&= found.errors.length <= MAX_FIELD_ERRORS && errors.length <= MAX_RAW_ERRORS;
    const kept = errors.slice(0, MAX_RAW_ERRORS).map(slim);
    checked.errors = complete ? kept : [...kept, truncatedMark()];
    return false;
  }) as Validate;
  return checked;
}

/** A field named in a problem is cut to this many characters (a field name can be long). */
const MAX_FIELD_LENGTH = 200;

function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath
    .split('/')
    .filter(Boolean)
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (extra !== undefined) parts.push(extra);
  let out = '';
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out === '' ? part : `.${part}`;
  if (out.length <= MAX_FIELD_LENGTH) return out;
  // Cut between characters, not inside a surrogate pair.
  let end = MAX_FIELD_LENGTH - 1;
  const last = out.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${out.slice(0, end)}…`;
}

function isNullBranch(error: Partial<ErrorObject>): boolean {
  return error.keyword === 'type' && (error.params as { type?: unknown } | undefined)?.type === 'null';
}

/** Ajv's errors as the problem's `errors` list of `{field, message}`, one per failing field and rule. */
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
    if (error.keyword === TRUNCATED) continue;
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
      if (error.keyword === 'pattern')
        message = patternMessage(String(params.pattern), error.data) ?? message;
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

/** The `400 validation_failed` for a validator's errors, saying so when the list stops short. */
export function validationProblem(
  errors: readonly Partial<ErrorObject>[],
  part: string | undefined,
): AppError {
  return validationFailed(toFieldErrors(errors, part), {
    truncated: errors.some((e) => e.keyword === TRUNCATED),
  });
}
