import { type Static, Type } from 'typebox';
import { EnvelopeSchema, PageQuery } from '../../http/pagination.js';
import { Currency, LINE_PATTERN, Nullable, Timestamp } from '../../http/schemas.js';
import { MAX_AMOUNT } from '../../lib/money.js';
import { DISCOUNT_EXAMPLE } from './pricing.examples.js';
import { CODE_PATTERN, type DiscountStatus } from './pricing.rules.js';

export const DISCOUNT_TYPES = ['percentage', 'fixed_amount', 'free_shipping'] as const;
export type DiscountType = (typeof DISCOUNT_TYPES)[number];
export const DISCOUNT_STATUSES: readonly DiscountStatus[] = [
  'active',
  'scheduled',
  'expired',
  'disabled',
  'exhausted',
];

/** The most products or categories one discount may target. */
export const MAX_TARGETS = 100;

const Code = Type.String({
  pattern: CODE_PATTERN,
  description:
    '3 to 64 of `A-Z a-z 0-9 _ -`, kept as given; unique per store compared case-insensitively (`409 duplicate_code`). Buyers may type it in any case.',
  examples: ['SUMMER-10'],
});
const DiscountTypeSchema = Type.Unsafe<DiscountType>({
  type: 'string',
  enum: [...DISCOUNT_TYPES],
  description: '`percentage`, `fixed_amount` or `free_shipping`.',
});
const Value = Type.Integer({
  minimum: 0,
  maximum: MAX_AMOUNT,
  description:
    'Basis points for a percentage (1 to 10000: 1000 is 10 %), minor units of `currency` for a fixed amount (at least 1), absent or 0 for free shipping.',
  examples: [1000],
});
const AppliesTo = Type.Object(
  {
    product_ids: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64, pattern: LINE_PATTERN }), {
        minItems: 1,
        maxItems: MAX_TARGETS,
        uniqueItems: true,
      }),
    ),
    categories: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: LINE_PATTERN }), {
        minItems: 1,
        maxItems: MAX_TARGETS,
        uniqueItems: true,
      }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      'The lines an amount off is limited to: those of these products or in these categories. Null or absent: the whole order. Not for free shipping.',
    examples: [{ categories: ['shoes'] }],
  },
);
const Amount = (description: string) => Type.Integer({ minimum: 0, maximum: MAX_AMOUNT, description });
const Limit = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description });
const Instant = (description: string) => Type.String({ format: 'date-time', description });

const fields = {
  code: Nullable(Code),
  automatic: Type.Boolean({
    description:
      'Applies by itself when its conditions hold, without a code. A discount has a code or is automatic.',
  }),
  type: DiscountTypeSchema,
  value: Value,
  currency: Nullable(
    Type.String({
      ...Currency,
      description:
        'Required for a fixed amount. On any discount, limits it to orders in this currency (and `minimum_subtotal` is in it).',
    }),
  ),
  applies_to: Nullable(AppliesTo),
  minimum_subtotal: Nullable(
    Amount("The order's subtotal (before discounts, minor units) must be at least this."),
  ),
  starts_at: Nullable(Instant('Applies from this instant.')),
  ends_at: Nullable(Instant('Applies until this instant (excluded); after `starts_at`.')),
  usage_limit: Nullable(Limit('How many orders may hold it, in all.')),
  usage_limit_per_customer: Nullable(Limit('How many orders of one customer may hold it.')),
  combinable: Type.Boolean({
    description:
      'Stacks with other combinable discounts of its kind (amounts off; free shipping). Default false.',
  }),
  enabled: Type.Boolean({ description: 'Switched on; default true.' }),
};

export const DiscountSchema = Type.Object(
  {
    id: Type.String({ examples: ['dsc_2bQx7ZpW2bX9sT2uV7wY3cE5'] }),
    code: Nullable(Type.String()),
    automatic: Type.Boolean(),
    type: DiscountTypeSchema,
    value: Type.Integer(),
    currency: Nullable(Type.String()),
    applies_to: Nullable(
      Type.Object({
        product_ids: Type.Optional(Type.Array(Type.String())),
        categories: Type.Optional(Type.Array(Type.String())),
      }),
    ),
    minimum_subtotal: Nullable(Type.Integer()),
    starts_at: Nullable(Timestamp),
    ends_at: Nullable(Timestamp),
    usage_limit: Nullable(Type.Integer()),
    usage_limit_per_customer: Nullable(Type.Integer()),
    times_used: Type.Integer({ description: 'Orders holding it (a cancelled order gives its use back).' }),
    combinable: Type.Boolean(),
    enabled: Type.Boolean(),
    status: Type.Unsafe<DiscountStatus>({
      type: 'string',
      enum: [...DISCOUNT_STATUSES],
      description:
        'Now: `disabled` (not enabled), else `expired` (past `ends_at`), else `scheduled` (before `starts_at`), else `exhausted` (used `usage_limit` times), else `active`.',
    }),
    created: Timestamp,
    updated: Timestamp,
  },
  { examples: [DISCOUNT_EXAMPLE] },
);
export type DiscountObject = Static<typeof DiscountSchema>;

export const CreateDiscountBody = Type.Object(
  {
    code: Type.Optional(fields.code),
    automatic: Type.Optional(fields.automatic),
    type: fields.type,
    value: Type.Optional(fields.value),
    currency: Type.Optional(fields.currency),
    applies_to: Type.Optional(fields.applies_to),
    minimum_subtotal: Type.Optional(fields.minimum_subtotal),
    starts_at: Type.Optional(fields.starts_at),
    ends_at: Type.Optional(fields.ends_at),
    usage_limit: Type.Optional(fields.usage_limit),
    usage_limit_per_customer: Type.Optional(fields.usage_limit_per_customer),
    combinable: Type.Optional(fields.combinable),
    enabled: Type.Optional(fields.enabled),
  },
  {
    additionalProperties: false,
    examples: [
      { code: 'SUMMER-10', type: 'percentage', value: 1000, usage_limit: 500, usage_limit_per_customer: 1 },
      { automatic: true, type: 'free_shipping', minimum_subtotal: 5000, currency: 'USD' },
    ],
  },
);
export type CreateDiscountBody = Static<typeof CreateDiscountBody>;

export const UpdateDiscountBody = Type.Object(
  {
    code: Type.Optional(fields.code),
    automatic: Type.Optional(fields.automatic),
    type: Type.Optional(fields.type),
    value: Type.Optional(fields.value),
    currency: Type.Optional(fields.currency),
    applies_to: Type.Optional(fields.applies_to),
    minimum_subtotal: Type.Optional(fields.minimum_subtotal),
    starts_at: Type.Optional(fields.starts_at),
    ends_at: Type.Optional(fields.ends_at),
    usage_limit: Type.Optional(fields.usage_limit),
    usage_limit_per_customer: Type.Optional(fields.usage_limit_per_customer),
    combinable: Type.Optional(fields.combinable),
    enabled: Type.Optional(fields.enabled),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ ends_at: '2027-01-01T00:00:00.000Z', usage_limit: 1000 }, { enabled: false }],
  },
);
export type UpdateDiscountBody = Static<typeof UpdateDiscountBody>;

export const DiscountListQuery = Type.Object(
  {
    ...PageQuery,
    code: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]{1,64}$',
        description: 'The discount with this code, in any case.',
      }),
    ),
    automatic: Type.Optional(
      Type.Boolean({ description: 'Only automatic discounts (true), or only codes (false).' }),
    ),
    status: Type.Optional(
      Type.Unsafe<DiscountStatus>({
        type: 'string',
        enum: [...DISCOUNT_STATUSES],
        description: 'Only discounts with this status now.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type DiscountListQuery = Static<typeof DiscountListQuery>;

export const DiscountListSchema = EnvelopeSchema(DiscountSchema);
export const DiscountIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
