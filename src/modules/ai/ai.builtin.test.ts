import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { AppError } from '../../http/errors.js';
import { BUILTIN_MODEL, createBuiltinProvider, writeDescription } from './ai.builtin.js';
import { article, categoryPhrase, feature, joinList } from './ai.english.js';
import { type DescriptionRequest, LENGTH_WORDS, LENGTHS, type ProductFacts, TONES } from './ai.provider.js';
import { countWords, trimToLastSentence } from './ai.text.js';

/**
 * The built-in writer needs no database: these tests call it directly, for every tone and length,
 * and check what the contract promises of its text.
 */

const LAMP: ProductFacts = {
  name: 'Aurora Desk Lamp',
  category: 'Lighting',
  attributes: { color: 'brushed brass', material: 'aluminium', weight: '1.2 kg' },
  features: ['adjustable arm', 'three brightness levels'],
};
const KEYWORDS = ['home office', 'reading light'];

function request(overrides: Partial<DescriptionRequest> = {}): DescriptionRequest {
  return {
    product: LAMP,
    tone: 'professional',
    length: 'medium',
    language: 'en',
    keywords: KEYWORDS,
    variant: 0,
    ...overrides,
  };
}

/** What no generated text may contain: template leftovers. */
const PLACEHOLDER = /[{}]|\bundefined\b|\bnull\b|\bNaN\b|\[object/;
/** Claims none of the test inputs make; the writer must not add them on its own. */
const INVENTED =
  /warrant|shipping|delivery|handmade|handcrafted|premium|durable|award|certified|guarantee|discount|bestsell|sustainab|eco-friendly|% off/i;

function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function mentions(text: string, phrase: string): boolean {
  return text.toLowerCase().includes(phrase.toLowerCase());
}

describe('builtin description writer', () => {
  for (const tone of TONES) {
    for (const length of LENGTHS) {
      it(`writes ${tone} ${length} copy within range, with every given fact and keyword`, () => {
        const { min, max } = LENGTH_WORDS[length];
        const text = writeDescription(request({ tone, length }));
        const words = countWords(text);
        assert.ok(words >= min && words <= max, `${words} words, expected ${min}-${max}:\n${text}`);
        assert.ok(text.includes('Aurora Desk Lamp'), 'names the product');
        for (const value of Object.values(LAMP.attributes)) {
          assert.ok(mentions(text, value), `mentions the attribute "${value}":\n${text}`);
        }
        for (const keyword of KEYWORDS) assert.ok(mentions(text, keyword), `uses the keyword "${keyword}"`);
        assert.doesNotMatch(text, PLACEHOLDER);
        assert.doesNotMatch(text, INVENTED);
        const all = sentences(text).map((s) => s.toLowerCase());
        assert.equal(new Set(all).size, all.length, `no sentence twice:\n${text}`);
        assert.match(text, /^[A-Z]/, 'starts with a capital');
        assert.match(text, /[.!?]$/, 'ends a sentence');
        assert.doesNotMatch(text, / {2}|\s[,.]/, 'no doubled spaces or loose punctuation');
      });

      it(`writes ${tone} ${length} copy from a name alone`, () => {
        const { min, max } = LENGTH_WORDS[length];
        const text = writeDescription(
          request({
            tone,
            length,
            keywords: [],
            product: { name: 'Trail Runner 2', category: null, attributes: {}, features: [] },
          }),
        );
        const words = countWords(text);
        assert.ok(words >= min && words <= max, `${words} words, expected ${min}-${max}:\n${text}`);
        assert.ok(text.includes('Trail Runner 2'));
        assert.doesNotMatch(text, PLACEHOLDER);
        assert.doesNotMatch(text, INVENTED);
      });

      it(`is deterministic for ${tone} ${length}, and a variant rewords it`, () => {
        const first = writeDescription(request({ tone, length }));
        assert.equal(writeDescription(request({ tone, length })), first);
        const second = writeDescription(request({ tone, length, variant: 1 }));
        const third = writeDescription(request({ tone, length, variant: 2 }));
        assert.notEqual(second, first);
        assert.notEqual(third, first);
        assert.notEqual(third, second);
        assert.equal(writeDescription(request({ tone, length, variant: 1 })), second);
      });
    }
  }

  it('gives each tone its own voice for the same product', () => {
    const texts = TONES.map((tone) => writeDescription(request({ tone })));
    assert.equal(new Set(texts).size, TONES.length);
    assert.match(writeDescription(request({ tone: 'technical', length: 'short' })), /Specifications: /);
  });

  it('paragraphs: one for short, two for medium, three for long', () => {
    const paragraphs = (length: 'short' | 'medium' | 'long') =>
      writeDescription(request({ length })).split('\n\n').length;
    assert.equal(paragraphs('short'), 1);
    assert.equal(paragraphs('medium'), 2);
    assert.equal(paragraphs('long'), 3);
  });

  it('phrases attributes and features as English', () => {
    const text = writeDescription(
      request({
        tone: 'professional',
        length: 'long',
        keywords: [],
        product: {
          name: 'Summit Pack',
          category: 'backpack',
          attributes: { Color: 'Forest Green', capacity: '28 L', pockets: '6', waterproof: 'yes' },
          features: ['Padded laptop sleeve', 'Keeps its shape when empty', 'machine washable'],
        },
      }),
    );
    assert.ok(text.includes('forest green'), `a colour reads in lower case:\n${text}`);
    assert.match(text, /holds 28 L|capacity of 28 L/);
    assert.match(text, /has 6 pockets/);
    assert.match(text, /is waterproof/);
    assert.match(text, /a padded laptop sleeve/);
    assert.match(text, /it keeps its shape when empty/i);
    assert.match(text, /machine washable/);
  });

  it('keeps a short text short when the product has many facts, and keeps every keyword', () => {
    const attributes = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [`property_${i + 1}`, `value number ${i + 1}`]),
    );
    const features = Array.from({ length: 10 }, (_, i) => `feature number ${i + 1}`);
    for (const tone of TONES) {
      const text = writeDescription(
        request({
          tone,
          length: 'short',
          product: { name: 'Omni Gadget', category: 'gadgets', attributes, features },
        }),
      );
      assert.ok(countWords(text) <= LENGTH_WORDS.short.max, `${countWords(text)} words:\n${text}`);
      for (const keyword of KEYWORDS) assert.ok(mentions(text, keyword));
      assert.ok(text.includes('Omni Gadget'));
    }
  });

  it('never breaks on arbitrary input: name and keywords always present, no placeholders, deterministic', () => {
    const word = fc.stringMatching(/^[A-Za-z][a-z]{1,9}$/);
    const phrase = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(' '));
    const input = fc.record({
      name: phrase,
      category: fc.option(phrase, { nil: null }),
      attributes: fc.dictionary(word, phrase, { maxKeys: 6 }),
      features: fc.array(phrase, { maxLength: 5 }),
      keywords: fc.uniqueArray(phrase, { maxLength: 3, selector: (k) => k.toLowerCase() }),
      tone: fc.constantFrom(...TONES),
      length: fc.constantFrom(...LENGTHS),
      variant: fc.nat(1000),
    });
    fc.assert(
      fc.property(input, ({ name, category, attributes, features, keywords, tone, length, variant }) => {
        const req: DescriptionRequest = {
          product: { name, category, attributes, features },
          tone,
          length,
          language: 'en',
          keywords,
          variant,
        };
        const text = writeDescription(req);
        assert.ok(text.includes(name));
        for (const keyword of keywords)
          assert.ok(mentions(text, keyword), `keyword "${keyword}" in:\n${text}`);
        assert.doesNotMatch(text, PLACEHOLDER);
        assert.ok(countWords(text) >= LENGTH_WORDS[length].min, `${countWords(text)} words:\n${text}`);
        assert.ok(countWords(text) <= LENGTH_WORDS[length].max, `${countWords(text)} words:\n${text}`);
        assert.equal(writeDescription(req), text);
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it('refuses keywords that leave no room within the length, naming keywords', () => {
    // Ten keywords of 13 words each: 130 words before anything else is said.
    const keywords = Array.from({ length: 10 }, (_, i) =>
      Array.from({ length: 13 }, (__, j) => `w${i}${String.fromCharCode(97 + j)}`).join(' '),
    );
    for (const length of ['short', 'medium'] as const) {
      assert.throws(
        () => writeDescription(request({ length, keywords })),
        (error: AppError) =>
          error.code === 'validation_failed' &&
          error.errors?.[0]?.field === 'keywords' &&
          error.errors[0].message.includes(`over its ${LENGTH_WORDS[length].max}`),
      );
    }
    // They fit a long description, every one of them in it.
    const long = writeDescription(request({ length: 'long', keywords }));
    assert.ok(countWords(long) <= LENGTH_WORDS.long.max);
    for (const keyword of keywords) assert.ok(long.includes(keyword));
  });

  it('reports English, no tokens and its model name', async () => {
    const result = await createBuiltinProvider().generate(request({ language: 'de' }));
    assert.equal(result.language, 'en');
    assert.equal(result.model, BUILTIN_MODEL);
    assert.equal(result.inputTokens, 0);
    assert.equal(result.outputTokens, 0);
    assert.equal(result.truncated, false);
  });
});

describe('English helpers', () => {
  it('chooses a or an by sound', () => {
    const cases: [string, string][] = [
      ['adjustable arm', 'an'],
      ['padded sleeve', 'a'],
      ['hour-long battery', 'an'],
      ['USB-C port', 'a'],
      ['LED panel', 'an'],
      ['unique finish', 'a'],
      ['umbrella stand', 'an'],
      ['8-inch screen', 'an'],
      ['18 W charger', 'an'],
      ['one-piece body', 'a'],
    ];
    for (const [phrase, expected] of cases) assert.equal(article(phrase), expected, phrase);
  });

  it('joins lists with a serial comma', () => {
    assert.equal(joinList(['a']), 'a');
    assert.equal(joinList(['a', 'b']), 'a and b');
    assert.equal(joinList(['a', 'b', 'c'], 'or'), 'a, b, or c');
  });

  it('reads categories after "of": plural or uncountable, lower case', () => {
    assert.equal(categoryPhrase('Shoes'), 'shoes');
    assert.equal(categoryPhrase('t-shirt'), 't-shirts');
    assert.equal(categoryPhrase('Lighting'), 'lighting');
    assert.equal(categoryPhrase('home_decor'), 'home decor');
    assert.equal(categoryPhrase('home-and-garden'), 'home and garden');
    assert.equal(categoryPhrase('Home & Kitchen'), 'home & kitchen');
    assert.equal(categoryPhrase('accessory'), 'accessories');
    assert.equal(categoryPhrase('Electronics'), 'electronics');
    assert.equal(categoryPhrase('TVs'), 'TVs');
  });

  it('tells verb, adjective and noun features apart', () => {
    assert.deepEqual(feature('Keeps drinks cold for 24 hours.'), {
      bare: 'keeps drinks cold for 24 hours',
      kind: 'verb',
      phrase: 'keeps drinks cold for 24 hours',
    });
    assert.equal(feature('Water-resistant').kind, 'adjective');
    assert.equal(feature('USB cable').kind, 'noun');
    assert.equal(feature('USB cable').phrase, 'a USB cable');
    assert.equal(feature('Two zip pockets').phrase, 'two zip pockets');
    assert.equal(feature('memory foam').phrase, 'memory foam');
    assert.equal(feature('Bluetooth 5.3').phrase, 'Bluetooth 5.3');
  });
});

describe('text helpers', () => {
  it('counts words, not punctuation', () => {
    assert.equal(countWords('One, two — three!\n\nFour 5.'), 5);
    assert.equal(countWords('  '), 0);
  });

  it('cuts a text back to its last full sentence', () => {
    assert.equal(trimToLastSentence('One sentence. Another one that stops in the'), 'One sentence.');
    assert.equal(trimToLastSentence('Is it? "Quoted." And then'), 'Is it? "Quoted."');
    assert.equal(trimToLastSentence('no sentence end at all here'), 'no sentence end at all');
    assert.equal(trimToLastSentence('Version 2.5 is out. Then'), 'Version 2.5 is out.');
  });
});
