import { Type } from 'typebox';
import {
  CreateProductBody,
  checkImages,
  checkImageUrl,
  codeErrors,
  MAX_OPTION_VALUES,
  MAX_VARIANTS,
  optionKey,
  type OptionValues,
  NewVariantBody,
  OptionSchema,
} from '../products/index.js';
import type { ProductLine, ProductOwn, VariantFields } from './imports.product-lines.js';
import { SHOPIFY_DEFAULT_OPTION } from './imports.shopify.js';
import { compileCheck, ruleErrors } from './imports.validate.js';

/**
 * The file-wide side of product imports: rows gathered into products by handle, and every rule
 * the file alone can tell (the schemas of `POST /products` and of a variant, option names and
 * values, combinations, SKUs repeated across the file). What the store holds is
 * imports.products.ts's.
 */

export interface ProductGroup {
  handle: string;
  /**
   * A row that carries the product but is no variant of it (a WooCommerce variable product, whose
   * variations are `lines`); otherwise the first of `lines` carries the product (`carrierOf`).
   */
  head?: ProductLine;
  /** The rows that are variants, in file order. */
  lines: ProductLine[];
  /** Rows that change nothing (a Shopify export's image-only rows). */
  passive: ProductLine[];
  /** The option names the first row gives: undefined when the file has no option columns. */
  optionNames: string[] | undefined;
  /** Each variant row's option values, by option name. */
  values: Map<ProductLine, OptionValues>;
  /** The first row has an error: nothing of the product is written. */
  fatal: boolean;
}

const P = CreateProductBody.properties;
const checkOwn = compileCheck(
  Type.Object(
    {
      name: Type.Optional(P.name),
      description: Type.Optional(P.description),
      category: Type.Optional(P.category),
      status: Type.Optional(P.status),
      tags: Type.Optional(P.tags),
      currency: Type.Optional(P.currency),
      images: Type.Optional(P.images),
      media: Type.Optional(P.media),
      attributes: Type.Optional(P.attributes),
      seo: Type.Optional(P.seo),
    },
    { additionalProperties: false },
  ),
);
const OptionName = OptionSchema.properties.name;
const checkOptionNames = compileCheck(
  Type.Object(
    {
      option1_name: Type.Optional(OptionName),
      option2_name: Type.Optional(OptionName),
      option3_name: Type.Optional(OptionName),
    },
    { additionalProperties: false },
  ),
);
const V = NewVariantBody.properties;
const checkVariant = compileCheck(
  Type.Object(
    {
      sku: Type.Optional(V.sku),
      options: Type.Optional(V.options),
      price: Type.Optional(V.price),
      compare_at_price: Type.Optional(V.compare_at_price),
      stock: Type.Optional(V.stock),
      weight_grams: Type.Optional(V.weight_grams),
      barcode: Type.Optional(V.barcode),
      image: Type.Optional(V.image),
      cost: Type.Optional(V.cost),
      requires_shipping: Type.Optional(V.requires_shipping),
      taxable: Type.Optional(V.taxable),
    },
    { additionalProperties: false },
  ),
);

/** The row that carries a product's own fields: its head, else its first variant row. */
export function carrierOf(group: Pick<ProductGroup, 'head' | 'lines'>): ProductLine {
  return group.head ?? (group.lines[0] as ProductLine);
}

/** Every row of a product: its head, its variants, its passive rows. */
export function rowsOf(group: ProductGroup): ProductLine[] {
  return [...(group.head ? [group.head] : []), ...group.lines, ...group.passive];
}

/** The product's own fields a row states, as the API's request would give them. */
export function ownInput(own: ProductOwn): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  if (typeof own.name === 'string') input.name = own.name;
  if (own.description !== undefined) input.description = own.description;
  if (own.category !== undefined) input.category = own.category;
  if (typeof own.status === 'string') input.status = own.status;
  if (own.tags !== undefined) input.tags = own.tags ?? [];
  if (typeof own.currency === 'string') input.currency = own.currency;
  if (own.images !== undefined) {
    // With alt text, the images are the API's `media`.
    const alts = own.image_alts;
    if (alts === undefined) input.images = own.images ?? [];
    else input.media = (own.images ?? []).map((url) => ({ url, alt: alts?.[url] ?? null }));
  }
  if (own.attributes !== undefined) input.attributes = own.attributes ?? {};
  if (own.seo_title !== undefined || own.seo_description !== undefined) {
    input.seo = {
      ...(own.seo_title === undefined ? {} : { title: own.seo_title }),
      ...(own.seo_description === undefined ? {} : { description: own.seo_description }),
    };
  }
  return input;
}

/** A variant's fields as given: an empty price or stock means "as it is" (or the default). */
export function variantInput(
  fields: VariantFields,
  values: OptionValues | undefined,
): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  if (fields.sku !== undefined) input.sku = fields.sku;
  if (values !== undefined && Object.keys(values).length > 0) input.options = values;
  if (typeof fields.price === 'number') input.price = fields.price;
  if (fields.compare_at_price !== undefined) input.compare_at_price = fields.compare_at_price;
  if (typeof fields.stock === 'number') input.stock = fields.stock;
  if (fields.weight_grams !== undefined) input.weight_grams = fields.weight_grams;
  if (fields.barcode !== undefined) input.barcode = fields.barcode;
  if (fields.image !== undefined) input.image = fields.image;
  if (fields.cost !== undefined) input.cost = fields.cost;
  if (typeof fields.requires_shipping === 'boolean') input.requires_shipping = fields.requires_shipping;
  if (typeof fields.taxable === 'boolean') input.taxable = fields.taxable;
  return input;
}

/**
 * The first segment of a field path: `tags[2]` and `attributes.color` are columns `tags`,
 * `attributes`; `media[1].alt` is `image_alts`, `media[1].url` is `images`.
 */
export function fieldHead(field: string): string {
  if (field.startsWith('media')) return field.endsWith('.alt') ? 'image_alts' : 'images';
  return /^[^.[]*/.exec(field)?.[0] ?? field;
}

export function fail(line: ProductLine, field: string | null, message: string): void {
  line.errors.push({ line: line.line, column: field === null ? null : line.columnOf(field), message });
}

export function ok(line: ProductLine): boolean {
  return line.errors.length === 0;
}

/** A Shopify row with no variant in it: an image of its product only. */
function isPassive(line: ProductLine): boolean {
  const v = line.variant;
  return (
    [v.sku, v.price, v.compare_at_price, v.stock, v.weight_grams, v.barcode, v.image, v.cost].every(
      (value) => value === undefined || value === null,
    ) && line.optionValues.every((value) => value === undefined || value === null)
  );
}

/**
 * A product's images from its rows' (Shopify's `Image Src` and `Image Position`): by position,
 * those without one after, in file order; each once. Undefined when the file has no image column.
 */
function imagesOfRows(
  lines: readonly ProductLine[],
): { images: string[] | null; alts: Record<string, string> | undefined } | undefined {
  if (lines.every((line) => line.productImage === undefined)) return undefined;
  const found = lines.flatMap((line, order) => (line.productImage ? [{ ...line.productImage, order }] : []));
  found.sort(
    (a, b) =>
      (a.position ?? Number.MAX_SAFE_INTEGER) - (b.position ?? Number.MAX_SAFE_INTEGER) || a.order - b.order,
  );
  const urls = [...new Set(found.map((image) => image.url))];
  // Each image's alt text (`Image Alt Text`), the first row of its URL that gives one; none
  // without the column.
  let alts: Record<string, string> | undefined;
  if (found.some((image) => image.alt !== undefined)) {
    alts = {};
    for (const image of found) {
      if (typeof image.alt === 'string' && !Object.hasOwn(alts, image.url)) alts[image.url] = image.alt;
    }
  }
  return { images: urls.length === 0 ? null : urls, alts };
}

/**
 * The file-wide side of products: rows gathered into products by handle (a product's rows must
 * be next to each other), and what can be told from the file alone, SKUs repeated across it
 * included. Feed it every row in file order, from the first, on every pass.
 */
export class ProductGrouper {
  private open: ProductLine[] = [];
  private readonly closedHandles = new Map<string, number>();
  private readonly checker: ProductChecker;

  constructor(private readonly shopify: boolean) {
    this.checker = new ProductChecker(shopify);
  }

  /** Adds a row; answers the products it completes. */
  push(line: ProductLine): ProductGroup[] {
    const done: ProductGroup[] = [];
    const current = this.open[0]?.handle;
    if (line.handle === null || line.handle !== current) {
      if (this.open.length > 0) done.push(this.close());
    }
    if (line.handle === null) {
      if (line.errors.length === 0)
        fail(line, 'handle', 'is required: it names the product the row belongs to');
      done.push(this.single(line));
      return done;
    }
    if (this.open.length === 0) {
      const earlier = this.closedHandles.get(line.handle);
      if (earlier !== undefined) {
        fail(
          line,
          'handle',
          `repeats the handle of line ${earlier}: the rows of one product must be next to each other`,
        );
        done.push(this.single(line));
        return done;
      }
    }
    this.open.push(line);
    return done;
  }

  end(): ProductGroup[] {
    return this.open.length > 0 ? [this.close()] : [];
  }

  private single(line: ProductLine): ProductGroup {
    return { handle: '', lines: [line], passive: [], optionNames: undefined, values: new Map(), fatal: true };
  }

  private close(): ProductGroup {
    const lines = this.open;
    this.open = [];
    const first = lines[0] as ProductLine;
    this.closedHandles.set(first.handle as string, first.line);
    const rest = lines.slice(1);
    const passive = this.shopify ? rest.filter(isPassive) : [];
    const variants = [first, ...rest.filter((line) => !passive.includes(line))];
    const group: ProductGroup = {
      handle: first.handle as string,
      lines: variants,
      passive,
      optionNames: undefined,
      values: new Map(),
      fatal: false,
    };
    // A product's images are its rows' in a file that gives one a row (Shopify's).
    const images = imagesOfRows(lines);
    if (images !== undefined) {
      first.own.images = images.images;
      if (images.alts !== undefined) first.own.image_alts = images.alts;
    }
    this.checker.check(group);
    return group;
  }
}

/**
 * What the file alone tells about a product's rows: its own fields and each variant's, checked by
 * the schemas of `POST /products` and of a variant; its options and their values; its codes
 * (variants.codes.ts); SKUs repeated across the file (this holds those already met).
 */
export class ProductChecker {
  private readonly skus = new Map<string, number>();

  constructor(private readonly shopify: boolean) {}

  /** Everything the file alone tells about a product's rows; `group.fatal` when its product fails. */
  check(group: ProductGroup): void {
    const first = carrierOf(group);
    const rest = group.head ? group.lines : group.lines.slice(1);
    // The product's own columns belong to its first row; later rows leave them empty or repeat them.
    for (const line of [...rest, ...group.passive]) {
      for (const [field, text] of line.ownText) {
        if (first.ownText.get(field) !== text) {
          fail(
            line,
            field,
            `differs from the product's first row (line ${first.line}): leave the product's columns empty on its other rows`,
          );
        }
      }
    }
    for (const error of checkOwn(ownInput(first.own))) fail(first, fieldHead(error.field), error.message);
    if (Array.isArray(first.own.images)) {
      for (const error of ruleErrors(() => checkImages(first.own.images ?? []))) {
        fail(first, 'images', error.message);
      }
    }
    const alts = first.own.image_alts;
    if (alts && first.own.images !== undefined) {
      const images = new Set(first.own.images ?? []);
      for (const url of Object.keys(alts).filter((key) => !images.has(key))) {
        fail(first, 'image_alts', `names ${url}, which is not one of the product's images`);
      }
    }
    for (const line of group.lines) this.checkVariantValues(line);
    group.optionNames = this.optionNames(group, first);
    const names = group.optionNames ?? [];

    // Option values: one per option of the product, and none past them.
    for (const line of group.lines) {
      const values: OptionValues = {};
      line.optionValues.forEach((value, k) => {
        const name = names[k];
        if (name !== undefined) {
          if (value === undefined || value === null || value.trim() === '') {
            fail(line, `option${k + 1}_value`, `is required: the product has the option ${name}`);
          } else values[name] = value;
        } else if (value !== undefined && value !== null && value !== '') {
          fail(
            line,
            `option${k + 1}_value`,
            `has a value, but the product has no option ${k + 1} (name it in option${k + 1}_name on the product's first row)`,
          );
        }
      });
      group.values.set(line, values);
    }
    if (names.length === 0) {
      for (const line of group.head ? group.lines.slice(1) : rest) {
        fail(
          line,
          'handle',
          `repeats the handle of line ${first.line}, but the product has no options and so one variant: name its options (option1_name...) on its first row to give it several`,
        );
      }
    }
    // A value spelled one way throughout, at most MAX_OPTION_VALUES per option.
    names.forEach((name, k) => {
      const spellings = new Map<string, { value: string; line: number }>();
      for (const line of group.lines) {
        const value = group.values.get(line)?.[name];
        if (value === undefined) continue;
        const key = value.toLocaleLowerCase('und');
        const earlier = spellings.get(key);
        if (earlier === undefined) {
          if (spellings.size >= MAX_OPTION_VALUES) {
            fail(line, `option${k + 1}_value`, `is past the ${MAX_OPTION_VALUES} values an option may have`);
            continue;
          }
          spellings.set(key, { value, line: line.line });
        } else if (earlier.value !== value) {
          fail(
            line,
            `option${k + 1}_value`,
            `is "${earlier.value}" (line ${earlier.line}) written another way: write each value of ${name} alike`,
          );
        }
      }
    });
    // Each row's own values, checked as a variant of POST /products is.
    for (const line of group.lines) {
      for (const error of checkVariant(variantInput(line.variant, group.values.get(line)))) {
        const head = fieldHead(error.field);
        const option = head === 'options' ? names.indexOf(error.field.slice('options.'.length)) : -1;
        fail(line, option >= 0 ? `option${option + 1}_value` : head, error.message);
      }
    }
    // One variant per combination, and SKUs unique in the whole file.
    const combinations = new Map<string, number>();
    group.lines.forEach((line, index) => {
      const values = group.values.get(line) ?? {};
      if (names.length > 0 && Object.keys(values).length === names.length) {
        const key = optionKey(values);
        const earlier = combinations.get(key);
        if (earlier !== undefined) {
          const title = names.map((name) => values[name]).join(' / ');
          fail(line, 'option1_value', `repeats the option values of line ${earlier} (${title})`);
        } else combinations.set(key, line.line);
      }
      if (index >= MAX_VARIANTS) {
        fail(line, 'handle', `is past the ${MAX_VARIANTS} variants a product may have`);
      }
      const sku = line.variant.sku;
      if (typeof sku === 'string') {
        const earlier = this.skus.get(sku.toLowerCase());
        if (earlier !== undefined) {
          fail(line, 'sku', `repeats the SKU of line ${earlier} (SKUs compare case-insensitively)`);
        } else this.skus.set(sku.toLowerCase(), line.line);
      }
    });
    if (!ok(first)) group.fatal = true;
    if (group.fatal) {
      for (const line of [...rest, ...group.passive]) {
        if (ok(line))
          fail(line, null, `not imported: the product's first row (line ${first.line}) has errors`);
      }
    }
  }

  /** A variant row's image URL and codes, beyond its schema (checked with the other fields). */
  private checkVariantValues(line: ProductLine): void {
    const image = line.variant.image;
    if (typeof image === 'string' && /^https:\/\//.test(image)) {
      for (const error of ruleErrors(() => checkImageUrl(image, 'image'))) fail(line, 'image', error.message);
    }
    for (const error of codeErrors(line.variant)) fail(line, error.field, error.message);
  }

  /** The product's option names from its first row, checked; undefined without option columns. */
  private optionNames(group: ProductGroup, first: ProductLine): string[] | undefined {
    if (first.optionNames.every((name) => name === undefined)) {
      if (
        group.lines.some((line) => line.optionValues.some((value) => value !== undefined && value !== null))
      ) {
        fail(first, 'option1_name', 'is missing: the file gives option values without option names');
      }
      return undefined;
    }
    const given: Record<string, string> = {};
    const names: string[] = [];
    first.optionNames.forEach((name, k) => {
      if (name === undefined || name === null || name === '') return;
      if (names.length !== k) {
        fail(
          first,
          `option${k + 1}_name`,
          `comes after an empty option${names.length + 1}_name: name the options in order`,
        );
        return;
      }
      given[`option${k + 1}_name`] = name;
      names.push(name);
    });
    for (const error of checkOptionNames(given)) fail(first, error.field, error.message);
    const folded = new Map<string, number>();
    names.forEach((name, k) => {
      const key = name.toLocaleLowerCase('und');
      const earlier = folded.get(key);
      if (earlier !== undefined) {
        fail(first, `option${k + 1}_name`, `repeats option${earlier + 1}_name`);
      } else folded.set(key, k);
    });
    // Shopify names the one variant of a product without options "Title: Default Title".
    if (
      this.shopify &&
      names.length === 1 &&
      names[0] === SHOPIFY_DEFAULT_OPTION.name &&
      group.lines.every((line) => line.optionValues[0] === SHOPIFY_DEFAULT_OPTION.value)
    ) {
      for (const line of group.lines) line.optionValues[0] = undefined;
      return [];
    }
    return names;
  }
}
