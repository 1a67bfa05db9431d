import { STATUS_CODES } from 'node:http';
import type { TSchema } from 'typebox';
import { ProblemSchema } from './schemas.js';

/**
 * The OpenAPI document's shared objects: each schema listed here is declared once under
 * `components/schemas` by its name and referenced with `$ref` wherever a route's body or response,
 * another component or the webhooks section holds it, so generators name its type and readers
 * find it once. Only the document changes: every route still validates and serializes with its
 * own TypeBox schemas, so no answer changes by a byte.
 *
 * A schema is known by its content, not by the object (`Type.Optional` copies the schema it wraps,
 * and `EnvelopeSchema` makes a new object per call): a subschema equal to a listed one, key for
 * key, is referenced. A response whose schema is a listed one but for its own `description` (the
 * response's) and `examples` (that response's own, beside the component's) is referenced too.
 */

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON with every object's keys sorted: equal for schemas equal key for key. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    isObject(item)
      ? Object.fromEntries(
          Object.keys(item)
            .sort()
            .map((key) => [key, item[key]]),
        )
      : item,
  );
}

/** A cheap first test (the property names), before the whole content is compared. */
function signature(schema: Schema): string | undefined {
  return schema.type === 'object' && isObject(schema.properties)
    ? Object.keys(schema.properties).sort().join(',')
    : undefined;
}

/** A schema without its own `description` and `examples` (a response's, when it is its root). */
export function bare(schema: Schema): Schema {
  const { description: _description, examples: _examples, ...rest } = schema;
  return rest;
}

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** Keywords whose value is a schema or a list of schemas, and those whose value maps names to schemas. */
const SUBSCHEMAS = new Set([
  'items',
  'prefixItems',
  'additionalProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'allOf',
  'anyOf',
  'oneOf',
]);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs']);

/** The document's components and the functions that refer to them. */
export interface Components {
  /** The names of the shared objects, as `components/schemas` lists them. */
  names: readonly string[];
  withComponents(schema: Schema | undefined): Schema | undefined;
  componentSchemas(): Record<string, Schema>;
  withComponentRefs(items: Record<string, Record<string, unknown>>): Record<string, Record<string, unknown>>;
}

type ComponentIndex = Map<string, { whole: Map<string, string>; bare: Map<string, string> }>;

/** The components by property names, then by content: whole, and bare. */
function indexComponents(shared: Readonly<Record<string, TSchema>>): ComponentIndex {
  const known: ComponentIndex = new Map();
  for (const [name, schema] of Object.entries(shared)) {
    const key = signature(schema as Schema);
    if (key === undefined) throw new Error(`component ${name} is not an object schema`);
    const entry = known.get(key) ?? { whole: new Map<string, string>(), bare: new Map<string, string>() };
    for (const [byContent, content] of [
      [entry.whole, canonical(schema)],
      [entry.bare, canonical(bare(schema as Schema))],
    ] as const) {
      const other = byContent.get(content);
      if (other !== undefined) throw new Error(`components ${other} and ${name} are the same schema`);
      byContent.set(content, name);
    }
    known.set(key, entry);
  }
  return known;
}

/**
 * The components of a document: the problem, then what the modules declare (their manifests'
 * `components`), by name.
 */
export function createComponents(declared: Readonly<Record<string, TSchema>>): Components {
  const shared: Readonly<Record<string, TSchema>> = { Problem: ProblemSchema, ...declared };
  /** Made with the document, not with the app: an app never asked for it does not pay for it. */
  let index: ComponentIndex | undefined;
  function known(): ComponentIndex {
    index ??= indexComponents(shared);
    return index;
  }

  /** The component a schema is (`bare`: but for its own description and examples), if it is one. */
  function componentOf(schema: Schema, how: 'whole' | 'bare' = 'whole'): string | undefined {
    const key = signature(schema);
    const entry = key === undefined ? undefined : known().get(key);
    if (entry === undefined) return undefined;
    return how === 'whole' ? entry.whole.get(canonical(schema)) : entry.bare.get(canonical(bare(schema)));
  }

  /** A copy of the schema whose subschemas that are components are references (itself is kept). */
  function referInside(schema: Schema): Schema {
    const out: Schema = {};
    for (const [key, value] of Object.entries(schema)) {
      if (SUBSCHEMAS.has(key)) {
        out[key] = Array.isArray(value) ? value.map(refer) : refer(value);
      } else if (SCHEMA_MAPS.has(key) && isObject(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, refer(sub)]));
      } else {
        out[key] = value;
      }
    }
    return out;
  }

  /** A reference when the schema is a component, else a copy with its components referenced. */
  function refer(schema: unknown): unknown {
    if (!isObject(schema)) return schema;
    const name = componentOf(schema);
    return name === undefined ? referInside(schema) : ref(name);
  }

  /** Each media type's schema of a `content` map, referenced. */
  function referContent(content: Schema): Schema {
    return Object.fromEntries(
      Object.entries(content).map(([type, media]) => [
        type,
        isObject(media) ? { ...media, schema: refer(media.schema) } : media,
      ]),
    );
  }

  /**
   * A route's response: in the content form when its schema is a component (its description is the
   * response's, its own examples the media type's), else with the components inside referenced.
   */
  function referResponse(status: string, response: unknown): unknown {
    if (!isObject(response)) return response;
    if (isObject(response.content)) return { ...response, content: referContent(response.content) };
    const { description, headers, ...body } = response;
    const name = componentOf(body, 'bare');
    if (name === undefined) return referInside(response);
    // Examples of its own, not those it took from the component with a spread.
    const own =
      canonical(body.examples) === canonical((shared[name] as Schema | undefined)?.examples)
        ? undefined
        : body.examples;
    const media: Schema = { schema: ref(name) };
    if (Array.isArray(own) && own.length === 1) media.example = own[0];
    else if (Array.isArray(own) && own.length > 1) {
      media.examples = Object.fromEntries(own.map((value, i) => [`example${i + 1}`, { value }]));
    }
    return {
      description: typeof description === 'string' ? description : (STATUS_CODES[Number(status)] ?? status),
      ...(headers === undefined ? {} : { headers }),
      content: { 'application/json': media },
    };
  }

  /** The document's copy of a route's schema: the shared objects of its body and responses referenced. */
  function withComponents(schema: Schema | undefined): Schema | undefined {
    if (schema === undefined) return schema;
    const out: Schema = { ...schema };
    if (isObject(schema.body)) {
      out.body = isObject(schema.body.content)
        ? { ...schema.body, content: referContent(schema.body.content) }
        : referInside(schema.body);
    }
    if (isObject(schema.response)) {
      out.response = Object.fromEntries(
        Object.entries(schema.response).map(([status, response]) => [
          status,
          referResponse(status, response),
        ]),
      );
    }
    return out;
  }

  /** The `components/schemas` section: every shared object, with the others it holds referenced. */
  function componentSchemas(): Record<string, Schema> {
    return Object.fromEntries(
      Object.entries(shared).map(([name, schema]) => [name, referInside(schema as Schema)]),
    );
  }

  /** Operations (the webhooks section) with the shared objects of their request bodies referenced. */
  function withComponentRefs(
    items: Record<string, Record<string, unknown>>,
  ): Record<string, Record<string, unknown>> {
    return Object.fromEntries(
      Object.entries(items).map(([name, item]) => [
        name,
        Object.fromEntries(
          Object.entries(item).map(([method, operation]) => {
            const body = isObject(operation) ? operation.requestBody : undefined;
            if (!isObject(operation) || !isObject(body) || !isObject(body.content))
              return [method, operation];
            return [method, { ...operation, requestBody: { ...body, content: referContent(body.content) } }];
          }),
        ),
      ]),
    );
  }

  return { names: Object.keys(shared), withComponents, componentSchemas, withComponentRefs };
}
