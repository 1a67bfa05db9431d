import { type Static, Type } from 'typebox';
import { EnvelopeSchema, PageQuery } from '../../http/pagination.js';
import { Currency, LINE_PATTERN, Nullable, Timestamp } from '../../http/schemas.js';
import { MAX_PRICE } from '../products/index.js';
import { SHIPPING_RATE_EXAMPLE, TAX_RATE_EXAMPLE } from './pricing.examples.js';

/** The most countries one shipping rate may list. */
export const MAX_COUNTRIES = 250;
/** The heaviest weight a band may name: 1,000 tonnes in grams. */
export const MAX_WEIGHT = 1_000_000_000;

const Name = Type.String({ minLength: 1, maxLength: 100, pattern: LINE_PATTERN, examples: ['Standard'] });
const Country = Type.String({
  pattern: '^[A-Z]{2}$',
  description: 'ISO 3166-1 alpha-2, upper case.',
  examples: ['US'],
});
const Price = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_PRICE, description });
const Grams = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_WEIGHT, description });

// ---------------------------------------------------------------------------------------------
// Shipping rates

const Countries = Type.Array(
  Type.String({ pattern: '^([A-Z]{2}|\\*)$', description: 'ISO 3166-1 alpha-2, or `*`.' }),
  {
    minItems: 1,
    maxItems: MAX_COUNTRIES,
    uniqueItems: true,
    description: 'The countries it ships to (ISO 3166-1 alpha-2), or `["*"]` for every country.',
    examples: [['US', 'CA']],
  },
);
const shipping = {
  name: Name,
  countries: Countries,
  price: Price('Minor units of `currency`.'),
  currency: Currency,
  free_over: Nullable(Price('Free from this discounted subtotal (minor units); null or absent: never free.')),
  min_weight_grams: Nullable(Grams('The lightest parcel it takes, inclusive; null: no lower bound.')),
  max_weight_grams: Nullable(Grams('The heaviest parcel it takes, inclusive; null: no upper bound.')),
};

export const ShippingRateSchema = Type.Object(
  {
    id: Type.String({ examples: ['shr_2bQx7ZpW2bX9sT2uV7wY3cE5'] }),
    name: Type.String(),
    countries: Type.Array(Type.String()),
    price: Type.Integer(),
    currency: Type.String(),
    free_over: Nullable(Type.Integer()),
    min_weight_grams: Nullable(Type.Integer()),
    max_weight_grams: Nullable(Type.Integer()),
    created: Timestamp,
    updated: Timestamp,
  },
  { examples: [SHIPPING_RATE_EXAMPLE] },
);
export type ShippingRateObject = Static<typeof ShippingRateSchema>;

export const CreateShippingRateBody = Type.Object(
  {
    name: shipping.name,
    countries: shipping.countries,
    price: shipping.price,
    currency: shipping.currency,
    free_over: Type.Optional(shipping.free_over),
    min_weight_grams: Type.Optional(shipping.min_weight_grams),
    max_weight_grams: Type.Optional(shipping.max_weight_grams),
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'Standard',
        countries: ['US', 'CA'],
        price: 599,
        currency: 'USD',
        free_over: 5000,
        max_weight_grams: 4999,
      },
    ],
  },
);
export type CreateShippingRateBody = Static<typeof CreateShippingRateBody>;

export const UpdateShippingRateBody = Type.Object(
  {
    name: Type.Optional(shipping.name),
    countries: Type.Optional(shipping.countries),
    price: Type.Optional(shipping.price),
    currency: Type.Optional(shipping.currency),
    free_over: Type.Optional(shipping.free_over),
    min_weight_grams: Type.Optional(shipping.min_weight_grams),
    max_weight_grams: Type.Optional(shipping.max_weight_grams),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ price: 699, free_over: 7500 }] },
);
export type UpdateShippingRateBody = Static<typeof UpdateShippingRateBody>;

export const ShippingRateListQuery = Type.Object(
  { ...PageQuery, currency: Type.Optional(Currency) },
  { additionalProperties: false },
);
export type ShippingRateListQuery = Static<typeof ShippingRateListQuery>;
export const ShippingRateListSchema = EnvelopeSchema(ShippingRateSchema);

// ---------------------------------------------------------------------------------------------
// Tax rates

const tax = {
  name: Name,
  country: Country,
  state: Nullable(
    Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: LINE_PATTERN,
      description:
        "A state, province or region, matched against the shipping address's `state`. Where the country's ISO 3166-2 subdivisions are known (US, CA, DE, ...), its code (`CA`) or name (`California`), stored as the code; elsewhere text, compared after Unicode NFKC normalisation, without invisible characters, case or accents. Null or absent: the whole country.",
      examples: ['CA'],
    }),
  ),
  rate_bps: Type.Integer({ minimum: 0, maximum: 10_000, description: 'Basis points: 825 is 8.25 %.' }),
  inclusive: Type.Boolean({
    description:
      'Prices already contain the tax (it is extracted, the total unchanged); false: added on top.',
  }),
  shipping_taxable: Type.Boolean({ description: 'Shipping is taxed at this rate too.' }),
};

export const TaxRateSchema = Type.Object(
  {
    id: Type.String({ examples: ['txr_2bQx7ZpW2bX9sT2uV7wY3cE5'] }),
    name: Type.String(),
    country: Type.String(),
    state: Nullable(Type.String()),
    rate_bps: Type.Integer(),
    inclusive: Type.Boolean(),
    shipping_taxable: Type.Boolean(),
    created: Timestamp,
    updated: Timestamp,
  },
  { examples: [TAX_RATE_EXAMPLE] },
);
export type TaxRateObject = Static<typeof TaxRateSchema>;

export const CreateTaxRateBody = Type.Object(
  {
    name: tax.name,
    country: tax.country,
    state: Type.Optional(tax.state),
    rate_bps: tax.rate_bps,
    inclusive: tax.inclusive,
    shipping_taxable: tax.shipping_taxable,
  },
  {
    additionalProperties: false,
    examples: [
      {
        name: 'California sales tax',
        country: 'US',
        state: 'CA',
        rate_bps: 725,
        inclusive: false,
        shipping_taxable: false,
      },
      { name: 'VAT', country: 'DE', rate_bps: 1900, inclusive: true, shipping_taxable: true },
    ],
  },
);
export type CreateTaxRateBody = Static<typeof CreateTaxRateBody>;

export const UpdateTaxRateBody = Type.Object(
  {
    name: Type.Optional(tax.name),
    country: Type.Optional(tax.country),
    state: Type.Optional(tax.state),
    rate_bps: Type.Optional(tax.rate_bps),
    inclusive: Type.Optional(tax.inclusive),
    shipping_taxable: Type.Optional(tax.shipping_taxable),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ rate_bps: 750 }] },
);
export type UpdateTaxRateBody = Static<typeof UpdateTaxRateBody>;

export const TaxRateListQuery = Type.Object(
  { ...PageQuery, country: Type.Optional(Country) },
  { additionalProperties: false },
);
export type TaxRateListQuery = Static<typeof TaxRateListQuery>;
export const TaxRateListSchema = EnvelopeSchema(TaxRateSchema);

export const RateIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
