/**
 * The file formats exports write and imports read: one list of columns per resource, in order, and
 * how a value is written in a CSV cell. A JSON Lines file has one object per CSV row, with the same
 * columns as keys and typed values (numbers, booleans, lists, objects, null for an empty cell).
 * docs/imports-and-exports.md describes both for people.
 */

/**
 * One row per variant. The product's own columns (up to `option3_name`) are filled on its first
 * row only; every row of a product carries its `handle` (exports write the product's handle).
 */
export const PRODUCT_COLUMNS = [
  'handle',
  'name',
  'description',
  'category',
  'status',
  'tags',
  'currency',
  'images',
  'image_alts',
  'attributes',
  'seo_title',
  'seo_description',
  'option1_name',
  'option1_value',
  'option2_name',
  'option2_value',
  'option3_name',
  'option3_value',
  'sku',
  'price',
  'compare_at_price',
  'stock',
  'stock_by_location',
  'weight_grams',
  'barcode',
  'image',
  'cost',
  'requires_shipping',
  'taxable',
] as const;
export type ProductColumn = (typeof PRODUCT_COLUMNS)[number];

/** The product's own columns: on a product's first row only. */
export const PRODUCT_OWN_COLUMNS: readonly ProductColumn[] = [
  'name',
  'description',
  'category',
  'status',
  'tags',
  'currency',
  'images',
  'image_alts',
  'attributes',
  'seo_title',
  'seo_description',
  'option1_name',
  'option2_name',
  'option3_name',
];

/** The product columns from version 2027-01-20: older versions' exports leave them out. */
export const PRODUCT_COLUMNS_SINCE_2027_01_20: readonly ProductColumn[] = [
  'image_alts',
  'stock_by_location',
  'seo_title',
  'seo_description',
  'image',
  'cost',
  'requires_shipping',
  'taxable',
];

/**
 * One row per address (one row for a customer without any). The customer's own columns are filled
 * on its first row only; every row of a customer carries its `email`.
 */
export const CUSTOMER_COLUMNS = [
  'email',
  'name',
  'phone',
  'tags',
  'note',
  'marketing_consent',
  'metadata',
  'address_name',
  'address_line1',
  'address_line2',
  'address_city',
  'address_state',
  'address_postal_code',
  'address_country',
  'address_phone',
] as const;
export type CustomerColumn = (typeof CUSTOMER_COLUMNS)[number];

export const CUSTOMER_OWN_COLUMNS: readonly CustomerColumn[] = [
  'name',
  'phone',
  'tags',
  'note',
  'marketing_consent',
  'metadata',
];

/** The address fields, as `address_` columns name them. */
export const ADDRESS_FIELDS = [
  'name',
  'line1',
  'line2',
  'city',
  'state',
  'postal_code',
  'country',
  'phone',
] as const;

/** One row per order line; the order's own columns are repeated on each of its lines. Export only. */
export const ORDER_COLUMNS = [
  'order_id',
  'created',
  'status',
  'currency',
  'customer_id',
  'customer_email',
  'customer_name',
  'subtotal',
  'discount_total',
  'shipping_total',
  'tax_total',
  'total',
  'refunded_amount',
  'shipping_name',
  'shipping_line1',
  'shipping_line2',
  'shipping_city',
  'shipping_state',
  'shipping_postal_code',
  'shipping_country',
  'shipping_phone',
  'carrier',
  'tracking_number',
  'line',
  'product_id',
  'variant_id',
  'sku',
  'item_name',
  'variant_title',
  'quantity',
  'unit_price',
  'line_total',
  'line_discount',
  'line_tax',
] as const;
export type OrderColumn = (typeof ORDER_COLUMNS)[number];

/** A value of a row: what a JSON Lines file holds; a CSV cell holds its text (`csvCell`). */
export type CellValue =
  | string
  | number
  | boolean
  | readonly string[]
  | Readonly<Record<string, string>>
  | Readonly<Record<string, number>>
  | null;

/** What needs quoting inside a list cell: a comma, a quote, or space at either end. */
const NEEDS_QUOTES = /[",]|^\s|\s$/;

/**
 * A list (tags, image URLs) in one CSV cell: items joined by ", "; an item holding a comma or a
 * double quote, or starting or ending with space, is written in double quotes with its quotes
 * doubled, so every list reads back as it was (`splitList`).
 */
export function joinList(items: readonly string[]): string {
  return items.map((item) => (NEEDS_QUOTES.test(item) ? `"${item.replaceAll('"', '""')}"` : item)).join(', ');
}

/**
 * The items of a list cell (`joinList`'s form): split at commas outside double quotes, each
 * trimmed; empty items are dropped. An unclosed quote runs to the end of the cell.
 */
export function splitList(text: string): string[] {
  const items: string[] = [];
  let current = '';
  let quoted = false;
  let wasQuoted = false;
  const finish = () => {
    const item = wasQuoted ? current : current.trim();
    if (item !== '') items.push(item);
    current = '';
    wasQuoted = false;
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        current += '"';
        i++;
      } else if (char === '"') quoted = false;
      else current += char;
    } else if (char === '"' && current.trim() === '') {
      quoted = true;
      wasQuoted = true;
      current = '';
    } else if (char === ',') finish();
    else if (!(wasQuoted && /\s/.test(char))) current += char;
  }
  finish();
  return items;
}

/** A value as the text of a CSV cell: lists by `joinList`, objects as JSON ('' when empty). */
export function csvCell(value: CellValue): string | number {
  if (value === null) return '';
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return joinList(value as readonly string[]);
  return Object.keys(value).length === 0 ? '' : JSON.stringify(value);
}

/**
 * What a spreadsheet would run as a formula: csv-stringify's `escape_formulas` writes such a text
 * with a leading `'`, which an import takes off again (`unescapeFormula`).
 */
const FORMULA_START = /^'[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/** A CSV cell of ours as it was before `escape_formulas` prefixed it. */
export function unescapeFormula(text: string): string {
  return FORMULA_START.test(text) ? text.slice(1) : text;
}
