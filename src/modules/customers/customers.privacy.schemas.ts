import { type Static, Type } from 'typebox';
import { Nullable, Timestamp } from '../../http/schemas.js';
import { OrderSchema, ORDER_EXAMPLE } from '../orders/index.js';
import { CustomerSchema } from './customers.schemas.js';
import { CUSTOMER_EXAMPLE } from './customers.examples.js';

/** The shapes of a customer's data export (`GET /customers/{id}/export`). */

const EXPORT_EVENTS = [
  {
    id: 'evt_2gQ8rXbN5mVt1LcY7hKw3PzD',
    type: 'customer.created',
    object_type: 'customer',
    object_id: CUSTOMER_EXAMPLE.id,
    created: CUSTOMER_EXAMPLE.created,
  },
  {
    id: 'evt_5RwC7G7fS61ybG8Dw2ZjSoXe',
    type: 'order.created',
    object_type: 'order',
    object_id: ORDER_EXAMPLE.id,
    created: ORDER_EXAMPLE.created,
  },
  {
    id: 'evt_5dXcY2NR9ji37OfAUudhKnNR',
    type: 'payment.received',
    object_type: 'payment',
    object_id: ORDER_EXAMPLE.payment.id,
    created: ORDER_EXAMPLE.paid_at,
  },
];

const LOGIN_EXAMPLE = {
  created: '2026-11-10T16:42:05.118Z',
  password_set: '2026-11-10T16:42:05.118Z',
  active_sessions: 1,
};

/** That the customer has a storefront login (from version 2027-01-20); never its password. */
const LoginSchema = Type.Object(
  {
    created: Timestamp,
    password_set: Timestamp,
    active_sessions: Type.Integer({ description: 'Sessions (`X-Customer-Token`) not yet ended or expired.' }),
  },
  {
    description:
      'The customer’s storefront login (`POST /store/customers`, or a password reset), or null without one. Its password is held only as a hash, which no answer shows.',
    examples: [LOGIN_EXAMPLE],
  },
);

export const ExportEventSchema = Type.Object(
  {
    id: Type.String({ examples: ['evt_3kPq9ZxW1bX9sT2uV7wY3cE5'] }),
    type: Type.String({ examples: ['order.paid'] }),
    object_type: Type.String({ description: '`customer`, `order`, `payment`, ...', examples: ['order'] }),
    object_id: Type.String({ examples: ['ord_5mRt8YpW2bX9sT2uV7wY3cE5'] }),
    created: Timestamp,
  },
  { examples: [EXPORT_EVENTS[1]] },
);

export const CustomerExportSchema = Type.Object(
  {
    object: Type.Literal('customer_export'),
    generated: Timestamp,
    customer: CustomerSchema,
    login: Nullable(LoginSchema),
    orders: Type.Array(OrderSchema, {
      description:
        "Every order of the customer, oldest first, as `GET /orders/{id}` shows it (in the key's API version).",
    }),
    events: Type.Array(ExportEventSchema, {
      description:
        'The retained events that carry its data, oldest first: those about the customer, its orders and their payments and refunds, and any other whose stored data holds one of its email addresses (that no other customer uses). `GET /events/{id}` shows one whole.',
    }),
  },
  {
    description:
      'Everything the store holds about the person (GDPR article 15). Orders and events are read in batches, not as one snapshot.',
    examples: [
      {
        object: 'customer_export',
        generated: '2026-11-27T08:12:40.055Z',
        customer: CUSTOMER_EXAMPLE,
        login: LOGIN_EXAMPLE,
        orders: [ORDER_EXAMPLE],
        events: EXPORT_EVENTS,
      },
    ],
  },
);
export type CustomerExport = Static<typeof CustomerExportSchema>;
export type ExportEvent = Static<typeof ExportEventSchema>;
