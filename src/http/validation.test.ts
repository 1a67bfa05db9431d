import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ErrorObject } from 'ajv';
import { Type } from 'typebox';
import { AppError, MAX_FIELD_ERRORS, validationFailed } from '../lib/errors.js';
import { problemFor } from './problem.js';
import { parseJsonBody } from './json-body.js';
import { LINE_OR_EMPTY_PATTERN, LINE_PATTERN, NONBLANK_TEXT_PATTERN, TEXT_PATTERN } from './schemas.js';
import { inspect, MAX_DEPTH, TOO_DEEP, validationProblem, validatorCompiler } from './validation.js';

/** The request walk, the bounded validator, the problem it makes, the text patterns and the body decoder. */

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

function compile(schema: object, httpPart = 'body'): Validate {
  return validatorCompiler({ schema, httpPart, method: 'POST', url: '/' }) as unknown as Validate;
}

/** `depth` arrays nested in one another, the innermost holding `inner`. */
function nested(depth: number, inner: unknown = 'x'): unknown {
  let value: unknown = inner;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

const Product = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 20, pattern: LINE_PATTERN }),
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 5 }), { maxItems: 3 })),
    attributes: Type.Optional(
      Type.Unsafe<Record<string, string>>({
        type: 'object',
        additionalProperties: { type: 'string', maxLength: 5 },
        maxProperties: 1000,
      }),
    ),
    anything: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

describe('inspect: the walk of a request part', () => {
  it('walks any depth without recursion and stops past the bound', () => {
    assert.equal(inspect(nested(MAX_DEPTH)).tooDeep, false);
    const deep = inspect(nested(MAX_DEPTH + 1));
    assert.equal(deep.tooDeep, true);
    assert.deepEqual(
      deep.errors.map((e) => [e.instancePath, e.message]),
      [['', TOO_DEEP]],
    );
    // Deeper than any call stack holds: refused, not thrown.
    assert.equal(inspect(nested(200_000)).tooDeep, true);
    let object: Record<string, unknown> = {};
    for (let i = 0; i < 200_000; i++) object = { a: object };
    assert.equal(inspect(object).tooDeep, true);
  });

  it('names each string and field name holding NUL or a lone surrogate, at its JSON pointer', () => {
    const found = inspect({
      ok: ['😀 Café', '👨‍👩‍👧', '\u{1d518}'],
      'a/b~c': 'nul\u0000',
      list: ['fine', 'high\ud800', 'low\udc00end'],
      map: { 'key\ud83d': 'value', 'key\u0000': 'value' },
      reversed: '\udc00\ud800',
    });
    assert.deepEqual(
      found.errors.map((e) => [e.instancePath, e.message]),
      [
        ['/a~1b~0c', 'must not contain the NUL character (\\u0000)'],
        ['/list/1', 'must be well-formed Unicode: a lone surrogate (U+D800 to U+DFFF) is not a character'],
        ['/list/2', 'must be well-formed Unicode: a lone surrogate (U+D800 to U+DFFF) is not a character'],
        [
          '/map',
          'must not have a field name holding a lone surrogate (U+D800 to U+DFFF): it is not a character',
        ],
        ['/map', 'must not have a field name containing the NUL character (\\u0000)'],
        ['/reversed', 'must be well-formed Unicode: a lone surrogate (U+D800 to U+DFFF) is not a character'],
      ],
    );
    assert.deepEqual(
      inspect('top\ud800').errors.map((e) => e.instancePath),
      [''],
    );
  });

  it('counts values and characters, measures the longest string or name, and keeps at most one error past the cap', () => {
    const found = inspect({ a: [1, 'abc', null, { bb: true }], [`k${'x'.repeat(40)}`]: 2 });
    assert.equal(found.values, 8);
    assert.equal(found.longestString, 41);
    assert.equal(found.text, 1 + 3 + 2 + 41);
    const many = inspect(Array.from({ length: 10_000 }, () => '\u0000'));
    assert.equal(many.errors.length, MAX_FIELD_ERRORS + 1);
    assert.equal(many.values, 10_001);
  });
});

describe('validatorCompiler: bounded errors', () => {
  const validate = compile(Product);

  it('accepts a valid input and refuses a too deep one before its schema sees it', () => {
    assert.equal(validate({ name: 'Lamp', tags: ['a'], anything: nested(MAX_DEPTH - 1) }), true);
    assert.equal(validate({ name: 'Lamp', anything: nested(10_000) }), false);
    const failure = validationProblem(validate.errors ?? [], 'body');
    assert.deepEqual(failure.errors, [{ field: 'body', message: TOO_DEEP }]);
  });

  it('lists every failing field of a small input, schema and walk alike', () => {
    assert.equal(
      validate({ name: 'a\u202eb', tags: ['toolong', 'x', 'y', 'z'], bogus: 1, n: 'x\ud800' }),
      false,
    );
    const failure = validationProblem(validate.errors ?? [], 'body');
    assert.deepEqual(failure.errors?.map((e) => e.field).sort(), ['bogus', 'n', 'name', 'tags', 'tags[0]']);
    assert.equal(failure.extra.errors_truncated, undefined);
  });

  it('caps the list of a small input with many errors, and says so', () => {
    const attributes = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, 'too long']));
    assert.equal(validate({ name: 'Lamp', attributes }), false);
    assert.ok((validate.errors ?? []).length <= 4 * MAX_FIELD_ERRORS + 1);
    const failure = validationProblem(validate.errors ?? [], 'body');
    assert.equal(failure.errors?.length, MAX_FIELD_ERRORS);
    assert.equal(failure.extra.errors_truncated, true);
  });

  it('stops at the first errors of a large input, whatever it holds', () => {
    const keys = Object.fromEntries(Array.from({ length: 90_000 }, (_, i) => [`k${i}`, 1]));
    assert.equal(validate(keys), false);
    assert.ok((validate.errors ?? []).length <= 2);
    const unknown = validationProblem(validate.errors ?? [], 'body');
    assert.ok((unknown.errors?.length ?? 0) >= 1);
    assert.equal(unknown.extra.errors_truncated, true);

    const tags = Array.from({ length: 400_000 }, () => 1);
    assert.equal(validate({ name: 'Lamp', tags }), false);
    assert.ok((validate.errors ?? []).length <= 2);

    // Walk errors stay bounded too, and the list says it is cut.
    const nuls = Array.from({ length: 100_000 }, () => 'a\u0000');
    assert.equal(validate({ name: 'Lamp', anything: nuls }), false);
    const failure = validationProblem(validate.errors ?? [], 'body');
    assert.equal(failure.errors?.length, MAX_FIELD_ERRORS);
    assert.equal(failure.extra.errors_truncated, true);
  });

  it('says which character a text pattern refused, or that the text is blank', () => {
    const schema = Type.Object({
      line: Type.Optional(Type.String({ pattern: LINE_PATTERN })),
      text: Type.Optional(Type.String({ pattern: NONBLANK_TEXT_PATTERN })),
    });
    const check = compile(schema);
    const messages = (body: object) => {
      assert.equal(check(body), false);
      return validationProblem(check.errors ?? [], 'body').errors?.map((e) => `${e.field}: ${e.message}`);
    };
    assert.deepEqual(messages({ line: 'a\u202eb', text: 'ok\u0085' }), [
      'line: must be one line of text without control or formatting characters; it holds U+202E',
      'text: must hold no control or formatting characters other than line breaks and tabs; it holds U+0085',
    ]);
    assert.deepEqual(messages({ line: ' \u3000', text: ' \n\t' }), [
      'line: must not be blank',
      'text: must not be blank',
    ]);
    assert.deepEqual(messages({ line: 'tab\there' }), [
      'line: must be one line of text without control or formatting characters; it holds U+0009',
    ]);
  });

  it('walks query strings and path params the same way', () => {
    const query = compile(Type.Object({ q: Type.Optional(Type.String()) }), 'querystring');
    assert.equal(query({ q: 'fine' }), true);
    assert.equal(query({ q: 'a\u0000' }), false);
    assert.deepEqual(validationProblem(query.errors ?? [], 'querystring').errors, [
      { field: 'q', message: 'must not contain the NUL character (\\u0000)' },
    ]);
  });

  it('cuts a long field name in the problem, between characters', () => {
    const long = `${'é'.repeat(150)}${'😀'.repeat(100)}`;
    assert.equal(validate({ name: 'Lamp', [long]: 1 }), false);
    const [error] = validationProblem(validate.errors ?? [], 'body').errors ?? [];
    assert.ok(error);
    assert.ok(error.field.length <= 200);
    assert.ok(error.field.endsWith('…'));
    assert.equal(/[\ud800-\udfff]/u.test(error.field), false, 'no half of a surrogate pair');
  });
});

describe('validationFailed: a short problem', () => {
  it('names three fields in its detail and at most 50 in its errors', () => {
    const errors = Array.from({ length: 120 }, (_, i) => ({ field: `f${i}`, message: 'is invalid' }));
    const problem = problemFor(validationFailed(errors), 'req_1');
    assert.equal(problem.errors?.length, MAX_FIELD_ERRORS);
    assert.equal(problem.errors_truncated, true);
    assert.equal(
      problem.detail,
      'The request is invalid: f0 is invalid; f1 is invalid; f2 is invalid; and more.',
    );
    const few = problemFor(validationFailed(errors.slice(0, 5)), 'req_2');
    assert.equal(
      few.detail,
      'The request is invalid: f0 is invalid; f1 is invalid; f2 is invalid; and 2 more (see errors).',
    );
    assert.equal(few.errors_truncated, undefined);
  });
});

describe('text patterns', () => {
  const line = new RegExp(LINE_PATTERN, 'u');
  const lineOrEmpty = new RegExp(LINE_OR_EMPTY_PATTERN, 'u');
  const text = new RegExp(TEXT_PATTERN, 'u');
  const nonblankText = new RegExp(NONBLANK_TEXT_PATTERN, 'u');
  const refusedEverywhere = [
    '\u0000',
    '\u001b',
    '\u007f',
    '\u0085',
    '\u009f',
    '\u2028',
    '\u2029',
    '\u202a',
    '\u202e',
    '\u2066',
    '\u2069',
    '\ufeff',
  ];

  it('keeps names on one line, visible and in reading order', () => {
    for (const accepted of [
      'Lamp',
      '😀 Café',
      '👨‍👩‍👧 family',
      'ﾊﾝｶｸ',
      '\u00a0nbsp\u00a0inside',
      'עברית 123',
      'a\u200db',
    ]) {
      assert.ok(line.test(accepted), JSON.stringify(accepted));
      assert.ok(lineOrEmpty.test(accepted), JSON.stringify(accepted));
    }
    for (const c of [...refusedEverywhere, '\t', '\n', '\r']) {
      assert.equal(line.test(`a${c}b`), false, JSON.stringify(c));
      assert.equal(lineOrEmpty.test(`a${c}b`), false, JSON.stringify(c));
    }
    for (const blank of ['', ' ', '\u3000\u00a0 ']) {
      assert.equal(line.test(blank), false, JSON.stringify(blank));
      assert.equal(lineOrEmpty.test(blank), true, JSON.stringify(blank));
    }
  });

  it('lets text hold tabs and line breaks, and nothing else that a line may not', () => {
    for (const accepted of ['one\ntwo', 'tab\tand\r\nCRLF', '😀']) {
      assert.ok(text.test(accepted));
      assert.ok(nonblankText.test(accepted));
    }
    for (const c of refusedEverywhere) {
      assert.equal(text.test(`a${c}b`), false, JSON.stringify(c));
      assert.equal(nonblankText.test(`a${c}b`), false, JSON.stringify(c));
    }
    assert.ok(text.test(' \n\t'));
    assert.equal(nonblankText.test(' \n\t'), false);
  });
});

describe('parseJsonBody', () => {
  it('decodes UTF-8 strictly: an invalid byte sequence is a 400, not U+FFFD', () => {
    assert.deepEqual(parseJsonBody(Buffer.from('{"name":"😀 Café"}')), { name: '😀 Café' });
    for (const bytes of [
      [0xff],
      [0xc3], // a truncated sequence
      [0xc0, 0xaf], // an overlong '/'
      [0xed, 0xa0, 0x80], // a surrogate encoded on its own (CESU-8)
    ]) {
      const raw = Buffer.concat([Buffer.from('{"name":"a'), Buffer.from(bytes), Buffer.from('"}')]);
      assert.throws(
        () => parseJsonBody(raw),
        (error: unknown) =>
          error instanceof AppError &&
          error.code === 'invalid_json' &&
          error.detail === 'The request body is not valid UTF-8.',
      );
    }
  });

  it('is no body when empty, and refuses malformed JSON and prototype keys', () => {
    assert.equal(parseJsonBody(Buffer.alloc(0)), undefined);
    assert.throws(
      () => parseJsonBody(Buffer.from('{"a":')),
      (error: unknown) => error instanceof AppError && error.code === 'invalid_json',
    );
    assert.throws(
      () => parseJsonBody(Buffer.from('{"__proto__":{"x":1}}')),
      (error: unknown) => error instanceof AppError && error.code === 'validation_failed',
    );
  });
});
