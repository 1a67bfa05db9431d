/**
 * What the refund routes answer, for the OpenAPI document: one T-shirt of an order returned and
 * put back in stock, at what the buyer paid for it (its share of the discount off, its tax in).
 * src/http/openapi-document.test.ts checks it against its schema.
 */

export const REFUND_EXAMPLE = {
  id: 're_rPxCqRUPnQ2rjVSPlreN61tj',
  order_id: 'ord_s11dd1TIuPzPnu7E29AlKVTk',
  amount: 2413,
  currency: 'USD',
  items: [{ variant_id: 'var_RzZ3unAXTTuVdMLmj0ZuOFd7', quantity: 1, amount: 2413 }],
  shipping: 0,
  restocked: true,
  reason: 'Wrong size',
  status: 'succeeded',
  created: '2026-11-26T09:30:12.481Z',
};
