import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { loadModules } from '../kernel/modules.js';
import { declareIdPrefixes, newId, newRequestId, randomBase62 } from './ids.js';

describe('ids', () => {
  it('makes request ids of the time and 80 random bits, distinct across refills of the entropy pool', () => {
    // 512 ids per pool: 1,500 ids draw three pools.
    const before = Date.now();
    const ids = Array.from({ length: 1_500 }, () => newRequestId());
    const after = Date.now();
    for (const id of ids) assert.match(id, /^req_[0-9a-f]{32}$/);
    assert.equal(new Set(ids).size, ids.length);
    // The first 12 digits are the time it was made, in milliseconds: later ids sort after earlier.
    for (const id of ids) {
      const ms = parseInt(id.slice(4, 16), 16);
      assert.ok(ms >= before && ms <= after, `${id} at ${ms}, not in ${before}-${after}`);
    }
    const times = ids.map((id) => id.slice(4, 16));
    assert.deepEqual(times, [...times].sort());
    // Every hex digit turns up in every random position: not a counter or a repeated pool.
    for (let position = 16; position < 36; position++) {
      assert.equal(new Set(ids.map((id) => id[position])).size, 16, `position ${position}`);
    }
  });

  it('makes resource ids with their prefix and 24 base62 characters', () => {
    assert.match(newId('ord'), /^ord_[0-9A-Za-z]{24}$/);
    assert.match(randomBase62(40), /^[0-9A-Za-z]{40}$/);
    // A module's own prefix (the carts module declares `cart` and `cli`).
    assert.match(newId('cart'), /^cart_[0-9A-Za-z]{24}$/);
    // @ts-expect-error -- a prefix no module declares is refused by the compiler
    assert.match(newId('nope'), /^nope_/);
  });
});

describe('id prefixes modules declare', () => {
  // The registry is the process's: what a test declares, it takes back.
  after(() => declareIdPrefixes('clash-probe', []));

  it('refuses a prefix declared twice, naming both owners', async () => {
    await loadModules();
    assert.throws(
      () => declareIdPrefixes('clash-probe', ['ord']),
      /id prefix ord is declared twice: by module clash-probe and by the shared prefixes/,
    );
    assert.throws(
      () => declareIdPrefixes('clash-probe', ['png', 'cli']),
      /id prefix cli is declared twice: by module clash-probe and by carts/,
    );
    // A refused declaration keeps nothing: the prefix it named first is free.
    declareIdPrefixes('clash-other', ['png']);
    declareIdPrefixes('clash-other', []);
  });
});
