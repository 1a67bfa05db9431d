import { clientName, RESERVED_NAMESPACES } from '../../src/http/operation-names.js';

/**
 * The operations of an OpenAPI document as the client generator needs them: name, method, path,
 * tag, the client's namespace and method, parameters, body and answer. Read through `$ref`s
 * (schemas, parameters, request bodies and responses may sit in `components`), so the table does
 * not depend on where the document keeps a schema.
 */

type Node = Record<string, unknown>;

export interface OperationInfo {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  tag: string;
  summary: string;
  namespace: string;
  name: string;
  /** Path parameters, in the order the path names them. */
  pathParams: string[];
  query: { present: boolean; required: boolean };
  /** The request body's media types (the first is sent by default); empty without a body. */
  requestTypes: string[];
  /** Whether the client may leave the body out (no required field): it sends `{}`. */
  bodyOptional: boolean;
  /** A list answered with the envelope `{data, ..., next_cursor}`. */
  paged: boolean;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows `$ref`s (local JSON pointers) until a node that is not a reference. */
export function resolveRef(document: Node, value: unknown): Node | undefined {
  let node = value;
  const seen = new Set<string>();
  while (isNode(node) && typeof node.$ref === 'string') {
    const ref = node.$ref;
    if (!ref.startsWith('#/') || seen.has(ref)) return undefined;
    seen.add(ref);
    node = ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((at, part) => (isNode(at) ? at[part] : undefined), document);
  }
  return isNode(node) ? node : undefined;
}

/** An object schema's properties and required names, `allOf` members included. */
function objectShape(document: Node, value: unknown): { properties: Node; required: string[] } {
  const schema = resolveRef(document, value);
  const properties: Node = { ...(isNode(schema?.properties) ? schema.properties : {}) };
  const required = Array.isArray(schema?.required) ? schema.required.map(String) : [];
  for (const member of Array.isArray(schema?.allOf) ? schema.allOf : []) {
    const inner = objectShape(document, member);
    Object.assign(properties, inner.properties);
    required.push(...inner.required);
  }
  return { properties, required };
}

function jsonSchemaOf(document: Node, holder: unknown): unknown {
  const content = resolveRef(document, holder)?.content;
  if (!isNode(content)) return undefined;
  const json = Object.entries(content).find(([type]) => /json/.test(type) && !/ndjson/.test(type));
  return json && isNode(json[1]) ? json[1].schema : undefined;
}

function isPaged(document: Node, operation: Node): boolean {
  const responses = isNode(operation.responses) ? operation.responses : {};
  const success = Object.keys(responses)
    .filter((status) => /^2\d\d$/.test(status))
    .sort()[0];
  if (success === undefined) return false;
  const { properties } = objectShape(document, jsonSchemaOf(document, responses[success]));
  const data = resolveRef(document, properties.data);
  return data?.type === 'array' && 'next_cursor' in properties;
}

/** Every operation of the document, in path order, then method order. */
export function operationTable(document: Node): OperationInfo[] {
  const paths = isNode(document.paths) ? document.paths : {};
  const operations: OperationInfo[] = [];
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = resolveRef(document, rawItem) ?? {};
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const operation = resolveRef(document, item[method]);
      if (operation === undefined) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const operationId = operation.operationId;
      if (typeof operationId !== 'string') throw new Error(`${where} has no operationId`);
      const tag = Array.isArray(operation.tags) ? String(operation.tags[0] ?? '') : '';
      const parameters = [...shared, ...(Array.isArray(operation.parameters) ? operation.parameters : [])]
        .map((parameter) => resolveRef(document, parameter))
        .filter((parameter): parameter is Node => parameter !== undefined);
      const query = parameters.filter((parameter) => parameter.in === 'query');
      const body = resolveRef(document, operation.requestBody);
      const requestTypes = isNode(body?.content) ? Object.keys(body.content) : [];
      const bodySchema = jsonSchemaOf(document, body);
      const { namespace, method: name } = clientName(path, operationId, tag);
      operations.push({
        operationId,
        method: method.toUpperCase() as OperationInfo['method'],
        path,
        tag,
        summary: typeof operation.summary === 'string' ? operation.summary : '',
        namespace,
        name,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] as string),
        query: {
          present: query.length > 0,
          required: query.some((parameter) => parameter.required === true),
        },
        requestTypes,
        bodyOptional:
          requestTypes.length > 0 &&
          (body?.required !== true ||
            (bodySchema !== undefined && objectShape(document, bodySchema).required.length === 0)),
        paged: isPaged(document, operation),
      });
    }
  }
  checkNames(operations);
  return operations;
}

/** Two operations with one client name, or a namespace the client keeps, stop the generator. */
function checkNames(operations: OperationInfo[]): void {
  const seen = new Map<string, string>();
  for (const operation of operations) {
    if (RESERVED_NAMESPACES.includes(operation.namespace)) {
      throw new Error(`${operation.operationId}: the namespace "${operation.namespace}" is reserved`);
    }
    const name = `${operation.namespace}.${operation.name}`;
    const other = seen.get(name);
    if (other !== undefined) throw new Error(`${operation.operationId} and ${other} are both ${name}`);
    seen.set(name, operation.operationId);
  }
}
