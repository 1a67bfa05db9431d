import { validationError } from '../../lib/errors.js';
import type { ProductRow } from './products.repository.js';
import type { SeoBody } from './products.schemas.js';
import { codeErrors, checkCodes } from './variants.codes.js';
import type { VariantRow } from './variants.repository.js';

/**
 * What a variant holds besides its price and stock (from version 2027-01-20): its own image, its
 * cost, and whether it requires shipping and is taxable; and a product's SEO fields. Requests give
 * them as booleans and nulls, rows keep them as 1/0 and nulls.
 */

export interface VariantDetailsInput {
  image?: string | null | undefined;
  cost?: number | null | undefined;
  requires_shipping?: boolean | undefined;
  taxable?: boolean | undefined;
}

export type VariantDetails = Pick<VariantRow, 'image' | 'cost' | 'requires_shipping' | 'taxable'>;

/** A new variant's details: what the request gives, else no image, no cost, shipped and taxable. */
export function newVariantDetails(input: VariantDetailsInput): VariantDetails {
  return {
    image: input.image ?? null,
    cost: input.cost ?? null,
    requires_shipping: input.requires_shipping === false ? 0 : 1,
    taxable: input.taxable === false ? 0 : 1,
  };
}

/** The details a request changes on `before` (the fields given that differ). */
export function variantDetailChanges(
  before: Pick<VariantRow, keyof VariantDetails>,
  input: VariantDetailsInput,
): Partial<VariantDetails> {
  const changes: Partial<VariantDetails> = {};
  if (input.image !== undefined && input.image !== before.image) changes.image = input.image;
  if (input.cost !== undefined && input.cost !== before.cost) changes.cost = input.cost;
  if (input.requires_shipping !== undefined) {
    const value = input.requires_shipping ? 1 : 0;
    if (value !== before.requires_shipping) changes.requires_shipping = value;
  }
  if (input.taxable !== undefined) {
    const value = input.taxable ? 1 : 0;
    if (value !== before.taxable) changes.taxable = value;
  }
  return changes;
}

/** The detail fields a request names (each a 400 on a product with options, which has no one variant). */
export const VARIANT_DETAIL_FIELDS = ['image', 'cost', 'requires_shipping', 'taxable'] as const;

/** The schema demands `https://`; this also refuses what a URL parser does not accept, and credentials. */
export function checkImageUrl(image: string, field: string): void {
  let url: URL;
  try {
    url = new URL(image);
  } catch {
    throw validationError(field, 'must be an https URL');
  }
  if (url.protocol !== 'https:' || url.hostname === '' || url.username !== '' || url.password !== '') {
    throw validationError(field, 'must be an https URL without credentials');
  }
}

/** A variant's fields checked beyond their schema: its image URL, and its codes when `codes` says. */
export function checkVariantFields(
  input: VariantDetailsInput & { sku?: string | null | undefined; barcode?: string | null | undefined },
  prefix: string,
  codes: boolean,
): void {
  if (typeof input.image === 'string') checkImageUrl(input.image, `${prefix}image`);
  if (codes) checkCodes(codeErrors(input, prefix));
}

/** A new product's SEO columns. */
export function newSeo(seo: SeoBody | undefined): Pick<ProductRow, 'seo_title' | 'seo_description'> {
  return { seo_title: seo?.title ?? null, seo_description: seo?.description ?? null };
}

/** The SEO columns a change gives (only the members given). */
export function seoChanges(
  seo: SeoBody | undefined,
): Partial<Pick<ProductRow, 'seo_title' | 'seo_description'>> {
  const changes: Partial<Pick<ProductRow, 'seo_title' | 'seo_description'>> = {};
  if (seo?.title !== undefined) changes.seo_title = seo.title;
  if (seo?.description !== undefined) changes.seo_description = seo.description;
  return changes;
}
