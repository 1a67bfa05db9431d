import { type Static, Type } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { EnvelopeSchema } from '../../http/pagination.js';
import { Currency, Nullable } from '../../http/schemas.js';
import { OptionSchema, ProductListQuery, VARIANTS_SHOWN } from '../products/index.js';
import { STORE_PRODUCT_EXAMPLE, STORE_SHIPPING_RATE_EXAMPLE } from './storefront.examples.js';

/**
 * The shopper's view of the catalog: an active product with what a storefront shows and nothing
 * else (no stock counts, costs, SKUs, attributes or drafts), and the shipping rates a cart may
 * choose.
 */

export const StoreVariantSchema = Type.Object({
  id: Type.String({ examples: ['var_RzZ3unAXTTuVdMLmj0ZuOFd7'] }),
  title: Type.String({
    description: 'Its option values joined by " / " (`M / Black`); `Default` without options.',
  }),
  options: Type.Record(Type.String(), Type.String(), {
    description: "A value for each of the product's options, by option name.",
  }),
  price: Type.Integer({ description: 'Minor units of the product’s `currency`.' }),
  compare_at_price: Nullable(
    Type.Integer({ description: 'The price before a reduction, to show struck through; minor units.' }),
  ),
  image: Nullable(
    Type.String({
      description:
        'Its own picture (an https URL) when it has one, to show when the shopper chooses it; null: the product’s `images`.',
    }),
  ),
  available: Type.Boolean({ description: 'Whether a unit can be bought now (it is in stock).' }),
});
export type StoreVariantObject = Static<typeof StoreVariantSchema>;

export const StoreProductSchema = Type.Object(
  {
    id: Type.String({ examples: ['prod_UJCge5s3ZsDvyd79x11NeKpp'] }),
    handle: Type.String({ description: 'Unique in the store; `GET /store/products/{handle}` finds it.' }),
    name: Type.String(),
    description: Nullable(Type.String()),
    category: Nullable(Type.String()),
    images: Type.Array(Type.String({ description: 'An https URL.' }), {
      description: 'The URLs of `media`, in order.',
    }),
    media: Type.Array(
      Type.Object({
        url: Type.String({ description: 'An https URL.' }),
        alt: Nullable(Type.String({ description: 'What the image shows, for an `<img alt>`.' })),
      }),
      {
        description: 'The images with their alt text (null: none given; show the product’s name), in order.',
      },
    ),
    tags: Type.Array(Type.String()),
    options: Type.Array(OptionSchema),
    price: Type.Integer({ description: 'The lowest variant price; minor units of `currency`.' }),
    price_max: Type.Integer({ description: 'The highest variant price; minor units.' }),
    currency: Type.String({ description: 'ISO 4217.' }),
    available: Type.Boolean({ description: 'Whether any of its variants can be bought now.' }),
    variants: Type.Array(StoreVariantSchema, {
      description: `By position: all of them on \`GET /store/products/{id_or_handle}\`; the first ${VARIANTS_SHOWN} in a list.`,
    }),
    variants_has_more: Type.Boolean({
      description: `In a list: the product has more than the ${VARIANTS_SHOWN} variants shown (its own page lists them all). Always false on \`GET /store/products/{id_or_handle}\`.`,
    }),
  },
  { examples: [STORE_PRODUCT_EXAMPLE] },
);
export type StoreProductObject = Static<typeof StoreProductSchema>;

export const StoreProductListSchema = EnvelopeSchema(StoreProductSchema);

const P = ProductListQuery.properties;

/** `GET /store/products`: the admin list's paging, category, search and sorts, active products only. */
export const StoreProductListQuery = Type.Object(
  {
    ...PageQuery,
    category: P.category,
    q: Type.Optional({
      ...P.q,
      description:
        'Text in the name, description, SKUs or option values (case-insensitive substring in every script). Empty: no text filter.',
    }),
    sort: P.sort,
  },
  { additionalProperties: false },
);
export type StoreProductListQuery = Static<typeof StoreProductListQuery>;

export const StoreProductParams = Type.Object({
  id_or_handle: Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'The product’s id (`prod_...`) or its handle (`classic-tee`).',
    examples: ['classic-tee'],
  }),
});

export const StoreShippingRateSchema = Type.Object(
  {
    id: Type.String({ description: 'What a cart names as its `shipping_rate_id`.' }),
    name: Type.String(),
    amount: Type.Integer({ description: 'What it costs, in minor units of `currency`.' }),
    currency: Type.String({ description: 'ISO 4217.' }),
    free_over: Nullable(
      Type.Integer({ description: 'Free from this discounted subtotal (minor units); null: never free.' }),
    ),
    min_weight_grams: Nullable(
      Type.Integer({ description: 'The lightest parcel it takes, inclusive; null: no lower bound.' }),
    ),
    max_weight_grams: Nullable(
      Type.Integer({ description: 'The heaviest parcel it takes, inclusive; null: no upper bound.' }),
    ),
  },
  { examples: [STORE_SHIPPING_RATE_EXAMPLE] },
);
export type StoreShippingRateObject = Static<typeof StoreShippingRateSchema>;

export const StoreShippingRateListSchema = Type.Object(
  {
    data: Type.Array(StoreShippingRateSchema, {
      description:
        'Every rate to the country in the currency, cheapest first; which of them takes a cart depends on its weight (the bands).',
    }),
  },
  { examples: [{ data: [STORE_SHIPPING_RATE_EXAMPLE] }] },
);
export type StoreShippingRateList = Static<typeof StoreShippingRateListSchema>;

export const StoreShippingRateQuery = Type.Object(
  {
    country: Type.String({
      pattern: '^[A-Z]{2}$',
      description: 'Where the cart ships to: ISO 3166-1 alpha-2, upper case.',
      examples: ['US'],
    }),
    currency: Type.Optional({
      ...Currency,
      description: 'The cart’s currency (ISO 4217); default the store’s.',
    }),
  },
  { additionalProperties: false },
);
export type StoreShippingRateQuery = Static<typeof StoreShippingRateQuery>;
