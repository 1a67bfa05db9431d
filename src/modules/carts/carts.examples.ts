import { ADDRESS_EXAMPLE } from '../customers/index.js';

/** A cart as the API shows it, and the bodies that make and change one (the OpenAPI document's examples). */

export const CART_EXAMPLE = {
  id: 'cart_7Hq2ZxW1bX9sT2uV7wY3cE5a',
  status: 'open',
  currency: 'USD',
  email: 'ada@example.com',
  customer_id: null,
  lines: [
    {
      id: 'cli_4mRt8YpW2bX9sT2uV7wY3cE5',
      variant_id: 'var_4hUr0aQX3cY0tU3vW8xZ4dF6',
      product_id: 'prod_NUM03sM4JHrY5j5OPiOa7rZU',
      name: 'Linen shirt',
      variant_title: 'M / Sand',
      sku: 'LIN-M-SND',
      quantity: 2,
      unit_price: 4500,
      subtotal: 9000,
      discount: 900,
      tax: 729,
      total: 8829,
      available: true,
    },
  ],
  discount_codes: ['WELCOME10'],
  shipping_address: ADDRESS_EXAMPLE,
  shipping_rate_id: 'shr_6bRt2ZxW1bX9sT2uV7wY3cE5',
  shipping_rates: [
    { id: 'shr_6bRt2ZxW1bX9sT2uV7wY3cE5', name: 'Standard', amount: 500 },
    { id: 'shr_9Tf2Lq5Zx8Nc3Vb6Mk1Pw4Rs', name: 'Express', amount: 1500 },
  ],
  subtotal: 9000,
  discount_total: 900,
  shipping_total: 500,
  tax_total: 729,
  total: 9329,
  problems: [],
  hold: null,
  order_id: null,
  created: '2026-11-21T10:11:02.118Z',
  updated: '2026-11-21T10:14:31.207Z',
  expires_at: '2026-12-21T10:14:31.207Z',
};

/** A cart with something that would stop its order. */
export const CART_PROBLEMS_EXAMPLE = [
  {
    code: 'insufficient_stock',
    line_id: 'cli_4mRt8YpW2bX9sT2uV7wY3cE5',
    message: 'Linen shirt / M / Sand: not enough in stock for 2 units.',
  },
  {
    code: 'discount_invalid',
    message: 'The discount code SUMMER10 ended at 2026-09-01T00:00:00.000Z.',
    reason: 'expired',
    discount_code: 'SUMMER10',
  },
  {
    code: 'email_required',
    message: 'Give the shopper’s email (PATCH the cart’s email) before completing it.',
  },
];

export const CREATE_CART_EXAMPLE = {
  email: 'ada@example.com',
  lines: [{ variant_id: 'var_4hUr0aQX3cY0tU3vW8xZ4dF6', quantity: 2 }],
  discount_codes: ['WELCOME10'],
  shipping_address: ADDRESS_EXAMPLE,
};
