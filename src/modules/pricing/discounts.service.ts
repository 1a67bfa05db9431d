import type { Store } from '../../db/store.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import { AppError, type FieldError, notFound, validationFailed } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { newId } from '../../lib/ids.js';
import { newestFirstEnvelope, pageWindow } from '../../lib/paging.js';
import type { EventService } from '../events/index.js';
import * as repo from './discounts.repository.js';
import type {
  CreateDiscountBody,
  DiscountListQuery,
  DiscountObject,
  UpdateDiscountBody,
} from './discounts.schemas.js';
import { discountCodeKey, discountStatus } from './pricing.rules.js';

/**
 * Discounts: create, read, change, delete and list. Every change is one transaction with its
 * `discount.*` event. `times_used` is not changed here: orders take and give back uses
 * (pricing.service.ts), and which discounts an order gets is pricing.choose.ts's.
 */

export function presentDiscount(row: repo.DiscountRow, now: number): DiscountObject {
  return {
    id: row.id,
    code: row.code,
    automatic: row.automatic === 1,
    type: row.type,
    value: row.value,
    currency: row.currency,
    applies_to: row.applies_to === null ? null : (JSON.parse(row.applies_to) as DiscountObject['applies_to']),
    minimum_subtotal: row.minimum_subtotal,
    starts_at: iso(row.starts_at),
    ends_at: iso(row.ends_at),
    usage_limit: row.usage_limit,
    usage_limit_per_customer: row.usage_limit_per_customer,
    times_used: row.times_used,
    combinable: row.combinable === 1,
    enabled: row.enabled === 1,
    status: discountStatus(row, now),
    created: iso(row.created),
    updated: iso(row.updated),
  };
}

function duplicateCode(code: string): AppError {
  return new AppError(
    'duplicate_code',
    `Another discount already has the code ${code} (codes are compared case-insensitively).`,
  );
}

const instant = (value: string | null | undefined) =>
  value === undefined || value === null ? null : Date.parse(value);

/**
 * The rules a discount must keep, checked on the discount as it would be (a change is checked
 * merged with what it changes), each failure naming its field:
 * - a code or `automatic: true`, not both and not neither;
 * - `percentage`: `value` 1 to 10000 basis points; `fixed_amount`: `value` at least 1 and a
 *   `currency`; `free_shipping`: `value` 0 and no `applies_to` (it waives shipping, not lines);
 * - `ends_at` after `starts_at`.
 */
function checkDiscount(row: repo.DiscountRow): void {
  const errors: FieldError[] = [];
  if (row.code !== null && row.automatic === 1) {
    errors.push({ field: 'automatic', message: 'must not be true for a discount with a code' });
  }
  if (row.code === null && row.automatic !== 1) {
    errors.push({ field: 'code', message: 'is required unless automatic is true' });
  }
  if (row.type === 'percentage' && (row.value < 1 || row.value > 10_000)) {
    errors.push({ field: 'value', message: 'must be 1 to 10000 basis points for a percentage' });
  }
  if (row.type === 'fixed_amount') {
    if (row.value < 1) errors.push({ field: 'value', message: 'must be at least 1 for a fixed amount' });
    if (row.currency === null) errors.push({ field: 'currency', message: 'is required for a fixed amount' });
  }
  if (row.type === 'free_shipping') {
    if (row.value !== 0) errors.push({ field: 'value', message: 'must be absent or 0 for free shipping' });
    if (row.applies_to !== null) {
      errors.push({ field: 'applies_to', message: 'is for amounts off; free shipping waives the shipping' });
    }
  }
  if (row.starts_at !== null && row.ends_at !== null && row.ends_at <= row.starts_at) {
    errors.push({ field: 'ends_at', message: 'must be after starts_at' });
  }
  if (errors.length > 0) throw validationFailed(errors);
}

export type DiscountService = ReturnType<typeof createDiscountService>;

export function createDiscountService(deps: { store: Store; clock: Clock; events: EventService }) {
  const { store, clock, events } = deps;

  async function guardCode<T>(code: string | null | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (typeof code === 'string' && isUniqueViolation(error)) throw duplicateCode(code);
      throw error;
    }
  }

  async function get(tenantId: string, id: string): Promise<DiscountObject> {
    const row = await repo.findDiscount(store.db, tenantId, id);
    if (!row) throw notFound('discount');
    return presentDiscount(row, clock.now());
  }

  return {
    get,

    async create(
      tenantId: string,
      input: CreateDiscountBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<DiscountObject> {
      if (idempotent.committed !== null) return get(tenantId, idempotent.committed);
      const now = clock.now();
      const code = input.code ?? null;
      const row: repo.DiscountRow = {
        id: newId('dsc'),
        tenant_id: tenantId,
        code,
        code_key: code === null ? null : discountCodeKey(code),
        automatic: input.automatic === true ? 1 : 0,
        type: input.type,
        value: input.value ?? 0,
        currency: input.currency ?? null,
        applies_to: input.applies_to == null ? null : JSON.stringify(input.applies_to),
        minimum_subtotal: input.minimum_subtotal ?? null,
        starts_at: instant(input.starts_at),
        ends_at: instant(input.ends_at),
        usage_limit: input.usage_limit ?? null,
        usage_limit_per_customer: input.usage_limit_per_customer ?? null,
        times_used: 0,
        combinable: input.combinable === true ? 1 : 0,
        enabled: input.enabled === false ? 0 : 1,
        created: now,
        updated: now,
      };
      if ((input.type === 'percentage' || input.type === 'fixed_amount') && input.value === undefined) {
        throw validationFailed([{ field: 'value', message: `is required for a ${input.type} discount` }]);
      }
      checkDiscount(row);
      await guardCode(code, () =>
        store.transaction(async (trx) => {
          if (row.code_key !== null && (await repo.findByCodeKey(trx, tenantId, row.code_key))) {
            throw duplicateCode(code as string);
          }
          await repo.insertDiscount(trx, row);
          await events.emit(trx, {
            tenantId,
            type: 'discount.created',
            objectType: 'discount',
            object: presentDiscount(row, now),
          });
          await idempotent.mark(trx, row.id);
        }),
      );
      return presentDiscount(row, now);
    },

    /**
     * Only the fields given change, and the result must keep the rules (`checkDiscount`); nothing
     * changed: no write, no event. Changing `type` to `free_shipping` without a `value` sets it to 0.
     */
    async update(tenantId: string, id: string, input: UpdateDiscountBody): Promise<DiscountObject> {
      const changes: Partial<repo.DiscountRow> = {};
      if (input.code !== undefined) {
        changes.code = input.code;
        changes.code_key = input.code === null ? null : discountCodeKey(input.code);
      }
      if (input.automatic !== undefined) changes.automatic = input.automatic ? 1 : 0;
      if (input.type !== undefined) changes.type = input.type;
      if (input.value !== undefined) changes.value = input.value;
      else if (input.type === 'free_shipping') changes.value = 0;
      if (input.currency !== undefined) changes.currency = input.currency;
      if (input.applies_to !== undefined) {
        changes.applies_to = input.applies_to === null ? null : JSON.stringify(input.applies_to);
      }
      if (input.minimum_subtotal !== undefined) changes.minimum_subtotal = input.minimum_subtotal;
      if (input.starts_at !== undefined) changes.starts_at = instant(input.starts_at);
      if (input.ends_at !== undefined) changes.ends_at = instant(input.ends_at);
      if (input.usage_limit !== undefined) changes.usage_limit = input.usage_limit;
      if (input.usage_limit_per_customer !== undefined) {
        changes.usage_limit_per_customer = input.usage_limit_per_customer;
      }
      if (input.combinable !== undefined) changes.combinable = input.combinable ? 1 : 0;
      if (input.enabled !== undefined) changes.enabled = input.enabled ? 1 : 0;
      const row = await guardCode(input.code, () =>
        store.transaction(async (trx) => {
          const before = await repo.findDiscount(trx, tenantId, id, true);
          if (!before) throw notFound('discount');
          const changed = Object.fromEntries(
            Object.entries(changes).filter(([key, value]) => before[key as keyof repo.DiscountRow] !== value),
          ) as Partial<repo.DiscountRow>;
          const after: repo.DiscountRow = { ...before, ...changed, updated: clock.now() };
          checkDiscount(after);
          if (Object.keys(changed).length === 0) return before;
          if (changed.code_key !== undefined && changed.code_key !== null) {
            const other = await repo.findByCodeKey(trx, tenantId, changed.code_key);
            if (other && other.id !== id) throw duplicateCode(changed.code as string);
          }
          await repo.updateDiscount(trx, tenantId, id, { ...changed, updated: after.updated });
          await events.emit(trx, {
            tenantId,
            type: 'discount.updated',
            objectType: 'discount',
            object: presentDiscount(after, after.updated),
          });
          return after;
        }),
      );
      return presentDiscount(row, clock.now());
    },

    /**
     * Deletes the discount and its per-customer counts. Orders that hold it keep it as they were
     * priced; cancelling one later gives nothing back to a discount that is gone.
     */
    async remove(tenantId: string, id: string): Promise<void> {
      await store.transaction(async (trx) => {
        const row = await repo.findDiscount(trx, tenantId, id, true);
        if (!row) throw notFound('discount');
        await repo.deleteDiscount(trx, tenantId, id);
        await events.emit(trx, {
          tenantId,
          type: 'discount.deleted',
          objectType: 'discount',
          object: presentDiscount(row, clock.now()),
        });
      });
    },

    async list(tenantId: string, query: DiscountListQuery) {
      const now = clock.now();
      const window = pageWindow(query, 'created');
      const filter: repo.DiscountFilter = {
        code: query.code,
        automatic: query.automatic,
        status: query.status,
        now,
      };
      const [rows, total] = await Promise.all([
        repo.listDiscounts(store.db, tenantId, filter, window),
        repo.countDiscounts(store.db, tenantId, filter),
      ]);
      return newestFirstEnvelope(rows, total, window, (row) => presentDiscount(row, now));
    },
  };
}
