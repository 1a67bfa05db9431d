import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalState, hasKnownSubdivisions, normaliseAddress } from './addresses.js';
import { matchKey, normaliseText } from './text-normalise.js';

describe('normaliseText and matchKey', () => {
  it('remove what a reader cannot see, compose accents, collapse white space and fold case', () => {
    assert.equal(normaliseText('ca\u200b'), 'ca');
    assert.equal(normaliseText('\u200b\u200c\u200d\u2060\ufeff\u00ad'), '');
    assert.equal(normaliseText('  \u00a0\u3000 '), '');
    assert.equal(normaliseText('Que\u0301bec'), 'Qu\u00e9bec'); // the precomposed letter
    assert.equal(normaliseText(' St.  Peter\u200b\tPort '), 'St. Peter Port');
    assert.equal(normaliseText('\uff23\uff21'), 'CA'); // full-width letters (NFKC)
    assert.equal(normaliseText('c\u202ea'), 'ca'); // a bidirectional override
    assert.equal(matchKey('ca\u200b'), 'CA');
    assert.equal(matchKey('Que\u0301bec'), matchKey('Qu\u00e9bec'));
    assert.equal(matchKey('Qu\u00e9bec'), 'QUEBEC');
    assert.equal(matchKey('Straße'), matchKey('STRASSE'));
    assert.equal(matchKey(''), '');
  });

  it('property: a key ignores invisible characters, white space at the ends, case and how accents are written', () => {
    const invisible = fc.constantFrom('', '\u200b', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u034f');
    const letters = fc.string({ unit: fc.constantFrom(...'abcdeéèüñçxyz'), minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(letters, invisible, invisible, fc.boolean(), (text, a, b, upper) => {
        const variant = ` ${a}${(upper ? text.toUpperCase() : text).normalize('NFD')}${b} `;
        assert.equal(matchKey(variant), matchKey(text));
        // Normalising twice changes nothing more.
        assert.equal(normaliseText(normaliseText(variant)), normaliseText(variant));
        assert.equal(matchKey(matchKey(variant)), matchKey(variant));
      }),
    );
  });
});

describe('canonicalState', () => {
  it('gives a known subdivision its ISO 3166-2 code, from the code in any form or the name', () => {
    for (const [country, given, code] of [
      ['US', 'CA', 'CA'],
      ['US', 'ca', 'CA'],
      ['US', 'ca\u200b', 'CA'],
      ['US', ' Ca ', 'CA'],
      ['US', 'US-CA', 'CA'],
      ['US', '\uff23\uff21', 'CA'], // full-width
      ['US', 'California', 'CA'],
      ['US', 'CALIFORNIA', 'CA'],
      ['US', 'new  york', 'NY'],
      ['CA', 'Que\u0301bec', 'QC'],
      ['CA', 'Qu\u00e9bec', 'QC'],
      ['CA', 'qc', 'QC'],
      ['CN', 'bj', 'BJ'],
      ['CN', 'Beijing', 'BJ'],
      // The package writes a few codes with the country prefix; the code is without it.
      ['DK', 'DK-84', '84'],
      ['DK', 'Hovedstaden', '84'],
      ['DE', 'Bayern', 'BY'],
    ] as const) {
      assert.deepEqual(canonicalState(country, given), { ok: true, state: code }, `${country} ${given}`);
    }
  });

  it('refuses what a country with known subdivisions does not have, and keeps text elsewhere', () => {
    for (const [country, given] of [
      ['US', 'XX'],
      ['US', 'Calif'],
      ['US', 'QC'],
      ['CA', 'CA'],
    ] as const) {
      const result = canonicalState(country, given);
      assert.equal(result.ok, false, `${country} ${given}`);
      if (!result.ok) assert.match(result.message, new RegExp(`is not a state of ${country}`));
    }
    // Guernsey: the package has regions but no codes for them, so its states are text.
    assert.equal(hasKnownSubdivisions('GG'), false);
    assert.equal(hasKnownSubdivisions('US'), true);
    assert.deepEqual(canonicalState('GG', '  St.  Peter\u200b Port '), { ok: true, state: 'St. Peter Port' });
    assert.deepEqual(canonicalState('GG', 'Anything'), { ok: true, state: 'Anything' });
  });

  it('takes an empty, blank or invisible state as absent', () => {
    for (const given of [undefined, null, '', '   ', '\u200b', ' \ufeff\u00a0']) {
      assert.deepEqual(canonicalState('US', given), { ok: true, state: null }, JSON.stringify(given));
    }
  });
});

describe('normaliseAddress', () => {
  const address = { line1: '1 Main St', city: 'Los Angeles', country: 'US' };

  it('stores the canonical state, drops a blank one and keeps the other fields as given', () => {
    assert.deepEqual(normaliseAddress({ ...address, state: 'california\u200b' }), {
      ok: true,
      address: { ...address, state: 'CA' },
    });
    assert.deepEqual(normaliseAddress({ ...address, state: '  ' }), { ok: true, address });
    assert.deepEqual(normaliseAddress({ ...address, line1: ' 1  Main St ' }), {
      ok: true,
      address: { ...address, line1: ' 1  Main St ' },
    });
  });

  it('names the field that fails', () => {
    const state = normaliseAddress({ ...address, state: 'XX' });
    assert.equal(state.ok ? null : state.field, 'state');
    const country = normaliseAddress({ ...address, country: 'XX', state: 'CA' });
    assert.equal(country.ok ? null : country.field, 'country');
  });
});
