import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { client, createTestContext, DIALECTS, type TestContext } from '../../../test/helpers/context.js';
import type { Page } from '../../../test/helpers/responses.js';
import { type DemoCredentials, seedDemoData } from '../../demo.js';
import { DEMO_ORIGINS } from '../orders/orders.demo.js';
import type { ProductObject } from '../products/products.schemas.js';
import { writeDescription } from './ai.builtin.js';
import { capitalize, categoryPhrase, countryName, mergeVerbPhrases } from './ai.english.js';
import { OptionTally } from './ai.facts.js';
import { PHRASES } from './ai.phrases.js';
import { LENGTHS, type OptionFact, type ProductFacts, TONES } from './ai.provider.js';

/**
 * The built-in writer on the demo catalog (src/modules/orders/orders.demo.ts): every product, in
 * every category, with every origin the demo draws from and every set of options it is offered
 * in, in every tone and length and a few wordings, reads as English: countries by name, categories
 * as the goods they hold, every sentence capitalized and punctuated, no word twice in a row, and
 * `a` or `an` as the next word sounds.
 */

/** What reads wrong in `text`, one line per problem; `categories` are the raw category names. */
function grammarProblems(text: string, categories: readonly string[]): string[] {
  const problems: string[] = [];
  const flag = (pattern: RegExp, what: string) => {
    for (const match of text.matchAll(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`))) {
      problems.push(`${what}: "${match[0]}"`);
    }
  };
  // A country code said as it is stored.
  flag(new RegExp(`\\b(?:${DEMO_ORIGINS.join('|')})\\b`), 'a country code');
  for (const category of categories) {
    const goods = categoryPhrase(category);
    // `our collection of homes`: a category pluralized into something else.
    flag(new RegExp(`\\b${category}e?s\\b`, 'i'), `category "${category}" pluralized`);
    // `our range of home`, `anyone shopping for beauty`: a category that is no goods said bare.
    if (goods !== category) {
      flag(
        new RegExp(
          `\\b(?:of|for|in|under|comparing|browsing|other|love|your|everyday)\\s+${category}\\b(?!\\s+(?:goods|products|gear))`,
          'i',
        ),
        `category "${category}" as a noun for goods`,
      );
    }
  }
  const named = categories.flatMap((category) => [category, categoryPhrase(category)]);
  flag(new RegExp(`\\bexpression of (?:${named.join('|')})\\b`, 'i'), 'an expression of a category');
  flag(/\bGot\b[^.!?]*\bon your wish list\b/, 'a bare noun on a wish list');
  // `Slip-On on` is no word said twice.
  flag(/(?<![\p{L}-])(\p{L}+)\s+\1\b/iu, 'a word twice');
  flag(
    /\b[Aa]\s+(?:[aei]\p{L}*|o(?!ne\b|nce\b)\p{L}*|u(?!ni|s[eu]|ti|r[aeiou])\p{L}*|(?:8|11|18)\b\S*)/u,
    '"a" before a vowel sound',
  );
  flag(/\b[Aa]n\s+(?!h(?:our|onest|onou?r|eir))[b-df-hj-np-tv-z]\p{Ll}*/u, '"an" before a consonant sound');
  flag(/ {2}|\s[,.;:!?]|[,;:][^\s\d]|\.\.|,\./u, 'loose spacing or punctuation');
  flag(/[{}]|\bundefined\b|\bnull\b|\bNaN\b|\[object/, 'a template leftover');
  for (const paragraph of text.split('\n\n')) {
    for (const sentence of paragraph.split(/(?<=[.!?])\s+(?=\S)/u)) {
      if (!/^["“(]?[\p{Lu}\d]/u.test(sentence)) problems.push(`a sentence without a capital: "${sentence}"`);
      if (!/[.!?]["”)]?$/u.test(sentence)) problems.push(`a sentence without an end: "${sentence}"`);
    }
  }
  return problems;
}

/** The option sets a demo product is described with: as offered, every value, and each option alone. */
function optionSets(product: ProductObject): OptionFact[][] {
  if (product.options.length === 0) return [[]];
  const tally = new OptionTally(product.options);
  tally.add(product.variants ?? []);
  const all = product.options.map((option) => ({ name: option.name, values: option.values }));
  return [tally.offered(), all, ...all.map((option) => [option])];
}

describe('built-in writer on the demo catalog', () => {
  let ctx: TestContext;
  let demo: DemoCredentials;
  let products: ProductObject[];

  before(async () => {
    ctx = await createTestContext(DIALECTS[0] ?? 'sqlite');
    const seeded = await seedDemoData(ctx.deps);
    assert.ok(seeded);
    demo = seeded;
    const page = await client(ctx.app, demo.api_key)<Page<ProductObject>>('GET', '/v1/products?limit=100');
    assert.equal(page.status, 200);
    products = page.body.data;
  });
  after(() => ctx.close());

  it('checks what it is meant to: the faults once written are caught', () => {
    const categories = ['home', 'beauty', 'sports'];
    for (const bad of [
      'It is made in IT.',
      'Presenting the Wool Beanie, a refined expression of homes.',
      'It belongs to our range of home.',
      'Got home office on your wish list? This one is worth a look.',
      'It is a elegant choice.',
      'It is an great choice.',
      'It is is here.',
      'the lamp is here.',
      'The lamp is here',
      'Buy it , now.',
    ]) {
      assert.notDeepEqual(grammarProblems(bad, categories), [], bad);
    }
    assert.deepEqual(
      grammarProblems(
        'It is an LED lamp, a USB cable and a one-off, an hour early, made in Italy.',
        categories,
      ),
      [],
    );
  });

  it('says country codes by name, with "the" where English wants it', () => {
    assert.deepEqual(countryName('IT'), { name: 'Italy', phrase: 'Italy' });
    assert.deepEqual(countryName('us'), { name: 'United States', phrase: 'the United States' });
    assert.deepEqual(countryName('NL'), { name: 'Netherlands', phrase: 'the Netherlands' });
    assert.equal(countryName('HK')?.name, 'Hong Kong');
    assert.equal(countryName('KN')?.name, 'Saint Kitts and Nevis');
    assert.equal(countryName('ZZ'), undefined);
    assert.equal(countryName('Italy'), undefined);
    assert.equal(countryName('I'), undefined);
    assert.deepEqual(mergeVerbPhrases(['is made by Northwind', 'is made in Italy', 'weighs 2 kg']), [
      'is made by Northwind in Italy',
      'weighs 2 kg',
    ]);
    assert.deepEqual(mergeVerbPhrases(['is made in the United States', 'is made by Northwind']), [
      'is made in the United States by Northwind',
    ]);
    assert.deepEqual(mergeVerbPhrases(['comes from Northwind', 'is made in Italy']), [
      'comes from Northwind',
      'is made in Italy',
    ]);
  });

  it('says each demo category as the goods it holds', () => {
    const categories = [...new Set(products.map((product) => product.category ?? ''))].sort();
    assert.deepEqual(categories, ['apparel', 'beauty', 'electronics', 'home', 'shoes', 'sports']);
    assert.deepEqual(categories.map(categoryPhrase), [
      'apparel',
      'beauty products',
      'electronics',
      'home goods',
      'shoes',
      'sports gear',
    ]);
    // Every line of every bank that names a category, with every demo category.
    for (const [tone, bank] of Object.entries(PHRASES)) {
      for (const category of categories) {
        const c = categoryPhrase(category);
        const lines = [
          ...bank.categoryIntros.map((line) => line('the Wool Beanie', c)),
          ...bank.categoryLines.map((line) => line(c, category)),
          ...bank.categoryFillers.map((line) => line(c, 'the Wool Beanie')),
        ];
        // The writer capitalizes each line's first letter.
        for (const line of lines.map(capitalize)) {
          assert.deepEqual(grammarProblems(line, categories), [], `${tone}: ${line}`);
        }
      }
      for (const line of bank.keywordLines) {
        const text = capitalize(line('reading light', 'the Wool Beanie'));
        assert.deepEqual(grammarProblems(text, categories), [], `${tone}: ${text}`);
      }
    }
  });

  it('describes every demo product, with every origin and option set, in every tone, length and wording', () => {
    assert.equal(products.length, 42);
    const categories = [...new Set(products.map((product) => product.category ?? ''))];
    let written = 0;
    const problems = new Map<string, string>();
    for (const product of products) {
      assert.equal(product.attributes.brand, 'Northwind');
      assert.ok(DEMO_ORIGINS.some((origin) => origin === product.attributes.origin));
      for (const origin of DEMO_ORIGINS) {
        for (const options of optionSets(product)) {
          const facts: ProductFacts = {
            name: product.name,
            category: product.category,
            attributes: { ...product.attributes, origin },
            features: [],
            options,
          };
          for (const tone of TONES) {
            for (const length of LENGTHS) {
              for (let variant = 0; variant < 3; variant++) {
                const text = writeDescription({
                  product: facts,
                  tone,
                  length,
                  language: 'en',
                  keywords: [],
                  variant,
                });
                written++;
                for (const problem of grammarProblems(text, categories)) {
                  problems.set(
                    problem,
                    `${product.name} (${origin}, ${tone} ${length} ${variant}):\n${text}`,
                  );
                }
              }
            }
          }
        }
      }
    }
    assert.ok(written > 10_000, `${written} descriptions`);
    assert.deepEqual(
      [...problems].slice(0, 10).map(([problem, where]) => `${problem} in ${where}`),
      [],
      `${problems.size} distinct problems`,
    );
    // Country names, not codes, in running text and in specifications alike.
    const lamp = products.find((product) => product.name === 'Smart Desk Lamp');
    assert.ok(lamp);
    const says = (origin: string, tone: 'professional' | 'technical') =>
      Array.from({ length: 8 }, (_, variant) =>
        writeDescription({
          product: { ...lamp, attributes: { brand: 'Northwind', origin }, features: [], options: [] },
          tone,
          length: 'medium',
          language: 'en',
          keywords: [],
          variant,
        }),
      ).join('\n');
    assert.match(says('IT', 'professional'), /made (?:by Northwind )?in Italy/);
    assert.match(says('US', 'professional'), /made (?:by Northwind )?in the United States/);
    assert.match(
      says('US', 'technical'),
      /[Oo]rigin: United States|made (?:by Northwind )?in the United States/,
    );
  });

  it('describes every demo product through the API with the same checks', async () => {
    const categories = [...new Set(products.map((product) => product.category ?? ''))];
    const api = client(ctx.app, demo.api_key);
    for (const [i, product] of products.entries()) {
      const res = await api<{ description: string }>('POST', '/v1/ai/generate-description', {
        body: { product_id: product.id, tone: TONES[i % TONES.length], length: LENGTHS[i % LENGTHS.length] },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.deepEqual(grammarProblems(res.body.description, categories), [], res.body.description);
    }
  });
});
