import { ADDRESS_EXAMPLE } from './customers.address.js';
/**
 * What the customer routes answer, for the OpenAPI document: a customer with one order, as
 * `GET /customers/{id}` shows her after a partial refund. src/http/openapi-document.test.ts checks
 * it against its schema.
 */

export const CUSTOMER_EXAMPLE = {
  id: 'cus_edm8Zq6mpEr6ql9bxIuE5gyZ',
  email: 'ada@example.com',
  name: 'Ada Lovelace',
  phone: '+14155550123',
  addresses: [ADDRESS_EXAMPLE],
  tags: ['vip'],
  note: 'Prefers deliveries after 5 pm.',
  metadata: { crm_id: 'C-10442' },
  marketing_consent: true,
  orders_count: 1,
  total_spent: { USD: 13995 },
  last_order_at: '2026-11-21T10:15:00.000Z',
  redacted: false,
  created: '2026-11-10T16:42:05.118Z',
  updated: '2026-11-12T08:03:51.270Z',
};
