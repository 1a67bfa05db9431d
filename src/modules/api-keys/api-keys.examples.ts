/**
 * What the API key routes answer, for the OpenAPI document: a warehouse integration's key, masked
 * as every read shows it, and in full as the answer that creates or rolls it does, once.
 * src/http/openapi-document.test.ts checks each example against its schema.
 */

export const API_KEY_EXAMPLE = {
  id: 'key_cLYNj84z8GoLCUctMVQV21Uw',
  name: 'Warehouse sync',
  key: 'sk_live_****_****_****_2hH5',
  permissions: ['read:products', 'write:products'],
  status: 'Active',
  created: '2026-11-03T11:26:40.915Z',
  last_used: '2026-11-27T07:58:13.402Z',
  expires_at: '2027-06-30T00:00:00.000Z',
};

export const NEW_API_KEY_EXAMPLE = {
  ...API_KEY_EXAMPLE,
  key: 'sk_live_cTcTo3c5PSzgOfvCfEsdyM0w9VfEZFuOMz9y2hH5',
  last_used: null,
};
