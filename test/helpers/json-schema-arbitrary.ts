import fc from 'fast-check';

/**
 * fast-check arbitraries from the JSON Schema subset our OpenAPI document uses (TypeBox output):
 * type (incl. arrays of types), const, enum, anyOf/oneOf, properties/required/additionalProperties,
 * propertyNames, min/maxProperties, items, min/maxItems, uniqueItems, min/maxLength, pattern,
 * format (date-time, date, email, uri, iso4217), minimum/maximum/exclusive bounds. Anything else is ignored
 * (the caller checks generated values with Ajv). Written here because the only fast-check
 * JSON-Schema library on npm (json-schema-fast-check 0.0.6) targets fast-check 1 and is not
 * maintained; json-schema-faker draws from its own random source, so fast-check could neither
 * replay nor shrink its values.
 */

export type Schema = Record<string, unknown>;

/** Strings are kept short: long values test nothing more and slow every request down. */
const STRING_SPAN = 24;
const ARRAY_SPAN = 4;

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function types(schema: Schema): string[] {
  const type = schema.type;
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  if (typeof type === 'string') return [type];
  if (schema.properties || schema.additionalProperties !== undefined) return ['object'];
  if (schema.items) return ['array'];
  return [];
}

function lengthBounds(schema: Schema): { min: number; max: number } {
  const min = num(schema.minLength) ?? 0;
  const max = Math.min(num(schema.maxLength) ?? min + STRING_SPAN, min + STRING_SPAN);
  return { min, max };
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const { min, max } = lengthBounds(schema);
  const declaredMax = num(schema.maxLength) ?? Number.POSITIVE_INFINITY;
  const fits = (s: string) => s.length >= min && s.length <= declaredMax;
  switch (schema.format) {
    case 'date-time':
      return fc
        .date({
          min: new Date('2020-01-01T00:00:00Z'),
          max: new Date('2030-12-31T23:59:59Z'),
          noInvalidDate: true,
        })
        .map((d) => d.toISOString());
    case 'date':
      return fc
        .date({
          min: new Date('2020-01-01T00:00:00Z'),
          max: new Date('2030-12-31T00:00:00Z'),
          noInvalidDate: true,
        })
        .map((d) => d.toISOString().slice(0, 10));
    case 'iso4217':
      return fc.constantFrom('USD', 'EUR', 'GBP', 'JPY', 'CHF');
    case 'email':
      return fc
        .tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,11}$/), fc.stringMatching(/^[a-z]{2,10}$/))
        .map(([local, domain]) => `${local}@${domain}.example.com`)
        .filter(fits);
    case 'uri':
      return fc
        .tuple(
          fc.constantFrom('https', 'http'),
          fc.stringMatching(/^[a-z]{1,12}$/),
          fc.stringMatching(/^[a-z0-9/]{0,16}$/),
        )
        .map(([scheme, host, path]) => `${scheme}://${host}.example.com/${path}`)
        .filter(fits);
    default:
      break;
  }
  if (typeof schema.pattern === 'string') {
    return fc.stringMatching(new RegExp(schema.pattern, 'u')).filter(fits);
  }
  return fc.string({ minLength: min, maxLength: max, unit: 'grapheme-ascii' });
}

function integerBounds(schema: Schema): { min: number; max: number } {
  let min = num(schema.minimum) ?? -1_000_000;
  let max = num(schema.maximum) ?? 1_000_000_000;
  const exclusiveMin = num(schema.exclusiveMinimum);
  const exclusiveMax = num(schema.exclusiveMaximum);
  if (exclusiveMin !== undefined) min = Math.max(min, Math.floor(exclusiveMin) + 1);
  if (exclusiveMax !== undefined) max = Math.min(max, Math.ceil(exclusiveMax) - 1);
  return { min: Math.ceil(min), max: Math.floor(max) };
}

function objectArbitrary(schema: Schema): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const minProperties = num(schema.minProperties) ?? 0;
  const names = Object.keys(properties);
  if (names.length === 0 && schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    // A map (metadata, attributes): keys from propertyNames, values from additionalProperties.
    const keys = stringArbitrary({
      minLength: 1,
      maxLength: 12,
      ...((schema.propertyNames ?? {}) as Schema),
    });
    const maxKeys = Math.min(num(schema.maxProperties) ?? ARRAY_SPAN, ARRAY_SPAN);
    return fc.dictionary(keys, valueArbitrary(schema.additionalProperties as Schema), {
      minKeys: minProperties,
      maxKeys: Math.max(minProperties, maxKeys),
    });
  }
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) record[name] = valueArbitrary(properties[name] ?? {});
  return fc
    .record(record, { requiredKeys: names.filter((name) => required.has(name)) })
    .filter((value) => Object.keys(value).length >= minProperties) as fc.Arbitrary<Record<string, unknown>>;
}

/** Values the schema accepts (or nearly always: the caller filters with Ajv). */
export function valueArbitrary(schema: Schema): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(alternatives) && alternatives.length > 0) {
    return fc.oneof(...alternatives.map((alternative) => valueArbitrary({ ...alternative })));
  }
  const list = types(schema);
  if (list.length > 1) return fc.oneof(...list.map((type) => valueArbitrary({ ...schema, type })));
  switch (list[0]) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer': {
      const { min, max } = integerBounds(schema);
      return fc.integer({ min, max });
    }
    case 'number': {
      const { min, max } = integerBounds(schema);
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = valueArbitrary((schema.items ?? {}) as Schema);
      const minLength = num(schema.minItems) ?? 0;
      const maxLength = Math.min(num(schema.maxItems) ?? minLength + ARRAY_SPAN, minLength + ARRAY_SPAN);
      return schema.uniqueItems
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(items, { minLength, maxLength });
    }
    case 'object':
      return objectArbitrary(schema);
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

/** A value of another JSON type than the schema allows (when it allows only some). */
function wrongType(schema: Schema): unknown[] {
  const allowed = new Set(types(schema));
  if (allowed.has('integer')) allowed.add('number');
  const samples: [string, unknown][] = [
    ['string', 'not-a-number-or-object'],
    ['number', 12.5],
    ['integer', 7],
    ['boolean', true],
    ['null', null],
    ['array', [1, 'two']],
    ['object', { nested: true }],
  ];
  if (allowed.size === 0) return [];
  return samples.filter(([type]) => !allowed.has(type)).map(([, value]) => value);
}

/**
 * Ways to break one value against its schema: a wrong type, a bound overstepped, a pattern or
 * enum missed, a required property dropped, an unknown property added. Each candidate still needs
 * checking (the caller keeps those Ajv rejects).
 */
export function violations(schema: Schema, value: unknown): unknown[] {
  const out: unknown[] = [...wrongType(schema)];
  if (Array.isArray(schema.enum)) out.push('__not_in_enum__');
  if ('const' in schema) out.push('__not_the_const__');
  const minLength = num(schema.minLength);
  const maxLength = num(schema.maxLength);
  if (minLength !== undefined && minLength > 0) out.push('');
  if (maxLength !== undefined) out.push('x'.repeat(maxLength + 1));
  if (typeof schema.pattern === 'string' || typeof schema.format === 'string') out.push(' !?* not valid ');
  const minimum = num(schema.minimum) ?? num(schema.exclusiveMinimum);
  const maximum = num(schema.maximum) ?? num(schema.exclusiveMaximum);
  if (minimum !== undefined) out.push(Math.floor(minimum) - 1);
  if (maximum !== undefined) out.push(Math.ceil(maximum) + 1);
  if (types(schema).includes('integer')) out.push(1.5);
  const maxItems = num(schema.maxItems);
  if (maxItems !== undefined && Array.isArray(value)) {
    out.push([...value, ...Array.from({ length: maxItems + 1 - value.length }, () => value[0] ?? 1)]);
  }
  if (num(schema.minItems) !== undefined && (num(schema.minItems) ?? 0) > 0) out.push([]);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    if (schema.additionalProperties === false) out.push({ ...object, unexpected_field: 1 });
    for (const name of Array.isArray(schema.required) ? (schema.required as string[]) : []) {
      const { [name]: _dropped, ...rest } = object;
      out.push(rest);
    }
    for (const [name, property] of Object.entries(properties)) {
      for (const broken of violations(property, object[name]).slice(0, 4))
        out.push({ ...object, [name]: broken });
    }
  }
  return out;
}
