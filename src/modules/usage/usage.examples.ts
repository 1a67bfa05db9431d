/**
 * What `GET /usage` answers, for the OpenAPI document: the last 7 days of a store on the pro plan,
 * with one installed plugin calling the API, its storefront's calls apart, and its live and test calls
 * side by side. src/http/openapi-document.test.ts checks it against
 * its schema.
 */

const DAYS = [
  { date: '2026-11-21', calls: 1204, errors: 11 },
  { date: '2026-11-22', calls: 988, errors: 4 },
  { date: '2026-11-23', calls: 731, errors: 2 },
  { date: '2026-11-24', calls: 1312, errors: 9 },
  { date: '2026-11-25', calls: 1455, errors: 15 },
  { date: '2026-11-26', calls: 1390, errors: 6 },
  { date: '2026-11-27', calls: 402, errors: 1 },
];

export const USAGE_EXAMPLE = {
  period: { from: '2026-11-21T00:00:00.000Z', to: '2026-11-27T08:14:09.511Z' },
  total_calls: 7482,
  average_response_time_ms: 21.4,
  total_errors: 48,
  quota: {
    used: 31877,
    limit: 100000,
    remaining: 68123,
    percent_used: 31.8,
    resets_at: '2026-12-01T00:00:00.000Z',
    warning: false,
  },
  rate_limit: { limit: 10000, remaining: 9622, resets_at: '2026-11-27T09:00:00.000Z' },
  top_endpoints: [
    { endpoint: 'GET /products', calls: 2913, errors: 3, average_response_time_ms: 9.2 },
    { endpoint: 'GET /orders/{id}', calls: 1540, errors: 12, average_response_time_ms: 14.8 },
    { endpoint: 'POST /orders', calls: 1021, errors: 19, average_response_time_ms: 48.6 },
    { endpoint: 'PATCH /products/{id}', calls: 877, errors: 2, average_response_time_ms: 31.3 },
  ],
  daily_calls: DAYS,
  days: DAYS,
  apps: [
    {
      plugin_id: 'plg_FPECyw0wQoVnKyEBdlHyWdK2',
      name: 'Stock Sync',
      calls: 877,
      errors: 2,
      average_response_time_ms: 31.3,
      top_endpoints: [{ endpoint: 'PATCH /products/{id}', calls: 877, errors: 2 }],
    },
  ],
  storefront: {
    calls: 15230,
    errors: 96,
    rate_limited: 12,
    average_response_time_ms: 6.3,
    top_endpoints: [
      { endpoint: 'GET /store/products', calls: 9812, errors: 0, average_response_time_ms: 3.1 },
      {
        endpoint: 'GET /store/products/{id_or_handle}',
        calls: 3120,
        errors: 41,
        average_response_time_ms: 2.8,
      },
      { endpoint: 'POST /store/carts/{id}/lines', calls: 1508, errors: 37, average_response_time_ms: 14.2 },
      { endpoint: 'POST /store/carts', calls: 702, errors: 6, average_response_time_ms: 12.9 },
      { endpoint: 'POST /store/carts/{id}/complete', calls: 88, errors: 12, average_response_time_ms: 61.5 },
    ],
    days: [
      { date: '2026-11-21', calls: 2410, errors: 14 },
      { date: '2026-11-22', calls: 2983, errors: 21 },
      { date: '2026-11-23', calls: 3105, errors: 19 },
      { date: '2026-11-24', calls: 1877, errors: 9 },
      { date: '2026-11-25', calls: 1960, errors: 15 },
      { date: '2026-11-26', calls: 2112, errors: 13 },
      { date: '2026-11-27', calls: 783, errors: 5 },
    ],
  },
  by_mode: {
    live: {
      calls: 7482,
      errors: 48,
      average_response_time_ms: 21.4,
      counts_against_quota: true,
      rate_limit: { limit: 10000, remaining: 9622, resets_at: '2026-11-27T09:00:00.000Z' },
      top_endpoints: [
        { endpoint: 'GET /products', calls: 2913, errors: 3, average_response_time_ms: 9.2 },
        { endpoint: 'GET /orders/{id}', calls: 1540, errors: 12, average_response_time_ms: 14.8 },
      ],
      days: DAYS,
    },
    test: {
      calls: 312,
      errors: 27,
      average_response_time_ms: 18.9,
      counts_against_quota: false,
      rate_limit: { limit: 10000, remaining: 9990, resets_at: '2026-11-27T09:00:00.000Z' },
      top_endpoints: [{ endpoint: 'POST /orders', calls: 312, errors: 27, average_response_time_ms: 18.9 }],
      days: [
        { date: '2026-11-21', calls: 0, errors: 0 },
        { date: '2026-11-22', calls: 0, errors: 0 },
        { date: '2026-11-23', calls: 0, errors: 0 },
        { date: '2026-11-24', calls: 0, errors: 0 },
        { date: '2026-11-25', calls: 120, errors: 9 },
        { date: '2026-11-26', calls: 150, errors: 14 },
        { date: '2026-11-27', calls: 42, errors: 4 },
      ],
    },
  },
};
