import { sql } from 'kysely';
import { newestFirst } from '../../db/pagination.js';
import type { Db } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';
import type { CartLinesTable, CartsTable } from './carts.tables.js';

export type CartRow = CartsTable;
export type CartLineRow = CartLinesTable;

export async function insertCart(db: Db, row: CartRow): Promise<void> {
  await db.insertInto('carts').values(row).execute();
}

/** `lock` takes a row lock on PostgreSQL (SQLite's write transaction already excludes writers). */
export async function findCart(
  db: Db,
  tenantId: string,
  id: string,
  lock = false,
): Promise<CartRow | undefined> {
  let query = db.selectFrom('carts').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function updateCart(
  db: Db,
  id: string,
  changes: Partial<Omit<CartRow, 'id' | 'tenant_id' | 'created'>>,
): Promise<void> {
  await db.updateTable('carts').set(changes).where('id', '=', id).execute();
}

/**
 * The products of a cart's lines that its completion could still buy: the line's variant has
 * units in stock, or the cart holds them (none for an unknown cart or another tenant's). A line
 * sold out is refused by the completion itself (422 `cart_not_ready`), before anything is taken.
 */
export async function findProductIds(db: Db, tenantId: string, cartId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('cart_lines as l')
    .innerJoin('carts as c', 'c.id', 'l.cart_id')
    .innerJoin('product_variants as v', 'v.id', 'l.variant_id')
    .select('l.product_id')
    .distinct()
    .where('l.cart_id', '=', cartId)
    .where('l.tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('v.stock', '>', 0), eb('c.hold_lines', 'is not', null)]))
    .execute();
  return rows.map((row) => row.product_id);
}

/** The lines of the given carts, each cart's in the order they were added. */
export async function findLines(db: Db, cartIds: readonly string[]): Promise<CartLineRow[]> {
  if (cartIds.length === 0) return [];
  return db
    .selectFrom('cart_lines')
    .selectAll()
    .where('cart_id', 'in', [...cartIds])
    .orderBy('cart_id')
    .orderBy('position')
    .execute();
}

export async function insertLines(db: Db, rows: readonly CartLineRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('cart_lines')
    .values([...rows])
    .execute();
}

export async function setLineQuantity(db: Db, lineId: string, quantity: number): Promise<void> {
  await db.updateTable('cart_lines').set({ quantity }).where('id', '=', lineId).execute();
}

export async function deleteLine(db: Db, lineId: string): Promise<void> {
  await db.deleteFrom('cart_lines').where('id', '=', lineId).execute();
}

/** What the admin's list filters on, at `now`. */
export interface CartFilter {
  status?: 'open' | 'abandoned' | 'completed' | 'expired' | undefined;
  /** Open carts unchanged since before this read as expired. */
  expiredBefore: number;
  /** Open carts with an email and a line, unchanged since before this, are abandoned. */
  abandonedBefore: number;
}

function filtered(db: Db, tenantId: string, filter: CartFilter) {
  let query = db.selectFrom('carts').where('tenant_id', '=', tenantId);
  switch (filter.status) {
    case undefined:
      break;
    case 'completed':
      query = query.where('status', '=', 'completed');
      break;
    case 'open':
      query = query.where('status', '=', 'open').where('updated', '>', filter.expiredBefore);
      break;
    case 'expired':
      query = query.where((eb) =>
        eb.or([
          eb('status', '=', 'expired'),
          eb.and([eb('status', '=', 'open'), eb('updated', '<=', filter.expiredBefore)]),
        ]),
      );
      break;
    case 'abandoned':
      query = query
        .where('status', '=', 'open')
        .where('updated', '>', filter.expiredBefore)
        .where('updated', '<=', filter.abandonedBefore)
        .where('email', 'is not', null)
        .where((eb) =>
          eb.exists(eb.selectFrom('cart_lines').select('id').whereRef('cart_lines.cart_id', '=', 'carts.id')),
        );
      break;
  }
  return query;
}

/** Newest first, ties broken by id; a cursor seeks past (created, id). */
export async function listCarts(
  db: Db,
  tenantId: string,
  filter: CartFilter,
  window: PageWindow,
): Promise<CartRow[]> {
  return filtered(db, tenantId, filter).selectAll().$call(newestFirst(window)).execute();
}

export async function countCarts(db: Db, tenantId: string, filter: CartFilter): Promise<number> {
  const { n } = await filtered(db, tenantId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** Completions in flight whose lease began before `before` (their process died, or lost the outcome). */
export async function staleCheckouts(db: Db, before: number, limit: number): Promise<CartRow[]> {
  return db
    .selectFrom('carts')
    .selectAll()
    .where('checkout_started', 'is not', null)
    .where('checkout_started', '<=', before)
    .orderBy('checkout_started')
    .limit(limit)
    .execute();
}

/**
 * Takes over the lease of a completion in flight that started at `started`: true for the one
 * caller that moved it to `now` (several sweepers may find it at once).
 */
export async function claimCheckout(db: Db, id: string, started: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('carts')
    .set({ checkout_started: now })
    .where('id', '=', id)
    .where('checkout_started', '=', started)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Serializes the holds of a store (its `tenants` row lock on PostgreSQL; SQLite's one writer
 * already does): two carts of one buyer address held at once still count each other. `NO KEY
 * UPDATE`, so that it leaves alone the rows that name the store by foreign key (events, orders,
 * customers): their writers take the row's `KEY SHARE` lock, which this one does not block.
 */
export async function lockHolds(db: Db, tenantId: string): Promise<void> {
  await db.selectFrom('tenants').select('id').where('id', '=', tenantId).forNoKeyUpdate().execute();
}

/** The holds of `address` at the store that still run at `now`, but that of cart `exceptId`; soonest end first. */
export async function holdsOf(
  db: Db,
  tenantId: string,
  address: string,
  now: number,
  exceptId: string,
): Promise<number[]> {
  const rows = await db
    .selectFrom('carts')
    .select('hold_expires')
    .where('tenant_id', '=', tenantId)
    .where('hold_ip', '=', address)
    .where('hold_expires', '>', now)
    .where('id', '<>', exceptId)
    .orderBy('hold_expires')
    .execute();
  return rows.map((row) => row.hold_expires ?? 0);
}

/** Carts whose hold ran out by `now`, soonest first (their units still taken until a sweep gives them back). */
export async function expiredHolds(
  db: Db,
  now: number,
  limit: number,
): Promise<{ tenant_id: string; id: string }[]> {
  return db
    .selectFrom('carts')
    .select(['tenant_id', 'id'])
    .where('hold_expires', 'is not', null)
    .where('hold_expires', '<=', now)
    .orderBy('hold_expires')
    .limit(limit)
    .execute();
}

/**
 * Open carts not announced yet, with an email and a line and no completion in flight, unchanged
 * since their store's `storefront_abandoned_after_minutes` but not for `lifetimeMs` (then they
 * are expired): the carts `cart.abandoned` is due for, oldest change first.
 */
export async function abandonedDue(
  db: Db,
  now: number,
  lifetimeMs: number,
  limit: number,
): Promise<{ tenant_id: string; id: string; updated: number }[]> {
  return db
    .selectFrom('carts as c')
    .innerJoin('tenants as t', 't.id', 'c.tenant_id')
    .select(['c.tenant_id', 'c.id', 'c.updated'])
    .where('c.status', '=', 'open')
    .where('c.updated', '>', now - lifetimeMs)
    .where(
      'c.updated',
      '<=',
      // As bigint, as the instant it is taken from (PostgreSQL would compute it as an integer).
      sql<number>`${now} - CAST(t.storefront_abandoned_after_minutes AS BIGINT) * 60000`,
    )
    .where('c.abandoned_at', 'is', null)
    .where('c.email', 'is not', null)
    .where('c.checkout', 'is', null)
    .where((eb) =>
      eb.exists(eb.selectFrom('cart_lines as l').select('l.id').whereRef('l.cart_id', '=', 'c.id')),
    )
    .orderBy('c.updated')
    .orderBy('c.id')
    .limit(limit)
    .execute();
}

/**
 * Marks the cart announced at `now`, if it is still as it was found (open, unchanged since
 * `updated`, not announced): true for the one caller that marked it (several sweepers may find it).
 */
export async function markAbandoned(db: Db, id: string, updated: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('carts')
    .set({ abandoned_at: now })
    .where('id', '=', id)
    .where('status', '=', 'open')
    .where('updated', '=', updated)
    .where('abandoned_at', 'is', null)
    .where('checkout', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Open carts unchanged since `before` (expired, not marked yet) and not being completed, oldest first. */
export async function idleCarts(
  db: Db,
  before: number,
  limit: number,
): Promise<{ tenant_id: string; id: string }[]> {
  return db
    .selectFrom('carts')
    .select(['tenant_id', 'id'])
    .where('status', '=', 'open')
    .where('updated', '<=', before)
    .where('checkout', 'is', null)
    .orderBy('updated')
    .orderBy('id')
    .limit(limit)
    .execute();
}
