import { Type } from 'typebox';
import { COPYABLE } from './test-mode.service.js';

export const FundBody = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: 'Minor units (cents).' }),
    currency: Type.String({
      pattern: '^[A-Za-z]{3}$',
      description: 'ISO 4217; the wallet appears with its first funds.',
    }),
  },
  { additionalProperties: false, examples: [{ amount: 100000, currency: 'USD' }] },
);

export const ResetResultSchema = Type.Object(
  {
    deleted: Type.Record(Type.String(), Type.Integer(), {
      description: 'Rows deleted, by table, for the tables that had any.',
    }),
  },
  { examples: [{ deleted: { products: 12, product_variants: 30, orders: 4, order_items: 6 } }] },
);

export const CopyBody = Type.Object(
  {
    what: Type.Array(Type.Union(COPYABLE.map((part) => Type.Literal(part))), {
      minItems: 1,
      uniqueItems: true,
      description:
        '`products`: the catalog (products, variants, their stock at locations of the same name); `pricing`: discounts, shipping and tax rates; `settings`: the store’s settings.',
    }),
  },
  { additionalProperties: false, examples: [{ what: ['products', 'pricing', 'settings'] }] },
);

export const CopyResultSchema = Type.Object(
  {
    copied: Type.Record(Type.String(), Type.Integer(), { description: 'Rows copied, by part.' }),
  },
  { examples: [{ copied: { products: 48, pricing: 5, settings: 1 } }] },
);

/** `POST /test-mode/reset` takes no member: an empty object, or no body. */
export const ResetBody = Type.Object({}, { additionalProperties: false, examples: [{}] });
