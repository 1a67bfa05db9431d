import { resolveRef } from './operations.js';

/**
 * The generated file of the document's enums as values (`clients/typescript/src/generated/enums.ts`):
 * openapi-typescript writes them as types only, and code that lists the choices (a form's
 * permissions, event types or categories) needs them at run time. Read from the document, so the
 * server's lists stay their one source: by schema and property (an array's items' enum under the
 * array's name), and for request bodies written inline, by operation.
 */

type Node = Record<string, unknown>;
type Enums = Record<string, Record<string, string[]>>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A property's enum of strings, or its items' (an array of them); undefined for anything else. */
function enumOf(property: unknown): string[] | undefined {
  if (!isNode(property)) return undefined;
  const values = property.type === 'array' && isNode(property.items) ? property.items.enum : property.enum;
  return Array.isArray(values) && values.length > 0 && values.every((v) => typeof v === 'string')
    ? (values as string[])
    : undefined;
}

/** The enums of an object schema's own properties, by property, in the schema's order. */
function propertyEnums(schema: Node | undefined): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  const properties = isNode(schema?.properties) ? schema.properties : {};
  for (const [name, property] of Object.entries(properties)) {
    const values = enumOf(property);
    if (values) found[name] = values;
  }
  return found;
}

function schemaEnums(document: Node): Enums {
  const components = isNode(document.components) ? document.components : {};
  const schemas = isNode(components.schemas) ? components.schemas : {};
  const enums: Enums = {};
  for (const name of Object.keys(schemas).sort()) {
    const found = propertyEnums(isNode(schemas[name]) ? schemas[name] : undefined);
    if (Object.keys(found).length > 0) enums[name] = found;
  }
  return enums;
}

/** Request bodies (JSON) written in the operation rather than as a `$ref` to a schema. */
function requestBodyEnums(document: Node): Enums {
  const enums: Enums = {};
  const paths = isNode(document.paths) ? document.paths : {};
  for (const item of Object.values(paths)) {
    if (!isNode(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isNode(operation) || typeof operation.operationId !== 'string') continue;
      const body = resolveRef(document, operation.requestBody);
      const content = isNode(body?.content) ? body.content : {};
      const json = content['application/json'];
      if (!isNode(json) || !isNode(json.schema) || typeof json.schema.$ref === 'string') continue;
      const found = propertyEnums(json.schema);
      if (Object.keys(found).length > 0) enums[operation.operationId] = found;
    }
  }
  return Object.fromEntries(Object.entries(enums).sort(([a], [b]) => a.localeCompare(b)));
}

/** The file's text (before formatting), after `header`. */
export function enumsFile(document: Node, header: string): string {
  return `${header}
/**
 * The values of the document's enums by schema and property (an array's items' enum under the
 * array's name), in the document's order: \`SCHEMA_ENUMS.ApiKey.permissions\` lists what
 * \`components['schemas']['ApiKey']['permissions']\` allows.
 */
export const SCHEMA_ENUMS = ${JSON.stringify(schemaEnums(document))} as const;

/**
 * The values of the enums of request bodies written inline (not a schema of \`components\`), by
 * \`operationId\` and property: \`REQUEST_BODY_ENUMS.createPlugin.permissions\`.
 */
export const REQUEST_BODY_ENUMS = ${JSON.stringify(requestBodyEnums(document))} as const;
`;
}
