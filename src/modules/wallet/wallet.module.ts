import { defineModule } from '../../kernel/module.js';
import * as ledgerEntryApplied from './migrations/0070_ledger_entry_applied.js';
import type { Names } from '../../kernel/vocabulary.js';
import { walletRoutes } from './wallet.routes.js';
import {
  BalanceListSchema,
  BalanceSchema,
  TransactionListSchema,
  TransactionSchema,
  TransferListSchema,
  TransferSchema,
  WalletSummarySchema,
} from './wallet.schemas.js';
import { createWalletService, type WalletService } from './wallet.service.js';

/** Each store's wallet on a double-entry ledger: payments credit it, refunds debit it, stores transfer. */

const PERMISSIONS = ['read:wallet', 'write:wallet'] as const;
const EVENTS = ['transfer.created'] as const;

declare module '../../kernel/vocabulary.js' {
  interface PermissionNames extends Names<typeof PERMISSIONS> {}
  interface EventTypeNames extends Names<typeof EVENTS> {}
}
declare module '../../kernel/module.js' {
  interface Services {
    wallet: WalletService;
  }
}

export default defineModule({
  name: 'wallet',
  position: 80,
  tags: [{ name: 'Wallet', description: 'Balances, transactions and transfers on a double-entry ledger' }],
  permissions: PERMISSIONS,
  events: [{ types: EVENTS, object: TransferSchema }],
  migrations: { '0070_ledger_entry_applied': ledgerEntryApplied },
  operationIds: {
    'GET /v1/wallet/balance': 'getWalletBalance',
    'GET /v1/wallet/balances': 'listWalletBalances',
    'GET /v1/wallet/transactions': 'listWalletTransactions',
    'POST /v1/wallet/transfer': 'createTransfer',
    'GET /v1/wallet/transfers': 'listTransfers',
    'GET /v1/wallet/transfers/:id': 'getTransfer',
  },
  components: () => ({
    WalletBalance: BalanceSchema,
    Wallet: WalletSummarySchema,
    WalletList: BalanceListSchema,
    WalletTransaction: TransactionSchema,
    WalletTransactionList: TransactionListSchema,
    Transfer: TransferSchema,
    TransferList: TransferListSchema,
  }),
  needs: ['events', 'audit'],
  services: (deps) => ({ wallet: createWalletService(deps) }),
  routes: [{ plugin: walletRoutes }],
});
