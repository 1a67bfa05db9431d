/**
 * What the wallet routes answer, for the OpenAPI document: the store's USD wallet after an order
 * was paid and partly refunded, and a transfer to another store's wallet.
 * src/http/openapi-document.test.ts checks each example against its schema.
 */

const PAYMENT = {
  id: 'txn_dlOnpfpsoa2Oqt3gLZ7Rab73',
  type: 'payment',
  amount: 16408,
  currency: 'USD',
  balance_after: 16408,
  description: 'Payment pay_AbKpioPgdeCpGiGqNmKb9zFt for order ord_s11dd1TIuPzPnu7E29AlKVTk',
  source_id: 'ord_s11dd1TIuPzPnu7E29AlKVTk',
  created: '2026-11-21T10:15:01.372Z',
};

export const TRANSACTION_EXAMPLE = {
  id: 'txn_s84bkVJ1sfwuUYPqRMvwJkLb',
  type: 'refund',
  amount: -2413,
  currency: 'USD',
  balance_after: 13995,
  description:
    'Refund re_rPxCqRUPnQ2rjVSPlreN61tj of payment pay_AbKpioPgdeCpGiGqNmKb9zFt for order ord_s11dd1TIuPzPnu7E29AlKVTk',
  source_id: 'ord_s11dd1TIuPzPnu7E29AlKVTk',
  created: '2026-11-26T09:30:12.481Z',
};

export const WALLET_EXAMPLE = {
  wallet_id: 'wal_zKfWNGzrFpPyZEnjJDE9b2ZO',
  currency: 'USD',
  available: 13995,
  pending: 0,
  updated: '2026-11-26T09:30:12.481Z',
};

export const BALANCE_EXAMPLE = {
  wallet_id: WALLET_EXAMPLE.wallet_id,
  currency: 'USD',
  available: 13995,
  pending: 0,
  transactions: [TRANSACTION_EXAMPLE, PAYMENT],
  updated: WALLET_EXAMPLE.updated,
};

export const TRANSFER_EXAMPLE = {
  id: 'tr_JJUfZlAB7TpfyQAQYkEWaL1e',
  amount: 2500,
  currency: 'USD',
  source_wallet_id: 'wal_zKfWNGzrFpPyZEnjJDE9b2ZO',
  destination_wallet_id: 'wal_GdAI4s3SG6hEaXzzNaycgov5',
  status: 'succeeded',
  description: 'Marketplace commission',
  metadata: { invoice: 'INV-2026-0042' },
  created: '2026-11-27T08:00:04.615Z',
};
