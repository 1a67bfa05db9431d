import type { Store } from '../../db/store.js';
import type { Services } from '../../kernel/module.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { CART_ID_PLACEHOLDER } from '../settings/index.js';
import { releaseHold } from './carts.holds.js';
import { CART_LIFETIME_MS, loadCartContext, presentCart, statusOf } from './carts.pricing.js';
import * as repo from './carts.repository.js';

/**
 * What happens to carts while nobody calls, run by every API process each minute (holds more
 * often); each sweep is safe from several processes at once and does its work once:
 *
 * - `releaseHolds`: a stock hold that ran out gives its units back, in a transaction under the
 *   cart's row lock that finds it still held (carts.holds.ts): of two sweepers, and of a sweeper
 *   and the cart's change, completion or expiry, one gives them back.
 * - `announceAbandoned`: an open cart with an email and a line, unchanged for its store's
 *   `storefront.abandoned_after_minutes`, emits `cart.abandoned` once, with the cart and its
 *   `recovery_url`: a conditional update marks it (`abandoned_at`) in the transaction that emits
 *   the event, and only if it is still unchanged and unmarked, so of several sweepers one emits.
 *   Any later change of the cart clears the mark (carts.service.ts), as Shopify re-arms its
 *   abandoned checkouts: a shopper who came back and left again is announced again.
 * - `expireIdle`: an open cart unchanged for 30 days becomes `expired` (it already read so) and
 *   gives back its hold, if it still has one. A cart whose completion is in flight is left to the
 *   completion sweep.
 */

/** At most this many carts a sweep handles per batch (it goes on while batches are full). */
const BATCH = 100;

export interface CartSweepDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  events: Pick<Services['events'], 'emit'>;
  /** The store's `storefront.recovery_url_template`. */
  settings: Pick<Services['settings'], 'get'>;
}

export type CartSweeps = ReturnType<typeof createCartSweeps>;

export function createCartSweeps(deps: CartSweepDeps) {
  const { store, clock, logger, events, settings } = deps;

  /**
   * Runs `one` on each cart `find` answers, batch after batch while batches come full and some of
   * them did their work (a cart another sweeper took counts for nothing); answers how many did.
   */
  async function sweep<T extends { id: string }>(
    what: string,
    find: (now: number) => Promise<T[]>,
    one: (row: T, now: number) => Promise<boolean>,
  ): Promise<number> {
    let done = 0;
    for (;;) {
      const now = clock.now();
      const rows = await find(now);
      let batch = 0;
      for (const row of rows) {
        try {
          if (await one(row, now)) batch++;
        } catch (error) {
          logger.warn({ err: error, cart_id: row.id }, `${what} failed for a cart; will retry`);
        }
      }
      done += batch;
      if (rows.length < BATCH || batch === 0) return done;
    }
  }

  return {
    /** Gives back the units of the holds that ran out; answers how many it gave back. */
    releaseHolds(): Promise<number> {
      return sweep(
        'hold release',
        (now) => repo.expiredHolds(store.db, now, BATCH),
        (row, now) =>
          store.transaction(async (trx) => {
            const cart = await repo.findCart(trx, row.tenant_id, row.id, true);
            if (cart?.hold_expires == null || cart.hold_expires > now) return false;
            return releaseHold(trx, cart, now);
          }),
      );
    },

    /** Emits `cart.abandoned` for each cart it is due for, once; answers how many it emitted. */
    announceAbandoned(): Promise<number> {
      return sweep(
        'cart.abandoned',
        (now) => repo.abandonedDue(store.db, now, CART_LIFETIME_MS, BATCH),
        async (row, now) => {
          const template = (await settings.get(row.tenant_id)).storefront.recovery_url_template;
          const recoveryUrl = template === null ? null : template.replaceAll(CART_ID_PLACEHOLDER, row.id);
          return store.transaction(async (trx) => {
            if (!(await repo.markAbandoned(trx, row.id, row.updated, now))) return false;
            const cart = (await repo.findCart(trx, row.tenant_id, row.id)) as repo.CartRow; // marked above
            const lines = await repo.findLines(trx, [row.id]);
            const object = presentCart(cart, lines, await loadCartContext(trx, cart, lines, now), now);
            await events.emit(trx, {
              tenantId: row.tenant_id,
              type: 'cart.abandoned',
              objectType: 'cart',
              object,
              extra: { recovery_url: recoveryUrl },
            });
            return true;
          });
        },
      );
    },

    /** Marks the open carts unchanged for 30 days `expired`, their holds given back; answers how many. */
    expireIdle(): Promise<number> {
      return sweep(
        'cart expiry',
        (now) => repo.idleCarts(store.db, now - CART_LIFETIME_MS, BATCH),
        (row, now) =>
          store.transaction(async (trx) => {
            const cart = await repo.findCart(trx, row.tenant_id, row.id, true);
            if (!cart || cart.status !== 'open' || cart.checkout !== null) return false;
            if (statusOf(cart, now) !== 'expired') return false;
            await releaseHold(trx, cart, now);
            await repo.updateCart(trx, cart.id, { status: 'expired' });
            return true;
          }),
      );
    },
  };
}
