import type { FileRow } from './imports.rows.js';
import { RowReader } from './imports.rows.js';
import {
  type ProductLine,
  type ReadCodes,
  readMoney,
  readStatus,
  readVariantCodes,
  ownTextOf,
} from './imports.product-lines.js';
import { htmlToText, imageUrl, weightToGrams } from './imports.values.js';

/**
 * Shopify's product CSV export, read as it comes, in each layout Shopify has written, told apart
 * by its header:
 *
 * - classic (to 2023): `Handle`, `Title`, `Body (HTML)`, `Vendor`, `Type` (for a while `Standard
 *   Product Type` and `Custom Product Type`), `Tags`, `Published`, `Option1 Name`..., `Variant SKU`,
 *   `Variant Grams`, `Variant Inventory Qty`, `Variant Price`, ..., `Image Src`, `Image Position`,
 *   `SEO Title`, `Variant Image`, `Cost per item`, `Status`;
 * - 2024: the classic columns with `Product Category`, `Option1 Linked To`..., metafields and a
 *   price per market (`Price / United States`);
 * - current: `Title`, `URL handle`, `Description`, ..., `SKU`, `Barcode`, `Option1 name`...,
 *   `Price`, `Compare-at price`, `Cost per item`, `Charge tax`, `Inventory quantity`, `Weight value
 *   (grams)`, `Requires shipping`, `Product image URL`, `Image position`, `Variant image URL`,
 *   `SEO title`, `SEO description`.
 *
 * Each field is read from whichever of its columns the file has; the columns no field reads are
 * the import's `ignored_columns`. docs/imports-and-exports.md tables the mapping.
 */

export type ShopifyLayout = 'classic' | '2024' | 'current';

/** The product fields and the columns of each layout they are read from, classic name first. */
const FIELD_COLUMNS = {
  handle: ['Handle', 'URL handle'],
  name: ['Title'],
  description: ['Body (HTML)', 'Description'],
  vendor: ['Vendor'],
  category: ['Type', 'Custom Product Type'],
  product_category: ['Product Category', 'Product category', 'Standard Product Type'],
  tags: ['Tags'],
  published: ['Published', 'Published on online store'],
  status: ['Status'],
  option1_name: ['Option1 Name', 'Option1 name'],
  option1_value: ['Option1 Value', 'Option1 value'],
  option2_name: ['Option2 Name', 'Option2 name'],
  option2_value: ['Option2 Value', 'Option2 value'],
  option3_name: ['Option3 Name', 'Option3 name'],
  option3_value: ['Option3 Value', 'Option3 value'],
  sku: ['Variant SKU', 'SKU'],
  weight_grams: ['Variant Grams', 'Weight value (grams)'],
  stock: ['Variant Inventory Qty', 'Inventory quantity'],
  price: ['Variant Price', 'Price'],
  compare_at_price: ['Variant Compare At Price', 'Compare-at price'],
  cost: ['Cost per item'],
  barcode: ['Variant Barcode', 'Barcode'],
  requires_shipping: ['Variant Requires Shipping', 'Requires shipping'],
  taxable: ['Variant Taxable', 'Charge tax'],
  image_src: ['Image Src', 'Product image URL'],
  image_position: ['Image Position', 'Image position'],
  image_alts: ['Image Alt Text', 'Image alt text'],
  image: ['Variant Image', 'Variant image URL'],
  seo_title: ['SEO Title', 'SEO title'],
  seo_description: ['SEO Description', 'SEO description'],
} as const satisfies Record<string, readonly string[]>;

export type ShopifyField = keyof typeof FIELD_COLUMNS;

/** A header is Shopify's when it has `Handle` or `URL handle` and one of these (ours has `handle`). */
const MARKERS = [
  'Title',
  'Body (HTML)',
  'Variant SKU',
  'Variant Price',
  'Option1 Name',
  'Option1 name',
  'Price',
];

export function isShopifyHeader(columns: readonly string[]): boolean {
  return (
    (columns.includes('Handle') || columns.includes('URL handle')) &&
    MARKERS.some((marker) => columns.includes(marker))
  );
}

export function shopifyLayout(columns: readonly string[]): ShopifyLayout {
  if (!columns.includes('Handle')) return 'current';
  return columns.includes('Product Category') || columns.some((column) => / Linked To$/.test(column))
    ? '2024'
    : 'classic';
}

/** The column each field is read from in a file with `columns` (a field without one is absent). */
export function shopifyColumns(columns: readonly string[]): Partial<Record<ShopifyField, string>> {
  const found: Partial<Record<ShopifyField, string>> = {};
  for (const [field, names] of Object.entries(FIELD_COLUMNS) as [ShopifyField, readonly string[]][]) {
    const name = names.find((candidate) => columns.includes(candidate));
    if (name !== undefined) found[field] = name;
  }
  return found;
}

/** The columns of a Shopify file no field reads (Google Shopping, metafields, gift cards...). */
export function shopifyIgnoredColumns(columns: readonly string[]): string[] {
  const used = new Set(Object.values(shopifyColumns(columns)));
  return [...new Set(columns.filter((column) => !used.has(column)))];
}

/** What Shopify writes for the one variant of a product without options. */
export const SHOPIFY_DEFAULT_OPTION = { name: 'Title', value: 'Default Title' };

/** Shopify's own columns on a product's first row (later rows leave them empty). */
const OWN_FIELDS: readonly ShopifyField[] = [
  'name',
  'description',
  'vendor',
  'category',
  'product_category',
  'tags',
  'published',
  'status',
  'seo_title',
  'seo_description',
  'option1_name',
  'option2_name',
  'option3_name',
];

/** The category: `Type`, else the last level of the taxonomy (`... > T-Shirts`). */
function categoryOf(reader: RowReader): string | null | undefined {
  const type = reader.text('category');
  const taxonomy = reader.text('product_category');
  const lastLevel = typeof taxonomy === 'string' ? (taxonomy.split('>').pop()?.trim() ?? '') : '';
  const category = typeof type === 'string' && type.trim() !== '' ? type.trim() : lastLevel || type;
  return category === '' ? null : category;
}

/**
 * The row's product image (`Image Src`, its `Image Position` and `Image Alt Text`): a product's
 * images are its rows'.
 */
function productImageOf(reader: RowReader): ProductLine['productImage'] {
  const src = reader.trimmed('image_src');
  if (typeof src !== 'string') return src;
  const url = imageUrl(src);
  if ('error' in url) return reader.fail('image_src', url.error);
  const position = reader.integer('image_position');
  const alt = reader.trimmed('image_alts');
  return { url: url.value, position: typeof position === 'number' ? position : null, alt };
}

/**
 * A row of a Shopify export, whatever its layout (`columns`: `shopifyColumns` of its header):
 * prices and costs in minor units of `currency` (the store's), the description as plain text,
 * `Type` (else the taxonomy's last level) as the category, `Vendor` as the `vendor` attribute,
 * `Status` (else `Published`) as the status, negative inventory as 0.
 */
export function readShopifyLine(
  row: FileRow,
  currency: string,
  columns: Partial<Record<ShopifyField, string>>,
): ProductLine {
  const columnOf = (field: string): string => columns[field as ShopifyField] ?? `(${field})`;
  const reader = new RowReader(row, columnOf);
  const html = reader.text('description');
  const description = typeof html === 'string' ? htmlToText(html) : html;
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
    const parsed = weightToGrams(weight);
    weightGrams = 'value' in parsed ? parsed.value : reader.fail('weight_grams', parsed.error);
  }
  const variantImage = reader.trimmed('image');
  let image: string | null | undefined = variantImage;
  if (typeof variantImage === 'string') {
    const url = imageUrl(variantImage);
    image = 'value' in url ? url.value : reader.fail('image', url.error);
  }
  const codes: ReadCodes = readVariantCodes(reader, { apostrophe: true });
  const line: ProductLine = {
    n: row.n,
    line: row.line,
    handle: reader.trimmed('handle') ?? null,
    own: {
      name: reader.text('name'),
      description: description === '' ? null : description,
      category: categoryOf(reader),
      status,
      tags: reader.list('tags'),
      // Shopify's prices are in the store's currency; a new product takes it, an existing one keeps its own.
      currency: undefined,
      // A product's images are those of its rows (`productImage`), gathered by the grouper.
      images: undefined,
      image_alts: undefined,
      attributes:
        typeof vendor === 'string' ? (vendor.trim() === '' ? null : { vendor: vendor.trim() }) : vendor,
      seo_title: reader.text('seo_title'),
      seo_description: reader.text('seo_description'),
    },
    ownText: ownTextOf(row, OWN_FIELDS, columnOf),
    optionNames: [1, 2, 3].map((k) => reader.text(`option${k}_name`)),
    optionValues: [1, 2, 3].map((k) => reader.text(`option${k}_value`)),
    variant: {
      ...codes,
      price: readMoney(reader, 'price', currency),
      compare_at_price: readMoney(reader, 'compare_at_price', currency),
      // Shopify counts oversold units as negative inventory; we hold none in stock then.
      stock: typeof stock === 'number' ? Math.max(0, stock) : stock,
      weight_grams: weightGrams,
      image,
      cost: readMoney(reader, 'cost', currency),
      requires_shipping: reader.boolean('requires_shipping'),
      taxable: reader.boolean('taxable'),
    },
    productImage: productImageOf(reader),
    errors: reader.errors,
    columnOf,
  };
  if (row.problem) line.errors.unshift(row.problem);
  return line;
}
