import { minorUnitDigits } from '../../lib/money.js';
import { shown } from './imports.rows.js';

/**
 * Values as other platforms' product exports write them, read into ours: HTML descriptions as plain
 * text, decimal prices as minor units of the store's currency, weights in grams, image URLs, and
 * the lists WooCommerce writes in one cell.
 */

const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  copy: '©',
  reg: '®',
  trade: '™',
  deg: '°',
  euro: '€',
  pound: '£',
  yen: '¥',
  times: '×',
  middot: '·',
  bull: '•',
};

/** Elements after which the text goes on on a new line. */
const BLOCKS = new Set([
  'p',
  'div',
  'br',
  'li',
  'ul',
  'ol',
  'tr',
  'table',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'section',
  'article',
  'header',
  'footer',
  'hr',
  'pre',
]);
/** Blocks followed by a blank line. */
const PARAGRAPHS = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'table',
  'blockquote',
  'pre',
]);
/** Elements whose content is not text a reader sees. */
const HIDDEN = new Set(['script', 'style', 'template', 'head', 'title', 'noscript']);

function decodeEntity(name: string): string | undefined {
  if (name.startsWith('#')) {
    const code =
      name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    if (!Number.isInteger(code) || code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
      return undefined;
    }
    return String.fromCodePoint(code);
  }
  return ENTITIES[name.toLowerCase()];
}

/**
 * A Shopify description (HTML) as the plain text our products hold: tags dropped, `<br>` and
 * block elements as line breaks (a blank line after a paragraph, list items with "- "), entities
 * decoded, runs of spaces and blank lines collapsed, scripts and styles left out. One pass over the text, no regular expression
 * that could backtrack on hostile input.
 */
export function htmlToText(html: string): string {
  let out = '';
  let hidden: string | undefined;
  let i = 0;
  while (i < html.length) {
    const char = html[i] as string;
    // A tag starts with a letter, `/` or `!` after the `<`; any other `<` is text ("5 < 6").
    if (char === '<' && /[a-zA-Z/!]/.test(html[i + 1] ?? '')) {
      const close = html.indexOf('>', i + 1);
      if (close === -1) {
        if (hidden === undefined) out += html.slice(i);
        break;
      }
      const inside = html.slice(i + 1, close).trim();
      i = close + 1;
      if (inside.startsWith('!')) continue; // comments and doctypes
      const ending = inside.startsWith('/');
      const name = (ending ? inside.slice(1) : inside).split(/[\s/]/, 1)[0]?.toLowerCase() ?? '';
      if (hidden !== undefined) {
        if (ending && name === hidden) hidden = undefined;
        continue;
      }
      if (!ending && HIDDEN.has(name) && !inside.endsWith('/')) {
        hidden = name;
        continue;
      }
      if (name === 'br') out += '\n';
      else if (BLOCKS.has(name)) {
        // A block starts on a line of its own; a paragraph or heading ends with a blank line.
        if (!out.endsWith('\n')) out += '\n';
        if (ending && PARAGRAPHS.has(name)) out += '\n';
      }
      if (!ending && name === 'li') out += '- ';
      continue;
    }
    if (hidden !== undefined) {
      i += 1;
      continue;
    }
    if (char === '&') {
      const semi = html.indexOf(';', i + 1);
      if (semi !== -1 && semi - i <= 10) {
        const decoded = decodeEntity(html.slice(i + 1, semi));
        if (decoded !== undefined) {
          out += decoded;
          i = semi + 1;
          continue;
        }
      }
    }
    out += char;
    i += 1;
  }
  return out
    .split('\n')
    .map((line) => line.replace(/[ \t\r\f\v\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * A decimal price ("19.99", "1,299.00" is refused: no thousands separators) in minor units of
 * `currency`: USD "19.99" is 1999, JPY "1999" is 1999, KWD "1.250" is 1250. Decimals past the
 * currency's own are allowed only as zeros ("1999.00" in JPY).
 */
export function decimalToMinor(text: string, currency: string): { value: number } | { error: string } {
  const trimmed = text.trim();
  const match = /^(?=\.?\d)(\d{0,15})(?:\.(\d{1,20}))?$/.exec(trimmed);
  if (!match) return { error: `must be a price such as 19.99, not "${shown(trimmed)}"` };
  const digits = minorUnitDigits(currency);
  const whole = match[1] as string;
  const fraction = match[2] ?? '';
  const kept = fraction.slice(0, digits).padEnd(digits, '0');
  if (/[^0]/.test(fraction.slice(digits))) {
    return {
      error:
        digits === 0
          ? `has decimals, but ${currency} has no minor unit: "${shown(trimmed)}"`
          : `has more than ${digits} decimals, the minor unit of ${currency}: "${shown(trimmed)}"`,
    };
  }
  const value = Number(whole + kept);
  if (!Number.isSafeInteger(value)) return { error: `is too large: "${shown(trimmed)}"` };
  return { value };
}

/** Grams in a unit a file's weights may come in. */
const GRAMS_PER: Readonly<Record<string, number>> = {
  g: 1,
  kg: 1000,
  lb: 453.59237,
  lbs: 453.59237,
  oz: 28.349523125,
};

export type WeightUnit = keyof typeof GRAMS_PER;

export function isWeightUnit(unit: string): unit is WeightUnit {
  return Object.hasOwn(GRAMS_PER, unit);
}

/**
 * A weight ("200", "200.0", ".5") in `unit` as the nearest whole gram: Shopify's grams come with
 * decimals, WooCommerce's weights in the store's unit (kg, g, lbs or oz).
 */
export function weightToGrams(text: string, unit: WeightUnit = 'g'): { value: number } | { error: string } {
  const trimmed = text.trim();
  if (!/^(?=\.?\d)\d{0,12}(\.\d+)?$/.test(trimmed)) {
    return { error: `must be a weight in ${unit === 'g' ? 'grams' : unit}, not "${shown(trimmed)}"` };
  }
  return { value: Math.round(Number(trimmed) * (GRAMS_PER[unit] as number)) };
}

/**
 * An image URL from another platform's file: https as ours are; an `http://` URL is taken as its
 * `https://` form (Shopify's and WordPress's image hosts serve both; older exports wrote http).
 */
export function imageUrl(text: string): { value: string } | { error: string } {
  const trimmed = text.trim();
  const https = /^http:\/\//i.test(trimmed) ? `https://${trimmed.slice('http://'.length)}` : trimmed;
  let url: URL;
  try {
    url = new URL(https);
  } catch {
    return { error: `must be an image URL, not "${shown(trimmed)}"` };
  }
  if (url.protocol !== 'https:' || url.hostname === '' || url.username !== '' || url.password !== '') {
    return { error: `must be an https URL without credentials, not "${shown(trimmed)}"` };
  }
  return { value: https };
}

/**
 * The items of a WooCommerce list cell (categories, tags, images, attribute values): split at
 * commas, where `\,` is a comma inside an item; each trimmed, empty ones dropped.
 */
export function splitEscapedList(text: string): string[] {
  const items: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '\\' && text[i + 1] === ',') {
      current += ',';
      i += 1;
    } else if (char === ',') {
      items.push(current);
      current = '';
    } else current += char;
  }
  items.push(current);
  return items.map((item) => item.trim()).filter((item) => item !== '');
}
