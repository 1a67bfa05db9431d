import { type Static, Type } from 'typebox';
import { LINE_PATTERN, Nullable, Timestamp } from '../../http/schemas.js';

/** The most lines one fulfilment or return may name (an order has at most as many). */
export const MAX_LINES = 100;
const VARIANT_ID = 'var_2bQx7ZpW2bX9sT2uV7wY3cE5';
const Line = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: LINE_PATTERN });
const Quantity = Type.Integer({ minimum: 1, maximum: 1_000_000 });

export const FULFILLMENT_EXAMPLE = {
  id: 'ful_9Zt1Mk6Pw3Rs7Hq2Lx9Vb4Nc',
  order_id: 'ord_s11dd1TIuPzPnu7E29AlKVTk',
  location_id: 'loc_7Hq2Lx9Vb4Nc8Zt1Mk6Pw3Rs',
  items: [{ variant_id: VARIANT_ID, quantity: 1 }],
  tracking: {
    carrier: 'UPS',
    number: '1Z999AA10123456784',
    url: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
  },
  status: 'shipped' as const,
  created: '2026-11-22T14:03:11.940Z',
};

export const FulfillmentSchema = Type.Object(
  {
    id: Type.String({ examples: [FULFILLMENT_EXAMPLE.id] }),
    order_id: Type.String(),
    location_id: Type.String({ description: 'The location the units were shipped from.' }),
    items: Type.Array(Type.Object({ variant_id: Type.String(), quantity: Type.Integer() })),
    tracking: Type.Object({
      carrier: Nullable(Type.String()),
      number: Nullable(Type.String()),
      url: Nullable(Type.String()),
    }),
    status: Type.Literal('shipped'),
    created: Timestamp,
  },
  { examples: [FULFILLMENT_EXAMPLE] },
);
export type FulfillmentObject = Static<typeof FulfillmentSchema>;

export const CreateFulfillmentBody = Type.Object(
  {
    location_id: Type.Optional(
      Type.String({
        maxLength: 64,
        description: 'Where the units ship from; the store’s default location if absent.',
      }),
    ),
    items: Type.Optional(
      Type.Array(
        Type.Object(
          { variant_id: Type.String({ maxLength: 64 }), quantity: Quantity },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          maxItems: MAX_LINES,
          description: 'Units to ship, by variant; absent: everything not fulfilled yet.',
        },
      ),
    ),
    carrier: Type.Optional(Line(100)),
    tracking_number: Type.Optional(Line(100)),
    tracking_url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        pattern: '^https?://[^\\s]+$',
        description: 'An http(s) URL.',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        items: [{ variant_id: VARIANT_ID, quantity: 1 }],
        carrier: 'UPS',
        tracking_number: '1Z999AA10123456784',
        tracking_url: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
      },
    ],
  },
);
export type CreateFulfillmentBody = Static<typeof CreateFulfillmentBody>;

export const RETURN_EXAMPLE = {
  id: 'ret_3cE5bQx7ZpW2bX9sT2uV7wY4',
  order_id: 'ord_s11dd1TIuPzPnu7E29AlKVTk',
  status: 'received' as const,
  items: [{ variant_id: VARIANT_ID, quantity: 1, reason: 'too small' }],
  location_id: 'loc_7Hq2Lx9Vb4Nc8Zt1Mk6Pw3Rs',
  restocked: true,
  refund_id: 're_8Zt1Mk6Pw3Rs7Hq2Lx9Vb4Nc',
  created: '2026-11-25T09:00:00.000Z',
};

export const ReturnSchema = Type.Object(
  {
    id: Type.String({ examples: [RETURN_EXAMPLE.id] }),
    order_id: Type.String(),
    status: Type.Union([Type.Literal('requested'), Type.Literal('received'), Type.Literal('cancelled')], {
      description: '`requested`, then `received` or `cancelled`.',
    }),
    items: Type.Array(
      Type.Object({ variant_id: Type.String(), quantity: Type.Integer(), reason: Nullable(Type.String()) }),
    ),
    location_id: Nullable(Type.String({ description: 'Where it was received; null until then.' })),
    restocked: Type.Boolean({ description: 'Received with its units put back on hand at `location_id`.' }),
    refund_id: Nullable(
      Type.String({ description: 'The refund made when it was received with `refund: true`.' }),
    ),
    created: Timestamp,
  },
  { examples: [RETURN_EXAMPLE] },
);
export type ReturnObject = Static<typeof ReturnSchema>;

export const CreateReturnBody = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        { variant_id: Type.String({ maxLength: 64 }), quantity: Quantity, reason: Type.Optional(Line(200)) },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: MAX_LINES },
    ),
  },
  {
    additionalProperties: false,
    examples: [{ items: [{ variant_id: VARIANT_ID, quantity: 1, reason: 'too small' }] }],
  },
);
export type CreateReturnBody = Static<typeof CreateReturnBody>;

export const ReceiveReturnBody = Type.Object(
  {
    location_id: Type.Optional(
      Type.String({
        maxLength: 64,
        description: 'Where it arrives; the store’s default location if absent.',
      }),
    ),
    restock: Type.Optional(Type.Boolean({ default: true, description: 'Put the units back on hand there.' })),
    refund: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Refund the returned units (their part of what was paid), in the same transaction.',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ restock: true, refund: true }] },
);
export type ReceiveReturnBody = Static<typeof ReceiveReturnBody>;

export const ReturnIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
