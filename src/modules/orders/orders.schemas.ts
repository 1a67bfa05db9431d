import { type Static, Type } from 'typebox';
import type { CancelReason, OrderStatus } from '../../db/schema.js';
import { EnvelopeSchema, PageQuery } from '../../http/pagination.js';
import { RefundSchema } from './refunds.schemas.js';
import { FulfillmentSchema, ReturnSchema } from './fulfillments.schemas.js';
import { AddressSchema } from '../customers/index.js';
import { CREATE_ORDER_EXAMPLE, ORDER_EXAMPLE, ORDER_PREVIEW_EXAMPLE } from './orders.examples.js';
import { LINE_PATTERN, Nullable, TEXT_PATTERN, Timestamp } from '../../http/schemas.js';

export const CANCEL_REASONS: readonly CancelReason[] = ['requested', 'expired'];

export const ORDER_STATUSES: readonly OrderStatus[] = [
  'pending',
  'paid',
  'shipped',
  'delivered',
  'cancelled',
  'refunded',
];

/** An order's `fulfillment_status`, also a filter of the order list. */
export const FULFILLMENT_STATUSES = ['unfulfilled', 'partial', 'fulfilled'] as const;
export type FulfillmentStatus = (typeof FULFILLMENT_STATUSES)[number];
/** What the order list's `payment_status` filter takes (derived from `paid_at`, `refunded_amount`, `total`). */
export const PAYMENT_STATUSES = ['unpaid', 'paid', 'partially_refunded', 'refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

const StatusSchema = Type.Unsafe<OrderStatus>({
  type: 'string',
  enum: [...ORDER_STATUSES],
  description: '`pending`, `paid`, `shipped`, `delivered`, `cancelled` or `refunded`.',
});

/** One line of text, not blank, of at most `maxLength` characters. */
const Line = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: LINE_PATTERN });

const StringMap = (description: string) =>
  Type.Unsafe<Record<string, string>>({
    type: 'object',
    additionalProperties: { type: 'string', maxLength: 500, pattern: TEXT_PATTERN },
    propertyNames: { minLength: 1, maxLength: 40, pattern: LINE_PATTERN },
    maxProperties: 50,
    description,
  });

const PaymentMethod = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: LINE_PATTERN,
  description:
    'A payment method of the provider. The `sandbox` provider accepts `pm_card_visa` and `pm_card_mastercard` (succeed), `pm_card_declined` and `pm_card_insufficient_funds` (fail).',
  examples: ['pm_card_visa'],
});

export const CreateOrderBody = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          variant_id: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 64,
              description: 'The variant bought.',
              examples: ['var_4hUr0aQX3cY0tU3vW8xZ4dF6'],
            }),
          ),
          product_id: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 64,
              description: 'Instead of `variant_id`, for a product with one variant (no options).',
            }),
          ),
          quantity: Type.Integer({ minimum: 1, maximum: 1000 }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100, description: 'One line per variant.' },
    ),
    customer: Type.Optional(
      Type.Object(
        {
          email: Type.String({ format: 'email', maxLength: 254 }),
          name: Type.Optional(Line(200)),
        },
        {
          additionalProperties: false,
          description:
            'The customer by email: found case-insensitively, or created with this name, in the order’s transaction. Give this or `customer_id`.',
        },
      ),
    ),
    customer_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'An existing customer (`cus_...`), instead of `customer`.',
        examples: ['cus_2bQx7ZpW2bX9sT2uV7wY3cE5'],
      }),
    ),
    shipping_address: Type.Optional(AddressSchema),
    discount_codes: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64, pattern: LINE_PATTERN }), {
        maxItems: 10,
        description:
          'Discount codes the buyer entered, compared case-insensitively. One that does not apply is 422 `discount_invalid` with its `reason`, and no order is made. Automatic discounts apply without a code.',
        examples: [['WELCOME10']],
      }),
    ),
    shipping_rate_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'The shipping rate (`shr_...`) the buyer chose; needs a `shipping_address` it serves. Without it, the cheapest rate for the address’s country and the parcel’s weight. A store with rates but none for the country answers 422 `shipping_unavailable`.',
      }),
    ),
    payment_method: Type.Optional(PaymentMethod),
    metadata: Type.Optional(StringMap('Your own keys and string values (at most 50).')),
  },
  {
    additionalProperties: false,
    examples: [
      CREATE_ORDER_EXAMPLE,
      {
        items: [{ variant_id: 'var_hwzq7ojrPD1wqrngnz25HTMH', quantity: 1 }],
        customer: { email: 'grace@example.com', name: 'Grace Hopper' },
        shipping_address: {
          name: 'Grace Hopper',
          line1: '1 Infinite Loop',
          city: 'Arlington',
          state: 'VA',
          postal_code: '22202',
          country: 'US',
        },
      },
    ],
  },
);
export type CreateOrderBody = Static<typeof CreateOrderBody>;

export const PayBody = Type.Object(
  { payment_method: PaymentMethod },
  { additionalProperties: false, examples: [{ payment_method: 'pm_card_visa' }] },
);
export const ShipBody = Type.Object(
  {
    carrier: Type.Optional(Line(100)),
    tracking_number: Type.Optional(Line(100)),
  },
  { additionalProperties: false, examples: [{ carrier: 'UPS', tracking_number: '1Z999AA10123456784' }] },
);
export type ShipBody = Static<typeof ShipBody>;
export const RefundBody = Type.Object(
  {
    restock: Type.Optional(
      Type.Boolean({
        description:
          'Put the items back in their variants’ stock, each product emitting `product.updated` with its new `stock` (default false: the goods are gone).',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ restock: true }] },
);
export const PaymentSummarySchema = Type.Object(
  {
    id: Type.String({ examples: ['pay_7cQp2ZxW1bX9sT2uV7wY3cE5'] }),
    status: Type.String({ enum: ['pending', 'succeeded', 'failed', 'refunded'] }),
    method: Type.String(),
    failure_code: Type.Optional(
      Type.String({ description: 'Only on a failed payment: `card_declined`, `insufficient_funds`, ...' }),
    ),
  },
  { examples: [ORDER_EXAMPLE.payment] },
);

export const OrderItemSchema = Type.Object(
  {
    product_id: Type.String(),
    variant_id: Type.String(),
    name: Type.String({ description: "The product's name at order time." }),
    variant_title: Type.String({
      description: 'The variant’s title at order time (`Default` without options).',
    }),
    sku: Nullable(Type.String({ description: "The variant's SKU at order time." })),
    quantity: Type.Integer(),
    unit_price: Type.Integer({ description: 'Minor units, at order time.' }),
    total: Type.Integer({ description: '`unit_price` × `quantity`, before discounts and tax.' }),
    discount: Type.Integer({
      description: 'The line’s share of the order’s discounts (spread by amount, largest remainder).',
    }),
    tax: Type.Integer({
      description:
        'The line’s tax after its discount, rounded half away from zero (contained in the price when inclusive).',
    }),
  },
  { examples: [ORDER_EXAMPLE.items[1]] },
);

export const DiscountApplied = Type.Object(
  {
    id: Type.String({ examples: ['dsc_3kPq8ZxW1bX9sT2uV7wY3cE5'] }),
    code: Nullable(Type.String({ description: 'Null for an automatic discount.' })),
    type: Type.String({ enum: ['percentage', 'fixed_amount', 'free_shipping'] }),
    amount: Type.Integer({ description: 'What it took off, in minor units.' }),
  },
  { examples: ORDER_EXAMPLE.discounts },
);
export const ShippingApplied = Type.Object(
  {
    rate_id: Type.String({ examples: ['shr_6bRt2ZxW1bX9sT2uV7wY3cE5'] }),
    name: Type.String(),
    amount: Type.Integer({
      description: 'The rate’s price (0 over its free-over threshold), before a free-shipping discount.',
    }),
  },
  { examples: [ORDER_EXAMPLE.shipping] },
);
export const TaxApplied = Type.Object(
  {
    rate_id: Type.String({ examples: ['txr_8cSu3ZxW1bX9sT2uV7wY3cE5'] }),
    name: Type.String(),
    rate_bps: Type.Integer(),
    inclusive: Type.Boolean(),
    amount: Type.Integer(),
  },
  { examples: ORDER_EXAMPLE.taxes },
);

/** What `orders.pricing` holds: the discounts, shipping and taxes as applied. */
export interface StoredPricing {
  discounts: Static<typeof DiscountApplied>[];
  shipping: Static<typeof ShippingApplied> | null;
  taxes: Static<typeof TaxApplied>[];
}

export const OrderSchema = Type.Object(
  {
    id: Type.String({ examples: ['ord_5mRt8YpW2bX9sT2uV7wY3cE5'] }),
    status: Type.String({ enum: [...ORDER_STATUSES] }),
    items: Type.Array(OrderItemSchema),
    subtotal: Type.Integer({ description: 'The lines’ `total`s.' }),
    discount_total: Type.Integer({ description: 'Amounts off the lines plus shipping waived.' }),
    shipping_total: Type.Integer({
      description: 'The shipping rate’s price, before a free-shipping discount.',
    }),
    tax_total: Type.Integer({
      description: 'Tax on the lines and shipping, added or (inclusive) contained.',
    }),
    total: Type.Integer({
      description:
        '`subtotal` − `discount_total` + `shipping_total` + exclusive tax: what is charged. Never negative.',
    }),
    discounts: Type.Array(DiscountApplied, {
      description: 'The discounts applied, in the order they applied.',
    }),
    shipping: Nullable(ShippingApplied),
    taxes: Type.Array(TaxApplied),
    currency: Type.String(),
    customer: Type.Object({
      id: Type.String({ description: 'The customer (`cus_...`) the order is for.' }),
      email: Type.String({ description: 'At order time.' }),
      name: Nullable(Type.String({ description: 'At order time.' })),
    }),
    shipping_address: Nullable(AddressSchema),
    payment: Nullable(PaymentSummarySchema),
    metadata: Type.Record(Type.String(), Type.String()),
    source: Type.String({
      enum: ['api', 'storefront', 'import', 'console'],
      description:
        'Where the order was placed: `api` (`POST /orders` with a key), `storefront` (a completed cart), `console` (the developer console), `import`.',
    }),
    cart_id: Nullable(
      Type.String({
        description:
          'The cart (`cart_...`) whose completion made the order; null for an order not made from a cart.',
        examples: ['cart_7Hq2ZxW1bX9sT2uV7wY3cE5a'],
      }),
    ),
    carrier: Nullable(Type.String()),
    tracking_number: Nullable(Type.String()),
    restocked: Type.Boolean({
      description:
        'Whether the order gave units back to stock: a cancel (every unit not given back before), or a refund with restock (its `restocked` says which). A variant deleted since has no stock to take them back.',
    }),
    created: Timestamp,
    updated: Timestamp,
    paid_at: Nullable(Timestamp),
    shipped_at: Nullable(Timestamp),
    delivered_at: Nullable(Timestamp),
    cancelled_at: Nullable(Timestamp),
    cancel_reason: Nullable(
      Type.String({
        enum: [...CANCEL_REASONS],
        description:
          'Why the order was cancelled: `requested` (`POST /orders/{id}/cancel`) or `expired` (the system cancelled it, unpaid past the store’s `unpaid_order_expiry_minutes`); null while it is not cancelled.',
      }),
    ),
    refunded_at: Nullable(Timestamp),
    refunded_amount: Type.Integer({ description: 'The sum of the order’s refunds, minor units.' }),
    refundable_amount: Type.Integer({
      description:
        'What is left to refund: `total` − `refunded_amount` while the order is paid, shipped or delivered; 0 otherwise.',
    }),
    refunds: Type.Array(RefundSchema, { description: 'The order’s refunds, oldest first.' }),
    fulfillment_status: Type.Union(
      [Type.Literal('unfulfilled'), Type.Literal('partial'), Type.Literal('fulfilled')],
      {
        description:
          '`unfulfilled` (nothing shipped), `partial` (some units shipped, some left) or `fulfilled` (nothing left to ship; units refunded before they shipped are not left).',
      },
    ),
    fulfillments: Type.Array(FulfillmentSchema, { description: 'The order’s fulfilments, oldest first.' }),
    returns: Type.Array(ReturnSchema, { description: 'The order’s returns, oldest first.' }),
  },
  { examples: [ORDER_EXAMPLE] },
);
export type OrderObject = Static<typeof OrderSchema>;

export const OrderPreviewSchema = Type.Object(
  {
    ...OrderSchema.properties,
    id: Type.Null({ description: 'A preview is not an order: it has no id.' }),
    status: Type.Literal('preview'),
  },
  { examples: [ORDER_PREVIEW_EXAMPLE] },
);
export type OrderPreview = Static<typeof OrderPreviewSchema>;

export const OrderListQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(StatusSchema),
    customer_email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
    customer_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "The customer's orders." }),
    ),
    created_from: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive.' })),
    created_to: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive.' })),
    fulfillment_status: Type.Optional(
      Type.Unsafe<FulfillmentStatus>({
        type: 'string',
        enum: [...FULFILLMENT_STATUSES],
        description: 'Orders whose `fulfillment_status` is this.',
      }),
    ),
    payment_status: Type.Optional(
      Type.Unsafe<PaymentStatus>({
        type: 'string',
        enum: [...PAYMENT_STATUSES],
        description:
          'Orders by what they were paid and refunded: `unpaid` (`paid_at` null: never paid, pending or cancelled unpaid), `paid` (paid, nothing refunded), `partially_refunded` (paid, `refunded_amount` above 0 and below `total`) or `refunded` (paid, `refunded_amount` at least `total` and above 0: refunded, or cancelled after payment).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type OrderListQuery = Static<typeof OrderListQuery>;

export const OrderListSchema = EnvelopeSchema(OrderSchema);

export const OrderIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
