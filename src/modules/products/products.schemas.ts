import { type Static, Type } from 'typebox';
import type { ProductStatus } from '../../db/schema.js';
import { EnvelopeSchema, PageQuery } from '../../http/pagination.js';
import {
  Barcode,
  CompareAtPrice,
  MAX_PRICE,
  NewVariantsSchema,
  OptionSchema,
  OptionsSchema,
  Price,
  Sku,
  Stock,
  TSHIRT_EXAMPLE,
  variantDetailFields,
  VariantSchema,
  WeightGrams,
} from './variants.schemas.js';
import { VARIANTS_SHOWN } from './variants.rules.js';
import { PRODUCT_EXAMPLE } from './products.examples.js';
import { HANDLE_PATTERN } from './products.handles.js';
import {
  Currency,
  LINE_OR_EMPTY_PATTERN,
  LINE_PATTERN,
  Nullable,
  Timestamp,
  TEXT_PATTERN,
} from '../../http/schemas.js';

export const PRODUCT_STATUSES: readonly ProductStatus[] = ['active', 'draft', 'archived'];
export const PRODUCT_SORTS = ['created', '-created', 'price', '-price', 'name'] as const;
export type ProductSort = (typeof PRODUCT_SORTS)[number];

export { MAX_PRICE, MAX_STOCK } from './variants.schemas.js';

const Name = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: LINE_PATTERN,
  description: '1 to 255 characters on one line, not blank (as Shopify allows).',
});
const Description = Type.String({ maxLength: 5000, pattern: TEXT_PATTERN });
const HANDLE_RULE =
  'The name a storefront URL uses: 1 to 255 characters of lowercase `a-z`, `0-9` and `-`, unique per tenant (`409 handle_taken`).';
const Handle = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: HANDLE_PATTERN,
  description: HANDLE_RULE,
  examples: ['classic-tee'],
});
const Category = Type.String({ minLength: 1, maxLength: 100, pattern: LINE_PATTERN, examples: ['shoes'] });
const Status = Type.Unsafe<ProductStatus>({
  type: 'string',
  enum: [...PRODUCT_STATUSES],
  description: '`active` (default), `draft` or `archived`.',
});
/** As many as Shopify keeps of a product. */
export const MAX_IMAGES = 250;
const Images = Type.Array(
  Type.String({ format: 'uri', maxLength: 2048, pattern: '^https://', description: 'An https URL.' }),
  { maxItems: MAX_IMAGES },
);
/** As long as Shopify lets an image's alt text be. */
export const MAX_ALT = 512;
const Alt = Type.String({
  minLength: 1,
  maxLength: MAX_ALT,
  pattern: LINE_PATTERN,
  description:
    'What the image shows, for screen readers and when it fails to load: up to 512 characters on one line.',
});
const MediaBody = Type.Array(
  Type.Object(
    {
      url: Type.String({
        format: 'uri',
        maxLength: 2048,
        pattern: '^https://',
        description: 'An https URL.',
      }),
      alt: Type.Optional(Nullable(Alt)),
    },
    { additionalProperties: false },
  ),
  {
    maxItems: MAX_IMAGES,
    description:
      'The images with their alt text, in order (from version 2027-01-20): they replace `images` and its alt text; `alt` left out is null. The same URL twice carries the same alt text. Not with `images` (400 naming `media`).',
    examples: [
      [{ url: 'https://cdn.example.com/products/trail-runner-3.jpg', alt: 'Trail Runner 3, side view' }],
    ],
  },
);
const IMAGES_KEEP_ALTS =
  ' Each URL that stays keeps its alt text (`media`); a new one has none. Not with `media`.';
const SeoTitle = Type.String({ minLength: 1, maxLength: 255, pattern: LINE_PATTERN });
const SeoDescription = Type.String({ minLength: 1, maxLength: 1000, pattern: TEXT_PATTERN });
const SeoBody = Type.Object(
  {
    title: Type.Optional(Nullable(SeoTitle)),
    description: Type.Optional(Nullable(SeoDescription)),
  },
  {
    additionalProperties: false,
    description:
      'What search engines show of the product: a title of up to 255 characters on one line and a description of up to 1,000; null clears one. On a change, only the members given change.',
    examples: [{ title: 'Trail Runner 3 | Acme', description: 'Light trail shoes with a grippy sole.' }],
  },
);
export type SeoBody = Static<typeof SeoBody>;
const Attributes = Type.Unsafe<Record<string, string>>({
  type: 'object',
  additionalProperties: { type: 'string', maxLength: 500, pattern: TEXT_PATTERN },
  propertyNames: { minLength: 1, maxLength: 100, pattern: LINE_PATTERN },
  maxProperties: 50,
  description: 'A flat map of string values (at most 50), e.g. {"color": "black"}.',
});
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 50, pattern: LINE_PATTERN }), {
  maxItems: 20,
  uniqueItems: true,
});

export const ProductSchema = Type.Object(
  {
    id: Type.String({ examples: ['prod_3kTq9ZpW2bX9sT2uV7wY3cE5'] }),
    handle: Type.String({
      description:
        'Unique per tenant: lowercase `a-z`, `0-9` and `-`, given or made from the name (`classic-tee`, then `classic-tee-2`). From version 2027-01-20.',
    }),
    name: Type.String(),
    description: Nullable(Type.String()),
    sku: Nullable(
      Type.String({ description: "The one variant's SKU for a product without options; null with options." }),
    ),
    price: Type.Integer({
      description: 'The lowest variant price (the one variant’s without options); minor units.',
    }),
    price_max: Type.Integer({ description: 'The highest variant price; minor units.' }),
    currency: Type.String(),
    category: Nullable(Type.String()),
    stock: Type.Integer({ description: "The variants' stock, summed." }),
    status: Type.String({ enum: [...PRODUCT_STATUSES] }),
    images: Type.Array(Type.String(), { description: 'The URLs of `media`, in order.' }),
    media: Type.Array(Type.Object({ url: Type.String(), alt: Nullable(Type.String()) }), {
      description:
        'The images with their alt text (null: none given), in order: `images` are their URLs. From version 2027-01-20.',
    }),
    attributes: Type.Record(Type.String(), Type.String()),
    tags: Type.Array(Type.String()),
    options: Type.Array(OptionSchema),
    seo: Type.Object(
      { title: Nullable(Type.String()), description: Nullable(Type.String()) },
      { description: 'What search engines show of it. From version 2027-01-20.' },
    ),
    variant_count: Type.Integer(),
    variants: Type.Optional(
      Type.Array(VariantSchema, {
        description: `The first ${VARIANTS_SHOWN} variants by position; in a list only with \`expand=variants\`.`,
      }),
    ),
    variants_has_more: Type.Optional(
      Type.Boolean({
        description: `More than ${VARIANTS_SHOWN} variants: page through \`GET /products/{id}/variants\`.`,
      }),
    ),
    created: Timestamp,
    updated: Timestamp,
  },
  { examples: [PRODUCT_EXAMPLE] },
);
export type ProductObject = Static<typeof ProductSchema>;

/**
 * The one variant's fields that a product without options takes beside `sku`, `price` and
 * `stock`, on create and update alike; with options each variant has its own (400 naming the field).
 */
const oneVariantFields = {
  compare_at_price: Type.Optional(
    Nullable(
      Type.Integer({
        ...CompareAtPrice,
        description:
          'Without options only: the one variant’s price before a reduction, shown struck through; minor units (cents), 0 to 10^10. Default null.',
      }),
    ),
  ),
  weight_grams: Type.Optional(
    Nullable(
      Type.Integer({
        ...WeightGrams,
        description:
          'Without options only: the one variant’s shipping weight in grams, 0 to 10,000,000. Default null.',
      }),
    ),
  ),
  barcode: Type.Optional(
    Nullable(
      Type.String({
        ...Barcode,
        description:
          'Without options only: the one variant’s GTIN, EAN, UPC or ISBN; 1 to 64 printable ASCII characters without spaces. Default null.',
      }),
    ),
  ),
  ...variantDetailFields,
};

export const CreateProductBody = Type.Object(
  {
    name: Name,
    handle: Type.Optional({
      ...Handle,
      description: `${HANDLE_RULE} Default: made from the name (\`Classic Tee\` is \`classic-tee\`, numbered \`classic-tee-2\`... when taken).`,
    }),
    description: Type.Optional(Nullable(Description)),
    sku: Type.Optional(
      Nullable(
        Type.String({
          ...Sku,
          description:
            'Without options only: the one variant’s SKU, unique per tenant across all variants, compared case-insensitively; 1 to 64 printable ASCII characters without spaces.',
        }),
      ),
    ),
    price: Type.Optional(
      Type.Integer({
        ...Price,
        description: 'Minor units (cents); required without options, read-only with them.',
      }),
    ),
    currency: Type.Optional(
      Type.String({ ...Currency, description: 'ISO 4217; defaults to the tenant’s currency.' }),
    ),
    category: Type.Optional(Nullable(Category)),
    stock: Type.Optional(
      Type.Integer({ ...Stock, description: 'Units on hand; default 0. Without options only.' }),
    ),
    ...oneVariantFields,
    status: Type.Optional(Status),
    images: Type.Optional({ ...Images, description: `https URLs, in order.${IMAGES_KEEP_ALTS}` }),
    media: Type.Optional(MediaBody),
    attributes: Type.Optional(Attributes),
    tags: Type.Optional(Tags),
    seo: Type.Optional(SeoBody),
    options: Type.Optional(OptionsSchema),
    variants: Type.Optional(NewVariantsSchema),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Trail Runner 3',
        sku: 'TR3-42',
        price: 11999,
        compare_at_price: 12999,
        category: 'shoes',
        stock: 5,
        weight_grams: 620,
      },
      TSHIRT_EXAMPLE,
    ],
  },
);
export type CreateProductBody = Static<typeof CreateProductBody>;

export const UpdateProductBody = Type.Object(
  {
    name: Type.Optional(Name),
    handle: Type.Optional({
      ...Handle,
      description: `${HANDLE_RULE} A changed name leaves the handle as it is.`,
    }),
    description: Type.Optional(Nullable(Description)),
    sku: Type.Optional(Nullable(Sku)),
    price: Type.Optional(Price),
    currency: Type.Optional(Currency),
    category: Type.Optional(Nullable(Category)),
    stock: Type.Optional(Stock),
    ...oneVariantFields,
    status: Type.Optional(Status),
    images: Type.Optional({ ...Images, description: `https URLs, in order.${IMAGES_KEEP_ALTS}` }),
    media: Type.Optional(MediaBody),
    attributes: Type.Optional(Attributes),
    tags: Type.Optional(Tags),
    seo: Type.Optional(SeoBody),
    options: Type.Optional({
      ...OptionsSchema,
      description:
        'The new options, matched by name: a variant keeps its values still listed, takes the first value of an added option, and is deleted when one of its values is removed.',
    }),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ price: 11999, tags: ['running', 'trail'] }],
  },
);
export type UpdateProductBody = Static<typeof UpdateProductBody>;

/** `GET /products` parameters; the same schema validates the query string and a JSON body. */
export const ProductListQuery = Type.Object(
  {
    ...PageQuery,
    handle: Type.Optional({ ...Handle, description: 'The product of this handle (a list of one, or none).' }),
    category: Type.Optional(Category),
    status: Type.Optional(Status),
    q: Type.Optional(
      Type.String({
        maxLength: 200,
        pattern: LINE_OR_EMPTY_PATTERN,
        description:
          'Text in the name, SKU, description, variant SKUs or option values (case-insensitive substring in every script, Greek final sigma and Turkish İ included). Empty: no text filter, as from an empty search box.',
      }),
    ),
    min_price: Type.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_PRICE, description: 'Minor units, inclusive (0 to 10^10).' }),
    ),
    max_price: Type.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_PRICE, description: 'Minor units, inclusive (0 to 10^10).' }),
    ),
    in_stock: Type.Optional(
      Type.Boolean({ description: '`true`: some variant in stock (stock > 0); `false`: none (stock = 0).' }),
    ),
    expand: Type.Optional(
      Type.Unsafe<'variants'>({
        type: 'string',
        enum: ['variants'],
        description: `\`variants\`: each product carries its first ${VARIANTS_SHOWN} variants.`,
      }),
    ),
    sort: Type.Optional(
      Type.Unsafe<ProductSort>({
        type: 'string',
        enum: [...PRODUCT_SORTS],
        description: 'Default `-created` (newest first). Ties are broken by id.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ProductListQuery = Static<typeof ProductListQuery>;

export const ProductListSchema = EnvelopeSchema(ProductSchema);

export const ProductIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
