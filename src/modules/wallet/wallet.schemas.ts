import { type Static, Type } from 'typebox';
import type { WalletTransactionType } from '../../db/schema.js';
import { EnvelopeSchema, PageQuery } from '../../http/pagination.js';
import { Currency, LINE_PATTERN, Nullable, TEXT_PATTERN, Timestamp } from '../../http/schemas.js';
import { MAX_AMOUNT } from '../../lib/money.js';
import { BALANCE_EXAMPLE, TRANSACTION_EXAMPLE, TRANSFER_EXAMPLE, WALLET_EXAMPLE } from './wallet.examples.js';

export const TRANSACTION_TYPES: readonly WalletTransactionType[] = [
  'payment',
  'refund',
  'transfer_out',
  'transfer_in',
  'adjustment',
];

const TransactionType = Type.Unsafe<WalletTransactionType>({
  type: 'string',
  enum: [...TRANSACTION_TYPES],
  description: '`payment`, `refund`, `transfer_out`, `transfer_in` or `adjustment`.',
});

export const TransactionSchema = Type.Object(
  {
    id: Type.String({ examples: ['txn_3kQm1bX9sT2uV7wY3cE5hGf2'] }),
    type: TransactionType,
    amount: Type.Integer({
      description: 'Signed minor units: positive in, negative out.',
      examples: [-2500],
    }),
    currency: Type.String({ examples: ['USD'] }),
    balance_after: Type.Integer({ description: 'The wallet’s balance right after this transaction.' }),
    description: Nullable(Type.String()),
    source_id: Nullable(
      Type.String({
        description:
          'What caused it: the order (`payment`, `refund`) or transfer (`transfer_*`); null for `adjustment`.',
      }),
    ),
    created: Timestamp,
  },
  { examples: [TRANSACTION_EXAMPLE] },
);
export type TransactionObject = Static<typeof TransactionSchema>;

export const BalanceSchema = Type.Object(
  {
    wallet_id: Type.String({ examples: ['wal_8Hk2QmZ1bX9sT2uV7wY3cE5p'] }),
    currency: Type.String({ examples: ['USD'] }),
    available: Type.Integer({ description: 'What can be transferred or refunded now (minor units).' }),
    pending: Type.Integer({
      description:
        'Funds not yet available. Always 0 in this design: payments are credited when captured and transfers settle at once.',
    }),
    transactions: Type.Array(TransactionSchema, { description: 'The latest 10, newest first.' }),
    updated: Timestamp,
  },
  {
    description:
      'Version 2026-06-01 returns the available amount as `balance` and has no `available` or `pending`.',
    examples: [BALANCE_EXAMPLE],
  },
);
export type BalanceObject = Static<typeof BalanceSchema>;

export const WalletSummarySchema = Type.Object(
  {
    wallet_id: BalanceSchema.properties.wallet_id,
    currency: BalanceSchema.properties.currency,
    available: BalanceSchema.properties.available,
    pending: BalanceSchema.properties.pending,
    updated: Timestamp,
  },
  { examples: [WALLET_EXAMPLE] },
);

export const BalanceListSchema = Type.Object(
  {
    data: Type.Array(WalletSummarySchema, {
      description:
        "Every wallet of the tenant, one per currency, by currency code: the tenant's own currency from creation, others once money moved in them.",
    }),
  },
  {
    description:
      'Version 2026-06-01 gives each wallet the available amount as `balance` and no `available` or `pending`.',
    examples: [{ data: [WALLET_EXAMPLE] }],
  },
);

export const BalanceQuery = Type.Object(
  {
    currency: Type.Optional(
      Type.String({ ...Currency, description: 'The wallet’s currency; default the tenant’s currency.' }),
    ),
  },
  { additionalProperties: false },
);

const DateOrInstant = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.String({ format: 'date' })], { description });

export const TransactionListQuery = Type.Object(
  {
    ...PageQuery,
    type: Type.Optional(TransactionType),
    currency: Type.Optional(Currency),
    from: Type.Optional(
      DateOrInstant('Created at or after: an RFC 3339 instant, or a UTC date (from 00:00).'),
    ),
    to: Type.Optional(DateOrInstant('Created at or before: an RFC 3339 instant, or a UTC date (whole day).')),
  },
  { additionalProperties: false },
);
export type TransactionListQuery = Static<typeof TransactionListQuery>;

export const TransactionListSchema = EnvelopeSchema(TransactionSchema);

const Metadata = Type.Unsafe<Record<string, string>>({
  type: 'object',
  additionalProperties: { type: 'string', maxLength: 500, pattern: TEXT_PATTERN },
  propertyNames: { minLength: 1, maxLength: 40, pattern: LINE_PATTERN },
  maxProperties: 50,
  description: 'Your own keys and string values (at most 50); shown to you only.',
});

export const TransferBody = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT, description: 'Minor units, positive.' }),
    currency: Currency,
    destination_wallet_id: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Any wallet on the platform (`wal_...`), in the same currency, other than the source.',
    }),
    description: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        pattern: LINE_PATTERN,
        description: 'One line, not blank.',
      }),
    ),
    metadata: Type.Optional(Metadata),
  },
  {
    additionalProperties: false,
    examples: [
      {
        amount: 2500,
        currency: 'USD',
        destination_wallet_id: 'wal_GdAI4s3SG6hEaXzzNaycgov5',
        description: 'Marketplace commission',
        metadata: { invoice: 'INV-2026-0042' },
      },
    ],
  },
);
export type TransferBody = Static<typeof TransferBody>;

export const TransferSchema = Type.Object(
  {
    id: Type.String({ examples: ['tr_5bX9sT2uV7wY3cE5hGf2kQm1'] }),
    amount: Type.Integer(),
    currency: Type.String({ examples: ['USD'] }),
    source_wallet_id: Type.String(),
    destination_wallet_id: Type.String(),
    status: Type.Literal('succeeded', { description: 'Transfers settle at once.' }),
    description: Nullable(Type.String()),
    metadata: Type.Unsafe<Record<string, string>>({
      type: 'object',
      additionalProperties: { type: 'string' },
      description:
        'The sender’s own keys and string values; `{}` when the receiving tenant reads the transfer.',
    }),
    created: Timestamp,
  },
  { examples: [TRANSFER_EXAMPLE] },
);
export type TransferObject = Static<typeof TransferSchema>;

export const TransferListQuery = Type.Object(
  {
    ...PageQuery,
    direction: Type.Optional(
      Type.Unsafe<'sent' | 'received'>({
        type: 'string',
        enum: ['sent', 'received'],
        description: 'Only the transfers you `sent`, or only those you `received`; default both.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TransferListQuery = Static<typeof TransferListQuery>;

export const TransferListSchema = EnvelopeSchema(TransferSchema);

export const TransferIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
