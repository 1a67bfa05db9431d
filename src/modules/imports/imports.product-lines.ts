import type { ProductStatus } from '../../db/schema.js';
import { PRODUCT_COLUMNS, PRODUCT_OWN_COLUMNS } from '../exports/index.js';
import { type FileFormat, type FileRow, type RowError, RowReader, shown } from './imports.rows.js';
import { decimalToMinor } from './imports.values.js';

/**
 * A product file's rows as product lines: our own columns, Shopify's (imports.shopify.ts) or
 * WooCommerce's (imports.woocommerce.ts), read into one shape. Each field is `undefined` when the
 * file does not have its column, `null` when the cell is empty, or its value; `columnOf` names the
 * file's column for each field, for errors.
 */

export interface ProductOwn {
  name?: string | null;
  description?: string | null;
  category?: string | null;
  status?: ProductStatus | null;
  tags?: string[] | null;
  currency?: string | null;
  images?: string[] | null;
  /** The alt text of images, by URL (our `image_alts`, Shopify's `Image Alt Text`). */
  image_alts?: Record<string, string> | null;
  attributes?: Record<string, string> | null;
  seo_title?: string | null;
  seo_description?: string | null;
}

export interface VariantFields {
  sku?: string | null;
  price?: number | null;
  compare_at_price?: number | null;
  stock?: number | null;
  weight_grams?: number | null;
  barcode?: string | null;
  image?: string | null;
  cost?: number | null;
  requires_shipping?: boolean | null;
  taxable?: boolean | null;
  /** Units on hand by location name (our own files only): each location named is set to its units. */
  stock_by_location?: Record<string, number> | null;
}

export interface ProductLine {
  n: number;
  line: number;
  handle: string | null;
  own: ProductOwn;
  /** The text of each product column the row fills, to compare a product's later rows with its first. */
  ownText: Map<string, string>;
  /** Option names and values, option 1 to 3. */
  optionNames: (string | null | undefined)[];
  optionValues: (string | null | undefined)[];
  variant: VariantFields;
  /**
   * The row's image of its product, in a file that lists a product's images a row each (Shopify's
   * `Image Src` and `Image Position`); undefined in one that lists them on the product's row.
   */
  productImage?: {
    url: string;
    position: number | null;
    /** Its `Image Alt Text`: undefined when the file has no such column. */
    alt: string | null | undefined;
  } | null;
  errors: RowError[];
  /** The file's column for a field (`price` is `Variant Price` in a Shopify file). */
  columnOf: (field: string) => string;
}

const PRODUCT_COLUMN_SET: ReadonlySet<string> = new Set(PRODUCT_COLUMNS);
const STATUSES: readonly ProductStatus[] = ['active', 'draft', 'archived'];

/**
 * The header's errors, on line 1: a column twice, a column we do not know (our format), or one it
 * needs. A Shopify or WooCommerce header keeps the columns we do not read: the import lists them
 * in `ignored_columns`.
 */
export function productHeaderErrors(format: FileFormat, columns: readonly string[]): RowError[] {
  const errors: RowError[] = [];
  const seen = new Set<string>();
  for (const column of columns) {
    if (seen.has(column)) {
      errors.push({ line: 1, column, message: 'appears twice in the header' });
    }
    seen.add(column);
  }
  if (format === 'shopify' || format === 'woocommerce') return errors;
  for (const column of columns) {
    if (column === '' || !PRODUCT_COLUMN_SET.has(column)) {
      errors.push({
        line: 1,
        column,
        message: `is not a column of a products file (the columns are ${PRODUCT_COLUMNS.join(', ')}; a Shopify export is recognised by its Handle or URL handle and Title columns, a WooCommerce one by its ID, Type and Name columns)`,
      });
    }
  }
  if (!seen.has('handle')) {
    errors.push({
      line: 1,
      column: 'handle',
      message:
        'is missing from the header: every products file has a handle column, shared by the rows of a product',
    });
  }
  return errors;
}

export function readStatus(reader: RowReader, field: string): ProductStatus | null | undefined {
  const value = reader.trimmed(field);
  if (typeof value !== 'string') return value;
  const status = value.toLowerCase() as ProductStatus;
  if (!STATUSES.includes(status))
    return reader.fail(field, `must be one of active, draft, archived, not "${shown(value)}"`);
  return status;
}

export function ownTextOf(
  row: FileRow,
  fields: readonly string[],
  columnOf: (field: string) => string,
): Map<string, string> {
  const texts = new Map<string, string>();
  for (const field of fields) {
    const value = row.cells.get(columnOf(field));
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value) && value.length === 0) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (text.trim() !== '' && text !== '{}') texts.set(field, text);
  }
  return texts;
}

/** A row of our own format (CSV or JSON Lines). */
export function readOwnLine(row: FileRow): ProductLine {
  const reader = new RowReader(row);
  const line: ProductLine = {
    n: row.n,
    line: row.line,
    handle: reader.trimmed('handle') ?? null,
    own: {
      name: reader.text('name'),
      description: reader.text('description'),
      category: reader.text('category'),
      status: readStatus(reader, 'status'),
      tags: reader.list('tags'),
      currency: reader.trimmed('currency'),
      images: reader.list('images'),
      image_alts: reader.object('image_alts'),
      attributes: reader.object('attributes'),
      seo_title: reader.text('seo_title'),
      seo_description: reader.text('seo_description'),
    },
    ownText: ownTextOf(row, PRODUCT_OWN_COLUMNS, (field) => field),
    optionNames: [1, 2, 3].map((k) => reader.text(`option${k}_name`)),
    optionValues: [1, 2, 3].map((k) => reader.text(`option${k}_value`)),
    variant: {
      ...readVariantCodes(reader, { apostrophe: false }),
      price: reader.integer('price'),
      compare_at_price: reader.integer('compare_at_price'),
      stock: reader.integer('stock'),
      weight_grams: reader.integer('weight_grams'),
      image: reader.trimmed('image'),
      cost: reader.integer('cost'),
      requires_shipping: reader.boolean('requires_shipping'),
      taxable: reader.boolean('taxable'),
      stock_by_location: reader.counts('stock_by_location'),
    },
    errors: reader.errors,
    columnOf: (field) => field,
  };
  if (row.problem) line.errors.unshift(row.problem);
  // A JSON object with a key we do not know is refused whole, as a CSV header would be.
  for (const key of row.cells.keys()) {
    if (!PRODUCT_COLUMN_SET.has(key)) {
      line.errors.push({ line: row.line, column: key, message: 'is not a column of a products file' });
    }
  }
  return line;
}

export interface ReadCodes {
  sku: string | null | undefined;
  barcode: string | null | undefined;
}

/**
 * A row's SKU and barcode. `apostrophe`: another platform's file, where a barcode may start with
 * the `'` that keeps a spreadsheet from dropping its leading zeros (`'0850064060010`), taken off.
 */
export function readVariantCodes(reader: RowReader, options: { apostrophe: boolean }): ReadCodes {
  const barcode = reader.trimmed('barcode');
  return {
    sku: reader.trimmed('sku'),
    barcode:
      options.apostrophe && typeof barcode === 'string' && barcode.startsWith("'") && barcode.length > 1
        ? barcode.slice(1)
        : barcode,
  };
}

/** A decimal price (`19.99`) in minor units of `currency`; an empty cell is null. */
export function readMoney(reader: RowReader, field: string, currency: string): number | null | undefined {
  const text = reader.text(field);
  if (typeof text !== 'string' || text.trim() === '') return text === undefined ? undefined : null;
  const parsed = decimalToMinor(text, currency);
  return 'value' in parsed ? parsed.value : reader.fail(field, parsed.error);
}
