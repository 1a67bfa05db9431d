import { type Static, Type } from 'typebox';
import { EnvelopeSchema } from '../../http/pagination.js';
import { LINE_PATTERN, Nullable, Timestamp } from '../../http/schemas.js';
import { MAX_AMOUNT } from '../../lib/money.js';
import { REFUND_EXAMPLE } from './refunds.examples.js';

/** The most refunds one order takes: the last of them returns all that is left (`MAX_PARTIAL_REFUNDS` before it). */
export const MAX_REFUNDS = 100;
export const MAX_PARTIAL_REFUNDS = MAX_REFUNDS - 1;

export const CreateRefundBody = Type.Object(
  {
    amount: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_AMOUNT,
        description:
          'Minor units to return, covering no line: an amount of goodwill. Not with `items`, `shipping` or `restock`.',
        examples: [500],
      }),
    ),
    items: Type.Optional(
      Type.Array(
        Type.Object(
          {
            variant_id: Type.String({
              minLength: 1,
              maxLength: 64,
              description: 'A variant the order bought.',
              examples: ['var_4hUr0aQX3cY0tU3vW8xZ4dF6'],
            }),
            quantity: Type.Integer({
              minimum: 1,
              maximum: 1000,
              description: 'Units of it, at most those not refunded yet.',
            }),
          },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          maxItems: 100,
          description:
            'Units to refund, each returned at what the buyer paid for it (its share of the line’s discount and tax included). One entry per variant.',
        },
      ),
    ),
    shipping: Type.Optional(
      Type.Boolean({
        description: 'Also return what is left of the shipping the buyer paid (refunded at most once).',
      }),
    ),
    restock: Type.Optional(
      Type.Boolean({
        description:
          'Put the refunded units back in their variants’ stock (default false: the goods are gone). Each product moved emits `product.updated`.',
      }),
    ),
    reason: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        pattern: LINE_PATTERN,
        description: 'Your note on why, one line.',
        examples: ['Damaged in transit'],
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Give `amount`, or `items` and/or `shipping`; give none of them to refund all that is left of the order.',
    examples: [
      {
        items: [{ variant_id: 'var_RzZ3unAXTTuVdMLmj0ZuOFd7', quantity: 1 }],
        restock: true,
        reason: 'Wrong size',
      },
      { amount: 500, reason: 'Delivered a day late' },
    ],
  },
);
export type CreateRefundBody = Static<typeof CreateRefundBody>;

export const RefundItemSchema = Type.Object(
  {
    variant_id: Type.String(),
    quantity: Type.Integer({ description: 'Units refunded.' }),
    amount: Type.Integer({ description: 'What the buyer paid for these units (tax included), minor units.' }),
  },
  { examples: REFUND_EXAMPLE.items },
);
export type RefundItem = Static<typeof RefundItemSchema>;

export const RefundSchema = Type.Object(
  {
    id: Type.String({ examples: ['re_3kPq8ZxW1bX9sT2uV7wY3cE5'] }),
    order_id: Type.String(),
    amount: Type.Integer({ description: 'Minor units returned to the buyer.' }),
    currency: Type.String(),
    items: Type.Array(RefundItemSchema, {
      description: 'The units this refund covers, one entry per variant.',
    }),
    shipping: Type.Integer({ description: 'The part of `amount` that returns shipping.' }),
    restocked: Type.Boolean({ description: 'Whether the units went back to stock.' }),
    reason: Nullable(Type.String()),
    status: Type.String({ enum: ['succeeded'] }),
    created: Timestamp,
  },
  { examples: [REFUND_EXAMPLE] },
);
export type RefundObject = Static<typeof RefundSchema>;

export const RefundListSchema = EnvelopeSchema(RefundSchema);
