import { ADDRESS_EXAMPLE } from '../customers/index.js';
import { FULFILLMENT_EXAMPLE, RETURN_EXAMPLE } from './fulfillments.schemas.js';
import { REFUND_EXAMPLE } from './refunds.examples.js';

/**
 * What the order routes answer, for the OpenAPI document: a pair of shoes and two T-shirts with a
 * 10 % code, free standard shipping over $50 and California sales tax, paid, shipped, delivered,
 * and one T-shirt refunded since. The figures are those the pricing code gives for this order.
 * src/http/openapi-document.test.ts checks each example against its schema.
 */

const PRICED = {
  items: [
    {
      product_id: 'prod_NUM03sM4JHrY5j5OPiOa7rZU',
      variant_id: 'var_trcJqGp8M3fWM6610Ac4ER3Q',
      name: 'Trail Runner 3',
      variant_title: 'Default',
      sku: 'TR3-42',
      quantity: 1,
      unit_price: 11999,
      total: 11999,
      discount: 1200,
      tax: 783,
    },
    {
      product_id: 'prod_UJCge5s3ZsDvyd79x11NeKpp',
      variant_id: 'var_RzZ3unAXTTuVdMLmj0ZuOFd7',
      name: 'Logo T-shirt',
      variant_title: 'M / Black',
      sku: 'TEE-M-BLK',
      quantity: 2,
      unit_price: 2500,
      total: 5000,
      discount: 500,
      tax: 326,
    },
  ],
  subtotal: 16999,
  discount_total: 1700,
  shipping_total: 0,
  tax_total: 1109,
  total: 16408,
  discounts: [{ id: 'dsc_zdNEVwUpziRzA1Hpf7JAvogF', code: 'SUMMER-10', type: 'percentage', amount: 1700 }],
  shipping: { rate_id: 'shr_PA7TCIzxZZAA2dpyxCT2F309', name: 'Standard', amount: 0 },
  taxes: [
    {
      rate_id: 'txr_JarXlUds7f7GQmwyhVI3OBBG',
      name: 'California sales tax',
      rate_bps: 725,
      inclusive: false,
      amount: 1109,
    },
  ],
  currency: 'USD',
  customer: { id: 'cus_edm8Zq6mpEr6ql9bxIuE5gyZ', email: 'ada@example.com', name: 'Ada Lovelace' },
  shipping_address: ADDRESS_EXAMPLE,
};

export const ORDER_EXAMPLE = {
  id: 'ord_s11dd1TIuPzPnu7E29AlKVTk',
  status: 'delivered',
  ...PRICED,
  payment: { id: 'pay_AbKpioPgdeCpGiGqNmKb9zFt', status: 'succeeded', method: 'pm_card_visa' },
  metadata: { channel: 'web' },
  source: 'storefront',
  cart_id: 'cart_7Hq2ZxW1bX9sT2uV7wY3cE5a',
  carrier: 'UPS',
  tracking_number: '1Z999AA10123456784',
  restocked: true,
  created: '2026-11-21T10:15:00.000Z',
  updated: '2026-11-26T09:30:12.481Z',
  paid_at: '2026-11-21T10:15:01.372Z',
  shipped_at: '2026-11-22T14:03:11.940Z',
  delivered_at: '2026-11-24T18:27:45.006Z',
  cancelled_at: null,
  cancel_reason: null,
  refunded_at: null,
  refunded_amount: 2413,
  refundable_amount: 13995,
  refunds: [REFUND_EXAMPLE],
  fulfillment_status: 'fulfilled',
  fulfillments: [
    {
      ...FULFILLMENT_EXAMPLE,
      items: [
        { variant_id: 'var_trcJqGp8M3fWM6610Ac4ER3Q', quantity: 1 },
        { variant_id: 'var_RzZ3unAXTTuVdMLmj0ZuOFd7', quantity: 2 },
      ],
    },
  ],
  returns: [
    {
      ...RETURN_EXAMPLE,
      items: [{ variant_id: 'var_RzZ3unAXTTuVdMLmj0ZuOFd7', quantity: 1, reason: 'too small' }],
      refund_id: REFUND_EXAMPLE.id,
    },
  ],
};

/** The same order priced by `POST /orders/preview` before it was made. */
export const ORDER_PREVIEW_EXAMPLE = {
  id: null,
  status: 'preview',
  ...PRICED,
  payment: null,
  metadata: { channel: 'web' },
  source: 'api',
  cart_id: null,
  carrier: null,
  tracking_number: null,
  restocked: false,
  created: '2026-11-21T10:14:31.207Z',
  updated: '2026-11-21T10:14:31.207Z',
  paid_at: null,
  shipped_at: null,
  delivered_at: null,
  cancelled_at: null,
  cancel_reason: null,
  refunded_at: null,
  refunded_amount: 0,
  refundable_amount: 0,
  refunds: [],
  fulfillment_status: 'unfulfilled',
  fulfillments: [],
  returns: [],
};

/** The body that makes this order (`POST /orders`), and prices it (`POST /orders/preview`). */
export const CREATE_ORDER_EXAMPLE = {
  items: [
    { product_id: 'prod_NUM03sM4JHrY5j5OPiOa7rZU', quantity: 1 },
    { variant_id: 'var_RzZ3unAXTTuVdMLmj0ZuOFd7', quantity: 2 },
  ],
  customer_id: 'cus_edm8Zq6mpEr6ql9bxIuE5gyZ',
  shipping_address: ADDRESS_EXAMPLE,
  discount_codes: ['SUMMER-10'],
  payment_method: 'pm_card_visa',
  metadata: { channel: 'web' },
};
