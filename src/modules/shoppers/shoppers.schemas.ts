import { type Static, Type } from 'typebox';
import { EnvelopeSchema, PageQuery } from '../../http/pagination.js';
import { LINE_PATTERN, Nullable, Timestamp } from '../../http/schemas.js';
import { AddressSchema, CreateCustomerBody } from '../customers/index.js';
import { OrderItemSchema } from '../orders/index.js';
import {
  RESET_TOKEN_EXAMPLE,
  STORE_CUSTOMER_EXAMPLE,
  STORE_ORDER_EXAMPLE,
  STORE_SESSION_EXAMPLE,
} from './shoppers.examples.js';

/** The shapes of the shopper account routes (`/v1/store/customers`, `/v1/store/sessions`). */

export const MIN_PASSWORD = 8;
export const MAX_PASSWORD = 200;
/** `cst_` + 40 base62 characters (238 random bits). */
export const SESSION_TOKEN_PATTERN = /^cst_[0-9A-Za-z]{40}$/;
/** `rst_` + 40 base62 characters (238 random bits). */
export const RESET_TOKEN_PATTERN = /^rst_[0-9A-Za-z]{40}$/;

const Email = Type.String({ format: 'email', maxLength: 254, examples: ['ada@example.com'] });
const newPassword = (description = '') =>
  Type.String({
    minLength: MIN_PASSWORD,
    maxLength: MAX_PASSWORD,
    description: `${description}${MIN_PASSWORD} to ${MAX_PASSWORD} characters, kept only as a scrypt hash.`,
    examples: ['correct horse battery staple'],
  });
/** A password to check: a wrong one of any length is a 401, not a 400. */
const givenPassword = (description?: string) =>
  Type.String({
    minLength: 1,
    maxLength: MAX_PASSWORD,
    ...(description === undefined ? {} : { description }),
  });
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: LINE_PATTERN, examples: ['Ada Lovelace'] });

export const StoreCustomerSchema = Type.Object(
  {
    id: Type.String({ examples: ['cus_edm8Zq6mpEr6ql9bxIuE5gyZ'] }),
    email: Type.String(),
    name: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    addresses: Type.Array(AddressSchema),
    marketing_consent: Type.Boolean({ description: 'Agreed to receive marketing.' }),
    created: Timestamp,
    updated: Timestamp,
  },
  {
    description:
      'The signed-in shopper as they see themselves: the store’s own fields about a customer (tags, note, metadata, figures) are not shown.',
    examples: [STORE_CUSTOMER_EXAMPLE],
  },
);
export type StoreCustomer = Static<typeof StoreCustomerSchema>;

export const StoreSessionSchema = Type.Object(
  {
    token: Type.String({
      description:
        'Send it as `X-Customer-Token` (beside the publishable key) to act as this shopper. Shown once: the store keeps only its SHA-256. An idempotent replay answers it masked.',
      examples: [STORE_SESSION_EXAMPLE.token],
    }),
    expires_at: Timestamp,
    customer: StoreCustomerSchema,
  },
  {
    description: 'A shopper’s session: 30 days from sign-in, until signed out or the password changes.',
    examples: [STORE_SESSION_EXAMPLE],
  },
);
export type StoreSession = Static<typeof StoreSessionSchema>;

export const SignUpBody = Type.Object(
  {
    email: Email,
    password: newPassword(),
    name: Type.Optional(Name),
  },
  {
    additionalProperties: false,
    examples: [{ email: 'ada@example.com', password: 'correct horse battery staple', name: 'Ada Lovelace' }],
  },
);
export type SignUpBody = Static<typeof SignUpBody>;

export const SignInBody = Type.Object(
  { email: Email, password: givenPassword() },
  {
    additionalProperties: false,
    examples: [{ email: 'ada@example.com', password: 'correct horse battery staple' }],
  },
);
export type SignInBody = Static<typeof SignInBody>;

const { phone: Phone, addresses: Addresses } = CreateCustomerBody.properties;

export const UpdateStoreCustomerBody = Type.Object(
  {
    name: Type.Optional(Nullable(Name)),
    phone: Phone,
    addresses: Addresses,
    marketing_consent: Type.Optional(Type.Boolean()),
    password: Type.Optional(newPassword('A new password, with `current_password`: ')),
    current_password: Type.Optional(givenPassword('The password now: required with `password`.')),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [
      { phone: '+14155550123', marketing_consent: false },
      { password: 'a new passphrase to remember', current_password: 'correct horse battery staple' },
    ],
  },
);
export type UpdateStoreCustomerBody = Static<typeof UpdateStoreCustomerBody>;

export const PasswordResetBody = Type.Object(
  { email: Email },
  { additionalProperties: false, examples: [{ email: 'ada@example.com' }] },
);

export const PasswordResetConfirmBody = Type.Object(
  {
    reset_token: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'The `reset_token` of the `customer.password_reset` event (`rst_...`).',
      examples: [RESET_TOKEN_EXAMPLE],
    }),
    password: newPassword(),
  },
  {
    additionalProperties: false,
    examples: [{ reset_token: RESET_TOKEN_EXAMPLE, password: 'a new passphrase to remember' }],
  },
);
export type PasswordResetConfirmBody = Static<typeof PasswordResetConfirmBody>;

/** The header that carries a shopper's session token; optional in the schema, so its absence is a 401. */
export const CustomerTokenHeaders = Type.Object({
  'X-Customer-Token': Type.Optional(
    Type.String({
      description: 'The shopper’s session token (`cst_...`, from `POST /store/sessions`).',
      examples: [STORE_SESSION_EXAMPLE.token],
    }),
  ),
});

export const StoreOrderSchema = Type.Object(
  {
    id: Type.String({ examples: ['ord_5mRt8YpW2bX9sT2uV7wY3cE5'] }),
    status: Type.String({ enum: ['pending', 'paid', 'shipped', 'delivered', 'cancelled', 'refunded'] }),
    items: Type.Array(OrderItemSchema),
    subtotal: Type.Integer(),
    discount_total: Type.Integer(),
    shipping_total: Type.Integer(),
    tax_total: Type.Integer(),
    total: Type.Integer({ description: 'What was charged, minor units.' }),
    currency: Type.String(),
    discounts: Type.Array(
      Type.Object({
        code: Nullable(Type.String({ description: 'Null for an automatic discount.' })),
        type: Type.String({ enum: ['percentage', 'fixed_amount', 'free_shipping'] }),
        amount: Type.Integer(),
      }),
    ),
    shipping: Nullable(Type.Object({ name: Type.String(), amount: Type.Integer() })),
    taxes: Type.Array(
      Type.Object({
        name: Type.String(),
        rate_bps: Type.Integer(),
        inclusive: Type.Boolean(),
        amount: Type.Integer(),
      }),
    ),
    shipping_address: Nullable(AddressSchema),
    payment: Nullable(
      Type.Object({
        status: Type.String({ enum: ['pending', 'succeeded', 'failed', 'refunded'] }),
        method: Type.String(),
      }),
    ),
    carrier: Nullable(Type.String()),
    tracking_number: Nullable(Type.String()),
    created: Timestamp,
    paid_at: Nullable(Timestamp),
    shipped_at: Nullable(Timestamp),
    delivered_at: Nullable(Timestamp),
    cancelled_at: Nullable(Timestamp),
    refunded_at: Nullable(Timestamp),
    refunded_amount: Type.Integer({ description: 'What was given back, minor units.' }),
  },
  {
    description:
      'An order as its shopper sees it: what was bought, charged, shipped and refunded; the store’s metadata and notes are not shown.',
    examples: [STORE_ORDER_EXAMPLE],
  },
);
export type StoreOrder = Static<typeof StoreOrderSchema>;

export const StoreOrderListSchema = EnvelopeSchema(StoreOrderSchema);

export const StoreOrderListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export type StoreOrderListQuery = Static<typeof StoreOrderListQuery>;
