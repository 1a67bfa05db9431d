import { iso } from '../../lib/clock.js';
import type * as repo from './wallet.repository.js';
import type { TransactionObject, TransferObject } from './wallet.schemas.js';

/** The wallet's rows as the API shows them: a posting as a transaction, a transfer as its viewer sees it. */

export function presentTransaction(row: repo.PostingRow): TransactionObject {
  return {
    id: row.id,
    type: row.type,
    amount: row.amount,
    currency: row.currency,
    balance_after: row.balance_after ?? 0, // wallet postings always carry it (ledger:verify checks)
    description: row.description,
    source_id: row.source_id,
    created: iso(row.created),
  };
}

/** A transfer as `viewer` sees it: the sender's `metadata` is the sender's own, `{}` to the receiver. */
export function presentTransfer(row: repo.TransferRow, viewer: string): TransferObject {
  return {
    id: row.id,
    amount: row.amount,
    currency: row.currency,
    source_wallet_id: row.source_wallet_id,
    destination_wallet_id: row.destination_wallet_id,
    status: 'succeeded',
    description: row.description,
    metadata: row.tenant_id === viewer ? (JSON.parse(row.metadata) as Record<string, string>) : {},
    created: iso(row.created),
  };
}
