import { api, dataOf } from '../../api/client.js';
import { ApiError } from '../../api/errors.js';
import { loadProduct, type ProductWithVariants } from '../../api/store-queries.js';
import { moneyProblem, parseCount, parseMoney } from '../../money.js';
import type { JsonBody, ProductOption, Variant } from '../../types.js';
import { completeOptions, gridRows, type ProductDraft, valuesOf, type VariantRow } from './draft.js';

/**
 * Saving a product's form through the API. A new product is one call (`POST /v1/products` with
 * its options and variants: all or nothing). A stored one is changed in the calls the API offers,
 * in an order that never leaves it without a variant: variants the grid no longer sells are
 * deleted, the product changed (its fields, and its options, which move its variants as the grid
 * expects: draft.ts `syncRows`), new combinations added and changed variants patched.
 */

/** The variant fields a grid row sets, as the API names them. */
export const VARIANT_COLUMNS = {
  price: 'Price',
  compare_at_price: 'Compare-at price',
  sku: 'SKU',
  stock: 'Stock',
  weight_grams: 'Weight',
  barcode: 'Barcode',
} as const;
type Column = keyof typeof VARIANT_COLUMNS;

interface VariantValues {
  price: number;
  compare_at_price: number | null;
  sku: string | null;
  stock: number;
  weight_grams: number | null;
  barcode: string | null;
}

/** Why a form was not saved: its fields' errors, its rows' (by combination key and column), the rest. */
export interface SaveProblems {
  fields: Record<string, string>;
  rows: Record<string, Partial<Record<Column, string>>>;
  form?: unknown;
}

export class NotSaved extends Error {
  constructor(readonly problems: SaveProblems) {
    super('The product was not saved.');
  }
}

function sentence(label: string, message: string): string {
  const text = `${label} ${message}`;
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** A sold row's values as the API takes them, or its cells' errors. */
function rowValues(row: VariantRow, currency: string): VariantValues | Partial<Record<Column, string>> {
  const errors: Partial<Record<Column, string>> = {};
  const price = parseMoney(row.price, currency);
  const compareAt = parseMoney(row.compareAt, currency);
  const stock = parseCount(row.stock);
  const weight = parseCount(row.weight);
  if (price === null) errors.price = 'Price is required.';
  else if (price === undefined) errors.price = sentence('Price', moneyProblem(currency));
  if (compareAt === undefined) errors.compare_at_price = sentence('Compare-at price', moneyProblem(currency));
  if (stock === undefined) errors.stock = 'Stock must be a whole number of at least 0.';
  if (weight === undefined) errors.weight_grams = 'Weight must be a whole number of grams.';
  if (Object.keys(errors).length > 0 || price === null || price === undefined) return errors;
  return {
    price,
    compare_at_price: compareAt ?? null,
    sku: row.sku.trim() || null,
    stock: stock ?? 0,
    weight_grams: weight ?? null,
    barcode: row.barcode.trim() || null,
  };
}

function isValues(value: VariantValues | Partial<Record<Column, string>>): value is VariantValues {
  return typeof (value as VariantValues).price === 'number';
}

/** The form checked before anything is sent: the sold rows' values, or why it cannot be sent. */
function checked(draft: ProductDraft, stored: ProductWithVariants | undefined) {
  const problems: SaveProblems = { fields: {}, rows: {} };
  if (draft.name.trim() === '') problems.fields.name = 'Name can’t be empty.';
  for (const option of draft.options) {
    const name = option.name.trim();
    const values = valuesOf(option);
    if (name === '' && values.length > 0) problems.fields.options = 'Name every option that has values.';
    else if (name !== '' && values.length === 0) {
      problems.fields.options = `Give the option “${name}” at least one value.`;
    }
  }
  const sold = gridRows(draft, stored).filter((row) => row.sold);
  if (sold.length === 0) problems.fields.variants = 'Choose at least one combination to sell.';
  const rows: { row: VariantRow; values: VariantValues }[] = [];
  for (const row of sold) {
    const values = rowValues(row, draft.currency);
    if (isValues(values)) rows.push({ row, values });
    else problems.rows[row.key] = values;
  }
  if (Object.keys(problems.fields).length > 0 || Object.keys(problems.rows).length > 0) {
    throw new NotSaved(problems);
  }
  return { rows, options: completeOptions(draft.options) };
}

const PRODUCT_FIELDS = new Set(['name', 'handle', 'description', 'status', 'category', 'tags', 'images']);
/** The API names an image's URL or alt text `media[i].url` or `media[i].alt`: the images' field. */
const FIELD_OF: Record<string, string> = { media: 'images' };

/**
 * Where the API's refusal belongs: a field of the form, a cell of a row (`variants[2].price` of
 * the rows sent, or the fields of the row a variant call was about), or the form as a whole.
 */
function placed(error: unknown, rowKeys: string[], sold: VariantRow[]): SaveProblems {
  const problems: SaveProblems = { fields: {}, rows: {} };
  if (!(error instanceof ApiError)) return { ...problems, form: error };
  if (error.code === 'duplicate_sku') {
    const row = sold.find((r) => r.sku.trim() !== '' && error.detail.includes(`"${r.sku.trim()}"`));
    if (row) problems.rows[row.key] = { sku: error.detail };
    else problems.form = error;
    return problems;
  }
  const others: ApiError['errors'] = [];
  for (const { field, message } of error.errors) {
    const variant = /^variants\[(\d+)\]\.?([a-z_]*)/.exec(field);
    const named = field.split(/[.[]/)[0] ?? field;
    const top = FIELD_OF[named] ?? named;
    const rowKey = variant ? rowKeys[Number(variant[1])] : rowKeys.length === 1 ? rowKeys[0] : undefined;
    const column = (variant ? variant[2] : top) as Column;
    if (rowKey !== undefined && column in VARIANT_COLUMNS) {
      (problems.rows[rowKey] ??= {})[column] = sentence(VARIANT_COLUMNS[column], message);
    } else if (top === 'options' || variant?.[2] === 'options') {
      problems.fields.options ??= sentence(field.replace(/^variants\[\d+\]\./, ''), message);
    } else if (PRODUCT_FIELDS.has(top)) {
      problems.fields[top] ??= sentence(top.charAt(0).toUpperCase() + top.slice(1), message);
    } else others.push({ field, message });
  }
  if (others.length > 0) problems.form = others.map((e) => sentence(e.field, e.message)).join(' ');
  else if (error.errors.length === 0) problems.form = error;
  return problems;
}

function tagsOf(draft: ProductDraft): string[] {
  return draft.tags
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

/** The product's own fields (not its variants'), as the API takes them. */
function productFields(draft: ProductDraft) {
  return {
    name: draft.name.trim(),
    description: draft.description.trim() === '' ? null : draft.description,
    status: draft.status,
    category: draft.category.trim() || null,
    tags: tagsOf(draft),
    media: draft.images
      .map((image) => ({ url: image.url.trim(), alt: image.alt.trim() === '' ? null : image.alt.trim() }))
      .filter((image) => image.url !== ''),
  };
}

/** The fields of `values` that differ from the stored variant. */
function variantChanges(values: VariantValues, stored: Variant): Partial<VariantValues> {
  const changes: Partial<VariantValues> = {};
  for (const column of Object.keys(VARIANT_COLUMNS) as Column[]) {
    if (values[column] !== stored[column]) Object.assign(changes, { [column]: values[column] });
  }
  return changes;
}

/**
 * The options the product passes through while `survivor` (a variant no row keeps, left so the
 * product is never without one) is still there: the new ones, with its values added back.
 */
function throughOptions(options: ProductOption[], survivor: Variant | undefined): ProductOption[] {
  if (survivor === undefined) return options;
  return options.map((option) => {
    const value = survivor.options[option.name];
    return value === undefined || option.values.includes(value)
      ? option
      : { ...option, values: [...option.values, value] };
  });
}

/** The product's changed fields (and options), as `PATCH /v1/products/{id}` takes them. */
function productChanges(stored: ProductWithVariants, draft: ProductDraft, options: ProductOption[]) {
  const fields = productFields(draft);
  const changes: JsonBody<'updateProduct'> = {};
  for (const [name, value] of Object.entries(fields)) {
    const before = stored.product[name as keyof typeof fields];
    if (JSON.stringify(value) !== JSON.stringify(before)) Object.assign(changes, { [name]: value });
  }
  if (draft.handle.trim() !== stored.product.handle) changes.handle = draft.handle.trim();
  if (JSON.stringify(options) !== JSON.stringify(stored.product.options)) changes.options = options;
  return changes;
}

/** Saves a form the API refused nothing of yet: each call's refusal becomes NotSaved, placed on the form. */
class Saving {
  constructor(readonly sold: VariantRow[]) {}

  async step<T>(call: () => Promise<T>, rowKeys: string[] = []): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new NotSaved(placed(error, rowKeys, this.sold));
    }
  }
}

async function create(draft: ProductDraft): Promise<ProductWithVariants> {
  const { rows, options } = checked(draft, undefined);
  const saving = new Saving(rows.map(({ row }) => row));
  const handle = draft.handle.trim();
  const common = { ...productFields(draft), ...(handle ? { handle } : {}), currency: draft.currency };
  const body: JsonBody<'createProduct'> =
    options.length === 0
      ? { ...common, ...(rows[0]?.values as VariantValues) }
      : {
          ...common,
          options,
          variants: rows.map(({ row, values }) => ({ options: row.options, ...values })),
        };
  const keys = rows.map(({ row }) => row.key);
  const product = await saving.step(() => dataOf(api.POST('/v1/products', { body })), keys);
  return loadProduct(product.id);
}

async function update(stored: ProductWithVariants, draft: ProductDraft): Promise<ProductWithVariants> {
  const { rows, options } = checked(draft, stored);
  const saving = new Saving(rows.map(({ row }) => row));
  const id = stored.product.id;
  const variant = (variantId: string) => ({ params: { path: { id, variant_id: variantId } } });
  const kept = new Set(rows.flatMap(({ row }) => (row.id ? [row.id] : [])));
  const doomed = stored.variants.filter((v) => !kept.has(v.id));
  // Never the last variant first: it goes once the new ones exist.
  const survivor = kept.size === 0 ? doomed.pop() : undefined;
  for (const gone of doomed) {
    await saving.step(() => dataOf(api.DELETE('/v1/products/{id}/variants/{variant_id}', variant(gone.id))));
  }
  const through = throughOptions(options, survivor);
  const changes = productChanges(stored, draft, through);
  if (Object.keys(changes).length > 0) {
    await saving.step(() =>
      dataOf(api.PATCH('/v1/products/{id}', { params: { path: { id } }, body: changes })),
    );
  }
  const byId = new Map(stored.variants.map((v) => [v.id, v]));
  for (const { row, values } of rows) {
    const before = row.id ? byId.get(row.id) : undefined;
    if (before) {
      const body = variantChanges(values, before);
      if (Object.keys(body).length === 0) continue;
      await saving.step(
        () => dataOf(api.PATCH('/v1/products/{id}/variants/{variant_id}', { ...variant(before.id), body })),
        [row.key],
      );
    } else {
      const body = { options: row.options, ...values };
      await saving.step(
        () => dataOf(api.POST('/v1/products/{id}/variants', { params: { path: { id } }, body })),
        [row.key],
      );
    }
  }
  if (survivor) {
    await saving.step(() =>
      dataOf(api.DELETE('/v1/products/{id}/variants/{variant_id}', variant(survivor.id))),
    );
    if (JSON.stringify(through) !== JSON.stringify(options)) {
      await saving.step(() =>
        dataOf(api.PATCH('/v1/products/{id}', { params: { path: { id } }, body: { options } })),
      );
    }
  }
  return loadProduct(id);
}

/** Saves the form: a new product (no `stored`), or the changes to a stored one. */
export function saveProduct(stored: ProductWithVariants | undefined, draft: ProductDraft) {
  return stored === undefined ? create(draft) : update(stored, draft);
}
