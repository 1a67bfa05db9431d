/**
 * What the API key routes answer, for the OpenAPI document: a warehouse integration's key, masked
 * as every read shows it, and in full as the answer that creates or rolls it does, once; and a web
 * shop's publishable key, in full as every answer shows it.
 * src/http/openapi-document.test.ts checks each example against its schema.
 */

export const API_KEY_EXAMPLE = {
  id: 'key_cLYNj84z8GoLCUctMVQV21Uw',
  name: 'Warehouse sync',
  type: 'secret',
  mode: 'live',
  key: 'sk_live_****_****_****_2hH5',
  permissions: ['read:products', 'write:products'],
  allowed_origins: [],
  status: 'Active',
  created: '2026-11-03T11:26:40.915Z',
  last_used: '2026-11-27T07:58:13.402Z',
  expires_at: '2027-06-30T00:00:00.000Z',
  livemode: true,
};

export const NEW_API_KEY_EXAMPLE = {
  ...API_KEY_EXAMPLE,
  key: 'sk_live_cTcTo3c5PSzgOfvCfEsdyM0w9VfEZFuOMz9y2hH5',
  last_used: null,
};

export const PUBLISHABLE_KEY_EXAMPLE = {
  id: 'key_7Hq2Wm9Xc4Nv1Bz6Lp3Rt8Ks',
  name: 'Web shop',
  type: 'publishable',
  mode: 'live',
  key: 'pk_live_Vb8Nq3Kd6Ws1Zm4Xr9Ty2Hc5Lp7Jf0Ga3Ue6Oi1Q',
  permissions: [],
  allowed_origins: ['https://shop.example.com'],
  status: 'Active',
  created: '2027-01-21T09:12:05.118Z',
  last_used: '2027-01-21T10:40:27.554Z',
  expires_at: null,
  livemode: true,
};
