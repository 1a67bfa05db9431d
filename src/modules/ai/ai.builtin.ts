import { createHash } from 'node:crypto';
import { validationError } from '../../lib/errors.js';
import {
  type AttributeFact,
  attributeFact,
  capitalize,
  categoryLabel,
  categoryPhrase,
  type Feature,
  feature,
  joinClauses,
  joinList,
  mergeVerbPhrases,
  type OptionPhrase,
  optionPhrase,
  productRef,
  shortName,
  withAlso,
} from './ai.english.js';
import { PHRASES, type ToneBank } from './ai.phrases.js';
import {
  type DescriptionProvider,
  type DescriptionRequest,
  type DescriptionResult,
  LENGTH_WORDS,
  type OptionFact,
} from './ai.provider.js';
import { countWords } from './ai.text.js';

/**
 * The built-in writer: no network, no model. It composes a description from the product's own
 * facts (name, category, attributes, options, features) and the caller's keywords, in the
 * requested tone, to the requested length, from phrase banks that either carry one of those facts
 * or none at all (ai.phrases.ts). Choices come from a PRNG seeded with a hash of the whole input, so the same
 * input always reads the same, and `variant` asks for another wording. It writes English.
 */

export const BUILTIN_MODEL = 'builtin-copy-1';

/** Names up to this many words are said in full throughout; longer ones by their head after the opening. */
const REFERENCE_NAME_WORDS = 6;

/** sfc32: a small, fast PRNG with a 128-bit state, here seeded from SHA-256 of the input. */
class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: Buffer) {
    this.a = seed.readUInt32LE(0);
    this.b = seed.readUInt32LE(4);
    this.c = seed.readUInt32LE(8);
    this.d = seed.readUInt32LE(12);
    for (let i = 0; i < 12; i++) this.next();
  }

  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  }

  /** Draws from `items` without repeating one until all have been drawn. */
  deck<T>(items: readonly T[]): () => T {
    let pile: T[] = [];
    return () => {
      if (pile.length === 0) pile = this.shuffle(items);
      return pile.pop() as T;
    };
  }
}

function seedOf(request: DescriptionRequest): Buffer {
  const { product } = request;
  const canonical = JSON.stringify([
    product.name,
    product.category,
    Object.entries(product.attributes),
    product.features,
    // Only when there are options, so a product without them reads as it always has.
    ...(product.options.length > 0 ? [product.options.map((o) => [o.name, o.values])] : []),
    request.keywords,
    request.tone,
    request.length,
    request.variant,
  ]);
  return createHash('sha256').update(canonical).digest();
}

type Slot = 'intro' | 'category' | 'fact' | 'keyword' | 'filler' | 'closing';
const SLOT_ORDER: Readonly<Record<Slot, number>> = {
  intro: 0,
  category: 1,
  fact: 2,
  keyword: 3,
  filler: 4,
  closing: 5,
};

interface Part {
  paragraph: number;
  slot: Slot;
  seq: number;
  text: string;
  words: number;
}

/** The text being written: sentences placed in paragraphs, never one twice, within a word budget. */
class Draft {
  private readonly parts: Part[] = [];
  private readonly seen = new Set<string>();
  words = 0;

  add(paragraph: number, slot: Slot, text: string, budget: number): boolean {
    const sentence = capitalize(text);
    const key = sentence
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();
    const words = countWords(sentence);
    if (this.seen.has(key) || this.words + words > budget) return false;
    this.seen.add(key);
    this.parts.push({ paragraph, slot, seq: this.parts.length, text: sentence, words });
    this.words += words;
    return true;
  }

  wordsIn(paragraph: number): number {
    return this.parts.filter((p) => p.paragraph === paragraph).reduce((sum, p) => sum + p.words, 0);
  }

  sentencesIn(paragraph: number, slot: Slot): number {
    return this.parts.filter((p) => p.paragraph === paragraph && p.slot === slot).length;
  }

  text(): string {
    const ordered = [...this.parts].sort(
      (x, y) => x.paragraph - y.paragraph || SLOT_ORDER[x.slot] - SLOT_ORDER[y.slot] || x.seq - y.seq,
    );
    const paragraphs: string[][] = [];
    for (const part of ordered) (paragraphs[part.paragraph] ??= []).push(part.text);
    return paragraphs
      .filter((sentences) => sentences.length > 0)
      .map((sentences) => sentences.join(' '))
      .join('\n\n');
  }
}

/** Whether the text already says `phrase` word for word: as whole words, in the same case. */
function mentions(text: string, phrase: string): boolean {
  const escaped = phrase.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'u').test(text);
}

/** A fact sentence that can drop items from its end to fit the budget: `render(n)` says the first n. */
interface FactGroup {
  size: number;
  render(n: number): string;
}

/** `Notably, it ...`; a lead-in ending in a question starts a new sentence. */
function withLeadIn(leadIn: string, clause: string): string {
  if (leadIn === '') return `It ${clause}`;
  return `${leadIn}${leadIn.trimEnd().endsWith('?') ? 'It' : 'it'} ${clause}`;
}

/**
 * The options it is offered in, as one group whose renderings run from the barest to the fullest
 * (`render(size)` is the fullest): every option listed; long lists (over three values) counted;
 * all counted; then the later options left out, one by one. Technical copy states them as
 * specifications. Options of one value that read only as a statement of their own follow the
 * sentence (`Its storage is 128 GB.`).
 */
function optionGroup(
  options: readonly OptionFact[],
  bank: ToneBank,
  technical: boolean,
  rng: Random,
): FactGroup | undefined {
  const phrases = options
    .map((option) => optionPhrase(option.name, option.values, (wordings) => rng.pick(wordings)))
    .filter((phrase): phrase is OptionPhrase => phrase !== undefined);
  if (phrases.length === 0) return undefined;
  const line = rng.pick(bank.optionLines);
  const asSpec = technical && (phrases.length > 1 || rng.chance(0.5));
  const say = (chosen: readonly OptionPhrase[], count: (phrase: OptionPhrase) => boolean): string => {
    if (asSpec) return chosen.map((p) => (count(p) ? p.specCounted : p.spec)).join(' ');
    const clauses = chosen
      .map((p) => (count(p) ? p.counted : p.clause))
      .filter((clause): clause is string => clause !== undefined);
    const statements = chosen
      .map((p) => p.statement)
      .filter((statement): statement is string => statement !== undefined);
    return [...(clauses.length > 0 ? [line(joinClauses(clauses))] : []), ...statements].join(' ');
  };
  const renderings = [
    say(phrases, () => false),
    say(phrases, (p) => p.values > 3),
    say(phrases, () => true),
    ...phrases.slice(1).map((_, i) => say(phrases.slice(0, phrases.length - 1 - i), () => true)),
  ];
  const distinct = renderings.filter((text, i) => text !== '' && text !== renderings[i - 1]).reverse();
  return { size: distinct.length, render: (n) => distinct[n - 1] ?? '' };
}

function factGroups(
  attributes: readonly AttributeFact[],
  offered: readonly OptionFact[],
  features: readonly Feature[],
  bank: ToneBank,
  options: { compact: boolean; technical: boolean; name: string },
  rng: Random,
): FactGroup[] {
  const groups: FactGroup[] = [];
  const leadIn = rng.deck(bank.leadIns);
  let sentences = 0;
  const nextLead = () => (sentences++ === 0 ? '' : leadIn());

  if (options.technical && options.compact) {
    if (attributes.length > 0) {
      const specs = attributes.map((a) => a.spec);
      groups.push({ size: specs.length, render: (n) => `Specifications: ${specs.slice(0, n).join('; ')}.` });
    }
  } else if (options.technical) {
    for (const attribute of attributes) {
      const text = rng.chance(0.5)
        ? `${capitalize(attribute.label)}: ${attribute.value}.`
        : rng.pick(attribute.statements);
      groups.push({ size: 1, render: () => text });
    }
  } else {
    // Consecutive attributes that read as `it <verb> ...` share a sentence: up to 3 in the compact
    // form, 2 or 3 in the full one; the others stand as statements of their own.
    let run: string[] = [];
    const flush = () => {
      if (run.length === 0) return;
      const phrases = run;
      run = [];
      const lead = nextLead();
      const useName = lead === '' && sentences > 1 && rng.chance(0.3);
      const also = !useName && sentences > 1 && rng.chance(0.35);
      groups.push({
        size: phrases.length,
        render: (n) => {
          const chosen = mergeVerbPhrases(phrases.slice(0, n));
          if (also) chosen[0] = withAlso(chosen[0] ?? '');
          const clause = `${joinList(chosen)}.`;
          return useName ? `${options.name} ${clause}` : withLeadIn(lead, clause);
        },
      });
    };
    const perSentence = options.compact ? 3 : rng.chance(0.5) ? 2 : 3;
    for (const attribute of attributes) {
      if (attribute.verbPhrases.length > 0) {
        run.push(rng.pick(attribute.verbPhrases));
        if (run.length >= perSentence) flush();
      } else {
        flush();
        const text = rng.pick(attribute.statements);
        groups.push({ size: 1, render: () => text });
      }
    }
    flush();
  }

  // What it is offered in, after what it is: the product's own facts come first.
  const optionSentence = optionGroup(offered, bank, options.technical, rng);
  if (optionSentence !== undefined) groups.push(optionSentence);

  const nouns = features.filter((f) => f.kind === 'noun');
  const verbs = features.filter((f) => f.kind === 'verb');
  const adjectives = features.filter((f) => f.kind === 'adjective');
  if (options.technical && options.compact && features.length > 0) {
    const plain = features.map((f) => f.bare);
    groups.push({ size: plain.length, render: (n) => `Features: ${plain.slice(0, n).join('; ')}.` });
    return groups;
  }
  const nounLine = rng.deck(bank.nounFeatures);
  const chunk = options.compact ? nouns.length : 3;
  for (let i = 0; i < nouns.length; i += chunk) {
    const phrases = nouns.slice(i, i + chunk).map((f) => f.phrase);
    const template = nounLine();
    groups.push({ size: phrases.length, render: (n) => template(joinList(phrases.slice(0, n))) });
  }
  const verbChunk = options.compact ? verbs.length : 2;
  for (let i = 0; i < verbs.length; i += verbChunk) {
    const phrases = verbs.slice(i, i + verbChunk).map((f) => f.phrase);
    const lead = options.technical ? '' : nextLead();
    groups.push({
      size: phrases.length,
      render: (n) => withLeadIn(lead, `${joinList(phrases.slice(0, n))}.`),
    });
  }
  if (adjectives.length > 0) {
    const phrases = adjectives.map((f) => f.phrase);
    const template = rng.pick(bank.adjectiveFeatures);
    groups.push({ size: phrases.length, render: (n) => template(joinList(phrases.slice(0, n))) });
  }
  return groups;
}

/** Writes the description. Pure: the same request always gives the same text. */
export function writeDescription(request: DescriptionRequest): string {
  const rng = new Random(seedOf(request));
  const bank = PHRASES[request.tone];
  const { min, max } = LENGTH_WORDS[request.length];
  const target = min + Math.round((max - min) * (0.35 + 0.3 * rng.next()));
  const paragraphs = request.length === 'short' ? 1 : request.length === 'medium' ? 2 : 3;
  const last = paragraphs - 1;
  const factParagraph = Math.min(1, last);

  // A long name or category must not crowd out the length: the opening says at most a third of
  // the longest text in name, and a sixth in category (else it leaves the category out); later
  // sentences say a long name by its head.
  const fullName = productRef(shortName(request.product.name, Math.floor(max / 3)));
  const name = productRef(shortName(request.product.name, REFERENCE_NAME_WORDS));
  const category = request.product.category ? categoryPhrase(request.product.category) : null;
  const label = request.product.category ? categoryLabel(request.product.category) : null;
  const attributes = Object.entries(request.product.attributes)
    .filter(([key, value]) => key.trim() !== '' && value.trim() !== '')
    .map(([key, value]) => attributeFact(key, value));
  const features = request.product.features.filter((f) => f.trim() !== '').map(feature);
  const keywords = [...new Set(request.keywords.map((k) => k.trim()).filter((k) => k !== ''))];

  const draft = new Draft();
  const unlimited = Number.MAX_SAFE_INTEGER;

  // 1. The opening names the product (and its category, half the time).
  const categoryInIntro = category !== null && rng.chance(0.5) && countWords(category) <= max / 6;
  const intro =
    category !== null && categoryInIntro
      ? rng.pick(bank.categoryIntros)(fullName, category)
      : rng.pick(bank.intros)(fullName);
  draft.add(0, 'intro', intro, unlimited);

  // 2. Room is kept for the keywords (they must appear) and, beyond `short`, the closing line.
  const closing = rng.pick(bank.closings)(name);
  // The name is said in the opening and maybe the closing: the keyword line need not say it again.
  const keywordLines = closing.includes(name)
    ? bank.keywordLines.filter((line) => !line('', name).includes(name))
    : bank.keywordLines;
  const keywordLine = rng.pick(keywordLines.length > 0 ? keywordLines : bank.keywordLines);
  const missingKeywords = () => keywords.filter((k) => !mentions(draft.text(), k));
  const keywordWords = () => {
    const missing = missingKeywords();
    return missing.length === 0 ? 0 : countWords(keywordLine(joinList(missing, 'or'), name));
  };
  const closingWords = request.length === 'short' ? 0 : countWords(closing);

  // 3. The facts, in the order given, each group shortened when the budget demands.
  const groups = factGroups(
    attributes,
    request.product.options,
    features,
    bank,
    { compact: request.length === 'short', technical: request.tone === 'technical', name },
    rng,
  );
  for (const group of groups) {
    const budget = max - keywordWords() - closingWords;
    for (let n = group.size; n >= 1; n--) {
      if (draft.add(factParagraph, 'fact', group.render(n), budget)) break;
    }
  }

  // 4. Keywords the text does not say yet, then the closing line.
  const missing = missingKeywords();
  if (missing.length > 0) draft.add(last, 'keyword', keywordLine(joinList(missing, 'or'), name), unlimited);
  draft.add(last, 'closing', closing, max);

  // 5. The category, if the opening left it out.
  if (category !== null && label !== null && !categoryInIntro && draft.words < target) {
    draft.add(0, 'category', rng.pick(bank.categoryLines)(category, label), max);
  }

  // 6. Fact-free lines in the tone, spread over the paragraphs, until the length is reached. The
  // name and the category come back at most once or twice: repetition reads as filler.
  const fillers = rng.shuffle([
    ...bank.fillers.map((line) => line(name)),
    ...(category === null ? [] : [rng.pick(bank.categoryFillers)(category, name)]),
  ]);
  let namedFillers = paragraphs === 3 ? 2 : 1;
  const caps = paragraphs === 1 ? [Infinity] : paragraphs === 2 ? [1, Infinity] : [3, 4, Infinity];
  const addFiller = (filler: string) => {
    const open = caps
      .map((cap, paragraph) => ({ paragraph, cap }))
      .filter(({ paragraph, cap }) => draft.sentencesIn(paragraph, 'filler') < cap)
      .sort((x, y) => draft.wordsIn(x.paragraph) - draft.wordsIn(y.paragraph));
    return draft.add(open[0]?.paragraph ?? last, 'filler', filler, max);
  };
  const skipped: string[] = [];
  for (const filler of fillers) {
    if (draft.words >= target) break;
    if (filler.includes(name) && namedFillers-- <= 0) skipped.push(filler);
    else addFiller(filler);
  }
  // Short of the minimum, the name may come back more often than is elegant.
  for (const filler of skipped) if (draft.words < min) addFiller(filler);
  // Every keyword must appear, word for word: when they leave no room, the length cannot be kept.
  if (keywords.length > 0 && draft.words > max) {
    throw validationError(
      'keywords',
      `would make the ${request.length} description ${draft.words} words long, over its ${max}: send fewer or shorter keywords, or ask for a longer length`,
    );
  }
  return draft.text();
}

export function createBuiltinProvider(): DescriptionProvider {
  return {
    name: 'builtin',
    async generate(request): Promise<DescriptionResult> {
      return {
        text: writeDescription(request),
        // The built-in writer writes English whatever language was asked for.
        language: 'en',
        model: BUILTIN_MODEL,
        // No model runs: nothing is tokenized and nothing is billed.
        inputTokens: 0,
        outputTokens: 0,
        truncated: false,
      };
    },
  };
}
