import type { Db, Store } from '../../db/store.js';
import { isUniqueViolation } from '../../db/unique-violation.js';
import type { Clock } from '../../lib/clock.js';
import { iso } from '../../lib/clock.js';
import { normaliseAddress } from '../../lib/addresses.js';
import { AppError, type FieldError, notFound, validationError, validationFailed } from '../../lib/errors.js';
import { type IdempotentWrite, NO_IDEMPOTENCY } from '../../lib/idempotent-write.js';
import { newId } from '../../lib/ids.js';
import { envelope, pageWindow } from '../../lib/paging.js';
import type { EventService } from '../events/index.js';
import type { Address } from './customers.address.js';
import { forgetLogin } from './customers.logins.repository.js';
import * as repo from './customers.repository.js';
import type {
  CreateCustomerBody,
  CustomerListQuery,
  CustomerObject,
  CustomerSort,
  UpdateCustomerBody,
} from './customers.schemas.js';

/**
 * Customers: create, read, change, delete and list. Every change is one transaction with its
 * `customer.*` event, its tag rows and the kept counts. The figures (`orders_count`,
 * `total_spent`, `last_order_at`) are not changed here: orders move them (customers.figures.ts).
 */

export function presentCustomer(row: repo.CustomerRow): CustomerObject {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    phone: row.phone,
    addresses: JSON.parse(row.addresses) as Address[],
    tags: JSON.parse(row.tags) as string[],
    note: row.note,
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    marketing_consent: row.marketing_consent === 1,
    orders_count: row.orders_count,
    total_spent: JSON.parse(row.total_spent) as Record<string, number>,
    last_order_at: iso(row.last_order_at),
    redacted: row.redacted === 1,
    created: iso(row.created) as string,
    updated: iso(row.updated) as string,
  };
}

export function duplicateEmail(email: string): AppError {
  return new AppError(
    'duplicate_email',
    `Another customer already has the email ${email} (compared case-insensitively).`,
  );
}

/**
 * Addresses as they are stored (src/lib/addresses.ts): each country an ISO 3166-1 alpha-2 code
 * (the schema checks only its form), each state canonical (a known subdivision's code; blank:
 * absent). `field` names them (`addresses`, or `shipping_address` with `one`); every failure is
 * listed in one `400 validation_failed` naming `addresses[i].state`, `shipping_address.country`...
 */
export function normaliseAddresses(addresses: readonly Address[], field: string, one = false): Address[] {
  const errors: FieldError[] = [];
  const stored = addresses.map((address, index) => {
    const result = normaliseAddress(address);
    if (result.ok) return result.address;
    errors.push({ field: `${field}${one ? '' : `[${index}]`}.${result.field}`, message: result.message });
    return address;
  });
  if (errors.length > 0) throw validationFailed(errors);
  return stored;
}

/** The body with its addresses as stored (`normaliseAddresses`); as it is without addresses. */
function withStoredAddresses<T extends { addresses?: Address[] | undefined }>(input: T): T {
  return input.addresses === undefined
    ? input
    : { ...input, addresses: normaliseAddresses(input.addresses, 'addresses') };
}

/** A new customer's row: no orders yet. */
export function newCustomerRow(tenantId: string, input: CreateCustomerBody, now: number): repo.CustomerRow {
  return {
    id: newId('cus'),
    tenant_id: tenantId,
    email: input.email,
    email_key: input.email.toLowerCase(),
    name: input.name ?? null,
    phone: input.phone ?? null,
    addresses: JSON.stringify(input.addresses ?? []),
    tags: JSON.stringify(input.tags ?? []),
    note: input.note ?? null,
    metadata: JSON.stringify(input.metadata ?? {}),
    marketing_consent: input.marketing_consent ? 1 : 0,
    orders_count: 0,
    total_spent: '{}',
    total_spent_sort: 0,
    last_order_at: null,
    redacted: 0,
    created: now,
    updated: now,
  };
}

/** The kept counts a customer adds to (sign 1) or takes from (-1): all customers, and each tag. */
export function countDeltas(tags: readonly string[], sign: 1 | -1, into = new Map<string, number>()) {
  for (const tag of ['', ...tags]) into.set(tag, (into.get(tag) ?? 0) + sign);
  return into;
}

/**
 * Writes a new customer with its tags, counts and `customer.created`, in `trx`. Unless `ifNew`,
 * an existing email is a 409; with it, the existing customer is left as it is and undefined is
 * returned (the caller reads it).
 */
export async function insertCustomer(
  trx: Db,
  events: EventService,
  row: repo.CustomerRow,
  ifNew = false,
): Promise<repo.CustomerRow | undefined> {
  if (ifNew) {
    if (!(await repo.insertUnlessEmailTaken(trx, row))) return undefined;
  } else {
    if (await repo.findByEmail(trx, row.tenant_id, row.email)) throw duplicateEmail(row.email);
    await repo.insertCustomer(trx, row);
  }
  const tags = JSON.parse(row.tags) as string[];
  await repo.setTags(trx, row.tenant_id, row.id, row.created, tags);
  await repo.adjustCounts(trx, row.tenant_id, countDeltas(tags, 1));
  await events.emit(trx, {
    tenantId: row.tenant_id,
    type: 'customer.created',
    objectType: 'customer',
    object: presentCustomer(row),
  });
  return row;
}

/** The stored columns `input` sets (only the fields given). */
export function customerChanges(input: UpdateCustomerBody): Partial<repo.CustomerRow> {
  const changes: Partial<repo.CustomerRow> = {};
  if (input.email !== undefined) {
    changes.email = input.email;
    changes.email_key = input.email.toLowerCase();
  }
  if (input.name !== undefined) changes.name = input.name;
  if (input.phone !== undefined) changes.phone = input.phone;
  if (input.addresses !== undefined) changes.addresses = JSON.stringify(input.addresses);
  if (input.tags !== undefined) changes.tags = JSON.stringify(input.tags);
  if (input.note !== undefined) changes.note = input.note;
  if (input.metadata !== undefined) changes.metadata = JSON.stringify(input.metadata);
  if (input.marketing_consent !== undefined) changes.marketing_consent = input.marketing_consent ? 1 : 0;
  return changes;
}

/** Of `changes`, those that differ from `before`: nothing left means nothing to write. */
export function changedColumns(
  before: repo.CustomerRow,
  changes: Partial<repo.CustomerRow>,
): Partial<repo.CustomerRow> {
  return Object.fromEntries(
    Object.entries(changes).filter(([key, value]) => before[key as keyof repo.CustomerRow] !== value),
  ) as Partial<repo.CustomerRow>;
}

/**
 * Applies `changes` to the customer `before` (read in `trx`, locked where the store locks rows),
 * with its tag rows, the kept counts and `customer.updated`, in `trx`. Nothing changed: no write,
 * no event. A redacted customer is final (409); an email another customer has is 409.
 */
export async function updateCustomerIn(
  trx: Db,
  events: EventService,
  before: repo.CustomerRow,
  changes: Partial<repo.CustomerRow>,
  now: number,
): Promise<repo.CustomerRow> {
  if (before.redacted === 1) {
    throw new AppError('invalid_state_transition', 'A redacted customer cannot be changed.');
  }
  const changed = changedColumns(before, changes);
  if (Object.keys(changed).length === 0) return before;
  const { tenant_id: tenantId, id } = before;
  if (changed.email_key !== undefined) {
    const other = await repo.findByEmail(trx, tenantId, changed.email_key);
    if (other && other.id !== id) throw duplicateEmail(changed.email ?? changed.email_key);
  }
  const after: repo.CustomerRow = { ...before, ...changed, updated: now };
  await repo.updateCustomer(trx, tenantId, id, { ...changed, updated: after.updated });
  if (changed.tags !== undefined) {
    const next = JSON.parse(after.tags) as string[];
    await repo.setTags(trx, tenantId, id, after.created, next);
    const deltas = countDeltas(JSON.parse(before.tags) as string[], -1);
    await repo.adjustCounts(trx, tenantId, countDeltas(next, 1, deltas));
  }
  await events.emit(trx, {
    tenantId,
    type: 'customer.updated',
    objectType: 'customer',
    object: presentCustomer(after),
  });
  return after;
}

export type CustomerService = ReturnType<typeof createCustomerService>;

export function createCustomerService(deps: { store: Store; clock: Clock; events: EventService }) {
  const { store, clock, events } = deps;

  async function guardEmail<T>(email: string | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (email !== undefined && isUniqueViolation(error)) throw duplicateEmail(email);
      throw error;
    }
  }

  async function get(tenantId: string, id: string): Promise<CustomerObject> {
    const row = await repo.findCustomer(store.db, tenantId, id);
    if (!row) throw notFound('customer');
    return presentCustomer(row);
  }

  return {
    present: presentCustomer,
    get,

    async create(
      tenantId: string,
      input: CreateCustomerBody,
      idempotent: IdempotentWrite = NO_IDEMPOTENCY,
    ): Promise<CustomerObject> {
      if (idempotent.committed !== null) return get(tenantId, idempotent.committed);
      const row = newCustomerRow(tenantId, withStoredAddresses(input), clock.now());
      await guardEmail(input.email, () =>
        store.transaction(async (trx) => {
          await insertCustomer(trx, events, row);
          await idempotent.mark(trx, row.id);
        }),
      );
      return presentCustomer(row);
    },

    /** Only the fields given change; nothing changed: no write, no event. A redacted customer is final (409). */
    async update(tenantId: string, id: string, input: UpdateCustomerBody): Promise<CustomerObject> {
      const changes = customerChanges(withStoredAddresses(input));
      const row = await guardEmail(input.email, () =>
        store.transaction(async (trx) => {
          const before = await repo.findCustomer(trx, tenantId, id, true);
          if (!before) throw notFound('customer');
          return updateCustomerIn(trx, events, before, changes, clock.now());
        }),
      );
      return presentCustomer(row);
    },

    /** A customer with orders keeps them: `409 customer_has_orders` (redact it instead). */
    async remove(tenantId: string, id: string): Promise<void> {
      await store.transaction(async (trx) => {
        const row = await repo.findCustomer(trx, tenantId, id, true);
        if (!row) throw notFound('customer');
        if (await repo.hasOrders(trx, tenantId, id)) {
          throw new AppError(
            'customer_has_orders',
            'This customer has orders, which keep their customer; redact the customer to erase their personal data.',
          );
        }
        await forgetLogin(trx, tenantId, id);
        await repo.deleteCustomer(trx, tenantId, id);
        await repo.adjustCounts(trx, tenantId, countDeltas(JSON.parse(row.tags) as string[], -1));
        await events.emit(trx, {
          tenantId,
          type: 'customer.deleted',
          objectType: 'customer',
          object: presentCustomer(row),
        });
      });
    },

    async list(tenantId: string, query: CustomerListQuery) {
      const sort: CustomerSort = query.sort ?? '-created';
      const from = query.created_from === undefined ? undefined : Date.parse(query.created_from);
      const to = query.created_to === undefined ? undefined : Date.parse(query.created_to);
      if (from !== undefined && to !== undefined && from > to) {
        throw validationError('created_from', 'must not be after created_to');
      }
      const column = repo.sortColumn(sort);
      const window = pageWindow(query, sort, column === 'email_key' ? 'string' : 'number');
      const filter: repo.CustomerFilter = {
        q: query.q === '' ? undefined : query.q,
        tag: query.tag,
        from,
        to,
      };
      const [rows, total] = await Promise.all([
        repo.listCustomers(store.db, store.dialect, tenantId, filter, sort, window),
        repo.countCustomers(store.db, store.dialect, tenantId, filter),
      ]);
      return envelope(rows, total, window, sort, (row) => [row[column], row.id], presentCustomer);
    },
  };
}
