import type { Db, Store } from '../../db/store.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, notFound, validationError } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { newId } from '../../lib/ids.js';
import { envelope, pageWindow } from '../../lib/paging.js';
import type { EventService } from '../events/index.js';
import { livemodeOf } from '../tenants/index.js';
import { checkAmount, checkCurrency, walletLine } from './wallet.accounts.js';
import { postEntry } from './wallet.ledger.js';
import { presentTransfer } from './wallet.presenter.js';
import * as repo from './wallet.repository.js';
import type { TransferBody, TransferListQuery, TransferObject } from './wallet.schemas.js';

/**
 * Transfers between wallets (any tenants'), each one balanced entry in its own transaction with
 * `transfer.created` for both parties, within the sender's daily limit; the lists of them.
 */

const DAY_MS = 86_400_000;

export function createWalletTransfers(deps: { store: Store; clock: Clock; events: EventService }) {
  const { store, clock, events } = deps;

  /**
   * Refuses a transfer that would take the wallet past the tenant's daily `limit` (UTC day). Read
   * after the wallet is locked, so transfers from it at once each count the others.
   */
  async function checkDailyLimit(
    trx: Db,
    limit: number | null,
    wallet: repo.WalletRow,
    amount: number,
    now: number,
  ) {
    if (limit === null) return;
    const dayStart = now - (now % DAY_MS);
    const sent = await repo.sentSince(trx, wallet.id, dayStart);
    if (sent + amount > limit) {
      throw new AppError(
        'limit_exceeded',
        `This transfer would exceed the daily transfer limit of ${limit} ${wallet.currency}: ${sent} sent today (UTC).`,
        { extra: { daily_transfer_limit: limit, sent_today: sent } },
      );
    }
  }

  async function getTransfer(tenantId: string, id: string): Promise<TransferObject> {
    const row = await repo.findTransfer(store.db, tenantId, id);
    if (!row) throw notFound('transfer');
    return presentTransfer(row, tenantId);
  }

  async function transferInTransaction(
    trx: Db,
    tenantId: string,
    input: TransferBody,
    idempotent: IdempotentWrite,
  ): Promise<repo.TransferRow> {
    const now = clock.now();
    const { accounts, dailyLimit } = await repo.findTransferAccounts(
      trx,
      tenantId,
      input.currency,
      input.destination_wallet_id,
      true,
    );
    const source = accounts.find(
      (a): a is repo.WalletRow =>
        repo.isWallet(a) && a.tenant_id === tenantId && a.currency === input.currency,
    );
    const destination = accounts.find((a) => a.id === input.destination_wallet_id);
    // A wallet of the other mode (test money to a live store, or the reverse) is no such wallet.
    const otherMode =
      destination?.tenant_id != null &&
      (await livemodeOf(trx, destination.tenant_id)) !== (await livemodeOf(trx, tenantId));
    if (!destination || !repo.isWallet(destination) || otherMode) {
      throw new AppError('invalid_destination', `No such wallet: ${input.destination_wallet_id}.`);
    }
    if (destination.id === source?.id) {
      throw new AppError('invalid_destination', 'A wallet cannot transfer to itself.');
    }
    if (destination.currency !== input.currency) {
      throw new AppError(
        'currency_mismatch',
        `The destination wallet holds ${destination.currency}, not ${input.currency}.`,
      );
    }
    if (!source || source.balance < input.amount) {
      throw new AppError(
        'insufficient_funds',
        `The ${input.currency} wallet has ${source?.balance ?? 0} available; the transfer needs ${input.amount}.`,
        { extra: { available: source?.balance ?? 0 } },
      );
    }
    await checkDailyLimit(trx, dailyLimit, source, input.amount, now);

    const id = newId('tr');
    const { transfer } = await postEntry(
      trx,
      {
        type: 'transfer',
        currency: input.currency,
        created: now,
        lines: [
          {
            account: walletLine(source),
            type: 'transfer_out',
            amount: -input.amount,
            description: input.description ?? `Transfer to ${destination.id}`,
            sourceId: id,
          },
          {
            account: walletLine(destination),
            type: 'transfer_in',
            amount: input.amount,
            description: input.description ?? `Transfer from ${source.id}`,
            sourceId: id,
          },
        ],
        transfer: {
          id,
          tenant_id: tenantId,
          source_wallet_id: source.id,
          destination_wallet_id: destination.id,
          amount: input.amount,
          currency: input.currency,
          description: input.description ?? null,
          metadata: JSON.stringify(input.metadata ?? {}),
          created: now,
        },
      },
      store.dialect,
    );
    if (!transfer) throw new Error('postEntry returned no transfer for a transfer entry');
    await idempotent.mark(trx, id);
    // The sender and the receiving tenant each get the event, in the transfer's transaction.
    await events.emitMany(
      trx,
      [tenantId, destination.tenant_id].map((party) => ({
        tenantId: party,
        type: 'transfer.created' as const,
        objectType: 'transfer',
        object: presentTransfer(transfer, party),
      })),
    );
    return transfer;
  }

  return {
    /**
     * Moves `amount` from the tenant's wallet in `currency` to another wallet (any tenant's) in
     * one transaction: balanced postings, the transfer, and `transfer.created` for the sender and
     * for the receiving tenant. A retry whose first answer was lost (a 5xx after the commit)
     * answers for the transfer its key committed instead of moving the money again.
     */
    async transfer(
      tenantId: string,
      input: TransferBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<TransferObject> {
      if (idempotent.committed !== null) return getTransfer(tenantId, idempotent.committed);
      checkAmount(input.amount);
      checkCurrency(input.currency);
      const row = await store.transaction((trx) => transferInTransaction(trx, tenantId, input, idempotent));
      return presentTransfer(row, tenantId);
    },

    getTransfer,

    /** The transfers the tenant sent or received (`direction` narrows to one), newest first. */
    async listTransfers(tenantId: string, query: TransferListQuery) {
      // A forged cursor (no timestamp in it) is refused by pageWindow for every creation-order list.
      const window = pageWindow(query, '-created');
      const wallets = query.direction === 'sent' ? [] : await repo.listWallets(store.db, tenantId);
      const party: repo.TransferParty = {
        tenantId,
        walletIds: wallets.map((wallet) => wallet.id),
        direction: query.direction,
      };
      const [rows, total] = await Promise.all([
        repo.listTransfers(store.db, party, window),
        repo.countTransfers(store.db, party),
      ]);
      return envelope(
        rows,
        total,
        window,
        '-created',
        (row) => [row.created, row.id],
        (row) => presentTransfer(row, tenantId),
      );
    },

    /** Sets (a number) or removes (null) the tenant's daily transfer limit per wallet. */
    async setDailyTransferLimit(
      tenantId: string,
      limit: number | null,
    ): Promise<{ tenant_id: string; daily_transfer_limit: number | null }> {
      if (limit !== null && (!Number.isSafeInteger(limit) || limit < 1)) {
        throw validationError('daily_transfer_limit', 'must be a positive whole number of minor units');
      }
      await store.transaction(async (trx) => {
        if (!(await repo.tenantExists(trx, tenantId))) throw notFound('tenant');
        await repo.upsertSettings(trx, {
          tenant_id: tenantId,
          daily_transfer_limit: limit,
          updated: clock.now(),
        });
      });
      return { tenant_id: tenantId, daily_transfer_limit: limit };
    },
  };
}
