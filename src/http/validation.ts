import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldError } from './errors.js';

// ajv-formats ships CommonJS whose default export is the plugin function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const common: Options = { allErrors: true, strict: false, useDefaults: true, removeAdditional: false };

/** Bodies: never coerced, unknown fields rejected by the schemas (`additionalProperties: false`). */
const bodyAjv = addFormats(new Ajv({ ...common, coerceTypes: false }));
/** Query strings and path params arrive as text: they are coerced. */
const paramAjv = addFormats(new Ajv({ ...common, coerceTypes: 'array' }));

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : paramAjv;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};

function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (extra !== undefined) parts.push(extra);
  let out = '';
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out === '' ? part : `.${part}`;
  return out;
}

/** Ajv's errors as the contract's `{field, message}` list, one entry per failing field and rule. */
export function toFieldErrors(
  errors: readonly Partial<ErrorObject>[],
  part: string | undefined,
): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
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
    }
    if (field === '') field = part === 'body' ? 'body' : (part ?? 'request');
    const id = `${field}\u0000${message}`;
    // anyOf/union failures repeat themselves per branch; one line per distinct problem is enough.
    if (error.keyword === 'anyOf' || seen.has(id)) continue;
    seen.add(id);
    out.push({ field, message });
  }
  return out;
}
