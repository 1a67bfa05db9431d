/**
 * Text that is matched by equality (an address's state against a tax rate's, a discount code), made
 * comparable: what a reader cannot see, or sees as the same, must not make two texts differ, or a
 * buyer could write `ca` plus a zero-width space and dodge the rate for `CA`. Pure and total.
 */

/**
 * Default-ignorable code points: zero-width spaces and joiners, the soft hyphen, bidirectional and
 * other format marks, the combining grapheme joiner, variation selectors, tag characters, Hangul
 * fillers. They are invisible, so removed.
 */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
/** White space and control characters: each run becomes one space. */
const SPACING = /[\s\p{Cc}]+/gu;
/** The combining diacritical marks (U+0300-U+036F): accents once a letter is decomposed. */
const ACCENTS = /[\u0300-\u036f]/g;

/**
 * Text as stored: invisible characters removed, Unicode NFKC (a letter and its combining accent
 * become the precomposed letter, full-width and compatibility forms their plain form), runs of
 * white space and controls one space, trimmed. Case is kept. Blank text becomes `''`.
 */
export function normaliseText(text: string): string {
  return text
    .replace(IGNORABLE, '')
    .normalize('NFKC')
    .replace(IGNORABLE, '') // NFKC maps a few compatibility characters to ignorable ones
    .replace(SPACING, ' ')
    .trim();
}

/**
 * What two texts are matched on: `normaliseText`, then case-folded (upper case: `ß` is `SS`) and
 * without accents on Latin, Greek and Cyrillic letters (`Québec`, however its `é` is written, is
 * `QUEBEC`). Two texts match when their keys are equal.
 */
export function matchKey(text: string): string {
  return normaliseText(text).toUpperCase().normalize('NFKD').replace(ACCENTS, '').normalize('NFKC');
}
