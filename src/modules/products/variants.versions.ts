import type { VersionChange } from '../versions/index.js';

/**
 * Version 2027-01-20's change to the catalog's shapes: variants gain `image`, `cost`,
 * `requires_shipping` and `taxable`, products gain `seo`. Older versions see none of them, wherever
 * a product or variant appears (a response, a list, an event's object, `product.outofstock`'s
 * `data.variant`); objects stored before (events) read in this version with what every product
 * and variant had then: no SEO fields, no image, no cost, shipped and taxable.
 */

type Json = Record<string, unknown>;

const DETAILS = ['image', 'cost', 'requires_shipping', 'taxable'] as const;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function variantBefore(variant: Json): Json {
  return Object.fromEntries(
    Object.entries(variant).filter(([key]) => !(DETAILS as readonly string[]).includes(key)),
  );
}

function productBefore(product: Json): Json {
  const { seo: _seo, ...before } = product;
  if (Array.isArray(before.variants)) {
    before.variants = before.variants.map((variant) =>
      isObject(variant) ? variantBefore(variant) : variant,
    );
  }
  return before;
}

/** `product.outofstock` names its variant in `data.variant`, which the walker does not reach by type. */
function eventBefore(event: Json): Json {
  if (event.type !== 'product.outofstock' || !isObject(event.data) || !isObject(event.data.variant))
    return event;
  return { ...event, data: { ...event.data, variant: variantBefore(event.data.variant) } };
}

function storedVariant(variant: Json): Json {
  if ('requires_shipping' in variant) return variant;
  return { ...variant, image: null, cost: null, requires_shipping: true, taxable: true };
}

function storedProduct(product: Json): Json {
  const out: Json =
    'seo' in product ? { ...product } : { ...product, seo: { title: null, description: null } };
  if (Array.isArray(out.variants)) {
    out.variants = out.variants.map((variant) => (isObject(variant) ? storedVariant(variant) : variant));
  }
  return out;
}

function storedEvent(event: Json): Json {
  if (event.type !== 'product.outofstock' || !isObject(event.data) || !isObject(event.data.variant))
    return event;
  return { ...event, data: { ...event.data, variant: storedVariant(event.data.variant) } };
}

export const DETAILS_CHANGE: VersionChange = {
  description:
    'Variants gain `image` (an https URL or null), `cost` (minor units or null; never shown to shoppers), `requires_shipping` and `taxable` (both default true); products gain `seo: {title, description}`.',
  toPrevious: { product: productBefore, variant: variantBefore, event: eventBefore },
  storedFromPrevious: { product: storedProduct, variant: storedVariant, event: storedEvent },
};
