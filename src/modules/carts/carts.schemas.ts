import { type Static, Type } from 'typebox';
import { EnvelopeSchema, PageQuery } from '../../http/pagination.js';
import { Currency, LINE_PATTERN, Nullable, Timestamp } from '../../http/schemas.js';
import { AddressSchema } from '../customers/index.js';
import { CART_EXAMPLE, CART_PROBLEMS_EXAMPLE, CREATE_CART_EXAMPLE } from './carts.examples.js';

/** At most this many lines in a cart, and units in a line. */
export const MAX_LINES = 100;
export const MAX_QUANTITY = 999;
/** At most this many discount codes on a cart (as on an order). */
export const MAX_CODES = 10;

const VariantId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'The variant (`var_...`), as the catalog lists it.',
  examples: ['var_4hUr0aQX3cY0tU3vW8xZ4dF6'],
});

const Quantity = Type.Integer({
  minimum: 1,
  maximum: MAX_QUANTITY,
  description: `Units, 1 to ${MAX_QUANTITY}.`,
  examples: [2],
});

const Email = Type.String({
  format: 'email',
  maxLength: 254,
  description: 'The shopper’s email: the order’s customer (found case-insensitively, or made) at completion.',
  examples: ['ada@example.com'],
});

const DiscountCodes = Type.Array(Type.String({ minLength: 1, maxLength: 64, pattern: LINE_PATTERN }), {
  maxItems: MAX_CODES,
  description:
    'The discount codes the shopper entered (replacing those before), compared case-insensitively. One that does not apply stays, with a `discount_invalid` problem. Automatic discounts apply without a code.',
  examples: [['WELCOME10']],
});

const ShippingRateId = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    'One of the cart’s `shipping_rates`. Without it, the cheapest rate for the address’s country and the parcel’s weight.',
  examples: ['shr_6bRt2ZxW1bX9sT2uV7wY3cE5'],
});

export const CartLineInput = Type.Object(
  { variant_id: VariantId, quantity: Quantity },
  { additionalProperties: false, examples: [{ variant_id: 'var_4hUr0aQX3cY0tU3vW8xZ4dF6', quantity: 2 }] },
);
export type CartLineInput = Static<typeof CartLineInput>;

export const CreateCartBody = Type.Object(
  {
    currency: Type.Optional({
      ...Currency,
      description: 'The cart’s currency: that of the products it may hold (default: the store’s).',
    }),
    email: Type.Optional(Email),
    lines: Type.Optional(
      Type.Array(CartLineInput, {
        maxItems: MAX_LINES,
        description: `At most ${MAX_LINES} lines; a variant named twice is one line of both quantities.`,
      }),
    ),
    discount_codes: Type.Optional(DiscountCodes),
    shipping_address: Type.Optional(AddressSchema),
    shipping_rate_id: Type.Optional(ShippingRateId),
  },
  { additionalProperties: false, examples: [CREATE_CART_EXAMPLE, {}] },
);
export type CreateCartBody = Static<typeof CreateCartBody>;

export const UpdateCartBody = Type.Object(
  {
    email: Type.Optional(Nullable(Email)),
    shipping_address: Type.Optional(Nullable(AddressSchema)),
    shipping_rate_id: Type.Optional(Nullable(ShippingRateId)),
    discount_codes: Type.Optional(DiscountCodes),
  },
  {
    additionalProperties: false,
    description: 'Only the members given change; null clears one.',
    examples: [{ shipping_rate_id: 'shr_9Tf2Lq5Zx8Nc3Vb6Mk1Pw4Rs' }, { discount_codes: ['WELCOME10'] }],
  },
);
export type UpdateCartBody = Static<typeof UpdateCartBody>;

export const AddLineBody = Type.Object(
  { variant_id: VariantId, quantity: Quantity },
  {
    additionalProperties: false,
    description: `Adds to the line of that variant when the cart has one (at most ${MAX_QUANTITY} units a line).`,
    examples: [{ variant_id: 'var_4hUr0aQX3cY0tU3vW8xZ4dF6', quantity: 1 }],
  },
);
export type AddLineBody = Static<typeof AddLineBody>;

export const SetLineBody = Type.Object(
  {
    quantity: Type.Integer({
      minimum: 0,
      maximum: MAX_QUANTITY,
      description: `The line’s units, 0 to ${MAX_QUANTITY}; 0 removes the line.`,
    }),
  },
  { additionalProperties: false, examples: [{ quantity: 3 }] },
);

export const CompleteCartBody = Type.Object(
  {
    payment_method: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: LINE_PATTERN,
      description:
        'A payment method of the provider. The `sandbox` provider accepts `pm_card_visa` and `pm_card_mastercard` (succeed), `pm_card_declined` and `pm_card_insufficient_funds` (fail).',
      examples: ['pm_card_visa'],
    }),
    expected_total: Type.Integer({
      minimum: 0,
      description:
        'The cart’s `total` as the shopper was shown it: another total now is 409 `cart_changed`, and nothing is charged.',
      examples: [9329],
    }),
  },
  { additionalProperties: false, examples: [{ payment_method: 'pm_card_visa', expected_total: 9329 }] },
);
export type CompleteCartBody = Static<typeof CompleteCartBody>;

const CartLineSchema = Type.Object(
  {
    id: Type.String({ examples: ['cli_4mRt8YpW2bX9sT2uV7wY3cE5'] }),
    variant_id: Type.String(),
    product_id: Type.String(),
    name: Type.String({ description: 'The product’s name (as last seen, for a variant no longer sold).' }),
    variant_title: Type.String({ description: '`Default` for a product without options.' }),
    sku: Nullable(Type.String()),
    quantity: Type.Integer(),
    unit_price: Type.Integer({
      description: 'The variant’s price now, minor units; 0 for a line that can no longer be bought.',
    }),
    subtotal: Type.Integer({ description: '`unit_price` × `quantity`.' }),
    discount: Type.Integer({ description: 'The line’s share of the cart’s discounts.' }),
    tax: Type.Integer({
      description: 'The line’s tax after its discount (contained in the price when inclusive).',
    }),
    total: Type.Integer({ description: '`subtotal` − `discount`, plus `tax` when exclusive.' }),
    available: Type.Boolean({
      description:
        'Whether the line can be bought now as it is: its variant sold, in the cart’s currency, with `quantity` units in stock.',
    }),
  },
  { examples: [CART_EXAMPLE.lines[0]] },
);

export const CartProblemSchema = Type.Object(
  {
    code: Type.String({
      enum: [
        'insufficient_stock',
        'variant_unavailable',
        'discount_invalid',
        'shipping_unavailable',
        'email_required',
        'cart_empty',
        'total_too_large',
      ],
      description:
        '`insufficient_stock` (a line asks for more than is in stock), `variant_unavailable` (its variant deleted, its product not active, or priced in another currency), `discount_invalid` (a code that does not apply: see `reason`), `shipping_unavailable` (no rate for the address, or the chosen one does not serve it), `email_required`, `cart_empty`, `total_too_large` (over 10^12 minor units).',
    }),
    line_id: Type.Optional(Type.String({ description: 'The line it is about.' })),
    message: Type.String(),
    reason: Type.Optional(
      Type.String({
        description:
          'Of `discount_invalid`: `unknown`, `disabled`, `not_started`, `expired`, `usage_limit_reached`, `minimum_not_met` or `not_combinable`.',
      }),
    ),
    discount_code: Type.Optional(Type.String({ description: 'Of `discount_invalid`: the code as typed.' })),
  },
  { examples: CART_PROBLEMS_EXAMPLE },
);
export type CartProblem = Static<typeof CartProblemSchema>;

export const CartSchema = Type.Object(
  {
    id: Type.String({
      description:
        '`cart_` and 24 base62 characters (143 random bits): with the store’s publishable key, all a shopper needs.',
      examples: [CART_EXAMPLE.id],
    }),
    status: Type.String({
      enum: ['open', 'completed', 'expired'],
      description: '`open`, `completed` (its order made) or `expired` (unchanged for 30 days).',
    }),
    currency: Type.String(),
    email: Nullable(Type.String()),
    customer_id: Nullable(Type.String({ description: 'The signed-in shopper the cart belongs to.' })),
    lines: Type.Array(CartLineSchema, { description: 'In the order they were added.' }),
    discount_codes: Type.Array(Type.String(), { description: 'As entered, whether they apply or not.' }),
    shipping_address: Nullable(AddressSchema),
    shipping_rate_id: Nullable(Type.String({ description: 'The rate chosen; null: the cheapest.' })),
    shipping_rates: Type.Array(
      Type.Object({ id: Type.String(), name: Type.String(), amount: Type.Integer() }),
      {
        description:
          'The rates that may ship the cart to its address (none without one), cheapest first, each with what it costs this cart before a free-shipping discount.',
      },
    ),
    subtotal: Type.Integer(),
    discount_total: Type.Integer({ description: 'Amounts off the lines plus shipping waived.' }),
    shipping_total: Type.Integer({
      description: 'The shipping rate’s price, before a free-shipping discount.',
    }),
    tax_total: Type.Integer(),
    total: Type.Integer({
      description:
        '`subtotal` − `discount_total` + `shipping_total` + exclusive tax: what completing the cart charges now. Never negative.',
    }),
    problems: Type.Array(CartProblemSchema, {
      description: 'What would stop its order now; completion needs none (422 `cart_not_ready`).',
    }),
    hold: Nullable(
      Type.Object({ expires_at: Timestamp }, { description: 'Stock held for the cart, until `expires_at`.' }),
    ),
    order_id: Nullable(Type.String({ description: 'The order its completion made.' })),
    created: Timestamp,
    updated: Timestamp,
    expires_at: Timestamp,
  },
  {
    description:
      'A shopper’s cart, priced at every read and change by the code that prices orders: it never shows a stale price, discount, rate or tax.',
    examples: [CART_EXAMPLE],
  },
);
export type CartObject = Static<typeof CartSchema>;

export const CartListSchema = EnvelopeSchema(CartSchema);

export const CART_LIST_STATUSES = ['open', 'abandoned', 'completed', 'expired'] as const;
export type CartListStatus = (typeof CART_LIST_STATUSES)[number];

export const CartListQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(
      Type.Unsafe<CartListStatus>({
        type: 'string',
        enum: [...CART_LIST_STATUSES],
        description:
          '`open`, `abandoned` (open, with an email and a line, unchanged for the store’s `storefront.abandoned_after_minutes`), `completed` or `expired`.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CartListQuery = Static<typeof CartListQuery>;

export const CartIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const CartLineParams = Type.Object({
  id: Type.String({ maxLength: 64 }),
  line_id: Type.String({ maxLength: 64 }),
});
