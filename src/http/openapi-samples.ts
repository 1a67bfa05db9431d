import { clientName, singular } from './operation-names.js';

/**
 * The reference's code samples (`x-codeSamples`, which the docs page shows beside each operation):
 * the call of the TypeScript client (clients/typescript) for the operation, with its path
 * parameters as placeholders, its body from the body schema's example (or its required fields),
 * and its required query parameters and those with an example. A list is iterated with
 * `for await`, which follows every page.
 */

type Schema = Record<string, unknown>;

export interface SampleOperation {
  method: string;
  /** The route's URL (`/v1/products/:id`). */
  url: string;
  operationId: string;
  /** The route's schema (params, querystring, body, response, tags). */
  schema: Schema;
}

export interface CodeSample {
  lang: 'TypeScript';
  label: 'TypeScript client';
  source: string;
}

const IMPORT = "import { CommerceClient } from '@commerce-platform/client';";
const CLIENT = 'const commerce = new CommerceClient(); // COMMERCE_API_KEY, COMMERCE_API_URL';

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function propertiesOf(schema: unknown): Schema {
  return isSchema(schema) && isSchema(schema.properties) ? schema.properties : {};
}

function firstExample(schema: Schema): { value: unknown } | undefined {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return { value: schema.examples[0] };
  if ('example' in schema) return { value: schema.example };
  return undefined;
}

/** A value of `schema`'s type: its example, else its first enum value, default, or a plain value. */
function sampleValue(schema: unknown, depth = 0): unknown {
  if (!isSchema(schema) || depth > 8) return null;
  const example = firstExample(schema);
  if (example) return example.value;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const members = [schema.anyOf, schema.oneOf].find(Array.isArray) as unknown[] | undefined;
  if (members) {
    const member = members.find((m) => isSchema(m) && m.type !== 'null') ?? members[0];
    return sampleValue(member, depth + 1);
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return requiredFields(schema, depth);
    case 'array':
      return typeof schema.minItems === 'number' && schema.minItems > 0
        ? [sampleValue(schema.items, depth + 1)]
        : [];
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? Math.max(schema.minimum, 1) : 1;
    case 'boolean':
      return true;
    case 'string':
      return schema.format === 'email' ? 'ann@example.com' : 'string';
    default:
      return null;
  }
}

function requiredFields(schema: Schema, depth: number): Schema {
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  const properties = propertiesOf(schema);
  return Object.fromEntries(required.map((name) => [name, sampleValue(properties[name], depth + 1)]));
}

/** A value as TypeScript source: single quotes, bare keys where they are identifiers. */
export function literal(value: unknown, indent = ''): string {
  if (typeof value === 'string')
    return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
  if (value === null || typeof value !== 'object') return String(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((item) => literal(item, inner));
    const flat = `[${items.join(', ')}]`;
    return flat.length <= 60 && !flat.includes('\n')
      ? flat
      : `[\n${items.map((i) => `${inner}${i},`).join('\n')}\n${indent}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const fields = entries.map(
    ([key, item]) => `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : literal(key)}: ${literal(item, inner)}`,
  );
  const flat = `{ ${fields.join(', ')} }`;
  return flat.length <= 60 && !flat.includes('\n')
    ? flat
    : `{\n${fields.map((f) => `${inner}${f},`).join('\n')}\n${indent}}`;
}

/** `Deliveries` -> `delivery`, `Products` -> `product`. */
function singularWord(word: string): string {
  const lower = word.charAt(0).toLowerCase() + word.slice(1);
  if (/ies$/.test(lower)) return lower.replace(/ies$/, 'y');
  if (/(ss|x|ch|sh)es$/.test(lower)) return lower.replace(/es$/, '');
  return lower.replace(/s$/, '');
}

/** Words a variable cannot be named. */
const RESERVED = new Set([
  'import',
  'export',
  'delete',
  'default',
  'new',
  'package',
  'interface',
  'in',
  'case',
  'return',
]);

function variableName(word: string): string {
  const name = word.charAt(0).toLowerCase() + word.slice(1);
  return RESERVED.has(name) ? `${name}Result` : name;
}

/** The placeholder of a path parameter: `PRODUCT_ID` for the `:id` after `/products`, `VARIANT_ID`. */
function placeholder(url: string, name: string): string {
  if (name !== 'id') return `'${name.toUpperCase()}'`;
  const segments = url.split('/');
  const before = segments[segments.indexOf(':id') - 1] ?? 'object';
  return `'${singular(before).replace(/-/g, '_').toUpperCase()}_ID'`;
}

function isPaged(schema: Schema): boolean {
  const response = isSchema(schema.response) ? schema.response : {};
  const success = Object.keys(response).find((status) => /^2\d\d$/.test(status));
  let body = success === undefined ? undefined : response[success];
  // A response with several media types (`content`): its JSON one.
  if (isSchema(body) && isSchema(body.content)) {
    const json = body.content['application/json'];
    body = isSchema(json) ? json.schema : undefined;
  }
  const properties = propertiesOf(body);
  return 'data' in properties && 'next_cursor' in properties;
}

function isJsonBody(schema: Schema): boolean {
  const consumes = Array.isArray(schema.consumes) ? schema.consumes.map(String) : [];
  return consumes.length === 0 || consumes.some((type) => /json/.test(type) && !/ndjson/.test(type));
}

/**
 * The body argument: the body's example, or its required fields; a body that requires nothing shows
 * its first field that has an example (`{ carrier: 'UPS' }`), or is left out.
 */
function bodyArgument(body: Schema): string | undefined {
  const value = sampleValue(body);
  if (!isSchema(value) || Object.keys(value).length > 0) return literal(value);
  const shown = Object.entries(propertiesOf(body)).find(
    ([, property]) => isSchema(property) && firstExample(property) !== undefined,
  );
  return shown === undefined ? undefined : literal({ [shown[0]]: sampleValue(shown[1]) });
}

/** The `x-codeSamples` of one operation: the TypeScript client's call of it. */
export function codeSamples(operation: SampleOperation): CodeSample[] {
  const { schema, url, operationId } = operation;
  const tag = Array.isArray(schema.tags) ? String(schema.tags[0] ?? '') : '';
  const { namespace, method } = clientName(url, operationId, tag);
  const lines = [IMPORT];
  const args: (string | undefined)[] = [...url.matchAll(/:(\w+)/g)].map((match) =>
    placeholder(url, match[1] as string),
  );

  if (isSchema(schema.body)) {
    if (!isJsonBody(schema)) {
      lines[0] = `import { readFile } from 'node:fs/promises';\n${IMPORT}`;
      args.push('file');
    } else {
      args.push(bodyArgument(schema.body));
    }
  }
  const query = isSchema(schema.querystring) ? schema.querystring : {};
  const required = Array.isArray(query.required) ? query.required.map(String) : [];
  const shown = Object.entries(propertiesOf(query)).filter(
    ([name, property]) =>
      required.includes(name) || (isSchema(property) && firstExample(property) !== undefined),
  );
  if (shown.length > 0) {
    args.push(literal(Object.fromEntries(shown.map(([name, property]) => [name, sampleValue(property)]))));
  }
  while (args.length > 0 && args[args.length - 1] === undefined) args.pop();
  const written = args.map((arg) => arg ?? 'undefined');
  const oneLine = `commerce.${namespace}.${method}(${written.join(', ')})`;
  // A call too long for one line puts each argument on its own.
  const call =
    oneLine.length <= 80 || written.length < 2
      ? oneLine
      : `commerce.${namespace}.${method}(\n${written.map((arg) => `  ${arg.replace(/\n/g, '\n  ')},`).join('\n')}\n)`;

  lines.push('', CLIENT);
  if (args.includes('file')) lines.push("const file = await readFile('products.csv', 'utf8');");
  const last = operationId.match(/[A-Z][a-z0-9]*$/)?.[0] ?? 'Result';
  const paged = isPaged(schema);
  const noun = variableName(paged ? singularWord(last) : last);
  const response = isSchema(schema.response) ? schema.response : {};
  if (paged) {
    lines.push(`for await (const ${noun} of ${call}) {`, `  console.log(${noun});`, '}');
  } else if ('204' in response) {
    lines.push(`await ${call};`);
  } else {
    lines.push(`const ${noun} = await ${call};`, `console.log(${noun});`);
  }
  return [{ lang: 'TypeScript', label: 'TypeScript client', source: lines.join('\n') }];
}

/** The route's schema with its code samples, for the document's `transform`. */
export function withCodeSamples(method: string, url: string, schema: Schema | undefined): Schema | undefined {
  if (schema === undefined || typeof schema.operationId !== 'string') return schema;
  return {
    ...schema,
    'x-codeSamples': codeSamples({ method, url, operationId: schema.operationId, schema }),
  };
}
