import type { ApiVersion } from '../versions.registry.js';
import type { JsonObject } from '../versions.types.js';

/** 2026-11-21 split the wallet balance into available and pending; 2026-06-01 had `balance`. */
export function walletBalanceToV20260601(balance: JsonObject): JsonObject {
  const { available, pending: _pending, ...rest } = balance;
  return { ...rest, balance: available };
}

/** Release v2.4. */
export const V2026_11_21: ApiVersion = {
  version: '2026-11-21',
  release: 'v2.4',
  changelog: ['GET /wallet/balance returns `available` and `pending` instead of `balance`.'],
  changes: [
    {
      description: 'GET /wallet/balance returns `available` and `pending` instead of `balance`.',
      toPrevious: { wallet_balance: walletBalanceToV20260601 },
    },
  ],
};
