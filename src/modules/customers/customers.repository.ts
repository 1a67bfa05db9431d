import { type RawBuilder, type Selectable, sql } from 'kysely';
import type { CustomersTable } from '../../db/schema.js';
import { ftsPhrase, likePattern, pgFold } from '../../db/search.js';
import { countList } from '../../db/list-counts.js';
import { type Db, type DialectName, searchFold } from '../../db/store.js';
import type { PageWindow } from '../../lib/paging.js';
import type { CustomerSort } from './customers.schemas.js';

/** A customer as stored; `seq` (the search index key) stays inside the database. */
export type CustomerRow = Omit<Selectable<CustomersTable>, 'seq'>;

/** A customer's columns as stored, `seq` aside: what every read of a `CustomerRow` selects. */
export const CUSTOMER_COLUMNS = [
  'id',
  'tenant_id',
  'email',
  'email_key',
  'name',
  'phone',
  'addresses',
  'tags',
  'note',
  'metadata',
  'marketing_consent',
  'orders_count',
  'total_spent',
  'total_spent_sort',
  'last_order_at',
  'redacted',
  'created',
  'updated',
] as const;

/** The list's columns, named by table: a `tag` page joins `customer_tags`, which has some of the same names. */
const LISTED = CUSTOMER_COLUMNS.map((column) => `customers.${column}` as const);

export async function insertCustomer(db: Db, row: CustomerRow): Promise<void> {
  await db.insertInto('customers').values(row).execute();
}

/**
 * Inserts the customer unless one with its email exists; true when this call inserted it. On
 * PostgreSQL a concurrent insert of the same email waits for the other transaction and then does
 * nothing, so concurrent orders with one new email make exactly one customer.
 */
export async function insertUnlessEmailTaken(db: Db, row: CustomerRow): Promise<boolean> {
  const result = await db
    .insertInto('customers')
    .values(row)
    .onConflict((oc) => oc.columns(['tenant_id', 'email_key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** `lock` takes a row lock on PostgreSQL (SQLite's write transaction already excludes writers). */
export async function findCustomer(
  db: Db,
  tenantId: string,
  id: string,
  lock = false,
): Promise<CustomerRow | undefined> {
  let query = db
    .selectFrom('customers')
    .select(CUSTOMER_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id);
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function findByEmail(
  db: Db,
  tenantId: string,
  email: string,
  lock = false,
): Promise<CustomerRow | undefined> {
  let query = db
    .selectFrom('customers')
    .select(CUSTOMER_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('email_key', '=', email.toLowerCase());
  if (lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function findCustomersByIds(
  db: Db,
  tenantId: string,
  ids: readonly string[],
): Promise<CustomerRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('customers')
    .select(CUSTOMER_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', [...ids])
    .execute();
}

export async function updateCustomer(
  db: Db,
  tenantId: string,
  id: string,
  changes: Partial<Omit<CustomerRow, 'id' | 'tenant_id' | 'created'>>,
): Promise<void> {
  await db
    .updateTable('customers')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

export async function deleteCustomer(db: Db, tenantId: string, id: string): Promise<void> {
  await db
    .deleteFrom('customer_tags')
    .where('tenant_id', '=', tenantId)
    .where('customer_id', '=', id)
    .execute();
  await db.deleteFrom('customers').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
}

export async function hasOrders(db: Db, tenantId: string, customerId: string): Promise<boolean> {
  const row = await db
    .selectFrom('orders')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('customer_id', '=', customerId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Replaces a customer's tag rows (what the `tag` filter seeks on). */
export async function setTags(
  db: Db,
  tenantId: string,
  customerId: string,
  created: number,
  tags: readonly string[],
): Promise<void> {
  await db
    .deleteFrom('customer_tags')
    .where('tenant_id', '=', tenantId)
    .where('customer_id', '=', customerId)
    .execute();
  if (tags.length === 0) return;
  await db
    .insertInto('customer_tags')
    .values(tags.map((tag) => ({ tenant_id: tenantId, tag, customer_id: customerId, created })))
    .execute();
}

/**
 * Moves the kept counts (list `customers` of the kept list counts, src/db/list-counts.ts: all
 * customers under key '' and each tag under its own): +n and -n rows, one statement, in the
 * transaction of the change it accounts for. Rows are only ever added, so two transactions making
 * customers (an order each, for a new buyer) never wait for each other on a count.
 */
export async function adjustCounts(
  db: Db,
  tenantId: string,
  deltas: ReadonlyMap<string, number>,
): Promise<void> {
  const rows = [...deltas]
    .filter(([, n]) => n !== 0)
    .map(([tag, n]) => ({ tenant_id: tenantId, list: 'customers', key: tag, delta: n }));
  if (rows.length === 0) return;
  await db.insertInto('list_count_deltas').values(rows).execute();
}

export interface CustomerFilter {
  q?: string | undefined;
  tag?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
}

/** Whether the kept counts answer `total` (text and time filters need a COUNT). */
export function countable(filter: CustomerFilter): boolean {
  return filter.q === undefined && filter.from === undefined && filter.to === undefined;
}

/** The folded text `q` searches (the same fold as product search; migration 0020 indexes it). */
const SEARCH_TEXT: Record<DialectName, RawBuilder<string>> = {
  sqlite: sql`search_fold(email || char(10) || coalesce(name, '') || char(10) || coalesce(phone, ''))`,
  postgres: pgFold(sql`email || chr(10) || coalesce(name, '') || chr(10) || coalesce(phone, '')`),
};

/**
 * The customers `filter` selects. Column references name `customers`: with `seek`, the `tag`'s
 * `customer_tags` rows are joined, and a list in creation order walks them by `customer_tags_seek_idx`
 * (tenant, tag, created, customer_id: a tag row carries its customer's `created`), so a page costs
 * the same however many customers have the tag. Without it, the tag is an EXISTS probe per
 * customer walked: `id IN (subquery)` made SQLite build the list of every customer with the tag on
 * each request (200 ms for a tag on 200,000 customers).
 */
function filtered(db: Db, dialect: DialectName, tenantId: string, filter: CustomerFilter, seek = false) {
  const tag = filter.tag;
  const seeking = seek && tag !== undefined;
  // SQLite: with `q` the search table's matches drive the query (below), so the tenant's indexes
  // are kept out of the plan: without statistics SQLite would rather walk every customer of the
  // tenant in the sort's order and test each against the matches (100 ms at 1,000,000 customers,
  // for a `q` matching one). The `+` makes the tenant comparison usable by no index.
  const searchTable = filter.q !== undefined && dialect === 'sqlite' && [...searchFold(filter.q)].length >= 3;
  let query = db
    .selectFrom('customers')
    .where(
      searchTable ? sql<string>`+${sql.ref('customers.tenant_id')}` : 'customers.tenant_id',
      '=',
      tenantId,
    )
    .$if(seeking, (qb) =>
      qb.innerJoin('customer_tags', (join) =>
        join
          .onRef('customer_tags.customer_id', '=', 'customers.id')
          .on('customer_tags.tenant_id', '=', tenantId)
          .on('customer_tags.tag', '=', tag as string),
      ),
    );
  if (tag !== undefined && !seeking) {
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('customer_tags')
          .select('customer_tags.customer_id')
          .where('customer_tags.tenant_id', '=', tenantId)
          .where('customer_tags.tag', '=', tag)
          .whereRef('customer_tags.customer_id', '=', 'customers.id'),
      ),
    );
  }
  // Joined, the time range bounds the walk of the tag's index (the same value as the customer's).
  const created = sql.ref<number>(seeking ? 'customer_tags.created' : 'customers.created');
  if (filter.from !== undefined) query = query.where(created, '>=', filter.from);
  if (filter.to !== undefined) query = query.where(created, '<=', filter.to);
  if (filter.q !== undefined) {
    const folded = searchFold(filter.q);
    const pattern =
      dialect === 'sqlite' ? sql.val(likePattern(folded)) : pgFold(sql.val(likePattern(filter.q)));
    query = query.where(sql<boolean>`${SEARCH_TEXT[dialect]} like ${pattern} escape '\\'`);
    // SQLite: the FTS5 trigram table narrows the rows first (it needs at least 3 characters).
    if (searchTable) {
      query = query.where(
        sql<boolean>`customers.seq in (select rowid from customers_search where customers_search match ${ftsPhrase(folded)})`,
      );
    }
  }
  return query;
}

const SORTS: Record<
  CustomerSort,
  { column: 'created' | 'total_spent_sort' | 'email_key'; direction: 'asc' | 'desc' }
> = {
  '-created': { column: 'created', direction: 'desc' },
  created: { column: 'created', direction: 'asc' },
  '-total_spent': { column: 'total_spent_sort', direction: 'desc' },
  email: { column: 'email_key', direction: 'asc' },
};

export function sortColumn(sort: CustomerSort): 'created' | 'total_spent_sort' | 'email_key' {
  return SORTS[sort].column;
}

/** One page, `limit + 1` rows: a keyset seek past the cursor, or OFFSET without one. */
export async function listCustomers(
  db: Db,
  dialect: DialectName,
  tenantId: string,
  filter: CustomerFilter,
  sort: CustomerSort,
  window: PageWindow,
): Promise<CustomerRow[]> {
  const { column, direction } = SORTS[sort];
  // A `tag` page in creation order walks the tag's rows (see `filtered`), with the search table
  // driving instead when there is a `q`.
  const seek = filter.tag !== undefined && column === 'created' && filter.q === undefined;
  const [key, id] = seek
    ? [sql.ref<number>('customer_tags.created'), sql.ref<string>('customer_tags.customer_id')]
    : [sql.ref<number | string>(`customers.${column}`), sql.ref<string>('customers.id')];
  let query = filtered(db, dialect, tenantId, filter, seek).select(LISTED);
  if (window.cursor) {
    const [value, after] = window.cursor.after;
    const op = sql.raw(direction === 'desc' ? '<' : '>');
    query = query.where(sql<boolean>`(${key}, ${id}) ${op} (${value}, ${after})`);
  } else if (window.offset > 0) {
    query = query.offset(window.offset);
  }
  return query
    .orderBy(key, direction)
    .orderBy(id, direction)
    .limit(window.limit + 1)
    .execute();
}

/** Exact total: from the kept counts (list `customers`) when it can be, a COUNT otherwise. */
export async function countCustomers(
  db: Db,
  dialect: DialectName,
  tenantId: string,
  filter: CustomerFilter,
): Promise<number> {
  if (countable(filter)) return countList(db, tenantId, 'customers', { only: filter.tag ?? '' });
  // A tag with a time range counts the tag's rows in it (the seek); with `q`, the search's matches.
  const seek = filter.tag !== undefined && filter.q === undefined;
  const { n } = await filtered(db, dialect, tenantId, filter, seek)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}
