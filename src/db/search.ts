import { type RawBuilder, sql } from 'kysely';

/**
 * The pieces of substring search that products and customers share. Both sides of a comparison go
 * through one fold: `searchFold` (src/db/store.ts) in JavaScript and SQLite, `pgFold` in PostgreSQL.
 */

/**
 * PostgreSQL's half of the search fold: lower(), then `ς` as `σ` and U+0307 dropped. translate()
 * deletes the characters of its second argument that have no counterpart in the third: here U+0307.
 * Migrations 0019 and 0020 build their trigram indexes on this same expression.
 */
export function pgFold(text: RawBuilder<string>): RawBuilder<string> {
  return sql`translate(lower(${text}), '\u03c2\u0307', '\u03c3')`;
}

/** A LIKE pattern for a substring, its `\`, `%` and `_` escaped (queries say `escape '\'`). */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** An FTS5 phrase: the trigram tokenizer turns it into a substring match. */
export function ftsPhrase(folded: string): string {
  return `"${folded.replaceAll('"', '""')}"`;
}
