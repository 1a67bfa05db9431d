import { type Static, Type } from 'typebox';
import { EnvelopeSchema, PageQuery } from '../../http/pagination.js';
import {
  LINE_OR_EMPTY_PATTERN,
  LINE_PATTERN,
  Nullable,
  TEXT_PATTERN,
  Timestamp,
} from '../../http/schemas.js';
import { AddressSchema } from './customers.address.js';
import { CUSTOMER_EXAMPLE } from './customers.examples.js';

export const CUSTOMER_SORTS = ['-created', 'created', '-total_spent', 'email'] as const;
export type CustomerSort = (typeof CUSTOMER_SORTS)[number];

export const MAX_ADDRESSES = 10;

const Email = Type.String({
  format: 'email',
  maxLength: 254,
  description: 'Unique per tenant, compared case-insensitively (`409 duplicate_email`).',
  examples: ['ada@example.com'],
});
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: LINE_PATTERN, examples: ['Ada Lovelace'] });
const Phone = Type.String({
  minLength: 1,
  maxLength: 40,
  pattern: '^\\+?[0-9 ().-]{3,40}$',
  description: 'Digits, spaces and `+ ( ) . -`; E.164 (`+14155550123`) preferred.',
  examples: ['+14155550123'],
});
const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: LINE_PATTERN }), {
  maxItems: 50,
  uniqueItems: true,
  examples: [['vip', 'wholesale']],
});
const Note = Type.String({ maxLength: 5000, pattern: TEXT_PATTERN });
const Metadata = Type.Unsafe<Record<string, string>>({
  type: 'object',
  additionalProperties: { type: 'string', maxLength: 500, pattern: TEXT_PATTERN },
  propertyNames: { minLength: 1, maxLength: 40, pattern: LINE_PATTERN },
  maxProperties: 50,
  description: 'Your own keys and string values (at most 50).',
});
const Addresses = Type.Array(AddressSchema, {
  maxItems: MAX_ADDRESSES,
  description: `At most ${MAX_ADDRESSES}; \`country\` is ISO 3166-1 alpha-2.`,
});

export const CustomerSchema = Type.Object(
  {
    id: Type.String({ examples: ['cus_2bQx7ZpW2bX9sT2uV7wY3cE5'] }),
    email: Type.String(),
    name: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    addresses: Type.Array(AddressSchema),
    tags: Type.Array(Type.String()),
    note: Nullable(Type.String()),
    metadata: Type.Record(Type.String(), Type.String()),
    marketing_consent: Type.Boolean(),
    orders_count: Type.Integer({ description: 'Orders placed, whatever became of them.' }),
    total_spent: Type.Record(Type.String(), Type.Integer(), {
      description: 'Per currency: captured payments minus refunds, minor units.',
      examples: [{ USD: 12999 }],
    }),
    last_order_at: Nullable(Timestamp),
    redacted: Type.Boolean({ description: 'Its personal data was erased (`POST /customers/{id}/redact`).' }),
    created: Timestamp,
    updated: Timestamp,
  },
  { examples: [CUSTOMER_EXAMPLE] },
);
export type CustomerObject = Static<typeof CustomerSchema>;

export const CreateCustomerBody = Type.Object(
  {
    email: Email,
    name: Type.Optional(Nullable(Name)),
    phone: Type.Optional(Nullable(Phone)),
    addresses: Type.Optional(Addresses),
    tags: Type.Optional(Tags),
    note: Type.Optional(Nullable(Note)),
    metadata: Type.Optional(Metadata),
    marketing_consent: Type.Optional(
      Type.Boolean({ description: 'Agreed to receive marketing; default false.' }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        email: 'ada@example.com',
        name: 'Ada Lovelace',
        phone: '+442079460000',
        addresses: [{ name: 'Ada Lovelace', line1: '12 St James Square', city: 'London', country: 'GB' }],
        tags: ['vip'],
        marketing_consent: true,
      },
    ],
  },
);
export type CreateCustomerBody = Static<typeof CreateCustomerBody>;

export const UpdateCustomerBody = Type.Object(
  {
    email: Type.Optional(Email),
    name: Type.Optional(Nullable(Name)),
    phone: Type.Optional(Nullable(Phone)),
    addresses: Type.Optional(Addresses),
    tags: Type.Optional(Tags),
    note: Type.Optional(Nullable(Note)),
    metadata: Type.Optional(Metadata),
    marketing_consent: Type.Optional(Type.Boolean()),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ note: 'Prefers deliveries after 5 pm.', tags: ['vip', 'wholesale'] }],
  },
);
export type UpdateCustomerBody = Static<typeof UpdateCustomerBody>;

export const CustomerListQuery = Type.Object(
  {
    ...PageQuery,
    q: Type.Optional(
      Type.String({
        maxLength: 200,
        pattern: LINE_OR_EMPTY_PATTERN,
        description: 'Text in the email, name or phone (case-insensitive substring). Empty: no text filter.',
      }),
    ),
    tag: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: LINE_PATTERN })),
    created_from: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive.' })),
    created_to: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive.' })),
    sort: Type.Optional(
      Type.Unsafe<CustomerSort>({
        type: 'string',
        enum: [...CUSTOMER_SORTS],
        description:
          "`-created` (default, newest first), `created`, `-total_spent` (in the store's currency, highest first) or `email`. Ties are broken by id.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CustomerListQuery = Static<typeof CustomerListQuery>;

export const CustomerListSchema = EnvelopeSchema(CustomerSchema);
export const CustomerIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
