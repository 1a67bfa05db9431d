import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { client, createTestContext, type TestContext } from '../../test/helpers/context.js';
import { isCurrency } from '../lib/money.js';

/**
 * The OpenAPI document as generators and readers use it: every operation complete (its name, its
 * tag, its headers, an example of its body and of each success answer), the shared objects
 * declared once under `components/schemas` and referenced, never copied, and every example in the
 * document valid against its schema there (Ajv, JSON Schema 2020-12, the formats the API checks).
 */

type Node = Record<string, unknown>;
interface Media {
  schema: Node;
  example?: unknown;
  /** Inline (`value`) or one of `components/examples` (`$ref`). */
  examples?: Record<string, { value?: unknown; $ref?: string }>;
}
interface Parameter {
  in: string;
  name: string;
  schema: Node;
  example?: unknown;
}
interface Operation {
  operationId?: string;
  tags?: string[];
  /** Inline, or one of `components/parameters` (`$ref`, `parameterOf`). */
  parameters?: (Parameter | { $ref: string })[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { headers?: Record<string, { schema: Node }>; content?: Record<string, Media> }>;
}
interface Doc {
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Node>;
    headers: Record<string, { schema: Node }>;
    parameters: Record<string, Parameter>;
    examples?: Record<string, { value: unknown }>;
  };
}

const REF = '#/components/schemas/';
const EXAMPLE_REF = '#/components/examples/';
const PARAMETER_REF = '#/components/parameters/';
/** The shared objects generators must find by name (a subset: the whole list is in openapi-components.ts). */
const MUST_BE_COMPONENTS = [
  'Problem',
  'Product',
  'Variant',
  'ProductList',
  'Order',
  'OrderList',
  'Customer',
  'Address',
  'Refund',
  'Discount',
  'ShippingRate',
  'TaxRate',
  'Event',
  'WebhookEndpoint',
  'Delivery',
  'ApiKey',
  'WalletBalance',
  'WalletTransaction',
  'Transfer',
  'Plugin',
  'Import',
];

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const escape = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** Keywords holding a schema or a list of them, and maps of names to schemas. */
const SUBSCHEMAS = ['items', 'prefixItems', 'additionalProperties', 'contains', 'propertyNames', 'not'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs'];

/** Calls `visit` on the schema and each of its subschemas, with its JSON pointer. */
function walkSchema(schema: unknown, pointer: string, visit: (node: Node, pointer: string) => void): void {
  if (!isNode(schema)) return;
  visit(schema, pointer);
  for (const key of SUBSCHEMAS) walkSchema(schema[key], `${pointer}/${key}`, visit);
  for (const key of SCHEMA_LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach((item, i) => walkSchema(item, `${pointer}/${key}/${i}`, visit));
  }
  for (const key of SCHEMA_MAPS) {
    const map = schema[key];
    if (!isNode(map)) continue;
    for (const [name, sub] of Object.entries(map))
      walkSchema(sub, `${pointer}/${key}/${escape(name)}`, visit);
  }
}

/** Every operation of the paths and of the webhooks section, with its place. */
function operationsOf(doc: Doc): { where: string; pointer: string; operation: Operation }[] {
  const out: { where: string; pointer: string; operation: Operation }[] = [];
  for (const section of ['paths', 'webhooks'] as const) {
    for (const [path, item] of Object.entries(doc[section])) {
      for (const [method, operation] of Object.entries(item)) {
        out.push({
          where: `${section === 'webhooks' ? 'webhook ' : ''}${method.toUpperCase()} ${path}`,
          pointer: `#/${section}/${escape(path)}/${method}`,
          operation,
        });
      }
    }
  }
  return out;
}

/** An operation's parameter, or the component its `$ref` names; undefined for a dangling one. */
function parameterOf(doc: Doc, parameter: Parameter | { $ref: string }): Parameter | undefined {
  return '$ref' in parameter
    ? doc.components.parameters[parameter.$ref.slice(PARAMETER_REF.length)]
    : parameter;
}

/** Every schema of the document (operations' parameters, bodies, answers and headers; components). */
function schemasOf(doc: Doc): { pointer: string; schema: Node }[] {
  const out: { pointer: string; schema: Node }[] = [];
  for (const { pointer, operation } of operationsOf(doc)) {
    (operation.parameters ?? []).forEach((parameter, i) => {
      if (!('$ref' in parameter))
        out.push({ pointer: `${pointer}/parameters/${i}/schema`, schema: parameter.schema });
    });
    for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
      out.push({ pointer: `${pointer}/requestBody/content/${escape(type)}/schema`, schema: media.schema });
    }
    for (const [status, response] of Object.entries(operation.responses)) {
      for (const [name, header] of Object.entries(response.headers ?? {})) {
        out.push({
          pointer: `${pointer}/responses/${status}/headers/${escape(name)}/schema`,
          schema: header.schema,
        });
      }
      for (const [type, media] of Object.entries(response.content ?? {})) {
        out.push({
          pointer: `${pointer}/responses/${status}/content/${escape(type)}/schema`,
          schema: media.schema,
        });
      }
    }
  }
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    out.push({ pointer: `#/components/schemas/${escape(name)}`, schema });
  }
  for (const [name, parameter] of Object.entries(doc.components.parameters)) {
    out.push({ pointer: `#/components/parameters/${escape(name)}/schema`, schema: parameter.schema });
  }
  for (const [name, header] of Object.entries(doc.components.headers)) {
    out.push({ pointer: `#/components/headers/${escape(name)}/schema`, schema: header.schema });
  }
  return out;
}

/** The media objects of an operation's body and success answers, by place. */
function examplesNeeded(operation: Operation): [string, Media][] {
  const bodies = Object.entries(operation.requestBody?.content ?? {}).map(
    ([type, media]): [string, Media] => [`request body ${type}`, media],
  );
  const answers = Object.entries(operation.responses)
    .filter(([status]) => /^2\d\d$/.test(status))
    .flatMap(([status, response]) =>
      Object.entries(response.content ?? {}).map(([type, media]): [string, Media] => [
        `${status} ${type}`,
        media,
      ]),
    );
  return [...bodies, ...answers];
}

/** The schema a `$ref` names, or the schema itself. */
function resolved(doc: Doc, schema: Node): Node {
  const ref = schema.$ref;
  return typeof ref === 'string' && ref.startsWith(REF)
    ? (doc.components.schemas[ref.slice(REF.length)] ?? {})
    : schema;
}

function hasExample(doc: Doc, media: Media): boolean {
  if (media.example !== undefined || Object.keys(media.examples ?? {}).length > 0) return true;
  const schema = resolved(doc, media.schema);
  return (Array.isArray(schema.examples) && schema.examples.length > 0) || schema.example !== undefined;
}

/** What each operation lacks of what a generator or a reader needs. */
function incompleteOperations(doc: Doc): string[] {
  const described = new Set(
    doc.tags.filter((tag) => (tag.description ?? '').length > 10).map((tag) => tag.name),
  );
  const problems: string[] = [];
  for (const { where, pointer, operation } of operationsOf(doc)) {
    if (!/^[a-z][a-zA-Z]+$/.test(operation.operationId ?? '')) problems.push(`${where}: operationId`);
    if (operation.tags?.length !== 1 || !described.has(operation.tags[0] ?? ''))
      problems.push(`${where}: one tag with a description`);
    for (const [place, media] of examplesNeeded(operation)) {
      if (!hasExample(doc, media)) problems.push(`${where}: an example of the ${place}`);
    }
    // Webhooks: the signature headers; the API's operations: the headers every call has.
    const headers = (operation.parameters ?? [])
      .map((p) => parameterOf(doc, p))
      .filter((p) => p?.in === 'header')
      .map((p) => p?.name);
    const needed = pointer.startsWith('#/webhooks')
      ? ['webhook-id', 'webhook-signature']
      : ['X-Service-Version'];
    for (const name of needed) if (!headers.includes(name)) problems.push(`${where}: header ${name}`);
    if (pointer.startsWith('#/paths')) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!response.headers?.['X-Request-Id']) problems.push(`${where} ${status}: header X-Request-Id`);
      }
    }
  }
  return problems;
}

/** A schema without what only describes it: two schemas equal this way are the same shape. */
function shape(schema: unknown): string {
  return JSON.stringify(schema, (key, value: unknown) => {
    if (['description', 'examples', 'example', 'title'].includes(key)) return undefined;
    return isNode(value)
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((k) => [k, value[k]]),
        )
      : value;
  });
}

/** Copies of a component's shape in the document instead of a `$ref` to it. */
function inlineCopies(doc: Doc): string[] {
  const shapes = new Map(
    Object.entries(doc.components.schemas).map(([name, schema]) => [shape(schema), name]),
  );
  const problems: string[] = [];
  for (const { pointer, schema } of schemasOf(doc)) {
    walkSchema(schema, pointer, (node, at) => {
      if (at.startsWith(REF) && at.split('/').length === 4) return; // a component itself
      const name = node.type === 'object' ? shapes.get(shape(node)) : undefined;
      if (name !== undefined) problems.push(`${at} is a copy of ${name}`);
    });
  }
  return problems;
}

/** Every `$ref` of the document, with its place. */
function refsOf(node: unknown, pointer: string, out: [string, string][] = []): [string, string][] {
  if (Array.isArray(node)) node.forEach((item, i) => refsOf(item, `${pointer}/${i}`, out));
  else if (isNode(node)) {
    if (typeof node.$ref === 'string') out.push([pointer, node.$ref]);
    for (const [key, value] of Object.entries(node)) refsOf(value, `${pointer}/${escape(key)}`, out);
  }
  return out;
}

// ajv-formats ships CommonJS whose default export is the plugin.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020, options: { keywords: boolean }) => Ajv2020;

/** Every example of the document that its schema refuses, and how many examples there are. */
function invalidExamples(doc: Doc): { failures: string[]; checked: number } {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateSchema: false }), {
    keywords: true,
  });
  ajv.addFormat('iso4217', { type: 'string', validate: isCurrency });
  ajv.addSchema(structuredClone(doc) as object, 'doc');
  const failures: string[] = [];
  let checked = 0;
  const compiled = new Map<string, ReturnType<Ajv2020['compile']>>();
  const check = (pointer: string, value: unknown, what: string) => {
    checked += 1;
    const fragment = pointer.slice(1).split('/').map(encodeURIComponent).join('/');
    const validate = compiled.get(pointer) ?? ajv.compile({ $ref: `doc#${fragment}` });
    compiled.set(pointer, validate);
    if (!validate(value)) failures.push(`${what} at ${pointer}: ${ajv.errorsText(validate.errors)}`);
  };
  // Schemas' own examples (`examples`, and OpenAPI's `example`), components and inline alike.
  for (const { pointer, schema } of schemasOf(doc)) {
    walkSchema(schema, pointer, (node, at) => {
      if (Array.isArray(node.examples))
        node.examples.forEach((value, i) => check(at, value, `examples[${i}]`));
      if (node.example !== undefined) check(at, node.example, 'example');
    });
  }
  // Media types' and parameters' examples, against their schema.
  for (const { pointer, operation } of operationsOf(doc)) {
    const media: [string, Media][] = [
      ...Object.entries(operation.requestBody?.content ?? {}).map(([type, m]): [string, Media] => [
        `${pointer}/requestBody/content/${escape(type)}`,
        m,
      ]),
      ...Object.entries(operation.responses).flatMap(([status, response]) =>
        Object.entries(response.content ?? {}).map(([type, m]): [string, Media] => [
          `${pointer}/responses/${status}/content/${escape(type)}`,
          m,
        ]),
      ),
    ];
    for (const [at, m] of media) {
      if (m.example !== undefined) check(`${at}/schema`, m.example, 'example');
      for (const [name, example] of Object.entries(m.examples ?? {})) {
        const value =
          example.$ref === undefined
            ? example.value
            : doc.components.examples?.[example.$ref.slice(EXAMPLE_REF.length)]?.value;
        check(`${at}/schema`, value, example.$ref ?? name);
      }
    }
    (operation.parameters ?? []).forEach((parameter, i) => {
      if (!('$ref' in parameter) && parameter.example !== undefined)
        check(`${pointer}/parameters/${i}/schema`, parameter.example, 'example');
    });
  }
  return { failures, checked };
}

describe('the OpenAPI document', () => {
  let ctx: TestContext;
  let doc: Doc;
  before(async () => {
    ctx = await createTestContext('sqlite');
    // Served without a key.
    const res = await client(ctx.app)<Doc>('GET', '/v1/openapi.json');
    assert.equal(res.status, 200);
    doc = res.body;
  });
  after(() => ctx.close());

  it('gives every operation its name, a described tag, its headers and an example of its body and answers', () => {
    assert.ok(Object.keys(doc.paths).length > 60, 'the paths are there');
    assert.deepEqual(incompleteOperations(doc), []);
  });

  it('finds an operation without an example, without a tag or without its headers', () => {
    const broken = structuredClone(doc);
    const get = broken.paths['/v1/products/{id}']?.get;
    assert.ok(get);
    const ok = get.responses['200'];
    assert.ok(ok?.content);
    ok.content['application/json'] = { schema: { type: 'object' } };
    get.tags = [];
    get.parameters = get.parameters?.filter((p) => parameterOf(doc, p)?.name !== 'X-Service-Version');
    assert.deepEqual(incompleteOperations(broken), [
      'GET /v1/products/{id}: one tag with a description',
      'GET /v1/products/{id}: an example of the 200 application/json',
      'GET /v1/products/{id}: header X-Service-Version',
    ]);
  });

  it('declares the shared objects once under components/schemas and refers to them, never copies them', () => {
    const names = Object.keys(doc.components.schemas);
    // The problem, and what the modules' manifests declare.
    const ofModules = ctx.deps.modules.flatMap((module) =>
      Object.keys(module.components?.(ctx.deps.vocabulary) ?? {}),
    );
    assert.deepEqual([...names].sort(), ['Problem', ...ofModules].sort());
    for (const name of MUST_BE_COMPONENTS) assert.ok(names.includes(name), `component ${name}`);
    // Every reference resolves, and every component is used.
    const refs = refsOf({ paths: doc.paths, webhooks: doc.webhooks, components: doc.components }, '#');
    const used = new Set<string>();
    for (const [at, ref] of refs) {
      const [, section, name] =
        /^#\/components\/(schemas|headers|parameters|examples)\/(.+)$/.exec(ref) ?? [];
      const components = doc.components[section as 'schemas' | 'headers' | 'parameters' | 'examples'] ?? {};
      assert.ok(section && name && name in components, `${at}: ${ref}`);
      used.add(`${section}/${name}`);
    }
    const declared = [
      ...names.map((name) => `schemas/${name}`),
      ...Object.keys(doc.components.headers).map((name) => `headers/${name}`),
      ...Object.keys(doc.components.parameters).map((name) => `parameters/${name}`),
      ...Object.keys(doc.components.examples ?? {}).map((name) => `examples/${name}`),
    ];
    assert.deepEqual(
      declared.filter((name) => !used.has(name)),
      [],
      'components nothing refers to',
    );
    // The request headers every operation takes, once each.
    assert.deepEqual(
      doc.paths['/v1/products/{id}']?.get?.parameters?.filter((p) => '$ref' in p),
      [{ $ref: `${PARAMETER_REF}X-Service-Version` }, { $ref: `${PARAMETER_REF}If-None-Match` }],
    );
    // The response headers too, once each.
    assert.deepEqual(doc.paths['/v1/products/{id}']?.get?.responses['200']?.headers?.ETag, {
      $ref: '#/components/headers/ETag',
    });
    assert.deepEqual(inlineCopies(doc), []);
    // Answers by reference: a resource, its list, a problem; an object inside another one.
    const answer = (path: string, method: string, status: string, type = 'application/json') =>
      doc.paths[path]?.[method]?.responses[status]?.content?.[type]?.schema.$ref;
    assert.equal(answer('/v1/products/{id}', 'get', '200'), `${REF}Product`);
    assert.equal(answer('/v1/products', 'get', '200'), `${REF}ProductList`);
    assert.equal(answer('/v1/orders', 'post', '201'), `${REF}Order`);
    assert.equal(answer('/v1/customers/{id}/orders', 'get', '200'), `${REF}OrderList`);
    assert.equal(answer('/v1/plugins', 'post', '201'), `${REF}Plugin`);
    assert.equal(answer('/v1/products/{id}', 'get', '404', 'application/problem+json'), `${REF}Problem`);
    const order = doc.components.schemas.Order as { properties: Record<string, Node> };
    assert.deepEqual(order.properties.items, { type: 'array', items: { $ref: `${REF}OrderItem` } });
    const created = doc.webhooks['order.created']?.post?.requestBody?.content['application/json']?.schema as {
      properties: { data: { properties: { object: Node } } };
    };
    assert.deepEqual(created.properties.data.properties.object, { $ref: `${REF}Order` });
  });

  it('finds a shared object copied instead of referenced', () => {
    const broken = structuredClone(doc);
    const media = broken.paths['/v1/products/{id}']?.get?.responses['200']?.content?.['application/json'];
    assert.ok(media);
    media.schema = structuredClone(broken.components.schemas.Product as Node);
    assert.deepEqual(inlineCopies(broken), [
      '#/paths/~1v1~1products~1{id}/get/responses/200/content/application~1json/schema is a copy of Product',
    ]);
  });

  it('holds examples its schemas accept, every one of them', () => {
    const { failures, checked } = invalidExamples(doc);
    assert.deepEqual(failures, []);
    assert.ok(checked > 300, `${checked} examples`);
  });

  it('finds an example its schema refuses', () => {
    // The components alone: their examples are where the Product's is checked.
    const broken = { ...structuredClone(doc), paths: {}, webhooks: {} };
    const [product] = (broken.components.schemas.Product as { examples: Node[] }).examples;
    assert.ok(product);
    product.price = '119.99';
    const { failures } = invalidExamples(broken);
    assert.equal(failures.length, 1, failures.join('\n'));
    assert.match(
      failures[0] ?? '',
      /examples\[0\] at #\/components\/schemas\/Product: data\/price must be integer/,
    );
  });
});
