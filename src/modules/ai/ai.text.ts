/** Text helpers shared by the providers and the service. */

const WORDS = new Intl.Segmenter('en', { granularity: 'word' });

/** Characters of scripts written without spaces between words, whose words only a segmenter finds. */
const SPACELESS =
  /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]/u;

/** One character that joins two words into one without a space: `water-resistant`, `and/or`, `R&D`. */
const JOINER = /^[-‐‑/&@+:.'’]$/u;

/**
 * Where each word starts, as a reader counts words: the word-like segments of `Intl.Segmenter`,
 * so text without spaces (Chinese, Japanese, Thai) counts word by word. Segments joined by a single
 * hyphen, slash or the like, with no space, count once (`USB-C`, `10:30`), as they do in English.
 */
function wordStarts(text: string): number[] {
  const starts: number[] = [];
  let previous: Intl.SegmentData | undefined;
  let beforePrevious: Intl.SegmentData | undefined;
  for (const segment of WORDS.segment(text)) {
    if (segment.isWordLike) {
      const joined =
        previous !== undefined &&
        beforePrevious?.isWordLike === true &&
        JOINER.test(previous.segment) &&
        !SPACELESS.test(beforePrevious.segment) &&
        !SPACELESS.test(segment.segment);
      if (!joined) starts.push(segment.index);
    }
    beforePrevious = previous;
    previous = segment;
  }
  return starts;
}

/** Words as a reader counts them (see wordStarts): punctuation and symbols alone are no word. */
export function countWords(text: string): number {
  return wordStarts(text).length;
}

/** The start of `text` holding its first `max` words, without the punctuation that followed them. */
export function firstWords(text: string, max: number): string {
  const next = wordStarts(text)[max];
  if (next === undefined) return text;
  return text.slice(0, next).replace(/[\s\p{P}\p{S}]+$/u, '');
}

const CLOSERS = `["'”’»)\\]」』）】》〉]*`;
const CJK = '\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}';

/**
 * A sentence end: terminal punctuation, optionally closed by quotes or brackets. `。！？` end a
 * sentence wherever they stand; `.!?…` need a space or the end after them, or a Chinese or Japanese
 * character (which follows a sentence without a space), so `2.5` is no sentence end.
 */
const SENTENCE_END = new RegExp(`[。｡！？]${CLOSERS}|[.!?…]${CLOSERS}(?=\\s|$|[${CJK}])`, 'gu');
const ENDS_IN_SPACELESS = new RegExp(`${SPACELESS.source}\\S*$`, 'u');

/**
 * The text up to its last complete sentence, for a text the provider cut off mid-sentence. A text
 * without any complete sentence is kept up to its last whole word.
 */
export function trimToLastSentence(text: string): string {
  let end = -1;
  for (const match of text.matchAll(SENTENCE_END)) end = match.index + match[0].length;
  if (end > 0) return text.slice(0, end).trimEnd();
  const body = text.trimEnd();
  // Words without spaces between them: the last one may be cut, so it goes.
  const lastWord = ENDS_IN_SPACELESS.test(body) ? wordStarts(body).at(-1) : undefined;
  if (lastWord !== undefined && lastWord > 0) return body.slice(0, lastWord).trimEnd();
  const lastSpace = body.search(/\s\S*$/);
  return (lastSpace > 0 ? text.slice(0, lastSpace) : text).trimEnd();
}

/** `de-CH` -> "German (Switzerland)"; the tag itself when the runtime does not know it. */
export function languageName(tag: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}

/** The canonical form of a BCP 47 tag (`EN-gb` -> `en-GB`), or undefined when it is not one. */
export function canonicalLanguage(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}
