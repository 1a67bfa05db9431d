import { type Static, Type } from 'typebox';
import { EnvelopeSchema, PageQuery } from '../../http/pagination.js';
import { LINE_PATTERN, Nullable, Timestamp } from '../../http/schemas.js';
import { VARIANT_EXAMPLE } from './products.examples.js';
import { MAX_OPTION_VALUES, MAX_OPTIONS, MAX_VARIANTS, type OptionValues } from './variants.rules.js';

/** Upper bounds that keep every order total (100 lines x 1,000 units) a safe integer. */
export const MAX_PRICE = 10_000_000_000;
export const MAX_STOCK = 1_000_000_000;

export const Sku = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[\\x21-\\x7e]+$',
  description:
    'Unique per tenant across all variants, compared case-insensitively; 1 to 64 printable ASCII characters without spaces.',
  examples: ['TSHIRT-BLK-M'],
});
export const Price = Type.Integer({
  minimum: 0,
  maximum: MAX_PRICE,
  description: 'Minor units (cents).',
  examples: [1999],
});
export const Stock = Type.Integer({ minimum: 0, maximum: MAX_STOCK });

const OptionName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: LINE_PATTERN,
  examples: ['Size'],
});
const OptionValue = Type.String({ minLength: 1, maxLength: 100, pattern: LINE_PATTERN, examples: ['M'] });

export const OptionSchema = Type.Object(
  {
    name: OptionName,
    values: Type.Array(OptionValue, {
      minItems: 1,
      maxItems: MAX_OPTION_VALUES,
      description: `1 to ${MAX_OPTION_VALUES} values, unique (case-insensitively) within the option.`,
      examples: [['S', 'M', 'L']],
    }),
  },
  { additionalProperties: false, examples: [{ name: 'Size', values: ['S', 'M', 'L'] }] },
);

export const OptionsSchema = Type.Array(OptionSchema, {
  maxItems: MAX_OPTIONS,
  description: `0 to ${MAX_OPTIONS} options, names unique (case-insensitively) per product.`,
  examples: [
    [
      { name: 'Size', values: ['S', 'M', 'L'] },
      { name: 'Color', values: ['Black', 'White'] },
    ],
  ],
});

/** A variant's option values in a request: one per option of the product, by option name. */
export const OptionValuesSchema = Type.Unsafe<OptionValues>({
  type: 'object',
  additionalProperties: OptionValue,
  propertyNames: { minLength: 1, maxLength: 100, pattern: LINE_PATTERN },
  maxProperties: MAX_OPTIONS,
  description: "A value for each of the product's options, by option name.",
  examples: [{ Size: 'M', Color: 'Black' }],
});

export const WeightGrams = Type.Integer({
  minimum: 0,
  maximum: 10_000_000,
  description: 'Shipping weight in grams.',
});
export const Barcode = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[\\x21-\\x7e]+$',
  description:
    'GTIN, EAN, UPC or ISBN; printable ASCII without spaces. From version 2027-01-20 its check digit must hold (8, 12, 13 or 14 digits, or an ISBN-10; hyphens aside) and a number in scientific notation (`3.65275E+11`) is refused: 422 `invalid_product_code`.',
  examples: ['0123456789012'],
});
export const CompareAtPrice = Type.Integer({
  minimum: 0,
  maximum: MAX_PRICE,
  description: 'The price before a reduction, shown struck through; minor units.',
});
/** An image URL, as a product's `images` hold them. */
export const ImageUrl = Type.String({
  format: 'uri',
  maxLength: 2048,
  pattern: '^https://',
  description: 'An https URL.',
});
export const Cost = Type.Integer({
  minimum: 0,
  maximum: MAX_PRICE,
  description: 'What one unit costs you, minor units of the product’s currency; never shown to shoppers.',
});
export const RequiresShipping = Type.Boolean({
  description:
    'Whether it is sent to the buyer (default true): only such lines weigh and need a shipping rate; an order of none has no shipping.',
});
export const Taxable = Type.Boolean({
  description: 'Whether tax applies to it (default true): an untaxable line gets no tax.',
});

/** A variant's fields from version 2027-01-20, as requests give them. */
export const variantDetailFields = {
  image: Type.Optional(Nullable({ ...ImageUrl, description: 'The variant’s own image: an https URL.' })),
  cost: Type.Optional(Nullable(Cost)),
  requires_shipping: Type.Optional(RequiresShipping),
  taxable: Type.Optional(Taxable),
};

export const VariantSchema = Type.Object(
  {
    id: Type.String({ examples: ['var_4hUr0aQX3cY0tU3vW8xZ4dF6'] }),
    product_id: Type.String(),
    sku: Nullable(Type.String()),
    title: Type.String({
      description: 'The option values joined by " / "; `Default` without options.',
      examples: ['M / Black'],
    }),
    options: Type.Record(Type.String(), Type.String()),
    price: Type.Integer(),
    compare_at_price: Nullable(Type.Integer()),
    currency: Type.String({ description: "The product's currency." }),
    stock: Type.Integer(),
    weight_grams: Nullable(Type.Integer()),
    barcode: Nullable(Type.String()),
    image: Nullable(
      Type.String({ description: 'The variant’s own image, an https URL. From version 2027-01-20.' }),
    ),
    cost: Nullable(
      Type.Integer({
        description:
          'What one unit costs you, minor units; never shown to shoppers. From version 2027-01-20.',
      }),
    ),
    requires_shipping: Type.Boolean({
      description:
        'Only lines that require shipping weigh and need a shipping rate. From version 2027-01-20.',
    }),
    taxable: Type.Boolean({ description: 'An untaxable line gets no tax. From version 2027-01-20.' }),
    position: Type.Integer({ description: '1-based order within the product.' }),
    created: Timestamp,
    updated: Timestamp,
  },
  { examples: [VARIANT_EXAMPLE] },
);
export type VariantObject = Static<typeof VariantSchema>;

/** A variant given inside `POST /products`, whose options it must match. */
export const NewVariantBody = Type.Object(
  {
    sku: Type.Optional(Nullable(Sku)),
    options: OptionValuesSchema,
    price: Price,
    compare_at_price: Type.Optional(Nullable(CompareAtPrice)),
    stock: Type.Optional(Type.Integer({ ...Stock, description: 'Units on hand; default 0.' })),
    weight_grams: Type.Optional(Nullable(WeightGrams)),
    barcode: Type.Optional(Nullable(Barcode)),
    ...variantDetailFields,
  },
  { additionalProperties: false },
);
export type NewVariantBody = Static<typeof NewVariantBody>;

export const NewVariantsSchema = Type.Array(NewVariantBody, {
  maxItems: MAX_VARIANTS,
  description: `One per combination sold (at most ${MAX_VARIANTS}); positions follow this order.`,
});

/** A T-shirt in three sizes and two colours, sold in five of the six combinations (docs and OpenAPI). */
export const TSHIRT_EXAMPLE = {
  name: 'Logo T-shirt',
  category: 'apparel',
  options: [
    { name: 'Size', values: ['S', 'M', 'L'] },
    { name: 'Color', values: ['Black', 'White'] },
  ],
  variants: [
    { sku: 'TEE-S-BLK', options: { Size: 'S', Color: 'Black' }, price: 2500, stock: 10 },
    { sku: 'TEE-M-BLK', options: { Size: 'M', Color: 'Black' }, price: 2500, stock: 12 },
    { sku: 'TEE-L-BLK', options: { Size: 'L', Color: 'Black' }, price: 2700, stock: 0 },
    { sku: 'TEE-S-WHT', options: { Size: 'S', Color: 'White' }, price: 2500, stock: 4 },
    {
      sku: 'TEE-M-WHT',
      options: { Size: 'M', Color: 'White' },
      price: 2500,
      compare_at_price: 3000,
      stock: 6,
      weight_grams: 180,
      barcode: '0012345678905',
    },
  ],
};

export const CreateVariantBody = Type.Object(
  {
    ...NewVariantBody.properties,
    position: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_VARIANTS,
        description: 'Where it goes (1-based); later variants move down one. Default: last.',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ sku: 'TEE-L-WHT', options: { Size: 'L', Color: 'White' }, price: 2700, stock: 8 }],
  },
);
export type CreateVariantBody = Static<typeof CreateVariantBody>;

export const UpdateVariantBody = Type.Object(
  {
    sku: Type.Optional(Nullable(Sku)),
    options: Type.Optional(OptionValuesSchema),
    price: Type.Optional(Price),
    compare_at_price: Type.Optional(Nullable(CompareAtPrice)),
    stock: Type.Optional(Stock),
    weight_grams: Type.Optional(Nullable(WeightGrams)),
    barcode: Type.Optional(Nullable(Barcode)),
    ...variantDetailFields,
    position: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_VARIANTS, description: 'Moves it; the others close up.' }),
    ),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ stock: 11, compare_at_price: 3000 }] },
);
export type UpdateVariantBody = Static<typeof UpdateVariantBody>;

export const VariantListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export type VariantListQuery = Static<typeof VariantListQuery>;
export const VariantListSchema = EnvelopeSchema(VariantSchema);

export const ProductVariantParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const VariantParams = Type.Object({
  id: Type.String({ maxLength: 64 }),
  variant_id: Type.String({ maxLength: 64 }),
});
