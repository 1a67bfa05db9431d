import { minorUnitDigits } from '../../lib/money.js';
import { shown } from './imports.rows.js';

/**
 * Shopify's product CSV export, read as it comes: which header is Shopify's, which of its columns
 * feed which product field, its HTML descriptions as plain text and its decimal prices as minor
 * units. docs/imports-and-exports.md lists the mapping.
 */

/**
 * A header is Shopify's when it has `Handle` (or `URL handle`, as Shopify's current export names
 * it) and one of these (our own files have `handle`).
 */
const SHOPIFY_MARKERS = ['Title', 'Body (HTML)', 'Variant SKU', 'Variant Price', 'Option1 Name'];

/** The column of a product's handle in Shopify's current export, where older ones have `Handle`. */
export const SHOPIFY_URL_HANDLE = 'URL handle';

export function isShopifyHeader(columns: readonly string[]): boolean {
  return (
    (columns.includes('Handle') || columns.includes(SHOPIFY_URL_HANDLE)) &&
    SHOPIFY_MARKERS.some((marker) => columns.includes(marker))
  );
}

/** The product fields and the Shopify columns they are read from. */
export const SHOPIFY_COLUMNS: Readonly<Record<string, string>> = {
  handle: 'Handle',
  name: 'Title',
  description: 'Body (HTML)',
  vendor: 'Vendor',
  category: 'Type',
  product_category: 'Product Category',
  tags: 'Tags',
  published: 'Published',
  status: 'Status',
  option1_name: 'Option1 Name',
  option1_value: 'Option1 Value',
  option2_name: 'Option2 Name',
  option2_value: 'Option2 Value',
  option3_name: 'Option3 Name',
  option3_value: 'Option3 Value',
  sku: 'Variant SKU',
  weight_grams: 'Variant Grams',
  stock: 'Variant Inventory Qty',
  price: 'Variant Price',
  compare_at_price: 'Variant Compare At Price',
  barcode: 'Variant Barcode',
};

/** What Shopify writes for the one variant of a product without options. */
export const SHOPIFY_DEFAULT_OPTION = { name: 'Title', value: 'Default Title' };

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
  const match = /^(\d{1,15})(?:\.(\d{1,20}))?$/.exec(trimmed);
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

/** Shopify's grams may come as "200" or "200.0": the nearest whole gram. */
export function grams(text: string): { value: number } | { error: string } {
  const trimmed = text.trim();
  if (!/^\d{1,12}(\.\d+)?$/.test(trimmed))
    return { error: `must be a weight in grams, not "${shown(trimmed)}"` };
  return { value: Math.round(Number(trimmed)) };
}
