import type { Db, Store } from '../../db/store.js';
import { validationError } from '../../lib/errors.js';
import { isCurrency, MAX_AMOUNT } from '../../lib/money.js';
import { livemodeOf } from '../tenants/index.js';
import {
  ensurePlatformAccount,
  openWallet,
  platformAccountId,
  type PlatformAccountType,
} from './wallet.ledger.js';
import type * as repo from './wallet.repository.js';

/**
 * The accounts a wallet's entries move money between: a tenant's wallet and the platform's
 * accounts, each found once per process (`createWalletAccounts`), the lines of an entry that name
 * them, and the checks of an amount and a currency every entry makes.
 */

export function walletLine(wallet: Pick<repo.WalletRow, 'id' | 'tenant_id'>) {
  return { id: wallet.id, wallet: true, tenantId: wallet.tenant_id };
}

export function platformLine(id: string) {
  return { id, wallet: false, tenantId: null };
}

export function checkCurrency(currency: string, field = 'currency'): string {
  if (!isCurrency(currency)) throw validationError(field, 'must be an ISO 4217 currency code');
  return currency;
}

export function checkAmount(amount: number, field = 'amount'): number {
  if (!Number.isSafeInteger(amount) || amount < 1 || amount > MAX_AMOUNT) {
    throw validationError(field, `must be a whole number of minor units from 1 to ${MAX_AMOUNT}`);
  }
  return amount;
}

export type WalletAccounts = ReturnType<typeof createWalletAccounts>;

export function createWalletAccounts(store: Store) {
  /** Platform accounts a committed transaction of this process wrote or found: they are never deleted. */
  const platformAccounts = new Set<string>();

  /**
   * Tenants' wallets by tenant and currency, as this process read them: a wallet's id never
   * changes (its row is never deleted), so a payment's credit need not read it again.
   */
  const walletIds = new Map<string, string>();

  /** The tenant's wallet in `currency` (made if it has none): its id, read once per process. */
  async function walletOf(trx: Db, tenantId: string, currency: string, now: number) {
    const key = `${tenantId} ${currency}`;
    const known = walletIds.get(key);
    if (known !== undefined) return { id: known, tenant_id: tenantId };
    const wallet = await openWallet(trx, tenantId, currency, now);
    store.afterCommit(trx, () => walletIds.set(key, wallet.id));
    return wallet;
  }

  /**
   * `ensurePlatformAccount` of the tenant's mode (test money has accounts of its own), without a
   * statement once this process has seen the account committed.
   */
  async function platformAccount(
    trx: Db,
    type: PlatformAccountType,
    tenantId: string,
    currency: string,
    now: number,
  ) {
    const livemode = await livemodeOf(trx, tenantId);
    const id = platformAccountId(type, currency, livemode);
    if (platformAccounts.has(id)) return id;
    await ensurePlatformAccount(trx, type, currency, livemode, now);
    store.afterCommit(trx, () => platformAccounts.add(id));
    return id;
  }

  return {
    walletOf,
    platformAccount,
    /** Keeps the tenant's wallet in `currency` once `trx` commits: the next credit need not read it. */
    remember(trx: Db, tenantId: string, currency: string, walletId: string): void {
      store.afterCommit(trx, () => walletIds.set(`${tenantId} ${currency}`, walletId));
    },
  };
}
