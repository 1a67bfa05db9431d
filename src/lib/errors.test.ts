import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadModules } from '../kernel/modules.js';
import {
  AppError,
  ERROR_STATUS,
  declareProblems,
  problemCodes,
  problemExampleOf,
  problemStatus,
  problemTitle,
} from './errors.js';

/**
 * Problem codes: the house's shared ones and those each module declares in its manifest. A code
 * has one owner, and the list the API reference shows keeps one order whatever order the modules
 * are loaded in.
 */

const declaration = (status: number, title: string) => ({ status, title, example: { detail: title } });

describe('problem codes', () => {
  before(async () => {
    await loadModules();
  });
  // The registry is the process's: what a test declares, it takes back.
  after(() => {
    for (const module of ['probe-z', 'probe-a', 'clash-probe']) declareProblems(module, {});
  });

  it('knows a module’s codes once the modules are loaded: status, title and example', () => {
    assert.equal(problemStatus('cart_changed'), 409);
    assert.equal(problemTitle('cart_changed'), 'Cart changed');
    assert.equal(new AppError('cart_changed', 'changed').status, 409);
    assert.equal(problemStatus('invalid_customer_token'), 401);
    assert.equal(problemStatus('invalid_import'), 422);
    assert.match(problemExampleOf('cart_not_ready')?.detail ?? '', /cannot be completed/);
    // A shared code's example is the API reference's own (src/http/openapi-problems.ts).
    assert.equal(problemExampleOf('not_found'), undefined);
    assert.equal(new AppError('not_found', 'gone').status, 404);
  });

  it('takes only declared codes, in types and at run time', () => {
    // @ts-expect-error -- a code no module declares is refused by the compiler
    const undeclared = new AppError('no_such_code', 'nothing');
    assert.throws(() => undeclared.status, /problem code no_such_code is declared by no module loaded/);
  });

  it('refuses a code declared twice, naming both owners', () => {
    assert.throws(
      () => declareProblems('clash-probe', { not_found: declaration(404, 'Lost') }),
      /problem code not_found is declared twice: by module clash-probe and by the shared codes/,
    );
    assert.throws(
      () => declareProblems('clash-probe', { cart_changed: declaration(409, 'Changed') }),
      /problem code cart_changed is declared twice: by module clash-probe and by carts/,
    );
    // Nothing of a refused declaration is kept.
    assert.equal(problemTitle('cart_changed'), 'Cart changed');
    assert.ok(!problemCodes().includes('clash_probe' as never));
  });

  it('lists every code by status: the shared ones first, then each module’s, modules by name', () => {
    const listed = problemCodes();
    declareProblems('probe-z', {
      zeta_conflict: declaration(409, 'Zeta'),
      zeta_gone: declaration(410, 'Z'),
    });
    declareProblems('probe-a', { alpha_conflict: declaration(409, 'Alpha') });
    const codes = problemCodes() as string[];
    const statuses = codes.map((code) => problemStatus(code as never));
    assert.deepEqual(
      statuses,
      [...statuses].sort((a, b) => a - b),
    );
    const conflicts = codes.filter((code) => problemStatus(code as never) === 409);
    const shared = Object.keys(ERROR_STATUS).filter((code) => problemStatus(code as never) === 409);
    assert.deepEqual(conflicts.slice(0, shared.length), shared);
    // carts, inventory, then the probes: probe-a's before probe-z's, though declared after.
    assert.deepEqual(conflicts.slice(shared.length), [
      'cart_not_open',
      'cart_changed',
      'holds_disabled',
      'too_many_holds',
      'location_has_stock',
      'alpha_conflict',
      'zeta_conflict',
    ]);
    assert.equal(codes.indexOf('zeta_gone'), codes.indexOf('payload_too_large') - 1);
    // Declaring a module's codes again replaces them; none is the same as before.
    declareProblems('probe-z', {});
    declareProblems('probe-a', {});
    assert.deepEqual(problemCodes(), listed);
  });
});
