import type { ApiVersion } from '../versions.registry.js';

/** Release v2.3, the oldest version served. */
export const V2026_06_01: ApiVersion = {
  version: '2026-06-01',
  release: 'v2.3',
  changelog: [
    'Products, orders, wallet, AI descriptions, analytics, webhooks, usage and plugins.',
    'GET /wallet/balance returns the available amount as `balance`.',
  ],
  changes: [],
};
