import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { type TSchema, Type } from 'typebox';
import { client, createTestContext, type TestContext } from '../../test/helpers/context.js';
import { Nullable } from './schemas.js';
import { standardSchema } from './openapi-standard.js';

/**
 * The document's schemas in plain JSON Schema: a nullable value as its type or null, literals as
 * one enum, every other union with its types, and no Ajv keyword; each accepting exactly the values
 * the route's own schema accepts, which is left as it was. The served document holds no union
 * without a type (Scalar's reference at /docs warns of each one) and no Ajv keyword.
 */

type Node = Record<string, unknown>;

// ajv-formats ships CommonJS whose default export is the plugin.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020, options: { keywords: boolean }) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }), { keywords: true });

/** Values of every JSON type, some of them at the bounds the schemas below set. */
const PROBES: unknown[] = [
  null,
  '',
  'a',
  'b',
  'c',
  'x'.repeat(11),
  '2026-11-21T10:15:00.000Z',
  '1969-12-31',
  '1970-01-01',
  0,
  1,
  5,
  -1,
  1.5,
  true,
  {},
  { id: 'x' },
  [],
  ['a'],
];

/** The probes one schema accepts and the other refuses. */
function disagreements(a: Node, b: Node): unknown[] {
  const [left, right] = [ajv.compile(a), ajv.compile(b)];
  return PROBES.filter((value) => left(value) !== right(value));
}

/** A TypeBox schema as JSON, as the document holds it. */
const json = (schema: TSchema): Node => JSON.parse(JSON.stringify(schema)) as Node;

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every schema object inside `node` (a document or a schema), with its JSON pointer, examples skipped. */
function* schemaNodes(node: unknown, pointer = '#'): Generator<[string, Node]> {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* schemaNodes(item, `${pointer}/${i}`);
    return;
  }
  if (!isNode(node)) return;
  yield [pointer, node];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'examples' || key === 'example' || key === 'x-codeSamples') continue;
    yield* schemaNodes(value, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  }
}

describe('standard schemas in the OpenAPI document', () => {
  it('writes a nullable value as its type or null, with its keywords, accepting the same values', () => {
    const cases: [TSchema, Node][] = [
      [
        Nullable(Type.String({ format: 'date-time', description: 'When.' })),
        { type: ['string', 'null'], format: 'date-time', description: 'When.' },
      ],
      [
        Nullable(Type.Integer({ minimum: 1, maximum: 5 })),
        { type: ['integer', 'null'], minimum: 1, maximum: 5 },
      ],
      [
        Nullable(Type.String({ maxLength: 10, description: 'A note.' })),
        { type: ['string', 'null'], maxLength: 10, description: 'A note.' },
      ],
      // An enum or a const binds every value: null joins its values.
      [
        Nullable(Type.Unsafe({ type: 'string', enum: ['a', 'b'] })),
        { type: ['string', 'null'], enum: ['a', 'b', null] },
      ],
      [Nullable(Type.Literal('a')), { type: ['string', 'null'], enum: ['a', null] }],
      [
        Nullable(Type.Object({ id: Type.String() })),
        { type: ['object', 'null'], properties: { id: { type: 'string' } }, required: ['id'] },
      ],
      // The union's own description beside the branch's keywords.
      [
        { ...Nullable(Type.String({ format: 'date-time' })), description: 'Set once.' },
        { type: ['string', 'null'], format: 'date-time', description: 'Set once.' },
      ],
    ];
    for (const [schema, expected] of cases) {
      const route = json(schema);
      const standard = standardSchema(route);
      assert.deepEqual(
        Object.fromEntries(Object.entries(standard).sort()),
        Object.fromEntries(Object.entries(expected).sort()),
        JSON.stringify(route),
      );
      assert.deepEqual(disagreements(route, standard), [], JSON.stringify(route));
    }
  });

  it('writes literals as one enum, and gives any other union the types of its branches', () => {
    const status = json(
      Type.Union([Type.Literal('Active'), Type.Literal('Degraded')], { description: 'Now.' }),
    );
    assert.deepEqual(standardSchema(status), {
      type: 'string',
      enum: ['Active', 'Degraded'],
      description: 'Now.',
    });
    const maybe = json(Nullable(Type.Union([Type.Literal('a'), Type.Literal('b')])));
    assert.deepEqual(standardSchema(maybe), { type: ['string', 'null'], enum: ['a', 'b', null] });
    assert.deepEqual(disagreements(maybe, standardSchema(maybe)), []);
    // A referenced object or null: the branches stay, the types come from the component.
    const address = { anyOf: [{ $ref: '#/components/schemas/Address' }, { type: 'null' }] };
    assert.deepEqual(
      standardSchema(address, (ref) => (ref === '#/components/schemas/Address' ? 'object' : undefined)),
      { type: ['object', 'null'], ...address },
    );
    // Two shapes of one type; and a branch of unknown type, which leaves the union as it is.
    const shapes = json(
      Type.Union([Type.Object({ id: Type.String() }), Type.Object({ sku: Type.String() })]),
    );
    assert.equal(standardSchema(shapes).type, 'object');
    assert.deepEqual(disagreements(shapes, standardSchema(shapes)), []);
    const unknown = { anyOf: [{ $ref: '#/elsewhere' }, { type: 'null' }] };
    assert.deepEqual(standardSchema(unknown), unknown);
  });

  it("leaves Ajv's keywords out, nested too, and the route's own schema as it was", () => {
    const route = json(
      Type.Object({
        from: Type.String({ format: 'date', formatMinimum: '1970-01-01' }),
        window: Type.Array(
          Nullable(Type.String({ format: 'date-time', formatMaximum: '2100-01-01T00:00:00Z' })),
        ),
      }),
    );
    const before = structuredClone(route);
    const standard = standardSchema(route);
    assert.deepEqual(route, before, "the route's schema is untouched");
    assert.deepEqual((standard.properties as Node).from, { type: 'string', format: 'date' });
    assert.deepEqual(((standard.properties as Node).window as Node).items, {
      type: ['string', 'null'],
      format: 'date-time',
    });
  });

  describe('the served document', () => {
    let ctx: TestContext;
    let doc: Node;
    before(async () => {
      ctx = await createTestContext('sqlite');
      const res = await client(ctx.app)<Node>('GET', '/v1/openapi.json');
      assert.equal(res.status, 200);
      doc = res.body;
    });
    after(() => ctx.close());

    it('gives every union a type and holds no Ajv keyword', () => {
      const untyped: string[] = [];
      const ajvOnly: string[] = [];
      for (const [pointer, node] of schemaNodes(doc)) {
        if ((Array.isArray(node.anyOf) || Array.isArray(node.oneOf)) && node.type === undefined)
          untyped.push(pointer);
        for (const key of Object.keys(node))
          if (/^format(Exclusive)?(Minimum|Maximum)$/.test(key)) ajvOnly.push(`${pointer}/${key}`);
      }
      assert.deepEqual(untyped, []);
      assert.deepEqual(ajvOnly, []);
      // The analytics' dates still say their bound.
      const analytics = (doc.paths as Record<string, Record<string, Node>>)['/v1/analytics']?.get;
      const from = (analytics?.parameters as Node[] | undefined)?.find((p) => p.name === 'from');
      assert.match(
        String(from?.description ?? (from?.schema as Node | undefined)?.description),
        /1970-01-01 or later/,
      );
    });
  });
});
