import type { Db } from '../db/store.js';
import { AppError } from './errors.js';

/**
 * A use case's side of `Idempotency-Key` (the key is claimed and its response stored by
 * src/http/idempotency.ts). A use case whose work outlives one transaction (create an order,
 * charge it, settle it) marks the key with the resource it committed, inside that transaction
 * (`IdempotentWrite.mark`). From then on the work is never done again under this key: a 5xx keeps
 * the mark (only the lease is let go), and the retry is handed the mark
 * (`IdempotentWrite.committed`) so the use case resumes that resource and answers for it.
 */

export interface IdempotencyState {
  tenantId: string;
  key: string;
  /** The resource an earlier attempt with this key committed, when there was one. */
  committed: string | null;
  /** Set once the use case marked the key in its transaction (`IdempotentWrite.mark`). */
  marked?: boolean;
}

/** A request's idempotency key as a use case sees it (`idempotentWrite` makes one). */
export interface IdempotentWrite {
  /** The resource an earlier attempt with this key committed: resume it, do not act again. */
  readonly committed: string | null;
  /**
   * Records, in the use case's transaction, that the work of this key committed as `resourceId`.
   * Throws `idempotency_key_in_use` (rolling the transaction back) if another attempt got there first.
   */
  mark(trx: Db, resourceId: string): Promise<void>;
}

/** What a use case gets for a request without `Idempotency-Key`: nothing to resume or mark. */
export const NO_IDEMPOTENCY: IdempotentWrite = { committed: null, mark: async () => undefined };

/** The request's claimed key as the use case's `IdempotentWrite`. */
export function idempotentWrite(state: IdempotencyState | null): IdempotentWrite {
  if (state === null) return NO_IDEMPOTENCY;
  return {
    committed: state.committed,
    async mark(trx, resourceId) {
      const marked = await trx
        .updateTable('idempotency_keys')
        .set({ resource_id: resourceId })
        .where('tenant_id', '=', state.tenantId)
        .where('key', '=', state.key)
        .where('state', '=', 'in_flight')
        .where('resource_id', 'is', null)
        .executeTakeFirst();
      if (Number(marked.numUpdatedRows) !== 1) {
        throw new AppError(
          'idempotency_key_in_use',
          'Another request with this Idempotency-Key got there first.',
        );
      }
      state.marked = true;
    },
  };
}
