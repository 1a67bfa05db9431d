/**
 * The finished document's schemas in plain JSON Schema 2020-12, as linters, generators and the
 * reference at `/docs` read them. The routes' own schemas (which validate requests with Ajv) stay as
 * they are; the document's copies change in two ways that keep the values they describe:
 *
 * - Ajv's own keywords are left out: ajv-formats' bounds on dates (`formatMinimum`, ...) are no JSON
 *   Schema, and a linter refuses them. The route still checks the bound, and its description says it.
 * - Every union has a `type`. TypeBox writes a nullable field as `anyOf: [{type: 'string'}, {type:
 *   'null'}]` and a set of literals as one branch per literal; Scalar's reference takes a schema
 *   without `type` for a broken one (a warning per object holding one). So a nullable value whose
 *   other branch has a plain type becomes that type or `null` (`type: ['string', 'null']`, its
 *   keywords kept: they only bind values of their type, and an `enum` gains `null`); literals of
 *   one type become one `enum`; any other union (a referenced object or `null`) keeps its branches
 *   and gains the types they allow.
 */

type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** ajv-formats' bounds on `date`, `time` and `date-time` values: Ajv keywords, not JSON Schema. */
const AJV_ONLY = new Set([
  'formatMinimum',
  'formatMaximum',
  'formatExclusiveMinimum',
  'formatExclusiveMaximum',
]);
/** Keywords whose value is a schema, a list of schemas, or a map of names to schemas. */
const SUBSCHEMA = new Set([
  'items',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
]);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs']);
/**
 * Keywords that bind a value of any type: a branch holding one of these cannot lend its keywords
 * to `null` (`enum` and `const` can, with `null` added to the values).
 */
const BINDS_ANY_TYPE = new Set(['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', '$ref']);

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const isNull = (branch: Schema) => Object.keys(branch).length === 1 && branch.type === 'null';
/** One type as itself, several as a list. */
function typeList(types: string[]): string | string[] {
  const [only, ...more] = types;
  return only !== undefined && more.length === 0 ? only : types;
}

/** `S or null`, when S has one plain type and keywords that bind only values of that type. */
function nullable(outer: Schema, branches: Schema[]): Schema | undefined {
  const [first, second] = branches;
  if (branches.length !== 2 || first === undefined || second === undefined) return undefined;
  const value = isNull(first) ? second : isNull(second) ? first : undefined;
  if (value === undefined || typeof value.type !== 'string' || value.type === 'null') return undefined;
  const { type, enum: values, const: constant, ...keywords } = value;
  if (Object.keys(keywords).some((key) => BINDS_ANY_TYPE.has(key))) return undefined;
  // Keywords on both the union and the branch must agree.
  if (Object.entries(keywords).some(([key, v]) => key in outer && !same(outer[key], v))) return undefined;
  if ('enum' in outer || 'const' in outer) return undefined;
  const allowed = Array.isArray(values) ? values : 'const' in value ? [constant] : undefined;
  return {
    type: [type, 'null'],
    ...keywords,
    ...outer,
    ...(allowed === undefined ? {} : { enum: allowed.includes(null) ? allowed : [...allowed, null] }),
  };
}

/** Literals of one type (and maybe `null`), one per branch: one `enum`. */
function literals(outer: Schema, branches: Schema[]): Schema | undefined {
  if ('enum' in outer || 'const' in outer) return undefined;
  const values: unknown[] = [];
  const types = new Set<string>();
  for (const branch of branches) {
    if (isNull(branch)) {
      values.push(null);
      types.add('null');
      continue;
    }
    const keys = Object.keys(branch).sort().join(',');
    if (typeof branch.type !== 'string' || (keys !== 'const,type' && keys !== 'enum,type')) return undefined;
    values.push(...(Array.isArray(branch.enum) ? branch.enum : [branch.const]));
    types.add(branch.type);
  }
  const [type, ...others] = [...types].filter((t) => t !== 'null');
  if (type === undefined || others.length > 0) return undefined;
  return { type: typeList(types.has('null') ? [type, 'null'] : [type]), enum: values, ...outer };
}

/** The types a branch allows, or undefined when it does not say (`typeOf` reads a `$ref`'s). */
function typesOf(branch: Schema, typeOf: (ref: string) => unknown): string[] | undefined {
  const type = typeof branch.$ref === 'string' ? typeOf(branch.$ref) : branch.type;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type) && type.every((t) => typeof t === 'string')) return type as string[];
  return undefined;
}

/** A union (`anyOf` or `oneOf`) with a `type`; any other schema as it is. */
function typedUnion(schema: Schema, typeOf: (ref: string) => unknown): Schema {
  const key = Array.isArray(schema.anyOf) ? 'anyOf' : Array.isArray(schema.oneOf) ? 'oneOf' : undefined;
  if (key === undefined || schema.type !== undefined) return schema;
  const { [key]: list, ...outer } = schema;
  const branches = (list as unknown[]).filter(isSchema);
  if (branches.length !== (list as unknown[]).length) return schema;
  // TypeBox writes `anyOf`; a `oneOf` (one branch exactly) keeps its branches.
  const plain = key === 'anyOf' ? (nullable(outer, branches) ?? literals(outer, branches)) : undefined;
  if (plain !== undefined) return plain;
  const types: string[] = [];
  for (const branch of branches) {
    const allowed = typesOf(branch, typeOf);
    if (allowed === undefined) return schema;
    for (const type of allowed) if (!types.includes(type)) types.push(type);
  }
  return { type: typeList(types), ...schema };
}

/** A standard copy of `schema` and its subschemas (the schema objects given are left untouched). */
export function standardSchema(schema: Schema, typeOf: (ref: string) => unknown = () => undefined): Schema {
  const copy = (value: unknown) => (isSchema(value) ? standardSchema(value, typeOf) : value);
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (AJV_ONLY.has(key)) continue;
    if (SUBSCHEMA.has(key)) out[key] = copy(value);
    else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) out[key] = value.map(copy);
    else if (SCHEMA_MAPS.has(key) && isSchema(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, copy(sub)]));
    } else out[key] = value;
  }
  return typedUnion(out, typeOf);
}

/** Each schema of a Parameter, Header or Media Type object under `holders`, made standard. */
function eachSchema(holders: unknown, standard: (schema: Schema) => Schema): void {
  if (!isSchema(holders)) return;
  for (const holder of Object.values(holders)) {
    if (isSchema(holder) && isSchema(holder.schema)) holder.schema = standard(holder.schema);
  }
}

/** An operation's parameters, body and answers (their content and headers). */
function standardOperation(operation: Schema, standard: (schema: Schema) => Schema): void {
  if (Array.isArray(operation.parameters)) eachSchema({ ...operation.parameters }, standard);
  if (isSchema(operation.requestBody)) eachSchema(operation.requestBody.content, standard);
  if (!isSchema(operation.responses)) return;
  for (const response of Object.values(operation.responses)) {
    if (!isSchema(response)) continue;
    eachSchema(response.content, standard);
    eachSchema(response.headers, standard);
  }
}

/**
 * The finished document with every schema standard (see above): components, and the parameters,
 * bodies, answers and headers of the paths and of the webhooks.
 */
export function withStandardSchemas<T extends Schema>(document: T): T {
  const components = isSchema(document.components) ? document.components : {};
  const schemas = isSchema(components.schemas) ? components.schemas : {};
  const prefix = '#/components/schemas/';
  const typeOf = (ref: string) =>
    ref.startsWith(prefix) ? (schemas[ref.slice(prefix.length)] as Schema | undefined)?.type : undefined;
  const standard = (schema: Schema) => standardSchema(schema, typeOf);
  for (const [name, schema] of Object.entries(schemas))
    if (isSchema(schema)) schemas[name] = standard(schema);
  eachSchema(components.parameters, standard);
  eachSchema(components.headers, standard);
  for (const section of [document.paths, document.webhooks]) {
    if (!isSchema(section)) continue;
    for (const item of Object.values(section)) {
      if (!isSchema(item)) continue;
      for (const [key, operation] of Object.entries(item)) {
        if (key === 'parameters' && Array.isArray(operation)) eachSchema({ ...operation }, standard);
        else if (isSchema(operation)) standardOperation(operation, standard);
      }
    }
  }
  return document;
}
