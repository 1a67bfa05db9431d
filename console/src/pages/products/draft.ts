import { moneyInput } from '../../money.js';
import type { Product, ProductOption, Variant } from '../../types.js';

/**
 * A product as its page's form holds it: text as typed, options with their values as one line
 * ("S, M, L"), and what was typed in the variant grid, by combination. The grid's rows are worked
 * out from these and the stored variants (`gridRows`), one per combination of the options' values,
 * each the stored variant the API will move there (`placeVariants`) or a new one, and whether the
 * product sells it. Pure: no calls (save.ts sends it).
 */

export interface OptionDraft {
  name: string;
  /** The values as typed, separated by commas. */
  values: string;
}

/** A grid row's cells, as typed. */
export interface RowValues {
  price: string;
  compareAt: string;
  sku: string;
  stock: string;
  weight: string;
  barcode: string;
}

/** What was typed in a row: its cells, and whether it is sold. */
export interface RowEdit extends Partial<RowValues> {
  options: Record<string, string>;
  sold?: boolean;
}

export interface VariantRow extends RowValues {
  key: string;
  /** The combination, by option name ({} without options). */
  options: Record<string, string>;
  /** The stored variant the row is (the API moves it here when the options are saved). */
  id?: string;
  /** Whether the product sells this combination. */
  sold: boolean;
}

export interface ProductDraft {
  name: string;
  handle: string;
  description: string;
  status: Product['status'];
  category: string;
  /** Tags as typed, separated by commas. */
  tags: string;
  /** The images in order, each with its alt text as typed ('' for none). */
  images: { url: string; alt: string }[];
  currency: string;
  options: OptionDraft[];
  /** What was typed in the grid, by combination key. */
  edits: Record<string, RowEdit>;
}

/** The values of an option as typed: trimmed, empty ones left out. */
export function valuesOf(option: OptionDraft): string[] {
  return option.values
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

/** The options as the API takes them: those with a name and values (the others are being typed). */
export function completeOptions(options: OptionDraft[]): ProductOption[] {
  return options
    .map((option) => ({ name: option.name.trim(), values: valuesOf(option) }))
    .filter((option) => option.name !== '' && option.values.length > 0);
}

/** Every combination of the options' values, the first option's values outermost ([{}] without options). */
export function combinations(options: ProductOption[]): Record<string, string>[] {
  let combos: Record<string, string>[] = [{}];
  for (const option of options) {
    combos = combos.flatMap((combo) => option.values.map((value) => ({ ...combo, [option.name]: value })));
  }
  return combos;
}

/** A combination as one key ("Size=M|Color=Black"), in the options' order. */
export function comboKey(options: Record<string, string>): string {
  return Object.entries(options)
    .map(([name, value]) => `${name}=${value}`)
    .join('|');
}

/** "M / Black", as the API titles a variant; "Default" without options. */
export function comboTitle(options: Record<string, string>): string {
  const values = Object.values(options);
  return values.length === 0 ? 'Default' : values.join(' / ');
}

/** A stored variant's cells. */
export function valuesOfVariant(variant: Variant): RowValues {
  return {
    price: moneyInput(variant.price, variant.currency),
    compareAt: moneyInput(variant.compare_at_price, variant.currency),
    sku: variant.sku ?? '',
    stock: String(variant.stock),
    weight: variant.weight_grams === null ? '' : String(variant.weight_grams),
    barcode: variant.barcode ?? '',
  };
}

/**
 * Where the API puts each stored variant when `options` are saved (its `applyOptions`): options
 * matched by name, a variant keeps the values still offered and takes the first value of an option
 * it lacks; one with a value no longer offered is deleted. Where two would land on one
 * combination, the first (by position) is placed and the other is left out: save.ts deletes it
 * before the options are saved, which the API would otherwise refuse.
 */
export function placeVariants(options: ProductOption[], variants: Variant[]): Map<string, Variant> {
  const placed = new Map<string, Variant>();
  for (const variant of variants) {
    const values: Record<string, string> = {};
    let gone = false;
    for (const option of options) {
      const current = variant.options[option.name];
      if (current === undefined) values[option.name] = option.values[0] ?? '';
      else if (option.values.includes(current)) values[option.name] = current;
      else gone = true;
    }
    const key = comboKey(values);
    if (!gone && !placed.has(key)) placed.set(key, variant);
  }
  return placed;
}

const EMPTY: RowValues = { price: '', compareAt: '', sku: '', stock: '0', weight: '', barcode: '' };

/**
 * The grid: a row per combination, the stored variant placed there (with what was typed over its
 * values) or a new one. A new combination of values the product already had is not sold until
 * ticked; one with a value or option added here is, priced as the first row until one is typed.
 */
export function gridRows(draft: ProductDraft, stored: { product: Product; variants: Variant[] } | undefined) {
  const options = completeOptions(draft.options);
  const placed = placeVariants(options, stored?.variants ?? []);
  const storedValues = new Map((stored?.product.options ?? []).map((o) => [o.name, new Set(o.values)]));
  let fallbackPrice = '';
  const rows: VariantRow[] = combinations(options).map((combo) => {
    const key = comboKey(combo);
    const variant = placed.get(key);
    const edit = draft.edits[key];
    const base = variant ? valuesOfVariant(variant) : EMPTY;
    const onlyOldValues = Object.entries(combo).every(([name, value]) => storedValues.get(name)?.has(value));
    const sold = edit?.sold ?? (variant !== undefined || stored === undefined || !onlyOldValues);
    const { options: _options, sold: _sold, ...typed } = edit ?? { options: combo };
    const row: VariantRow = {
      ...base,
      ...typed,
      key,
      options: combo,
      sold,
      ...(variant ? { id: variant.id } : {}),
    };
    if (fallbackPrice === '' && row.price !== '') fallbackPrice = row.price;
    return row;
  });
  return rows.map((row) =>
    row.price === '' && !row.id && !draft.edits[row.key]?.price ? { ...row, price: fallbackPrice } : row,
  );
}

/** The form of a new product (priced in the store's currency), or of a product as stored. */
export function draftOf(product: Product | undefined, currency: string): ProductDraft {
  return {
    name: product?.name ?? '',
    handle: product?.handle ?? '',
    description: product?.description ?? '',
    status: product?.status ?? 'active',
    category: product?.category ?? '',
    tags: product?.tags.join(', ') ?? '',
    images: (product?.media ?? []).map((image) => ({ url: image.url, alt: image.alt ?? '' })),
    currency: product?.currency ?? currency,
    options: (product?.options ?? []).map((option) => ({
      name: option.name,
      values: option.values.join(', '),
    })),
    edits: {},
  };
}

/**
 * What was typed in the grid, carried over a change of the options: an option renamed in place (or
 * a value edited in place, "M" to "Medium") takes its rows' typing with it, so typing an option
 * letter by letter loses nothing.
 */
export function carryEdits(edits: Record<string, RowEdit>, before: OptionDraft[], after: OptionDraft[]) {
  const names = new Map<string, string>();
  const values = new Map<string, Map<string, string>>();
  const oldNames = before.map((option) => option.name.trim());
  const newNames = after.map((option) => option.name.trim());
  before.forEach((old, index) => {
    const next = after[index];
    if (!next) return;
    const oldName = old.name.trim();
    const newName = next.name.trim();
    // Renamed in place, not moved: an option added or removed before it shifts the others.
    if (oldName !== newName && (newNames.includes(oldName) || oldNames.includes(newName))) return;
    names.set(oldName, newName);
    const oldValues = valuesOf(old);
    const newValues = valuesOf(next);
    if (oldValues.length !== newValues.length) return;
    const renamed = new Map<string, string>();
    oldValues.forEach((value, i) => {
      const now = newValues[i] ?? value;
      if (now !== value && !newValues.includes(value)) renamed.set(value, now);
    });
    values.set(newName, renamed);
  });
  const carried: Record<string, RowEdit> = {};
  for (const edit of Object.values(edits)) {
    const options: Record<string, string> = {};
    for (const [name, value] of Object.entries(edit.options)) {
      const newName = names.get(name) ?? name;
      options[newName] = values.get(newName)?.get(value) ?? value;
    }
    carried[comboKey(options)] = { ...edit, options };
  }
  return carried;
}
