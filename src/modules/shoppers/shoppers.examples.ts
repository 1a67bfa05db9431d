import { ADDRESS_EXAMPLE } from '../customers/index.js';
import { ORDER_EXAMPLE, type OrderObject } from '../orders/index.js';
import { presentStoreOrder } from './shoppers.presenter.js';

/**
 * What the shopper account routes answer, for the OpenAPI document: Ada, signed up at the store,
 * signed in, with the order the admin examples show as she sees it. src/http/openapi-document.test.ts
 * checks each example against its schema.
 */

export const STORE_CUSTOMER_EXAMPLE = {
  id: 'cus_edm8Zq6mpEr6ql9bxIuE5gyZ',
  email: 'ada@example.com',
  name: 'Ada Lovelace',
  phone: '+14155550123',
  addresses: [ADDRESS_EXAMPLE],
  marketing_consent: true,
  created: '2026-11-10T16:42:05.118Z',
  updated: '2026-11-12T08:03:51.270Z',
};

export const STORE_SESSION_EXAMPLE = {
  token: 'cst_7Hq2mZ9xWv4LbR1tKc8NyP3dFs6GjU0aEo5YiQwT',
  expires_at: '2026-12-12T08:03:51.270Z',
  customer: STORE_CUSTOMER_EXAMPLE,
};

/** Typed apart from the schema it is the example of (which the presenter's type comes from). */
export const STORE_ORDER_EXAMPLE: Record<string, unknown> = presentStoreOrder(ORDER_EXAMPLE as OrderObject);

export const RESET_TOKEN_EXAMPLE = 'rst_Vb3Rt9Wc1Hd6Kq8Zp2Lx7Nm4Tf5Gy0Ja1Sd2Fg3H';
