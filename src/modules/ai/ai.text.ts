/** Text helpers shared by the providers and the service. */

const WORD = /[\p{L}\p{N}]/u;

/** Words as a reader counts them: whitespace-separated tokens holding a letter or a digit. */
export function countWords(text: string): number {
  let count = 0;
  for (const token of text.split(/\s+/)) if (WORD.test(token)) count += 1;
  return count;
}

/** A sentence end: terminal punctuation, optionally closed by quotes or brackets, then space or end. */
const SENTENCE_END = /[.!?…。！？](?:["'”’)\]]*)(?=\s|$)/gu;

/**
 * The text up to its last complete sentence, for a text the provider cut off mid-sentence. A text
 * without any complete sentence is kept up to its last whole word.
 */
export function trimToLastSentence(text: string): string {
  let end = -1;
  for (const match of text.matchAll(SENTENCE_END)) end = match.index + match[0].length;
  if (end > 0) return text.slice(0, end).trimEnd();
  const lastSpace = text.trimEnd().search(/\s\S*$/);
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
