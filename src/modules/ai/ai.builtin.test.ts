import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { AppError } from '../../lib/errors.js';
import { BUILTIN_MODEL, createBuiltinProvider, writeDescription } from './ai.builtin.js';
import {
  article,
  ascendingSizes,
  capitalize,
  categoryPhrase,
  countWord,
  feature,
  joinClauses,
  joinList,
  optionPhrase,
  shortName,
} from './ai.english.js';
import { PHRASES } from './ai.phrases.js';
import { type DescriptionRequest, LENGTH_WORDS, LENGTHS, type ProductFacts, TONES } from './ai.provider.js';
import { countWords, trimToLastSentence } from './ai.text.js';

/**
 * The built-in writer needs no database: these tests call it directly, for every tone and length,
 * and check what docs/ai.md promises of its text.
 */

const LAMP: ProductFacts = {
  name: 'Aurora Desk Lamp',
  category: 'Lighting',
  attributes: { color: 'brushed brass', material: 'aluminium', weight: '1.2 kg' },
  features: ['adjustable arm', 'three brightness levels'],
  options: [],
};
const KEYWORDS = ['home office', 'reading light'];
/** A T-shirt offered in three sizes and two colours (ai.facts.ts has left out what is sold out). */
const TEE: ProductFacts = {
  name: 'Harbor Tee',
  category: 't-shirt',
  attributes: { material: 'organic cotton' },
  features: ['relaxed fit'],
  options: [
    { name: 'Size', values: ['S', 'M', 'L'] },
    { name: 'Color', values: ['Black', 'White'] },
  ],
};

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

/** Sentences whose first letter is lower case: `Psst! the lamp ...`. */
function lowerCaseStarts(text: string): string[] {
  return sentences(text).filter((sentence) => /^[^\p{L}\p{N}]*\p{Ll}/u.test(sentence));
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
        for (const keyword of KEYWORDS) assert.ok(text.includes(keyword), `uses the keyword "${keyword}"`);
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
            product: { name: 'Trail Runner 2', category: null, attributes: {}, features: [], options: [] },
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
          options: [],
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

  it('names the sizes and colours a product is offered in, in every tone and length', () => {
    for (const tone of TONES) {
      for (const length of LENGTHS) {
        const { min, max } = LENGTH_WORDS[length];
        for (const product of [TEE, { ...TEE, attributes: {}, features: [] }]) {
          const text = writeDescription(request({ tone, length, product }));
          const words = countWords(text);
          assert.ok(words >= min && words <= max, `${words} words, expected ${min}-${max}:\n${text}`);
          assert.ok(text.includes('S, M, and L'), `${tone} ${length}: the sizes:\n${text}`);
          assert.ok(text.includes('black and white'), `${tone} ${length}: the colours:\n${text}`);
          assert.doesNotMatch(text, PLACEHOLDER);
          assert.doesNotMatch(text, INVENTED);
          for (const keyword of KEYWORDS) assert.ok(text.includes(keyword));
        }
      }
    }
    // One sentence, the list of sizes kept apart from the list of colours.
    assert.match(
      writeDescription(request({ product: TEE, keywords: [] })),
      /It is (available|offered) in sizes S, M, and L, and in black and white\./,
    );
    // Without options, nothing about them: a product without options reads as it always has.
    assert.doesNotMatch(writeDescription(request()), /available in|offered in|sizes/i);
  });

  it('says only the values it is given, one value plainly, and other options by name', () => {
    const text = writeDescription(
      request({
        length: 'long',
        keywords: [],
        product: {
          ...TEE,
          options: [
            { name: 'Size', values: ['M'] },
            { name: 'Colour', values: ['Forest Green'] },
            { name: 'Storage', values: ['128 GB', '256 GB'] },
          ],
        },
      }),
    );
    assert.match(text, /in size M; in forest green; and with a choice of storage \(128 GB or 256 GB\)/);
    assert.doesNotMatch(text, /\b(S|L|XL)\b|black|white/);
  });

  it('counts long option lists, then leaves options out, to keep a short text within its length', () => {
    const sizes = ['XXS', 'XS', 'S', 'M', 'L', 'XL', 'XXL', '3XL', '4XL', '5XL'];
    const colors = Array.from({ length: 30 }, (_, i) => `Shade ${i + 1}`);
    const product: ProductFacts = {
      ...TEE,
      attributes: { material: 'organic cotton', weight: '180 g', fit: 'relaxed', origin: 'Portugal' },
      options: [
        { name: 'Size', values: sizes },
        { name: 'Color', values: colors },
        { name: 'Sleeve', values: ['short', 'long', 'three-quarter', 'cap'] },
      ],
    };
    const texts = TONES.flatMap((tone) =>
      [0, 1, 2, 3].map((variant) => writeDescription(request({ tone, length: 'short', variant, product }))),
    );
    for (const text of texts) {
      assert.ok(countWords(text) <= LENGTH_WORDS.short.max, `${countWords(text)} words:\n${text}`);
      assert.ok(!text.includes('Shade 29'), `30 colours are counted, not listed:\n${text}`);
    }
    const counted = /ten sizes \(XXS to 5XL\)|Available sizes: 10 \(XXS to 5XL\)/;
    assert.ok(
      texts.some((text) => counted.test(text)),
      `sizes counted, with their range:\n${texts.join('\n\n')}`,
    );
    assert.ok(
      texts.some((text) => counted.test(text) && !/colors/i.test(text)),
      `where even counts do not fit, the later options are left out:\n${texts.join('\n\n')}`,
    );
    // With room, every value is listed.
    const long = writeDescription(request({ length: 'long', keywords: [], product }));
    assert.ok(long.includes(`sizes ${joinList(sizes)}`), long);
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
          product: { name: 'Omni Gadget', category: 'gadgets', attributes, features, options: [] },
        }),
      );
      assert.ok(countWords(text) <= LENGTH_WORDS.short.max, `${countWords(text)} words:\n${text}`);
      for (const keyword of KEYWORDS) assert.ok(text.includes(keyword));
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
      options: fc.uniqueArray(
        fc.record({
          name: fc.oneof(word, fc.constantFrom('Size', 'Color', 'Colour', 'shoe_size')),
          values: fc.uniqueArray(fc.oneof(phrase, fc.constantFrom('S', 'M', 'XL', '42', '...', 'M.')), {
            minLength: 1,
            maxLength: 30,
            selector: (v) => v.toLowerCase(),
          }),
        }),
        { maxLength: 3, selector: (o) => o.name.toLowerCase() },
      ),
      keywords: fc.uniqueArray(phrase, { maxLength: 3, selector: (k) => k.toLowerCase() }),
      tone: fc.constantFrom(...TONES),
      length: fc.constantFrom(...LENGTHS),
      variant: fc.nat(1000),
    });
    fc.assert(
      fc.property(
        input,
        ({ name, category, attributes, features, options, keywords, tone, length, variant }) => {
          const req: DescriptionRequest = {
            product: { name, category, attributes, features, options },
            tone,
            length,
            language: 'en',
            keywords,
            variant,
          };
          const text = writeDescription(req);
          assert.ok(text.includes(name));
          for (const keyword of keywords)
            assert.ok(text.includes(keyword), `keyword "${keyword}" in:\n${text}`);
          assert.doesNotMatch(text, PLACEHOLDER);
          assert.ok(countWords(text) >= LENGTH_WORDS[length].min, `${countWords(text)} words:\n${text}`);
          assert.ok(countWords(text) <= LENGTH_WORDS[length].max, `${countWords(text)} words:\n${text}`);
          assert.equal(writeDescription(req), text);
        },
      ),
      { numRuns: 300, seed: 7 },
    );
  });

  it('weaves in a keyword as written when the text says it only in another case', () => {
    const product: ProductFacts = {
      name: 'Desk Lamp',
      category: 'lighting',
      attributes: {},
      features: [],
      options: [],
    };
    for (const tone of TONES) {
      for (const length of LENGTHS) {
        const text = writeDescription(
          request({ tone, length, product, keywords: ['DESK LAMP', 'Lighting'] }),
        );
        assert.ok(text.includes('DESK LAMP'), `${tone} ${length}: "DESK LAMP" word for word:\n${text}`);
        assert.ok(text.includes('Lighting'), `${tone} ${length}: "Lighting" word for word:\n${text}`);
      }
    }
  });

  for (const length of LENGTHS) {
    it(`keeps ${length} copy within range for the longest names and categories`, () => {
      const { min, max } = LENGTH_WORDS[length];
      const check = (product: ProductFacts, tone: DescriptionRequest['tone'], variant: number) => {
        const req = request({ tone, length, keywords: [], variant, product });
        const text = writeDescription(req);
        const words = countWords(text);
        assert.ok(words >= min && words <= max, `${words} words, expected ${min}-${max}:\n${text}`);
        assert.ok(mentions(text, shortName(product.name, 6)), `names the product:\n${text}`);
        assert.doesNotMatch(text, PLACEHOLDER);
        assert.deepEqual(lowerCaseStarts(text), []);
        assert.equal(writeDescription(req), text);
      };
      // The audited case: a 199-character name of 100 one-letter words, and a 99-character category.
      const letters = (n: number) =>
        Array.from({ length: n }, (_, i) => String.fromCharCode(97 + (i % 26))).join(' ');
      for (const tone of TONES) {
        for (const category of [null, letters(50), 'lighting']) {
          check(
            { name: letters(100), category, attributes: { color: 'red' }, features: [], options: [] },
            tone,
            0,
          );
        }
        check(
          {
            name: '台灯'.repeat(100),
            category: '照明'.repeat(50),
            attributes: {},
            features: [],
            options: [],
          },
          tone,
          0,
        );
      }
      const word = fc.stringMatching(/^[A-Za-z][a-z]{0,9}$/);
      const longText = (minChars: number, maxChars: number) =>
        fc
          .array(word, { minLength: 1, maxLength: 100 })
          .map((words) => words.join(' ').slice(0, maxChars).trim())
          .filter((text) => text.length >= minChars);
      const input = fc.record({
        name: longText(60, 200),
        category: fc.option(longText(30, 100), { nil: null }),
        attributes: fc.dictionary(word, word, { maxKeys: 3 }),
        features: fc.array(word, { maxLength: 3 }),
        tone: fc.constantFrom(...TONES),
        variant: fc.nat(1000),
      });
      fc.assert(
        fc.property(input, ({ name, category, attributes, features, tone, variant }) =>
          check({ name, category, attributes, features, options: [] }, tone, variant),
        ),
        { numRuns: 200, seed: 11 },
      );
    });
  }

  it('starts every sentence with a capital letter, in every tone, length and variant', () => {
    // A lower-case name reads `the desk lamp`: wherever it starts a sentence, it must be capitalized.
    const args = {
      n: 'the desk lamp',
      c: 'lamps',
      label: 'lamps',
      l: 'an adjustable arm',
      k: 'reading light',
    };
    for (const [tone, bank] of Object.entries(PHRASES)) {
      const lines = [
        ...bank.intros.map((line) => line(args.n)),
        ...bank.categoryIntros.map((line) => line(args.n, args.c)),
        ...bank.categoryLines.map((line) => line(args.c, args.label)),
        ...bank.nounFeatures.map((line) => line(args.l)),
        ...bank.adjectiveFeatures.map((line) => line('foldable')),
        ...bank.optionLines.map((line) => line('in sizes S, M, and L')),
        ...bank.keywordLines.map((line) => line(args.k, args.n)),
        ...bank.fillers.map((line) => line(args.n)),
        ...bank.categoryFillers.map((line) => line(args.c, args.n)),
        ...bank.closings.map((line) => line(args.n)),
      ];
      // The writer capitalizes a line's first letter; what follows is the template's own.
      for (const line of lines) assert.deepEqual(lowerCaseStarts(capitalize(line)), [], `${tone}: ${line}`);
    }
    const products: ProductFacts[] = [
      { ...LAMP, name: 'desk lamp' },
      { name: 'desk lamp', category: null, attributes: {}, features: [], options: [] },
      { ...TEE, name: 'harbor tee' },
    ];
    for (const tone of TONES) {
      for (const length of LENGTHS) {
        for (let variant = 0; variant < 20; variant++) {
          for (const product of products) {
            const text = writeDescription(request({ tone, length, variant, product }));
            assert.deepEqual(lowerCaseStarts(text), [], `${tone} ${length} ${variant}:\n${text}`);
          }
        }
      }
    }
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
    assert.equal(categoryPhrase('home-and-garden'), 'home and garden goods');
    assert.equal(categoryPhrase('Home & Kitchen'), 'home and kitchen goods');
    // A category that names no goods reads as the goods it holds: `our collection of home goods`.
    assert.equal(categoryPhrase('Home'), 'home goods');
    assert.equal(categoryPhrase('beauty'), 'beauty products');
    assert.equal(categoryPhrase('Sports'), 'sports gear');
    assert.equal(categoryPhrase('accessory'), 'accessories');
    assert.equal(categoryPhrase('Electronics'), 'electronics');
    assert.equal(categoryPhrase('TVs'), 'TVs');
  });

  it('phrases options: lists, counts, ranges only on a known scale, and one value plainly', () => {
    const pick = (wordings: string[]) => wordings[0] ?? '';
    const phrase = (name: string, values: string[]) => {
      const said = optionPhrase(name, values, pick);
      assert.ok(said, `${name}: ${values.join(', ')}`);
      return said;
    };
    const sizes = phrase('Size', ['XS', 'S', 'M', 'L']);
    assert.equal(sizes.clause, 'in sizes XS, S, M, and L');
    assert.equal(sizes.counted, 'in four sizes (XS to L)');
    assert.equal(sizes.spec, 'Available sizes: XS, S, M, and L.');
    assert.equal(sizes.specCounted, 'Available sizes: 4 (XS to L).');
    assert.equal(phrase('Size', ['L', 'S', 'M']).counted, 'in three sizes', 'no range out of order');
    assert.equal(phrase('Shoe size', ['40', '41', '42']).counted, 'in three shoe sizes (40 to 42)');
    assert.equal(phrase('Size', ['M']).clause, 'in size M');
    assert.equal(phrase('Size', ['One Size']).clause, 'in one size');
    const colours = phrase('Colour', ['Black', 'Navy Blue', 'White']);
    assert.equal(colours.clause, 'in black, navy blue, and white');
    assert.equal(colours.counted, 'in three colours');
    assert.equal(phrase('Color', ['Black', 'White']).counted, 'in black and white');
    const storage = phrase('Storage', ['128 GB', '256 GB', '512 GB']);
    assert.equal(storage.clause, 'with a choice of storage (128 GB, 256 GB, or 512 GB)');
    assert.equal(storage.counted, 'with three storage options');
    const single = phrase('Material', ['Linen']);
    assert.equal(single.clause, undefined);
    assert.equal(single.statement, 'It is made of linen.');
    assert.equal(optionPhrase('Size', ['...', '!'], pick), undefined, 'punctuation alone says nothing');
    assert.equal(countWord(7), 'seven');
    assert.equal(countWord(12), '12');
    assert.equal(ascendingSizes(['S', 'M', 'XL', '2XL']), true);
    assert.equal(ascendingSizes(['S', '40']), false);
    assert.equal(joinClauses(['in size M', 'in black']), 'in size M and in black');
    assert.equal(joinClauses(['in sizes S, M, and L']), 'in sizes S, M, and L', 'one option alone');
    assert.equal(
      joinClauses(['in sizes S and M', 'in black and white']),
      'in sizes S and M, and in black and white',
    );
    assert.equal(joinClauses(['in sizes S, M, and L', 'in black']), 'in sizes S, M, and L, and in black');
    assert.equal(
      joinClauses(['in sizes S, M, and L', 'in black', 'with a choice of fit (slim or relaxed)']),
      'in sizes S, M, and L; in black; and with a choice of fit (slim or relaxed)',
    );
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
    assert.equal(countWords('A water-resistant USB-C lamp, 1.2 kg, and/or R&D at 10:30 for $89.00.'), 12);
  });

  it('counts words in text without spaces (Chinese, Japanese)', () => {
    assert.equal(countWords('我喜欢这个台灯。它很亮！'), 6);
    assert.equal(countWords('このランプはとても明るいです。'), 6);
    assert.equal(countWords('USB-C 台灯'), 2);
  });

  it('cuts a text back to its last full sentence', () => {
    assert.equal(trimToLastSentence('One sentence. Another one that stops in the'), 'One sentence.');
    assert.equal(trimToLastSentence('Is it? "Quoted." And then'), 'Is it? "Quoted."');
    assert.equal(trimToLastSentence('no sentence end at all here'), 'no sentence end at all');
    assert.equal(trimToLastSentence('Version 2.5 is out. Then'), 'Version 2.5 is out.');
  });

  it('cuts text without spaces back to its last full sentence', () => {
    assert.equal(trimToLastSentence('这是一盏台灯。它很亮！它的灯光'), '这是一盏台灯。它很亮！');
    assert.equal(trimToLastSentence('明るいです。「いいね！」と言う'), '明るいです。「いいね！」');
    assert.equal(
      trimToLastSentence('这是台灯!它很亮.它的'),
      '这是台灯!它很亮.',
      'ASCII marks before a character',
    );
    assert.equal(
      trimToLastSentence('这是一盏很亮的台灯'),
      '这是一盏很亮的',
      'no sentence: the last word goes',
    );
  });
});
