import type { ProductStatus } from '../../db/schema.js';
import { PRODUCT_COLUMNS, PRODUCT_OWN_COLUMNS } from '../exports/index.js';
import { type FileFormat, type FileRow, type RowError, RowReader, shown } from './imports.rows.js';
import {
  decimalToMinor,
  grams,
  htmlToText,
  isShopifyHeader,
  SHOPIFY_COLUMNS,
  SHOPIFY_URL_HANDLE,
} from './imports.shopify.js';

/**
 * A product file's rows as product lines: our own columns or Shopify's, read into one shape. Each
 * field is `undefined` when the file does not have its column, `null` when the cell is empty, or
 * its value; `columns` names the file's column for each field, for errors.
 */

export interface ProductOwn {
  name?: string | null;
  description?: string | null;
  category?: string | null;
  status?: ProductStatus | null;
  tags?: string[] | null;
  currency?: string | null;
  images?: string[] | null;
  attributes?: Record<string, string> | null;
}

export interface VariantFields {
  sku?: string | null;
  price?: number | null;
  compare_at_price?: number | null;
  stock?: number | null;
  weight_grams?: number | null;
  barcode?: string | null;
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
  errors: RowError[];
  /** The file's column for a field (`price` is `Variant Price` in a Shopify file). */
  columnOf: (field: string) => string;
}

const PRODUCT_COLUMN_SET: ReadonlySet<string> = new Set(PRODUCT_COLUMNS);
const STATUSES: readonly ProductStatus[] = ['active', 'draft', 'archived'];

/**
 * The header's errors, on line 1: a column twice, a column we do not know (our format), or one it
 * needs. A Shopify header keeps the columns we do not read (images, SEO, metafields...).
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
  if (format === 'shopify') return errors;
  for (const column of columns) {
    if (column === '' || !PRODUCT_COLUMN_SET.has(column)) {
      errors.push({
        line: 1,
        column,
        message: `is not a column of a products file (the columns are ${PRODUCT_COLUMNS.join(', ')}; a Shopify export is recognised by its Handle and Title columns)`,
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

/** For a CSV: whether its header is Shopify's (checked at upload, to name the format). */
export { isShopifyHeader };

function readStatus(reader: RowReader, field: string): ProductStatus | null | undefined {
  const value = reader.trimmed(field);
  if (typeof value !== 'string') return value;
  const status = value.toLowerCase() as ProductStatus;
  if (!STATUSES.includes(status))
    return reader.fail(field, `must be one of active, draft, archived, not "${shown(value)}"`);
  return status;
}

function ownTextOf(
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
      attributes: reader.object('attributes'),
    },
    ownText: ownTextOf(row, PRODUCT_OWN_COLUMNS, (field) => field),
    optionNames: [1, 2, 3].map((k) => reader.text(`option${k}_name`)),
    optionValues: [1, 2, 3].map((k) => reader.text(`option${k}_value`)),
    variant: {
      sku: reader.trimmed('sku'),
      price: reader.integer('price'),
      compare_at_price: reader.integer('compare_at_price'),
      stock: reader.integer('stock'),
      weight_grams: reader.integer('weight_grams'),
      barcode: reader.trimmed('barcode'),
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

const shopifyColumn = (field: string): string => SHOPIFY_COLUMNS[field] ?? field;

/** Shopify's own columns on a product's first row. */
const SHOPIFY_OWN_FIELDS = [
  'name',
  'description',
  'vendor',
  'category',
  'product_category',
  'tags',
  'published',
  'status',
  'option1_name',
  'option2_name',
  'option3_name',
];

/**
 * A row of a Shopify export: prices in minor units of `currency` (the store's), the description
 * as plain text, `Type` (else the last level of `Product Category`) as the category, `Vendor` as
 * the `vendor` attribute, `Status` (else `Published`) as the status, negative inventory as 0.
 */
export function readShopifyLine(row: FileRow, currency: string): ProductLine {
  // The handle is `Handle`, or `URL handle` in a file without `Handle` (Shopify's current export).
  const urlHandle = !row.cells.has('Handle') && row.cells.has(SHOPIFY_URL_HANDLE);
  const columnOf = (field: string): string =>
    urlHandle && field === 'handle' ? SHOPIFY_URL_HANDLE : shopifyColumn(field);
  const reader = new RowReader(row, columnOf);
  const money = (field: string): number | null | undefined => {
    const text = reader.text(field);
    if (typeof text !== 'string' || text.trim() === '') return text === undefined ? undefined : null;
    const parsed = decimalToMinor(text, currency);
    return 'value' in parsed ? parsed.value : reader.fail(field, parsed.error);
  };
  const html = reader.text('description');
  const description = typeof html === 'string' ? htmlToText(html) : html;
  const type = reader.text('category');
  const taxonomy = reader.text('product_category');
  const lastLevel = typeof taxonomy === 'string' ? (taxonomy.split('>').pop()?.trim() ?? '') : '';
  const category = typeof type === 'string' && type.trim() !== '' ? type.trim() : lastLevel || type;
  const vendor = reader.text('vendor');
  let status = readStatus(reader, 'status');
  if (status === undefined || status === null) {
    const published = reader.boolean('published');
    if (typeof published === 'boolean') status = published ? 'active' : 'draft';
  }
  const stock = reader.integer('stock');
  const weight = reader.text('weight_grams');
  let weightGrams: number | null | undefined = weight === undefined ? undefined : null;
  if (typeof weight === 'string' && weight.trim() !== '') {
    const parsed = grams(weight);
    weightGrams = 'value' in parsed ? parsed.value : reader.fail('weight_grams', parsed.error);
  }
  const first = reader.text('name');
  const line: ProductLine = {
    n: row.n,
    line: row.line,
    handle: reader.trimmed('handle') ?? null,
    own: {
      name: first,
      description: description === '' ? null : description,
      category: category === '' ? null : category,
      status,
      tags: reader.list('tags'),
      // Shopify's prices are in the store's currency; a new product takes it, an existing one keeps its own.
      currency: undefined,
      images: undefined,
      attributes:
        typeof vendor === 'string' ? (vendor.trim() === '' ? null : { vendor: vendor.trim() }) : vendor,
    },
    ownText: ownTextOf(row, SHOPIFY_OWN_FIELDS, shopifyColumn),
    optionNames: [1, 2, 3].map((k) => reader.text(`option${k}_name`)),
    optionValues: [1, 2, 3].map((k) => reader.text(`option${k}_value`)),
    variant: {
      sku: reader.trimmed('sku'),
      price: money('price'),
      compare_at_price: money('compare_at_price'),
      // Shopify counts oversold units as negative inventory; we hold none in stock then.
      stock: typeof stock === 'number' ? Math.max(0, stock) : stock,
      weight_grams: weightGrams,
      barcode: reader.trimmed('barcode'),
    },
    errors: reader.errors,
    columnOf,
  };
  if (row.problem) line.errors.unshift(row.problem);
  return line;
}
