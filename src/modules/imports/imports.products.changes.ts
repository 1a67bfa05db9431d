import {
  altsJson,
  type LevelLocation,
  newVariantDetails,
  parseAlts,
  type ProductRow,
  variantDetailChanges,
  type VariantRow,
} from '../products/index.js';
import type { ProductLine, ProductOwn, VariantFields } from './imports.product-lines.js';

/**
 * What an import's row changes (imports.products.ts plans with these): a product's own fields and
 * a variant's against the store's, and a new variant's details, stock and units at locations.
 */

/** A variant's units on hand set at locations (a row's `stock_by_location`). */
export interface LevelSet {
  line: ProductLine;
  variantId: string;
  set: { location: LevelLocation; units: number }[];
}

/** The store's locations by name, as stock levels see them. */
export type Locations = ReadonlyMap<string, LevelLocation>;

function canonical(json: string): string {
  const value = JSON.parse(json) as unknown;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return json;
  return JSON.stringify(
    Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  );
}

/** A new variant's image, cost and flags from its row (its defaults where the row leaves them). */
export function detailsOf(fields: VariantFields): ReturnType<typeof newVariantDetails> {
  return newVariantDetails({
    image: fields.image ?? null,
    cost: fields.cost ?? null,
    ...(typeof fields.requires_shipping === 'boolean' ? { requires_shipping: fields.requires_shipping } : {}),
    ...(typeof fields.taxable === 'boolean' ? { taxable: fields.taxable } : {}),
  });
}

/** A row's `stock_by_location` as locations, for a row that gives one. */
export function namedLevels(
  fields: VariantFields,
  locations: Locations,
): { location: LevelLocation; units: number }[] {
  return Object.entries(fields.stock_by_location ?? {}).flatMap(([name, units]) => {
    const location = locations.get(name);
    return location === undefined ? [] : [{ location, units }];
  });
}

/**
 * A new variant's `stock`: with `stock_by_location`, what it names at the default location (the
 * other locations' units are set after, as adjustments); else the row's `stock`.
 */
export function newStock(fields: VariantFields, locations: Locations): number | null | undefined {
  if (!fields.stock_by_location) return fields.stock;
  return namedLevels(fields, locations).find((entry) => entry.location.isDefault)?.units ?? 0;
}

/** The levels a new variant's row sets past its `stock`: its units at the other locations. */
export function newLevels(line: ProductLine, variantId: string, locations: Locations): LevelSet[] {
  const set = namedLevels(line.variant, locations).filter(
    (entry) => !entry.location.isDefault && entry.units > 0,
  );
  return set.length === 0 ? [] : [{ line, variantId, set }];
}

/** The product's own fields the first row changes. */
export function ownChanges(before: ProductRow, own: ProductOwn): Partial<ProductRow> {
  const next: Partial<ProductRow> = {};
  if (typeof own.name === 'string') next.name = own.name;
  if (own.description !== undefined) next.description = own.description;
  if (own.category !== undefined) next.category = own.category;
  if (typeof own.status === 'string') next.status = own.status;
  if (own.tags !== undefined) next.tags = JSON.stringify(own.tags ?? []);
  if (typeof own.currency === 'string') next.currency = own.currency;
  if (own.images !== undefined) next.images = JSON.stringify(own.images ?? []);
  // Alt text given applies to the images (given, or as they are); images alone keep the alt text
  // of the URLs that stay, as `PATCH /products` does.
  if (own.images !== undefined || own.image_alts !== undefined) {
    const images = own.images === undefined ? (JSON.parse(before.images) as string[]) : (own.images ?? []);
    const alts = own.image_alts === undefined ? parseAlts(before.image_alts) : (own.image_alts ?? {});
    next.image_alts = altsJson(images, alts);
  }
  if (own.attributes !== undefined) next.attributes = JSON.stringify(own.attributes ?? {});
  if (own.seo_title !== undefined) next.seo_title = own.seo_title;
  if (own.seo_description !== undefined) next.seo_description = own.seo_description;
  return Object.fromEntries(
    Object.entries(next).filter(([key, value]) => {
      const was = before[key as keyof ProductRow];
      if (key === 'attributes') return canonical(String(was)) !== canonical(String(value));
      // An empty cell is an empty description, whether the store holds it as null or as "".
      if (key === 'description') return (was ?? '') !== (value ?? '');
      return was !== value;
    }),
  ) as Partial<ProductRow>;
}

/** The variant's fields the row changes. */
export function variantChanges(before: VariantRow, fields: VariantFields): Partial<VariantRow> {
  const changes: Partial<VariantRow> = {};
  if (typeof fields.sku === 'string' && fields.sku !== before.sku) {
    changes.sku = fields.sku;
    changes.sku_key = fields.sku.toLowerCase();
  }
  if (typeof fields.price === 'number' && fields.price !== before.price) changes.price = fields.price;
  if (fields.compare_at_price !== undefined && fields.compare_at_price !== before.compare_at_price) {
    changes.compare_at_price = fields.compare_at_price;
  }
  // With `stock_by_location` the locations' units make the variant's stock (`stock` is not read).
  if (typeof fields.stock === 'number' && !fields.stock_by_location && fields.stock !== before.stock) {
    changes.stock = fields.stock;
  }
  if (fields.weight_grams !== undefined && fields.weight_grams !== before.weight_grams) {
    changes.weight_grams = fields.weight_grams;
  }
  if (fields.barcode !== undefined && fields.barcode !== before.barcode) changes.barcode = fields.barcode;
  Object.assign(
    changes,
    variantDetailChanges(before, {
      ...(fields.image === undefined ? {} : { image: fields.image }),
      ...(fields.cost === undefined ? {} : { cost: fields.cost }),
      ...(typeof fields.requires_shipping === 'boolean'
        ? { requires_shipping: fields.requires_shipping }
        : {}),
      ...(typeof fields.taxable === 'boolean' ? { taxable: fields.taxable } : {}),
    }),
  );
  return changes;
}
