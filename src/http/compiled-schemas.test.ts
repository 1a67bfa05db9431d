import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Type } from 'typebox';
import { createTestContext, LOGIC_ONLY, type TestContext } from '../../test/helpers/context.js';
import { compiledOncePerSchema, compilePending, onFirstUse } from './compiled-schemas.js';

/** Schemas compiled once per process, on first use; and every route's schemas compile. */

describe('compiled schemas', () => {
  it('compiles a schema once, whether the same object or an equal one comes again', () => {
    let compiled = 0;
    const compile = compiledOncePerSchema((schema) => ({ schema, n: (compiled += 1) }));
    const schema = Type.Object({ name: Type.String() });
    const first = compile(schema);
    assert.equal(compile(schema), first);
    assert.equal(compile(Type.Object({ name: Type.String() })), first, 'an equal schema, another object');
    assert.notEqual(compile(Type.Object({ name: Type.Number() })), first);
    assert.equal(compiled, 2);
  });

  it('makes a value put off until first use once, and compilePending makes those not used yet', () => {
    let made = 0;
    const used = onFirstUse(() => (made += 1));
    const unused = onFirstUse(() => (made += 10));
    assert.equal(made, 0, 'nothing is made until asked for');
    assert.equal(used(), 1);
    assert.equal(used(), 1, 'made once');
    compilePending();
    assert.equal(made, 11, 'the unused one is made, the used one not again');
    assert.equal(unused(), 11);
  });

  it('throws a schema that cannot compile when it is first used', () => {
    const broken = onFirstUse(() => {
      throw new Error('no such keyword');
    });
    assert.throws(() => broken(), /no such keyword/);
    assert.throws(() => broken(), /no such keyword/, 'and on each use after');
  });
});

for (const dialect of LOGIC_ONLY) {
  describe(`every route's schemas (${dialect})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(dialect);
    });
    after(() => ctx.close());

    it('compile: each validator and serializer the app put off compiles', () => {
      // Some may have compiled already (another test in this process used them); none may fail.
      compilePending();
      assert.equal(compilePending(), 0, 'nothing is left to compile');
      assert.ok(ctx.app.printRoutes().includes('products'));
    });
  });
}
