import type { Product, Variant } from './types.js';

/**
 * Choosing a product's options: which variant a choice names, and which values can be bought with
 * the others as chosen (the pickers grey out the rest). Pure functions of the product as the
 * storefront answers it (each variant's `options` and `available`).
 */

/** A value for each of the product's options, by option name. */
export type Selection = Record<string, string>;

/** Whether a variant agrees with the selection on every option but `except`. */
function agrees(product: Product, variant: Variant, selection: Selection, except?: string): boolean {
  return product.options.every(
    (option) =>
      option.name === except ||
      selection[option.name] === undefined ||
      variant.options[option.name] === selection[option.name],
  );
}

/** The variant the selection names (a product without options has one, `Default`). */
export function variantFor(product: Product, selection: Selection): Variant | undefined {
  if (product.options.length === 0) return product.variants[0];
  return product.variants.find((variant) =>
    product.options.every((option) => variant.options[option.name] === selection[option.name]),
  );
}

/** Whether `value` of `option`, with the other options as chosen, names a variant that can be bought. */
export function canBuy(product: Product, selection: Selection, option: string, value: string): boolean {
  return product.variants.some(
    (variant) =>
      variant.available && variant.options[option] === value && agrees(product, variant, selection, option),
  );
}

/**
 * The selection after choosing `value` for `option`: the others kept when that names a variant
 * that can be bought, otherwise those of the first variant with that value that can (so a click on
 * a size sold out in this colour moves to a colour it comes in), otherwise kept as they are (and
 * the page says the choice is sold out).
 */
export function choose(product: Product, selection: Selection, option: string, value: string): Selection {
  const next = { ...selection, [option]: value };
  if (variantFor(product, next)?.available) return next;
  const other = product.variants.find((variant) => variant.available && variant.options[option] === value);
  return other ? { ...other.options } : next;
}

/** The first choice shown: the first variant that can be bought, else the first. */
export function initialSelection(product: Product): Selection {
  const first = product.variants.find((variant) => variant.available) ?? product.variants[0];
  return first ? { ...first.options } : {};
}
