/** Table types of the double-entry ledger and wallets (see schema.ts). */

export type LedgerAccountType = 'wallet' | 'funding' | 'clearing';

/** A wallet (`wal_`, one per tenant and currency) or a platform account (funding, clearing). */
export interface LedgerAccountsTable {
  id: string;
  type: LedgerAccountType;
  /** The wallet's tenant; null for platform accounts. */
  tenant_id: string | null;
  currency: string;
  /** Wallets: the cached sum of their postings (never below 0). Platform accounts: null. */
  balance: number | null;
  /** Wallets: how many postings they have (the `seq` of the latest). Platform accounts: null. */
  postings: number | null;
  created: number;
  updated: number;
}

export type LedgerEntryType = 'payment' | 'refund' | 'transfer' | 'adjustment';

/** An immutable journal entry; its postings sum to zero. */
export interface LedgerEntriesTable {
  id: string;
  type: LedgerEntryType;
  currency: string;
  created: number;
}

export type WalletTransactionType = 'payment' | 'refund' | 'transfer_out' | 'transfer_in' | 'adjustment';

/** One line of an entry (`txn_`): a signed amount on one account; a wallet transaction in the API. */
export interface LedgerPostingsTable {
  id: string;
  entry_id: string;
  account_id: string;
  /** The account's tenant (null on platform accounts), for listing. */
  tenant_id: string | null;
  type: WalletTransactionType;
  currency: string;
  amount: number;
  /** Wallets: 1, 2, ... in the wallet's order, and the balance after this posting. Platform: null. */
  seq: number | null;
  balance_after: number | null;
  description: string;
  /** The order (payment, refund) or transfer that caused it; null for adjustments. */
  source_id: string | null;
  created: number;
}

export interface WalletTransfersTable {
  id: string;
  /** The sender. */
  tenant_id: string;
  source_wallet_id: string;
  destination_wallet_id: string;
  amount: number;
  currency: string;
  description: string | null;
  /** JSON object of string values. */
  metadata: string;
  entry_id: string;
  created: number;
}

export interface WalletSettingsTable {
  tenant_id: string;
  /** Most a wallet of the tenant may send per UTC day, in its currency's minor units; null: no limit. */
  daily_transfer_limit: number | null;
  updated: number;
}
