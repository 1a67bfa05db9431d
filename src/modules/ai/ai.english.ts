/**
 * Small English grammar for the built-in writer: articles, lists, case, plurals, and the
 * phrasing of product attributes and features. Heuristics, kept conservative: when a phrase
 * cannot be placed in a sentence naturally, it is stated plainly (`Label: value.`) rather than
 * dressed up with words that might add a claim.
 */

import {
  ADJECTIVES,
  CATEGORY_NOUNS,
  COUNTRY_NAMES,
  KEEP_CASE,
  LETTER_SIZES,
  MASS_NOUNS,
  NUMBER_WORDS,
  VERBS,
} from './ai.english.words.js';
import { countWords, firstWords } from './ai.text.js';

/** A word capitalized only because it starts a title or a list item: `Water-resistant`, `Black`. */
function isSentenceCased(word: string): boolean {
  return /^[A-Z][a-z'’]+(?:-[A-Za-z][a-z'’]*)*$/.test(word) && !KEEP_CASE.has(word.toLowerCase());
}

/** Lower-cases every title-cased common word: `Brushed Brass` -> `brushed brass`; `USB-C`, `iPhone` stay. */
export function lowerWords(phrase: string): string {
  return phrase
    .split(' ')
    .map((word) => (isSentenceCased(word) ? word.toLowerCase() : word))
    .join(' ');
}

/**
 * Lower-cases the first word of a sentence-cased phrase (`Two zip pockets` -> `two zip pockets`)
 * but leaves names alone (`Apple Watch band`, `Bluetooth 5.3`).
 */
export function lowerFirst(phrase: string): string {
  const [first = '', second] = phrase.split(' ');
  if (/^(A|An|The)$/.test(first)) return first.toLowerCase() + phrase.slice(first.length);
  if (!isSentenceCased(first)) return phrase;
  if (second !== undefined && !/^[a-z0-9]/.test(second)) return phrase;
  return first.toLowerCase() + phrase.slice(first.length);
}

/** Upper-cases a sentence's first letter, unless the word is cased on purpose (`iPhone`, `eBook`). */
export function capitalize(text: string): string {
  if (/^[a-z][A-Z]/.test(text)) return text;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Collapses whitespace and drops trailing punctuation, so a phrase can sit inside a sentence. */
export function tidy(phrase: string): string {
  return phrase
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s.,;:!]+$/u, '');
}

/** `a` or `an` by the sound of the phrase's first word. */
export function article(phrase: string): 'a' | 'an' {
  const word = phrase.trim().split(/[\s-]/)[0] ?? '';
  const lower = word.toLowerCase();
  if (/^\d/.test(word)) return /^(8|11|18)(\D|$)|^8\d/.test(word) ? 'an' : 'a';
  // Acronyms are read letter by letter: an LED, a USB port, an HDMI cable.
  if (/^[A-Z]{2,5}$/.test(word.replace(/[^A-Za-z]/g, ''))) return /^[AEFHILMNORSX]/.test(word) ? 'an' : 'a';
  if (/^(hour|honest|honou?r|heir)/.test(lower)) return 'an';
  if (/^(one|once|uni[^nmd]|unan|use|usu|uten|ur[aeiou]|eu|ewe|ubiq|ukul|u$)/.test(lower)) return 'a';
  return /^[aeiou]/.test(lower) ? 'an' : 'a';
}

export function withArticle(phrase: string): string {
  return `${article(phrase)} ${phrase}`;
}

const LISTS = {
  and: new Intl.ListFormat('en', { type: 'conjunction' }),
  or: new Intl.ListFormat('en', { type: 'disjunction' }),
};

/** `a`, `a and b`, `a, b, and c` (with the serial comma; `or` for alternatives). */
export function joinList(items: readonly string[], conjunction: 'and' | 'or' = 'and'): string {
  return LISTS[conjunction].format(items);
}

/** Whether a phrase reads as plural from its last word (`straps`, not `glass`, `status`, `basis`). */
export function isPlural(phrase: string): boolean {
  const last = (phrase.trim().split(/\s+/).pop() ?? '').toLowerCase();
  if (/^(people|children|men|women|feet|teeth|mice|glasses|jeans|trousers|scissors)$/.test(last)) return true;
  return /s$/.test(last) && !/(ss|us|is|'s|’s)$/.test(last);
}

/** Whether a noun is uncountable: a listed mass noun, or one by its ending (`cookware`, `bedding`). */
function isMassNoun(word: string): boolean {
  const lower = word.toLowerCase();
  return MASS_NOUNS.has(lower) || /(ware|wear|ing|ness)$/.test(lower);
}

function pluralize(word: string): string {
  if (/[^aeiou]y$/i.test(word)) return `${word.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/i.test(word)) return `${word}es`;
  return `${word}s`;
}

/**
 * A category as it reads after `of`, `for` or `in`: humanized, title case dropped, a countable
 * singular made plural (`Shoes` -> `shoes`, `t-shirt` -> `t-shirts`, `home-and-garden` -> `home and
 * garden goods`, `Lighting` -> `lighting`), and a category that does not name goods said as the
 * goods it holds (`home` -> `home goods`, `beauty` -> `beauty products`, `sports` -> `sports gear`).
 */
export function categoryPhrase(category: string): string {
  let text = tidy(category).replace(/_+/g, ' ');
  if (/^[a-z0-9]+(?:-[a-z0-9]+){2,}$/i.test(text)) text = text.replace(/-/g, ' ');
  text = lowerWords(text);
  const known = CATEGORY_NOUNS[text.toLowerCase().replace(/\s*&\s*/g, ' and ')];
  if (known !== undefined) return known;
  if (/[&/,]|\band\b/.test(text)) return text;
  const words = text.split(' ');
  const last = words[words.length - 1] ?? '';
  const head = last.split('-').pop() ?? last;
  if (!/^[a-z][a-z-]*[a-z]$/.test(last) || /s$/.test(last) || isMassNoun(head) || isPlural(text)) return text;
  words[words.length - 1] = pluralize(last);
  return words.join(' ');
}

/** A category as a label (`Category: home decor`). */
export function categoryLabel(category: string): string {
  return lowerWords(tidy(category).replace(/_+/g, ' '));
}

/** How the text names the product: `the Aurora Desk Lamp`; a name with its own article stays as is. */
export function productRef(name: string): string {
  const clean = name.replace(/\s+/g, ' ').trim();
  return /^(the|a|an|our|my|your)\s/i.test(clean) ? clean : `the ${clean}`;
}

/** Where the head of a long name ends: `Desk Lamp, LED`, `Desk Lamp with USB`, `Desk Lamp | Brand`. */
const NAME_BREAK = /\s*[,;|([{–—]|\s[-:/]\s|\s(?:with|for|featuring|including|plus|by|in|and|&)\s/i;
/** Words a shortened name should not end on. */
const DANGLING = /(?:\s+(?:the|a|an|of|and|or|with|for|in|on|to|by|&))+$/i;

/**
 * A name of more than `maxWords` words shortened to its head, cut at its first natural break and
 * within `maxWords` (`Aurora Desk Lamp with Adjustable Arm` -> `Aurora Desk Lamp`); a name within
 * `maxWords` is kept whole. The writer says long names this way so that they fit the length.
 */
export function shortName(name: string, maxWords: number): string {
  const clean = name.replace(/\s+/g, ' ').trim();
  if (countWords(clean) <= maxWords) return clean;
  const head = clean.split(NAME_BREAK)[0] ?? '';
  return firstWords(countWords(head) > 0 ? head : clean, maxWords).replace(DANGLING, '');
}

/** `battery_life`, `batteryLife`, `Battery Life` -> `battery life`. */
export function humanizeKey(key: string): string {
  return lowerWords(
    key
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .replace(/[_\s]+/g, ' ')
      .trim(),
  );
}

// ---------------------------------------------------------------------------------------------
// Countries

const REGIONS = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/** Names English says with `the`: `made in the United States`, `in the Netherlands`. */
const WITH_THE =
  /^(?:United |Democratic Republic|Republic of|Dominican Republic|Central African|Czech Republic|European Union|Caribbean Netherlands|Palestinian Territories)|Islands$|^(?:Netherlands|Philippines|Bahamas|Maldives|Seychelles|Comoros|Gambia)$/;

export interface Country {
  /** `United States`: as a label or specification says it. */
  name: string;
  /** `the United States`: as a sentence says it. */
  phrase: string;
}

/**
 * A two-letter region code (ISO 3166-1, as `origin` attributes often hold it: `IT`, `us`) named in
 * English by `Intl.DisplayNames`: `IT` -> Italy, `US` -> the United States. Undefined for anything
 * else, which is said as written.
 */
export function countryName(code: string): Country | undefined {
  if (!/^[A-Za-z]{2}$/.test(code)) return undefined;
  const upper = code.toUpperCase();
  let name: string | undefined;
  try {
    name = COUNTRY_NAMES[upper] ?? REGIONS.of(upper);
  } catch {
    return undefined;
  }
  if (name === undefined || name === upper || /unknown/i.test(name)) return undefined;
  // `St. Kitts & Nevis`: a full stop mid-sentence reads as a sentence end.
  name = name.replace(/\bSt\. /g, 'Saint ').replace(/ & /g, ' and ');
  return { name, phrase: WITH_THE.test(name) ? `the ${name}` : name };
}

// ---------------------------------------------------------------------------------------------
// Attributes

export interface AttributeFact {
  /** `battery life` */
  label: string;
  value: string;
  /** Verb phrases completing `It ...` (`weighs 1.2 kg`); empty when the fact only reads as a statement. */
  verbPhrases: string[];
  /** Complete sentences stating the fact, used when there is no verb phrase. */
  statements: string[];
  /** `battery life: 12 hours` */
  spec: string;
}

const ADJECTIVE_SUFFIX = /..(able|ible|proof|free|resistant|repellent|friendly|safe|less|tight|wicking)$/;
/** Nouns that look like adjectives by their ending. */
const NOT_ADJECTIVES =
  /^(cable|table|turntable|timetable|vegetable|syllable|constable|bible|crucible|handful)$/;

function isAdjective(word: string): boolean {
  const lower = word.toLowerCase();
  return ADJECTIVES.has(lower) || (ADJECTIVE_SUFFIX.test(lower) && !NOT_ADJECTIVES.test(lower));
}

/** Attributes whose values are common words (`Black` reads `black`). */
const COMMON_VALUE_KEYS =
  /^(colou?rs?|materials?|fabric|finish|fit|pattern|style|scent|fragrance|flavou?r|taste|texture|shape)$/;

const NUMBER = /^\d+(?:[.,]\d+)?$/;

function be(label: string): 'is' | 'are' {
  return isPlural(label) ? 'are' : 'is';
}

/** `matte` -> `a matte finish`; `relaxed fit` stays `a relaxed fit`. */
function quality(value: string, noun: string): string {
  const phrase = new RegExp(`\\b${noun}$`, 'i').test(value) ? value : `${value} ${noun}`;
  return withArticle(phrase);
}

function verbPhrasesFor(label: string, value: string): string[] {
  switch (label) {
    case 'color':
    case 'colour':
    case 'colors':
    case 'colours':
      return [`comes in ${value}`];
    case 'material':
    case 'materials':
    case 'fabric':
      return [`is made of ${value}`, `is made from ${value}`];
    case 'weight':
      return [`weighs ${value}`, `has a weight of ${value}`];
    case 'dimensions':
    case 'measurements':
      return [`measures ${value}`];
    case 'height':
    case 'width':
    case 'depth':
    case 'length':
      return [`measures ${value} in ${label}`];
    case 'capacity':
      return [`holds ${value}`, `has a capacity of ${value}`];
    case 'volume':
      return [`holds ${value}`, `has a volume of ${value}`];
    case 'gender':
    case 'for':
    case 'suitable for':
    case 'age':
    case 'age group':
    case 'audience':
      return [`is intended for ${value}`];
    case 'made in':
    case 'origin':
    case 'country of origin':
      return [`is made in ${value}`];
    case 'brand':
    case 'manufacturer':
    case 'maker':
      return [`is made by ${value}`, `comes from ${value}`];
    case 'warranty':
      return [`comes with a warranty of ${value}`, `is covered by a warranty of ${value}`];
    case 'battery life':
      return [`offers a battery life of ${value}`, `runs for ${value} on a full charge`];
    case 'power':
    case 'wattage':
      return [`is rated at ${value}`, `has a power rating of ${value}`];
    case 'connectivity':
      return /connectivity$/i.test(value)
        ? [`offers ${value}`]
        : [`connects via ${value}`, `offers ${value} connectivity`];
    case 'compatibility':
    case 'compatible with':
    case 'works with':
      return [`works with ${value}`, `is compatible with ${value}`];
    case 'finish':
    case 'fit':
    case 'pattern':
    case 'style':
    case 'scent':
    case 'texture':
    case 'shape':
      return [`has ${quality(value, label)}`];
    case 'fragrance':
      return [`has ${quality(value, 'scent')}`];
    case 'flavor':
    case 'flavour':
    case 'taste':
      return [`has ${quality(value, label === 'taste' ? 'taste' : label)}`];
    case 'size':
      if (/^(one size|os|onesize)$/i.test(value)) return ['comes in one size'];
      if (/[,/]/.test(value)) return [`comes in sizes ${value}`];
      if (/^[\w.]{1,4}$/.test(value)) return [`comes in size ${value}`];
      return [];
    case 'sizes':
      return [`comes in sizes ${value}`];
    default:
      return [];
  }
}

/** Attributes whose value is a country, often as its code (`origin: IT`). */
const COUNTRY_KEYS = /^(?:origin|made in|country of origin|country|manufactured in|produced in)$/;

export function attributeFact(key: string, rawValue: string): AttributeFact {
  const label = humanizeKey(key) || tidy(key);
  let value = tidy(rawValue);
  if (COMMON_VALUE_KEYS.test(label)) value = lowerWords(value);
  // A country code is said by name: `is made in Italy`, `Origin: United States`.
  const country = COUNTRY_KEYS.test(label) ? countryName(value) : undefined;
  if (country !== undefined) return countryFact(label, country);
  const spec = `${label}: ${value}`;
  if (/^(yes|true|y)$/i.test(value)) {
    const adjective = label.split(' ').every((word, i, words) => i < words.length - 1 || isAdjective(word));
    return adjective
      ? { label, value, verbPhrases: [`is ${label}`], statements: [`It is ${label}.`], spec }
      : { label, value, verbPhrases: [], statements: [`${capitalize(label)}: yes.`], spec };
  }
  if (/^(no|false|n)$/i.test(value)) {
    return { label, value, verbPhrases: [], statements: [`${capitalize(label)}: no.`], spec };
  }
  if (label === 'care' || label === 'care instructions') {
    return {
      label,
      value,
      verbPhrases: [],
      statements: [`Care instructions: ${lowerFirst(value)}.`, `For care: ${lowerFirst(value)}.`],
      spec,
    };
  }
  const verbPhrases = verbPhrasesFor(label, value);
  if (verbPhrases.length === 0 && NUMBER.test(value) && isPlural(label)) {
    verbPhrases.push(`has ${value} ${label}`);
  }
  const statements =
    verbPhrases.length > 0
      ? verbPhrases.map((phrase) => `It ${phrase}.`)
      : [`Its ${label} ${be(label)} ${value}.`, `The ${label} ${be(label)} ${value}.`];
  return { label, value, verbPhrases, statements, spec };
}

/** A country attribute, its name in sentences with `the` where English wants it. */
function countryFact(label: string, country: Country): AttributeFact {
  const spec = `${label}: ${country.name}`;
  const verbPhrases = label === 'country' ? [] : [`is made in ${country.phrase}`];
  const statements =
    verbPhrases.length > 0
      ? verbPhrases.map((phrase) => `It ${phrase}.`)
      : [`Its ${label} is ${country.phrase}.`, `The ${label} is ${country.phrase}.`];
  return { label, value: country.name, verbPhrases, statements, spec };
}

/**
 * Verb phrases that share a sentence, with `is made by` and `is made in` side by side said once:
 * `is made by Northwind in Italy`, not `is made by Northwind and is made in Italy`.
 */
export function mergeVerbPhrases(phrases: readonly string[]): string[] {
  const out: string[] = [];
  for (const phrase of phrases) {
    const previous = out[out.length - 1];
    const by = /^is made by (.+)$/;
    const where = /^is made in (.+)$/;
    const place = where.exec(phrase)?.[1];
    const maker = by.exec(phrase)?.[1];
    if (previous !== undefined && place !== undefined && by.test(previous) && !/ in /.test(previous)) {
      out[out.length - 1] = `${previous} in ${place}`;
    } else if (
      previous !== undefined &&
      maker !== undefined &&
      where.test(previous) &&
      !/ by /.test(previous)
    ) {
      out[out.length - 1] = `${previous} by ${maker}`;
    } else {
      out.push(phrase);
    }
  }
  return out;
}

/** `is made of wool` -> `is also made of wool`; `weighs 2 kg` -> `also weighs 2 kg`. */
export function withAlso(verbPhrase: string): string {
  return /^(is|are|can|will)\s/.test(verbPhrase)
    ? verbPhrase.replace(/^(\w+)\s/, '$1 also ')
    : `also ${verbPhrase}`;
}

// ---------------------------------------------------------------------------------------------
// Features

export type FeatureKind = 'verb' | 'adjective' | 'noun';

export interface Feature {
  /** As written by the caller, without a leading capital: for lists (`Features: a; b`). */
  bare: string;
  kind: FeatureKind;
  /** How it reads in a sentence: `keeps drinks cold` (verb), `water-resistant` (adjective),
   * `an adjustable arm` (noun, with an article where English wants one). */
  phrase: string;
}

const DETERMINER =
  /^(?:(?:a|an|the|one|two|three|four|five|six|seven|eight|nine|ten|twelve|dual|double|triple|multiple|several|many)\s|\d+(?:[.,]\d+)?\s)/i;

export function feature(raw: string): Feature {
  const phrase = lowerFirst(tidy(raw));
  const words = phrase.split(' ');
  const first = words[0] ?? '';
  const last = words[words.length - 1] ?? '';
  if (VERBS.has(first)) return { bare: phrase, kind: 'verb', phrase };
  if (words.length <= 4 && isAdjective(last)) {
    return { bare: phrase, kind: 'adjective', phrase };
  }
  // No article before a determiner, a plural, an uncountable noun or a version (`Bluetooth 5.3`).
  const needsArticle =
    !DETERMINER.test(phrase) &&
    !isPlural(phrase) &&
    !isMassNoun(last) &&
    !/^v?\d[\d.]*$/i.test(last) &&
    /^[a-z]/i.test(phrase);
  return { bare: phrase, kind: 'noun', phrase: needsArticle ? withArticle(phrase) : phrase };
}

// ---------------------------------------------------------------------------------------------
// Options

/** `three`, `12`: numbers up to ten in words, as running text writes them. */
export function countWord(n: number): string {
  return NUMBER_WORDS[n] ?? String(n);
}

function sizeRank(value: string): { scale: 'letter' | 'number'; rank: number } | undefined {
  if (/^\d+(?:\.\d+)?$/.test(value)) return { scale: 'number', rank: Number(value) };
  const upper = value.toUpperCase();
  const rank = LETTER_SIZES.findIndex((names) => names.includes(upper));
  return rank < 0 ? undefined : { scale: 'letter', rank };
}

/**
 * Whether the sizes read from smallest to largest on one scale (`S, M, L`; `38, 40, 42`), so that
 * `from S to L` says no more than the list does. Sizes off a known scale never make a range.
 */
export function ascendingSizes(values: readonly string[]): boolean {
  const ranks = values.map(sizeRank);
  return ranks.every(
    (rank, i) =>
      rank !== undefined &&
      (i === 0 || (rank.scale === ranks[i - 1]?.scale && rank.rank > (ranks[i - 1]?.rank ?? Infinity))),
  );
}

/** How an option reads in running text and as a specification, fully and as a count. */
export interface OptionPhrase {
  /** How many values it has. */
  values: number;
  /**
   * A phrase after `It is available ...`: `in sizes S, M, and L`, `in black and white`, `with a
   * choice of storage (128 GB or 256 GB)`; undefined for an option of one value that only reads
   * as a statement of its own (`statement`).
   */
  clause: string | undefined;
  /** The same as a count: `in five sizes (XS to XL)`, `in 12 colors`, `with three storage options`. */
  counted: string | undefined;
  /** A sentence for an option of one value without a clause: `Its storage is 128 GB.` */
  statement: string | undefined;
  /** `Available sizes: S, M, and L.` */
  spec: string;
  /** `Available sizes: 5 (XS to XL).` */
  specCounted: string;
}

const SIZE_NAME = /(?:^|\s)sizes?$/;
const COLOR_NAME = /^colou?rs?$/;
const ONE_SIZE = /^(?:one size|os|onesize)$/i;

/**
 * An option as the writer says it. Sizes keep their case (`S`, `EU 42`); colours and other common
 * words read in lower case (`Black` -> `black`), as they do in attributes. A name's own spelling
 * is kept (`Colour` -> `colours`). An option of one value that is neither a size nor a colour is
 * stated as an attribute would be (`pick` chooses among attributeFact's wordings). Undefined when
 * no value is left to say.
 */
export function optionPhrase(
  name: string,
  rawValues: readonly string[],
  pick: (wordings: string[]) => string,
): OptionPhrase | undefined {
  const label = humanizeKey(name) || tidy(name);
  const kind = SIZE_NAME.test(label) ? 'size' : COLOR_NAME.test(label) ? 'color' : 'other';
  const lower = kind === 'color' || COMMON_VALUE_KEYS.test(label);
  const values = [
    ...new Set(
      rawValues
        .map((value) => tidy(value))
        .filter((value) => value !== '')
        .map((value) => (lower ? lowerWords(value) : value)),
    ),
  ];
  const n = values.length;
  // Values of punctuation alone (`...`) leave nothing to say.
  if (n === 0) return undefined;
  const list = joinList(values);
  const first = values[0] ?? '';
  const singular = isPlural(label) ? label.replace(/s$/, '') : label;
  const plural = isPlural(label) ? label : pluralize(label);
  const many = n > 2;

  if (kind === 'other' && n === 1) {
    const spec = `${capitalize(label)}: ${first}.`;
    const statement = pick(attributeFact(label, first).statements);
    return { values: n, clause: undefined, counted: undefined, statement, spec, specCounted: spec };
  }
  let clause: string;
  let counted: string;
  let spec: string;
  let specCounted: string;
  if (kind === 'size') {
    const range = many && ascendingSizes(values) ? ` (${first} to ${values[n - 1] ?? ''})` : '';
    clause =
      n === 1 ? (ONE_SIZE.test(first) ? 'in one size' : `in ${singular} ${first}`) : `in ${plural} ${list}`;
    counted = `in ${countWord(n)} ${plural}${range}`;
    spec = `Available ${n === 1 ? singular : plural}: ${list}.`;
    specCounted = `Available ${plural}: ${n}${range}.`;
  } else if (kind === 'color') {
    clause = `in ${list}`;
    counted = `in ${countWord(n)} ${plural}`;
    spec = `Available ${n === 1 ? singular : plural}: ${list}.`;
    specCounted = `Available ${plural}: ${n}.`;
  } else {
    clause = `with a choice of ${label} (${joinList(values, 'or')})`;
    counted = `with ${countWord(n)} ${singular} options`;
    spec = `Available ${singular} options: ${list}.`;
    specCounted = `Available ${singular} options: ${n}.`;
  }
  // Two values say no more as a count than as a list: the list it is.
  return many
    ? { values: n, clause, counted, statement: undefined, spec, specCounted }
    : { values: n, clause, counted: clause, statement: undefined, spec, specCounted: spec };
}

/**
 * Option phrases in one sentence. Phrases that are lists themselves are kept apart: two by `, and`
 * (`in sizes S, M, and L, and in black and white`), three by semicolons.
 */
export function joinClauses(clauses: readonly string[]): string {
  // One option alone is its own phrase (`in sizes S, M, and L`), not `; and in sizes ...`.
  if (clauses.length <= 1 || !clauses.some((clause) => /,|\s(?:and|or)\s/.test(clause))) {
    return joinList(clauses);
  }
  if (clauses.length === 2) return `${clauses[0]}, and ${clauses[1]}`;
  return `${clauses.slice(0, -1).join('; ')}; and ${clauses[clauses.length - 1]}`;
}
