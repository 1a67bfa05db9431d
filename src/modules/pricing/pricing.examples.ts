/**
 * What the pricing routes answer, for the OpenAPI document: the code, shipping rate and tax rate
 * that price the order of src/modules/orders/orders.examples.ts.
 * src/http/openapi-document.test.ts checks each example against its schema.
 */

export const DISCOUNT_EXAMPLE = {
  id: 'dsc_zdNEVwUpziRzA1Hpf7JAvogF',
  code: 'SUMMER-10',
  automatic: false,
  type: 'percentage',
  value: 1000,
  currency: null,
  applies_to: null,
  minimum_subtotal: null,
  starts_at: '2026-11-01T00:00:00.000Z',
  ends_at: '2027-01-01T00:00:00.000Z',
  usage_limit: 500,
  usage_limit_per_customer: 1,
  times_used: 38,
  combinable: false,
  enabled: true,
  status: 'active',
  created: '2026-10-28T15:02:44.310Z',
  updated: '2026-11-21T10:15:00.000Z',
};

export const SHIPPING_RATE_EXAMPLE = {
  id: 'shr_PA7TCIzxZZAA2dpyxCT2F309',
  name: 'Standard',
  countries: ['US', 'CA'],
  price: 599,
  currency: 'USD',
  free_over: 5000,
  min_weight_grams: null,
  max_weight_grams: 4999,
  created: '2026-10-28T14:55:09.871Z',
  updated: '2026-10-28T14:55:09.871Z',
};

export const TAX_RATE_EXAMPLE = {
  id: 'txr_JarXlUds7f7GQmwyhVI3OBBG',
  name: 'California sales tax',
  country: 'US',
  state: 'CA',
  rate_bps: 725,
  inclusive: false,
  shipping_taxable: false,
  created: '2026-10-28T14:57:30.502Z',
  updated: '2026-10-28T14:57:30.502Z',
};
