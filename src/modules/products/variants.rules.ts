import { AppError, validationError } from '../../lib/errors.js';

/**
 * The rules of options and variants, free of storage: how many, which combinations, a variant's
 * title and the key that makes its combination unique. The services apply them before writing.
 */

export const MAX_OPTIONS = 3;
export const MAX_OPTION_VALUES = 100;
export const MAX_VARIANTS = 2048;
/** Variants shown inside a product object; the rest through `GET /products/{id}/variants`. */
export const VARIANTS_SHOWN = 100;
export const DEFAULT_TITLE = 'Default';

export interface ProductOption {
  name: string;
  values: string[];
}

/** A variant's value for each of its product's options, by option name. */
export type OptionValues = Record<string, string>;

/** Option names and each option's values are compared case-insensitively, as a shopper reads them. */
function fold(text: string): string {
  return text.toLocaleLowerCase('und');
}

/** Names unique per product and values unique per option, case-insensitively (the schema bounds the counts). */
export function checkOptions(options: readonly ProductOption[], field = 'options'): void {
  const names = new Map<string, number>();
  options.forEach((option, i) => {
    const name = fold(option.name);
    const earlier = names.get(name);
    if (earlier !== undefined) {
      throw validationError(`${field}[${i}].name`, `repeats the name of ${field}[${earlier}]`);
    }
    names.set(name, i);
    const values = new Map<string, number>();
    option.values.forEach((value, j) => {
      const key = fold(value);
      const before = values.get(key);
      if (before !== undefined) {
        throw validationError(`${field}[${i}].values[${j}]`, `repeats ${field}[${i}].values[${before}]`);
      }
      values.set(key, j);
    });
  });
}

/** A combination as a key that does not depend on the order of the options: sorted [name, value] pairs. */
export function optionKey(values: OptionValues): string {
  return JSON.stringify(Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** "Red / M": the values in the order of the product's options; "Default" without options. */
export function variantTitle(options: readonly ProductOption[], values: OptionValues): string {
  if (options.length === 0) return DEFAULT_TITLE;
  return options.map((option) => values[option.name] ?? '').join(' / ');
}

/** A value for every option of the product, each one of that option's values, and nothing else. */
export function checkVariantOptions(
  options: readonly ProductOption[],
  values: OptionValues,
  field: string,
): void {
  for (const name of Object.keys(values)) {
    if (!options.some((option) => option.name === name)) {
      const known = options.map((option) => option.name).join(', ');
      throw validationError(
        `${field}.${name}`,
        options.length === 0
          ? 'is not an option of the product, which has none'
          : `is not an option of the product (${known})`,
      );
    }
  }
  for (const option of options) {
    const value = values[option.name];
    if (value === undefined)
      throw validationError(`${field}.${option.name}`, 'is required: every option needs a value');
    if (!option.values.includes(value)) {
      throw validationError(`${field}.${option.name}`, `must be one of ${option.values.join(', ')}`);
    }
  }
}

/** Two variants for one combination in one request: the later one is named. */
export function checkCombinationsUnique(
  values: readonly OptionValues[],
  field: (index: number) => string,
): void {
  const seen = new Map<string, number>();
  values.forEach((combination, index) => {
    const key = optionKey(combination);
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      throw validationError(field(index), `repeats the combination of ${field(earlier)}`);
    }
    seen.set(key, index);
  });
}

export function duplicateSku(sku: string): AppError {
  return new AppError(
    'duplicate_sku',
    `Another variant already has the SKU "${sku}" (SKUs compare case-insensitively).`,
  );
}

/** Two variants of one request with one SKU, compared case-insensitively: 409 as against a stored one. */
export function checkSkusUnique(skus: readonly (string | null | undefined)[]): void {
  const seen = new Set<string>();
  for (const sku of skus) {
    if (sku === null || sku === undefined) continue;
    if (seen.has(sku.toLowerCase())) throw duplicateSku(sku);
    seen.add(sku.toLowerCase());
  }
}

/** What `q` finds beside a product's name, SKU and description: its variants' SKUs and option values. */
export function searchExtra(options: readonly ProductOption[], skus: readonly (string | null)[]): string {
  const values = options.flatMap((option) => option.values);
  const variantSkus = options.length === 0 ? [] : skus.filter((sku): sku is string => sku !== null);
  return [...values, ...variantSkus].join('\n');
}

/**
 * A product's new options applied to its variants: options are matched by name; a variant keeps
 * the values still offered, takes the first value of an option it lacks, and is dropped when one of
 * its values is gone. Returns the variants kept, with their new values, and those dropped; two
 * kept variants left with one combination (an option with several values removed) is a 400.
 */
export function applyOptions<V extends { id: string; options: OptionValues }>(
  next: readonly ProductOption[],
  variants: readonly V[],
): { kept: { variant: V; values: OptionValues }[]; dropped: V[] } {
  const kept: { variant: V; values: OptionValues }[] = [];
  const dropped: V[] = [];
  for (const variant of variants) {
    const values: OptionValues = {};
    let gone = false;
    for (const option of next) {
      const current = variant.options[option.name];
      if (current === undefined) values[option.name] = option.values[0] as string;
      else if (option.values.includes(current)) values[option.name] = current;
      else gone = true;
    }
    if (gone) dropped.push(variant);
    else kept.push({ variant, values });
  }
  if (kept.length === 0) {
    throw new AppError(
      'invalid_state_transition',
      'These options would remove every variant of the product; a product keeps at least one.',
    );
  }
  const seen = new Map<string, string>();
  for (const { variant, values } of kept) {
    const key = optionKey(values);
    const twin = seen.get(key);
    if (twin !== undefined) {
      throw validationError(
        'options',
        `would leave variants ${twin} and ${variant.id} with one combination (${variantTitle(next, values)}); delete one of them first`,
      );
    }
    seen.set(key, variant.id);
  }
  return { kept, dropped };
}
