import type { FileRow } from './imports.rows.js';
import { RowReader, shown } from './imports.rows.js';
import { type ProductLine, readVariantCodes } from './imports.product-lines.js';
import {
  decimalToMinor,
  htmlToText,
  imageUrl,
  isWeightUnit,
  splitEscapedList,
  type WeightUnit,
  weightToGrams,
} from './imports.values.js';

/**
 * WooCommerce's product CSV export (its built-in exporter, English column names), read as it
 * comes: a row per simple product, per variable product and per variation, the variations naming
 * their product in `Parent` (its SKU, or `id:` and its ID) anywhere in the file. Prices are
 * decimals in the store's currency (`Sale price`, when given, is the price and `Regular price`
 * the price before the reduction), weights in the unit the `Weight (kg)` column names, the
 * description HTML. imports.woo-groups.ts gathers a product's rows; docs/imports-and-exports.md
 * tables the mapping.
 */

/** A header is WooCommerce's when it has these (the exporter's own names). */
const MARKERS = ['ID', 'Type', 'Name'];

export function isWooCommerceHeader(columns: readonly string[]): boolean {
  return (
    MARKERS.every((marker) => columns.includes(marker)) &&
    (columns.includes('Regular price') || columns.includes('Parent'))
  );
}

/** The fields read, and their columns (a weight's column names its unit: `Weight (kg)`). */
const FIELD_COLUMNS: Readonly<Record<string, string>> = {
  id: 'ID',
  type: 'Type',
  sku: 'SKU',
  barcode: 'GTIN, UPC, EAN, or ISBN',
  name: 'Name',
  status: 'Published',
  description: 'Description',
  taxable: 'Tax status',
  stock: 'Stock',
  sale_price: 'Sale price',
  regular_price: 'Regular price',
  category: 'Categories',
  tags: 'Tags',
  images: 'Images',
  image: 'Images',
  parent: 'Parent',
  requires_shipping: 'Type',
  handle: 'Parent',
};

const WEIGHT = /^Weight \((kg|g|lbs|lb|oz)\)$/;
const ATTRIBUTE = /^Attribute (\d+) (name|value\(s\))$/;

/** The columns of a WooCommerce file no field reads (visibility, dimensions, downloads, meta...). */
export function wooIgnoredColumns(columns: readonly string[]): string[] {
  const used = new Set(Object.values(FIELD_COLUMNS));
  return [
    ...new Set(
      columns.filter((column) => !used.has(column) && !WEIGHT.test(column) && !ATTRIBUTE.test(column)),
    ),
  ];
}

export type WooType = 'simple' | 'variable' | 'variation' | 'grouped' | 'external';
const TYPES: readonly string[] = ['simple', 'variable', 'variation', 'grouped', 'external'];

/** What a WooCommerce row says besides a product line's fields. */
export interface WooInfo {
  type: WooType | null;
  id: string | null;
  /** The product a variation belongs to, as the file names it (its SKU, or `id:` and its ID). */
  parent: string | null;
  /** Its attributes, in column order: `index` is the N of `Attribute N name`. */
  attributes: { name: string; value: string; index: number }[];
  /** `Tax status` is `parent`: a variation taxed as its product is. */
  taxFromParent: boolean;
}

export type WooLine = ProductLine & { woo: WooInfo };

/** The base type and the flags of a `Type` cell: `simple, downloadable, virtual`. */
export function wooType(text: string | null | undefined): { type: string; virtual: boolean } {
  const tokens = (text ?? '').split(',').map((token) => token.trim().toLowerCase());
  return { type: tokens[0] ?? '', virtual: tokens.includes('virtual') };
}

/** WooCommerce's export writes a description's line breaks as `\n`. */
function descriptionOf(text: string | null | undefined): string | null | undefined {
  if (typeof text !== 'string') return text;
  const plain = htmlToText(text.replaceAll('\\r\\n', '\n').replaceAll('\\n', '\n'));
  return plain === '' ? null : plain;
}

/** A price as a store with a decimal comma writes it (`11,05`) read as `11.05`. */
function readPrice(reader: RowReader, field: string, currency: string): number | null | undefined {
  const text = reader.trimmed(field);
  if (typeof text !== 'string') return text;
  const decimal = /^\d*,\d+$/.test(text) ? text.replace(',', '.') : text;
  const parsed = decimalToMinor(decimal, currency);
  return 'value' in parsed ? parsed.value : reader.fail(field, parsed.error);
}

function readImages(reader: RowReader): string[] | null | undefined {
  const text = reader.text('images');
  if (typeof text !== 'string') return text;
  const urls: string[] = [];
  for (const item of splitEscapedList(text)) {
    const url = imageUrl(item);
    if ('error' in url) return reader.fail('images', url.error);
    urls.push(url.value);
  }
  return urls.length === 0 ? null : urls;
}

function readStatus(reader: RowReader): 'active' | 'draft' | null | undefined {
  const text = reader.trimmed('status');
  if (typeof text !== 'string') return text;
  if (text === '1') return 'active';
  // 0 is a private product, -1 a draft: neither is for sale.
  if (text === '0' || text === '-1') return 'draft';
  return reader.fail('status', `must be 1 (published), 0 (private) or -1 (draft), not "${shown(text)}"`);
}

function readTaxable(reader: RowReader): { taxable: boolean | null | undefined; fromParent: boolean } {
  const text = reader.trimmed('taxable');
  if (typeof text !== 'string') return { taxable: text, fromParent: false };
  switch (text.toLowerCase()) {
    case 'taxable':
      return { taxable: true, fromParent: false };
    case 'shipping':
    case 'none':
      return { taxable: false, fromParent: false };
    case 'parent':
      return { taxable: undefined, fromParent: true };
    default:
      return {
        taxable: reader.fail('taxable', `must be taxable, shipping, none or parent, not "${shown(text)}"`),
        fromParent: false,
      };
  }
}

/** The first category's last level: `Clothing > Hoodies, Clothing` is `Hoodies`. */
function categoryOf(text: string | null | undefined): string | null | undefined {
  if (typeof text !== 'string') return text;
  const [first] = splitEscapedList(text);
  return first === undefined ? null : (first.split('>').pop()?.trim() ?? null) || null;
}

/** What the header says about every row: the weight's column and unit, the attribute columns. */
export interface WooHeader {
  weight: { column: string; unit: WeightUnit } | undefined;
  attributes: number[];
}

export function wooHeader(columns: readonly string[]): WooHeader {
  let weight: WooHeader['weight'];
  const attributes = new Set<number>();
  for (const column of columns) {
    const unit = WEIGHT.exec(column)?.[1];
    if (unit !== undefined && isWeightUnit(unit)) weight = { column, unit };
    const attribute = ATTRIBUTE.exec(column);
    if (attribute) attributes.add(Number(attribute[1]));
  }
  return { weight, attributes: [...attributes].sort((a, b) => a - b) };
}

function readAttributes(reader: RowReader, header: WooHeader): WooInfo['attributes'] {
  const out: WooInfo['attributes'] = [];
  for (const index of header.attributes) {
    const name = reader.trimmed(`attribute${index}_name`);
    if (typeof name !== 'string') continue;
    const value = reader.text(`attribute${index}_value`);
    out.push({
      name,
      value: typeof value === 'string' ? splitEscapedList(value).join(', ') : '',
      index,
    });
  }
  return out;
}

/**
 * A row of a WooCommerce export. Its product's fields (name, description, status, category, tags,
 * images, attributes) are read on products, not on variations, which carry a variant only.
 */
export function readWooLine(row: FileRow, currency: string, header: WooHeader): WooLine {
  const sale = row.cells.get('Sale price');
  const onSale = typeof sale === 'string' && sale.trim() !== '';
  const columnOf = (field: string): string => {
    if (field === 'weight_grams') return header.weight?.column ?? '(weight)';
    if (field === 'price') return onSale ? 'Sale price' : 'Regular price';
    if (field === 'compare_at_price') return 'Regular price';
    const attribute = /^attribute(\d+)_(name|value)$/.exec(field);
    if (attribute) return `Attribute ${attribute[1]} ${attribute[2] === 'name' ? 'name' : 'value(s)'}`;
    return FIELD_COLUMNS[field] ?? `(${field})`;
  };
  const reader = new RowReader(row, columnOf);
  const { type, virtual } = wooType(reader.trimmed('type'));
  const known = TYPES.includes(type) ? (type as WooType) : null;
  if (known === null) {
    reader.fail('type', `must be simple, variable, variation, grouped or external, not "${shown(type)}"`);
  }
  const product = known !== 'variation';
  const regular = readPrice(reader, 'regular_price', currency);
  const salePrice = readPrice(reader, 'sale_price', currency);
  const stock = reader.integer('stock');
  const weight = reader.text('weight_grams');
  let weightGrams: number | null | undefined = weight === undefined ? undefined : null;
  if (typeof weight === 'string' && weight.trim() !== '' && header.weight) {
    const parsed = weightToGrams(weight, header.weight.unit);
    weightGrams = 'value' in parsed ? parsed.value : reader.fail('weight_grams', parsed.error);
  }
  const images = readImages(reader);
  const tax = readTaxable(reader);
  const attributes = readAttributes(reader, header);
  const line: WooLine = {
    n: row.n,
    line: row.line,
    handle: null,
    own: product
      ? {
          name: reader.text('name'),
          description: descriptionOf(reader.text('description')),
          category: categoryOf(reader.text('category')),
          status: readStatus(reader),
          tags: ((tags) => (typeof tags === 'string' ? splitEscapedList(tags) : tags))(reader.text('tags')),
          images,
          // The attributes no variation chooses from are the product's (imports.woo-groups.ts).
          attributes: known === 'variable' ? undefined : attributesOf(attributes),
        }
      : {},
    ownText: new Map(),
    optionNames: [undefined, undefined, undefined],
    optionValues: [undefined, undefined, undefined],
    variant: {
      ...readVariantCodes(reader, { apostrophe: true }),
      price: salePrice ?? regular,
      compare_at_price:
        typeof salePrice === 'number' ? (regular ?? null) : regular === undefined ? undefined : null,
      stock: typeof stock === 'number' ? Math.max(0, stock) : stock,
      weight_grams: weightGrams,
      image: product || images === undefined ? undefined : (images?.[0] ?? null),
      requires_shipping: known === null ? undefined : !virtual,
      taxable: tax.taxable,
    },
    errors: reader.errors,
    columnOf,
    woo: {
      type: known,
      id: reader.trimmed('id') ?? null,
      parent: reader.trimmed('parent') ?? null,
      attributes,
      taxFromParent: tax.fromParent,
    },
  };
  if (row.problem) line.errors.unshift(row.problem);
  return line;
}

/** Attributes as a product's: `{Color: "Blue, Green"}`; none is null. */
export function attributesOf(attributes: WooInfo['attributes']): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const { name, value } of attributes) if (value !== '') out[name] = value;
  return Object.keys(out).length === 0 ? null : out;
}
