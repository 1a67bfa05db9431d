/**
 * The wallet module's face: what other modules and the house may use of it. Anything not
 * here is the module's own (the lint's no-restricted-imports refuses an import of it).
 */
export { TRANSFER_EXAMPLE } from './wallet.examples.js';
export { TransactionSchema } from './wallet.schemas.js';
export { orderMoneyOf } from './wallet.order-money.js';
export { type WalletService, createWalletService, openTenantWallet } from './wallet.service.js';
